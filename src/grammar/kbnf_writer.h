// The one place where grammar builders turn strings into KBNF text (docs/grammar.md "KBNF engine":
// "every spliced string goes through one KBNF-literal writer"). Tool names, parameter names,
// enum values, JSON keys and regex fragments built by json_schema.cpp, tool_grammar.cpp and
// thinking.cpp all pass through these functions, so a quote, backslash, newline or stray byte in
// user data can never change the grammar's structure.
//
// Two escape layers exist in KBNF (docs/grammar.md "KBNF syntax"): the literal layer (`'…'`, with
// \n \t \' \\ \xHH …) and, inside `#'…'`, the regex layer (Rust `regex` syntax) underneath it.
// kbnf_literal() applies the first layer to bytes; regex_escape() applies the second to text that
// must match itself; kbnf_regex() applies the first layer to regex source.
//
// Threading: pure functions. Errors: none (every byte string has a KBNF spelling).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ai00::internal::grammar {

// `'bytes'`: a KBNF literal that parse_kbnf reads back to exactly `bytes`. Printable ASCII and
// valid UTF-8 sequences are written as they are; `'` and `\` are escaped; \n \r \t use their short
// escapes; other control bytes and every byte that is not part of a valid UTF-8 sequence are
// written as \xHH.
std::string kbnf_literal(std::string_view bytes);

// The regex-layer spelling of `text` (before the literal layer): Rust regex metacharacters are
// backslash-escaped and control characters written as \x{HH}, so the regex matches exactly
// `text`. `text` must be valid UTF-8 (regexes match code points); invalid bytes are written as
// \x{HH} code points, which is the best the regex layer can express.
std::string regex_escape(std::string_view text);

// One code point as a regex atom usable both inside and outside a character class: ASCII letters
// and digits as themselves, everything else as \x{HEX}.
std::string regex_code_point(uint32_t cp);

enum class RegexKind {
  full,        // #'re'   whole-item match
  early,       // #e're'  ends at the first match
  complement,  // #ex're' non-empty text containing no match of re
};

// `#'re'`, `#e're'` or `#ex're'`: `regex` is Rust regex source; the literal layer is applied to
// it (each backslash doubled, quotes escaped), so the regex compiler sees exactly `regex`.
std::string kbnf_regex(std::string_view regex, RegexKind kind = RegexKind::full);

// JSON string escaping of UTF-8 text, without the surrounding quotes: `"` `\` and control
// characters are escaped (short forms where JSON has them, else \u00XX); everything else is kept,
// which is the canonical form the JSON grammars generate.
std::string json_escape(std::string_view text);
// `"` + json_escape(text) + `"`.
std::string json_quote(std::string_view text);

// A KBNF identifier ([A-Za-z_][A-Za-z0-9_]*) derived from `hint`: other bytes become `_`, a
// leading digit gets a `_` prefix, an empty hint becomes `_`. Not injective: callers that need
// unique names add a counter.
std::string kbnf_identifier(std::string_view hint);

}  // namespace ai00::internal::grammar
