// Regex pieces the JSON Schema converter (json_schema.h) builds terminals from: exact digit-range
// regexes for integer and number bounds, JSON-string and raw-text character units, and the
// translation of JSON Schema `pattern`s (ECMA-262 syntax) into Rust regex syntax over the
// encoded text (docs/grammar.md "JSON Schema").
//
// All results are Rust regex SOURCE (the regex layer); kbnf_regex() (kbnf_writer.h) wraps them.
// Threading: pure functions. Errors: translate_pattern() returns a Result naming the offending
// pattern construct; the range functions return nullopt for an empty range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace ai00::internal::grammar {

// Canonical JSON integers (no leading zeros, no "-0") in [lo, hi]; a missing bound is unbounded.
// nullopt when lo > hi. Bounds must satisfy |b| <= 1e18 (the converter checks).
std::optional<std::string> integer_range_regex(std::optional<int64_t> lo,
                                               std::optional<int64_t> hi);

// JSON numbers without exponent in the interval between lo and hi, each bound inclusive or
// exclusive (|value| <= 1e18; a double bound means the shortest decimal that reads back as it,
// e.g. 0.1): the digit range of the integer part combined with a lexicographic range of the
// fraction digits where the integer part equals an end point's. Exact (trailing zeros and "-0.5"
// style negatives included). nullopt when the interval is empty.
struct NumberBound {
  double value = 0;
  bool exclusive = false;
};
std::optional<std::string> number_range_regex(std::optional<NumberBound> lo,
                                              std::optional<NumberBound> hi);

// How decoded string characters appear in the output text.
enum class StringEncoding {
  json,       // inside a JSON string: `"`, `\` and controls only as escapes
  raw,        // ai00 v1 parameter text: every character as itself
  raw_no_lt,  // raw, but never `<` (used where a value must not be able to contain a marker)
};

// One character of the given encoding (a JSON character may be an escape sequence; a surrogate
// pair escape counts as one character, as JSON Schema lengths count code points).
std::string string_unit_regex(StringEncoding enc);

// JSON strings whose decoded value is none of `keys` (the names of additional properties next to
// listed ones), as two regexes: `first` matches whole strings that end inside the key trie
// (empty when there are none), `second` matches an opening quote and a prefix that has just left
// the trie; the caller appends any string tail `(?:unit)*"` as a separate terminal so the tail
// is not copied per trie node. Exact for canonically written strings; where a listed key goes on
// with a character JSON must escape, other escapes are not offered (never accepts a listed key).
// Its regexes nest one group per code point of the longest key: callers check
// excluding_regex_depth(keys) against max_nesting_depth first (a longer key is an error).
std::pair<std::string, std::string> json_string_excluding_regex(
    const std::vector<std::string>& keys);
// The group nesting json_string_excluding_regex gives `keys`.
size_t excluding_regex_depth(const std::vector<std::string>& keys);

// The encoded text of every string that contains a match of the ECMA-262 `pattern` (anchors ^ and
// $ at the ends of top-level alternatives anchor it, as JSON Schema says). Supported: literals,
// escapes (\d \w \s \D \W \S \t \n \r \f \v \0 \xHH \uHHHH \u{…}, escaped punctuation), `.`,
// classes with ranges and negation, groups (capturing, (?:…), named), alternation, quantifiers
// * + ? {m} {m,} {m,n} (lazy forms match the same set). Anything else — backreferences,
// lookaround, \b, anchors inside an alternative — is an ErrorKind::grammar error. In the json
// encoding a character the pattern allows that JSON must escape is matched in escaped form, so
// the result never produces a raw `"`, `\` or control character.
Result<std::string> translate_pattern(std::string_view pattern, StringEncoding enc);

}  // namespace ai00::internal::grammar
