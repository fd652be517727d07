// KBNF text -> Grammar (docs/grammar.md "KBNF syntax": the kbnf-syntax 0.5.3 dialect, with
// quote-aware grouping, fix #1 of section 3).
//
// Threading: a pure function, safe from any thread.
// Errors: returns a Result holding ErrorKind::grammar with a message
// "line L, column C: expected X, found Y" (1-based, columns in bytes) for any syntax error,
// including a bad escape in a literal. Undefined rules are NOT reported here (a builder may add
// them after parsing): compile() names them, and check_references() below does the same early.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "grammar/grammar.h"

namespace ai00::internal::grammar {

struct ParseOptions {
  std::string start = "start";  // start symbol stored in Grammar::start
};

Result<Grammar> parse_kbnf(std::string_view text, const ParseOptions& options = {});

// Unescapes the body of a KBNF literal (without its quotes) as kbnf-syntax does: \b \f \n \r \t
// \v \' \" \\ \/, \uHHHH, \u{X...}, \xHH, octal \NNN; anything else is an error. `pos` is the
// position of the first body byte, used in the error message.
Result<std::string> unescape_kbnf_literal(std::string_view body, SourcePos pos);

// ErrorKind::grammar "line L, column C: undefined rule `name`" for the first reference to a rule
// that has no definition, or "undefined start rule `start`"; an empty ErrorInfo message if fine.
ErrorInfo check_references(const Grammar& g);

}  // namespace ai00::internal::grammar
