// Tool-call grammars built from a chat format's syntax description (base/chat_syntax.h; seed
// 003 unified grammar, docs/grammar.md), at the `structural` and `schema_aware`
// levels. The builders know no format: XML-style calls with raw values and JSON-object calls,
// with any markers, differ only in the ChatSyntax passed in.
//
// Shape, with the syntax's fields in capitals (s = syntax, t = s.tool_calls):
//   start       ::= OPEN #ex'CLOSE'? CLOSE after_think | first_text
//                   (forced open: COMPLETION? #ex'CLOSE'? CLOSE after_think;
//                    no thinking markers: first_text)
//   after_think ::= #ex'TRIGGER|END'? end
//   first_text  ::= #ex'OPEN|TRIGGER|END'? end
//   end         ::= calls | END                                  (end? with allow_eos_end)
//                   (choice none: END only; required / named: after_think and first_text are
//                    ws calls, no text)
//   calls       ::= SECTION_OPEN call (CALL_SEPARATOR call)* SECTION_CLOSE
//                 | call (CALL_SEPARATOR call)* BEFORE_END? END          (no SECTION_CLOSE)
//                   (parallel_calls false: one call, no repetition)
//   call        ::= CALL_OPEN BODY CALL_CLOSE         (BODY as in base/chat_syntax.h)
// where OPEN, CLOSE, COMPLETION are s.thinking.open, .close, .forced_open_completion, TRIGGER
// and the capitalised call markers are t's fields, and END is s.end_of_turn.
// Each text region is ONE terminal excluding every marker that may follow it, so the grammar is
// unambiguous and prefix-free: text may span lines and paragraphs and ends only at the end of
// the turn (or, with allow_eos_end, at end of text). A thinking block may be empty; a syntax
// without thinking markers has no block. At schema_aware each tool is one alternative with its
// name spliced through the KBNF writer and each argument typed by its schema (json_schema.h):
// raw text per parameter in the xml style, a JSON object in the json style (when the name
// follows the arguments, the Earley matcher keeps every tool alive until the name decides).
//
// Threading: pure functions. Errors: Result with ErrorKind::format for a malformed tool list
// or a name the syntax cannot write (naming its JSON pointer), ErrorKind::grammar for an
// unsupported parameter schema, ErrorKind::invalid_argument for level none or a syntax without
// the markers a grammar needs (no trigger, no end_of_turn, forced-open thinking without markers).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/chat_syntax.h"
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

// Which calls a turn may or must make (OpenAI's tool_choice and parallel_tool_calls; seed 003
// has only `auto`). Every choice keeps the thinking block as `thinking` says.
enum class ToolChoiceMode {
  automatic,  // text, or text then calls (seed 003's unified grammar)
  none,       // text only: the tools are shown in the prompt, no call may be made
  required,   // the reply is the call block (after the thinking block), at least one call
  named,      // as required, every call to the tool `ToolChoice::name`
};
const char* tool_choice_name(ToolChoiceMode mode);  // "auto", "none", "required", "named"

struct ToolChoice {
  ToolChoiceMode mode = ToolChoiceMode::automatic;
  std::string name;            // named: the tool (must be in the list; at structural any name
                               // the syntax can write)
  bool parallel_calls = true;  // false: at most one call per block
};

struct ToolGrammarOptions {
  ChatSyntax syntax;  // the format's turn shape: markers, call style, end of turn
  ToolChoice choice;  // automatic: seed 003's grammar
  ValidationLevel level = ValidationLevel::structural;  // none is an invalid_argument error
  ThinkingStart thinking = ThinkingStart::optional;     // forced_open: prompt opened the block
  bool allow_eos_end = false;  // a text answer may also end at end of text, without the stop
                               // sequence (not prefix-free then; fine under end policy `eos`)
  JsonSchemaOptions schema = JsonSchemaOptions::canonical();  // argument values (schema_aware)
};

struct ToolGrammar {
  std::string kbnf;                   // complete grammar, start rule `start`
  std::vector<std::string> warnings;  // from lenient schema conversion
};

// The unified grammar for `tools` under options.syntax. An empty list at schema_aware leaves
// only thinking and text (no call can be valid); at structural any well-formed call is allowed.
// options.choice narrows it: `none` drops the calls, `required` and `named` drop the text
// (the start rule leads to the call block), `named` keeps one tool, `parallel_calls = false`
// one call. ErrorKind::invalid_argument for `required`/`named` without tools (schema_aware) and
// for a `named` tool that is not in the list (the message names it) or is empty.
Result<ToolGrammar> build_tool_grammar(const std::vector<ToolSpec>& tools,
                                       const ToolGrammarOptions& options);

}  // namespace ai00::internal::grammar
