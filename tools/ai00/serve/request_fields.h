// The field groups of a request body (request_parser.cpp puts them together): sampling, stop,
// messages, tools, thinking, and the one constraint (grammar / response_format / tool_choice).
#pragma once

#include <ai00/ai00.hpp>
#include <string>

#include "json_reader.h"
#include "request.h"
#include "request_parser.h"

namespace ai00::serve {

// preset, temperature, top_p, top_k, min_p, presence/frequency/repetition penalties,
// penalty_decay, seed, max_tokens / max_completion_tokens.
void read_sampling(ObjectReader& r, const ParserSettings& s, ai00::GenerateOptions& out);
// stop: a string or an array of strings.
void read_stop(ObjectReader& r, ai00::GenerateOptions& out);
// messages -> the library's message JSON (OpenAI's shapes; "developer" becomes "system").
std::string read_messages(ObjectReader& r);
// tools (OpenAI {"type":"function","function":{...}} or seed 003 {"name","input_schema"})
// -> the library's tool list [{name, description, parameters}]; "" without tools.
std::string read_tools(ObjectReader& r);
// thinking (extension: false/true/"off"/"on"/"a-bit"/"a-lot") or reasoning_effort.
void read_thinking(ObjectReader& r, GenerationRequest& out);
// bnf_validation, grammar / bnf_schema, response_format, tool_choice.
void read_constraint(ObjectReader& r, GenerationRequest& out);

}  // namespace ai00::serve
