// Internal to regex*.cpp: the regex syntax tree (regex_parse.cpp builds it, regex.cpp turns it
// into a byte NFA and then a DFA) and code point range-set helpers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "grammar/regex.h"

namespace ai00::internal::grammar::rx {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;

// Range-set algebra over sorted, disjoint, inclusive ranges.
void normalize(CodeRanges& r);           // sort and merge
CodeRanges negate(const CodeRanges& r);  // complement within 0..0x10FFFF
CodeRanges intersect(const CodeRanges& a, const CodeRanges& b);
void add_ascii_case(CodeRanges& r);  // (?i): ASCII letters in both cases

enum class NodeKind : uint8_t {
  empty,         // matches ""
  chars,         // one code point from `ranges`
  bytes,         // one raw byte from `ranges` (values 0..255; \xHH in (?-u) or literal bytes)
  concat,        // kids in order
  alternate,     // any kid
  repeat,        // kid 0 repeated min..max times (max = -1: unbounded)
  assert_start,  // \A or ^: only at the start of the terminal
  assert_end,    // \z or $: only at the end of the terminal
};

struct Node {
  NodeKind kind = NodeKind::empty;
  CodeRanges ranges;
  std::vector<int> kids;
  int min = 0, max = 0;
};

struct Ast {
  std::vector<Node> nodes;
  int root = -1;
};

// Parses Rust regex syntax (regex.h lists what is covered). Errors: ErrorKind::grammar,
// "regex offset N: ...".
Result<Ast> parse_regex(std::string_view pattern);

}  // namespace ai00::internal::grammar::rx
