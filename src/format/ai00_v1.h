// ai00 chat format v1 (seed 000): `<ai00:ROLE>\ncontent\n</ai00:ROLE>` turns joined by "\n\n".
//
// * Content newlines are kept as-is. Earlier reasoning is rendered as "<think>\n…\n</think>\n".
// * Tools go in the system turn as an <ai00:available_tools> block, one <tool name="…"> holding
//   {name, description, input_schema} laid out as in the seed (4-space JSON inside the tag,
//   objects and arrays of scalars on one line). No system message but tools → a system turn
//   holding only the block.
// * Calls: <ai00:function_calls> with one <invoke name> per call and one
//   <parameter name>value</parameter> per argument (strings raw, other values as compact JSON).
//   Results follow in <ai00:function_results>, one <result name="CALL_ID"> per call, inside the
//   same assistant turn; a value result is written on one line as {"k": v, ...}, a text result
//   verbatim, each line indented by four spaces. A conversation ending in tool results renders a
//   prompt that ends after "</ai00:function_results>\n\n": the model continues that turn.
// * Generation prompt "<ai00:assistant>\n" or, when thinking, "<ai00:assistant>\n<think>\n"
//   (forced open: the parser starts in reasoning). Default stop "</ai00:assistant>".
// * The output parser ends the turn after </ai00:function_calls> (finish reason tool_calls) and
//   types each parameter by the tool's JSON Schema (docs/chat-formats.md "Formats").
// * Marker policy (docs/chat-formats.md "Escaping"): user and tool text may not contain "<ai00:"
//   or "</ai00:"; system text may not contain a turn marker; JSON (tool list, value results,
//   non-string parameter values) is escaped ('<' as \u003c); the assistant's text, reasoning and
//   raw parameter values are refused only where the parser would read them back differently
//   (the end of the turn; "</think>" in reasoning; "</parameter>" in a value), so every message
//   the output parser produces renders again. Names (tools, parameters, speakers, result ids) are
//   attribute values: anything but '"', '<', '>', space and control bytes, as the parser reads
//   them. A speaker name is written as <ai00:user name="Alice"> (our extension).
//
// Threading: the format is immutable; parsers are per stream. Errors: see format.h.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/format.h"

namespace ai00::internal::format {

// The `[prompts]` section of Config.toml (seed 000 "Configuration").
struct Ai00V1Options {
  std::string role_user = "user";
  std::string role_assistant = "assistant";
  std::string role_system = "system";
  // Empty: derived from role_assistant ("<ai00:assistant>\n", "<ai00:assistant>\n<think>\n").
  std::string assistant_prefix;
  std::string assistant_prefix_thinking;
  // Empty: "</ai00:" + role_assistant + ">".
  std::vector<std::string> default_stop_sequences;
};

std::shared_ptr<const ChatFormat> make_ai00_v1(const Ai00V1Options& options = {});

// The seed's building blocks, exposed for tests and for callers that assemble prompts by hand.
std::string ai00_v1_available_tools(const std::vector<ToolDesc>& tools);
// Errors (pointer-relative) when a string argument contains "</parameter>" or `stop` (the end
// of the assistant turn); other values are JSON with markers escaped.
Result<std::string> ai00_v1_function_calls(const std::vector<ToolCall>& calls,
                                           const std::string& pointer,
                                           std::string_view stop = "</ai00:assistant>");
// `results` are tool messages; `ids` the <result name> of each (normally their tool_call_id).
Result<std::string> ai00_v1_function_results(const std::vector<const Message*>& results,
                                             const std::vector<std::string>& ids,
                                             const std::vector<std::string>& pointers);

// Types a raw parameter text by a property schema (nullptr = unknown → string). Returns the
// value and, when the text did not fit the schema, sets `warning`.
json::Value ai00_v1_type_parameter(const std::string& raw, const json::Value* schema,
                                   std::string& warning);

}  // namespace ai00::internal::format
