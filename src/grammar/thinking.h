// The thinking wrapper and the validation level choice (seed 003, docs/grammar.md
// "Thinking wrapper", "Tool grammars").
//
// wrap_thinking() lets an optional thinking block come before any grammar (a custom `bnf_schema`
// when thinking is on), or starts the grammar inside a block the prompt already opened. It works
// on the PARSED grammar: the start rule is renamed on the AST (every definition and every
// reference) and a fresh start rule is added, so `restart ::=`, `start =` and comments never
// confuse it (the known fork renamed `start::=` by text replacement).
//
// Threading: pure functions. Errors: Result with ErrorKind::grammar (a KBNF syntax error with its
// line:column, an undefined start rule).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/chat_syntax.h"
#include "base/result.h"
#include "grammar/grammar.h"

namespace ai00::internal::grammar {

// Seed 003 validation levels.
enum class ValidationLevel {
  none,          // no grammar
  structural,    // well-formed thinking / call structure, terminated
  schema_aware,  // plus tool names from the list and argument values by schema
};

// "none", "structural", "schema_aware" (ErrorKind::invalid_argument otherwise).
Result<ValidationLevel> parse_validation_level(std::string_view name);
const char* validation_level_name(ValidationLevel level);

// Seed 003: an explicit level wins; otherwise tools or thinking switch `structural` on.
ValidationLevel choose_level(std::optional<ValidationLevel> explicit_level, bool has_tools,
                             bool thinking);

// Where the output starts relative to the thinking block.
enum class ThinkingStart {
  optional,     // output may begin with `open … close`, then the wrapped grammar
  forced_open,  // the prompt opened the block: the output first writes the rest of `open`
                // (ThinkingSyntax::forced_open_completion, often nothing), then closes it
};

// Renames g.start to a fresh name and adds
//   optional:    start ::= open #ex'close'? close ws inner | inner;
//   forced_open: start ::= completion #ex'close'? close ws inner;
// where ws is #'[ \t\r\n]*', completion is markers.forced_open_completion (omitted when empty)
// and the block may be empty. ErrorKind::grammar if g has no start rule,
// ErrorKind::invalid_argument if markers.open or markers.close is empty.
Result<Grammar> wrap_thinking(Grammar g, ThinkingStart start, const ThinkingSyntax& markers);

// parse_kbnf + wrap_thinking + Grammar::to_kbnf.
Result<std::string> wrap_thinking_kbnf(std::string_view kbnf, ThinkingStart start,
                                       const ThinkingSyntax& markers);

// The thinking-only grammar of a turn without tool calls: the thinking block (optional or
// forced open, as above), then free text to the end of the turn.
Result<std::string> thinking_only_kbnf(const ThinkingSyntax& markers, ThinkingStart start);

}  // namespace ai00::internal::grammar
