// KBNF terminals -> byte-level DFAs (docs/grammar.md "KBNF syntax", "Semantics",
// "Differences from kbnf").
//
// Every terminal kind becomes one deterministic automaton over UTF-8 bytes: literals, regexes
// (Rust `regex` syntax: classes, negation, ranges, \d \w \s and their negations, `.`, quantifiers
// including {m,n} and lazy forms, alternation, groups, (?i) (?s) (?x) flags, \A \z ^ $, \p{..}
// general categories), #e (ends at the first non-empty match), #ex (non-empty text containing no
// match anywhere) and #substrs (every substring, the empty one included).
// Construction is a subset construction that only visits reachable states, bounded by a budget
// shared by one grammar; states that cannot reach acceptance are removed (they become kDead).
//
// Unicode: \d = Nd, \s = White_Space, \w = L + M + Nd + Nl + Pc + U+200C/U+200D (Rust's \w uses
// Alphabetic, which adds ~1,100 Other_Alphabetic marks already in M); \p{X} accepts every general
// category and group (L, Lu, Ll, Lt, Lm, Lo, M, Mn, Mc, Me, N, Nd, Nl, No, P, Pc, Pd, Ps, Pe, Pi,
// Pf, Po, S, Sm, Sc, Sk, So, Z, Zs, Zl, Zp, C, Cc, Cf, Co, Cn, Cs and their long names) plus
// Any, ASCII, White_Space and Alphabetic (Unicode 14 tables, unicode_tables.cpp). Scripts
// (\p{Han}) and word boundaries (\b) are rejected with an error. (?i) folds ASCII letters only.
//
// Ownership and threading: a Dfa is an immutable value after build_terminal_dfa returns.
// Errors: build_terminal_dfa returns ErrorKind::grammar with "regex offset N: ..." for syntax
// errors, "... exceeds the limit max_grammar_states = N" when the budget runs out (also on the
// first state of a terminal) and "... exceeds the limit max_string_bytes = N" for a text too
// long, checked before any work; the compiler prefixes the terminal's line:column.
// #substrs builds the suffix automaton of its text directly (linear time and at most 2n states),
// never a subset construction over position sets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "grammar/grammar.h"

namespace ai00::internal::grammar {

struct Dfa {
  static constexpr uint32_t kDead = 0xffffffffu;
  uint8_t byte_class[256] = {};  // byte -> column of `next`
  uint32_t num_classes = 1;
  std::vector<uint32_t> next;         // [state * num_classes + class] -> state or kDead
  std::vector<uint8_t> accepting;     // [state] the terminal may end here
  std::vector<uint8_t> live_out;      // [state] some byte leads to a live state
  std::vector<uint64_t> first_bytes;  // [state * 4 + w]: bit b set if byte b leads to a live state
  uint32_t start = 0;

  size_t num_states() const { return accepting.size(); }
  uint32_t step(uint32_t s, uint8_t b) const { return next[s * num_classes + byte_class[b]]; }
  bool nullable() const { return accepting[start] != 0; }
};

struct DfaBudget {
  size_t max_dfa_states = 50000;              // remaining for the whole grammar; decremented
  size_t max_nfa_states = 200000;             // per terminal
  size_t dfa_limit = 50000;                   // the initial max_dfa_states, named in the error
  size_t max_string_bytes = size_t(1) << 20;  // one terminal's text, checked before any work
};

// Builds the automaton of one terminal (kind is one of the five terminal ExprKinds; text as in
// Expr::text). The empty language yields a Dfa whose start state is dead-ended and not accepting.
Result<Dfa> build_terminal_dfa(ExprKind kind, std::string_view text, DfaBudget& budget);

// Sorted, disjoint, inclusive code point ranges.
using CodeRanges = std::vector<std::pair<uint32_t, uint32_t>>;
// Looks up a Unicode property name for \p{name} (unicode_tables.cpp); false if unknown.
bool unicode_property(std::string_view name, CodeRanges& out);

}  // namespace ai00::internal::grammar
