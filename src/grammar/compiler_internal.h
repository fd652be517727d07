// Internal to compiler.cpp / matcher.cpp: the immutable compiled grammar (CompiledGrammar::Impl).
//
// Productions are flat CSR arrays over symbols: a symbol >= 0 is a nonterminal id, a symbol < 0
// is the terminal ~symbol. Production 0 is the augmented `start' ::= start`, so a complete parse is
// the item (0, dot 1, origin 0). Productions of one nonterminal are contiguous.
//
// Token classes per (terminal, DFA state), computed on first use and published through an
// atomic pointer (compute, then compare-exchange; the loser frees its copy), so a compiled grammar
// is shared across threads without locks.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "grammar/matcher.h"
#include "grammar/regex.h"

namespace ai00::internal::grammar {

struct Terminal {
  ExprKind kind;
  std::string text;
  SourcePos pos;
  Dfa dfa;
};

// How the tokens of the vocabulary fare when a terminal in DFA state s reads them first.
struct TokenClasses {
  // Tokens consumed entirely with the terminal still alive: allowed whatever follows.
  // Stored as a bitset (mask_words) when large, else as a sorted id list.
  std::vector<uint64_t> inside_bits;
  std::vector<uint64_t> inside_rank_bits;  // the same set by trie rank (VocabIndex::rank_begin)
  std::vector<uint32_t> inside_ids;
  std::vector<uint32_t> inside_ranks;  // parallel to inside_ids
  // Tokens whose bytes leave the terminal inside the token (the terminal may end after 1..n-1
  // of their bytes) need a full parse check. They form whole trie subtrees: each entry is the
  // root node (preorder index) of a subtree [root, subtree_end) where the terminal dies after
  // having passed an accepting state; sorted.
  std::vector<uint32_t> uncertain_roots;
  // [root index * 4 + w]: the bytes that follow a point inside the root's path where the terminal
  // may end; the remainder of such a token after the terminal starts with one of them.
  std::vector<uint64_t> root_exit_bytes;
};

using ByteSet = uint64_t[4];

struct CompiledGrammar::Impl {
  std::shared_ptr<const VocabIndex> vocab;
  EndPolicy end_policy = EndPolicy::eos;
  std::vector<Terminal> terminals;
  std::vector<std::string> nonterminal_names;
  std::vector<int32_t> rhs;             // symbols of all productions
  std::vector<uint32_t> prod_begin;     // [P + 1] offsets into rhs
  std::vector<uint32_t> prod_lhs;       // [P]
  std::vector<uint32_t> nt_prod_begin;  // [N + 1] productions of nonterminal n
  std::vector<uint8_t> nullable;        // [N]
  // [rhs index * 4 + w]: bytes that may come right after the symbol at that rhs position (FIRST
  // of the rest of the production, plus FOLLOW of its left-hand side when the rest is nullable).
  // A static over-approximation used to drop uncertain subtrees before any Earley step.
  std::vector<uint64_t> follow_after;
  std::vector<uint32_t> class_base;  // [T] index of (t, 0) in `classes`
  size_t total_states = 0;
  std::unique_ptr<std::atomic<const TokenClasses*>[]> classes;  // [total_states], lazily set

  ~Impl();
  uint32_t prod_len(uint32_t p) const { return prod_begin[p + 1] - prod_begin[p]; }
  int32_t symbol_at(uint32_t p, uint32_t dot) const { return rhs[prod_begin[p] + dot]; }
  // The token classes of (terminal t, state s); computes them on first use. Needs a vocab.
  const TokenClasses& token_classes(uint32_t t, uint32_t s) const;
};

}  // namespace ai00::internal::grammar
