// One generation request of the HTTP API, after parsing and checking (request_parser.h), in the
// terms of the public C++ API: what to render, how to sample, what grammar constrains the reply.
// Plain data; no handle of the library lives here, so a request can be parsed, queued and logged
// before any model work (grammars are compiled later, in the scheduler, against the model).
#pragma once

#include <ai00/ai00.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace ai00::serve {

// Where a request constrains its reply beyond the chat format (at most one per request).
enum class ConstraintKind {
  none,         // only bnf_validation (the library's automatic / structural / schema_aware)
  kbnf,         // `grammar` (or the seed 003 alias `bnf_schema`): KBNF text
  json_schema,  // response_format json_object / json_schema: a JSON Schema text
  tool_call,    // tool_choice "required" or a named function: options.tool_choice forces a
                // call block through the library's tool grammar
};

struct Constraint {
  ConstraintKind kind = ConstraintKind::none;
  std::string text;   // KBNF or JSON Schema text
  std::string param;  // JSON pointer of the field it came from, for errors
};

struct GenerationRequest {
  bool chat = true;        // /v1/chat/completions (else /v1/completions: raw prompt)
  std::string model_name;  // echoed in responses ("model")
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage

  // chat: the library's message JSON (seed 004, OpenAI shapes accepted) and tool list.
  std::string messages_json;
  std::string tools_json;           // "" = no tools
  bool parallel_tool_calls = true;  // as the request said (options: where a tool grammar applies)
  std::string chat_format;          // "ai00-v1", "goose", ... (extension field `chat_format`)
  ai00_thinking thinking = AI00_THINKING_OFF;
  // raw: the prompt text.
  std::string prompt;

  // sampler, max_tokens, seed, stops, grammar_mode, tool_choice, parallel_tool_calls
  ai00::GenerateOptions options;
  Constraint constraint;
};

}  // namespace ai00::serve
