// Tool-call grammars of the chat formats (seed 003 unified grammar, docs/grammar.md
// "Tool grammars"): ai00 v1 `<ai00:function_calls>` / `<invoke>` / `<parameter>` blocks (seed 000)
// and OpenChatML `<|function_call|>` JSON calls (seed 002), at the `structural` and `schema_aware`
// levels.
//
// Shape (ai00 v1; OpenChatML has the same with its own markers):
//   start       ::= '<think>' #ex'</think>'? '</think>' after_think | first_text
//   after_think ::= #ex'<ai00:function_calls>|</ai00:assistant>'? end
//   first_text  ::= #ex'<think>|<ai00:function_calls>|</ai00:assistant>'? end
//   end         ::= calls | '</ai00:assistant>'                  (end? with allow_eos_end)
// Each text region is ONE terminal excluding every marker that may follow it, so the grammar is
// unambiguous and prefix-free: text may span lines and paragraphs and ends only at the stop
// sequence (or, with allow_eos_end, at end of text). A thinking block may be empty. Call blocks
// follow the seed byte for byte; at schema_aware each tool is one alternative with its name
// spliced through the KBNF writer and each parameter typed by its schema (json_schema.h; ai00 v1
// values are raw text, OpenChatML arguments are JSON). The grammar completes at
// `</ai00:function_calls>` (ai00 v1) or at `<|im_end|>` after the calls (OpenChatML).
//
// Threading: pure functions. Errors: Result with ErrorKind::format for a malformed tool list
// (naming its JSON pointer) and ErrorKind::grammar for an unsupported parameter schema.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "grammar/json_schema.h"
#include "grammar/thinking.h"

namespace ai00::internal::grammar {

// One tool as the chat formats describe it. Accepted JSON spellings: {name, description,
// parameters, returns?}, the OpenAI wrapper {type: "function", function: {...}}, and seed 000's
// `input_schema` for parameters.
struct ToolSpec {
  std::string name;
  std::string description;
  std::string parameters_json;  // JSON Schema text of the arguments object; "" = no parameters
  std::string returns_json;     // JSON Schema text of the result; "" = not given (not used here)
};

// A JSON array of tools (or one tool object, or {"tools": [...]}). ErrorKind::format naming the
// JSON pointer of the first problem (missing or non-string name, duplicate name, bad schema type).
Result<std::vector<ToolSpec>> parse_tool_list(std::string_view json);

enum class ToolFormat { ai00_v1, openchatml };
// "ai00-v1" or "openchatml" (ErrorKind::invalid_argument otherwise).
Result<ToolFormat> parse_tool_format(std::string_view name);

struct ToolGrammarOptions {
  ToolFormat format = ToolFormat::ai00_v1;
  ValidationLevel level = ValidationLevel::structural;  // none is an invalid_argument error
  ThinkingStart thinking = ThinkingStart::optional;     // forced_open: prompt opened the block
  bool allow_eos_end = false;  // a text answer may also end at end of text, without the stop
                               // sequence (not prefix-free then; fine under end policy `eos`)
  JsonSchemaOptions schema;    // for argument values at schema_aware
};

struct ToolGrammar {
  std::string kbnf;                   // complete grammar, start rule `start`
  std::vector<std::string> warnings;  // from lenient schema conversion
};

// The unified grammar for `tools` (may be empty: then only thinking and text).
Result<ToolGrammar> build_tool_grammar(const std::vector<ToolSpec>& tools,
                                       const ToolGrammarOptions& options);

}  // namespace ai00::internal::grammar
