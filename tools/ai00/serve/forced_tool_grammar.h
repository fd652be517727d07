// The KBNF of a reply that must be a tool call (tool_choice "required" or a named function):
// the library's schema_aware tool grammar for the chat format (ai00_grammar_new_for_tools, at
// byte level), with its start rule replaced by the call block alone and, for a named function,
// the call alternatives narrowed to that tool; with parallel_tool_calls false, one call only.
// The text is then compiled against the model like any custom grammar, so the library still
// wraps it with the thinking block when thinking is on (docs/generation.md "Grammar choice").
#pragma once

#include <ai00/ai00.hpp>
#include <string>

namespace ai00::serve {

// `tools_json`: the library tool list; `tool_index`: the position of the forced tool, or -1 for
// any. Throws ApiError 400 (param `param`) when the format has no tool-call grammar or a schema
// is unsupported, and 500 when the library's grammar no longer has the rules this edits.
std::string forced_tool_grammar(const ai00::ChatTemplate& tmpl, const std::string& tools_json,
                                int tool_index, bool single_call, const std::string& param);

}  // namespace ai00::serve
