// Compiled KBNF grammars and the per-sequence matcher (docs/grammar.md "Semantics",
// "Differences from kbnf", "Token masks").
//
// Pipeline: Grammar (grammar.h) -> compile(): rules normalised to plain productions, every
// terminal turned into a byte-level DFA (regex.h), per (terminal, DFA state) token classes
// computed lazily against the shared VocabIndex -> Matcher: an Earley recogniser over bytes.
//
// Ownership and threading: a CompiledGrammar is a cheap handle over a shared immutable Impl; copy
// it freely and use it from any number of threads (its lazily filled token tables are published
// with atomics, never locked on the hot path). A Matcher is one sequence's parse state: a plain
// value, not thread-safe, copied by fork(); it keeps its grammar alive.
//
// Semantics: whole-string membership of the start symbol; end policy `eos`: token 0 (end of
// text) is allowed exactly when a complete parse exists (docs/grammar.md "End policy");
// `kbnf_eager` reproduces kbnf's eager finish.
//
// Mask algorithm (section 4): every Earley item scanning terminal t in DFA state s contributes
// the precomputed class of (t, s): tokens the terminal consumes whole (OR-ed in as a bitset or id
// list) and trie subtrees where the terminal may end inside the token. Only those subtrees are
// walked, in trie order, with real Earley steps that share the pushed prefix and roll back; a byte
// the Earley set cannot take (a per-set 256-bit table) skips its whole subtree, and subtrees whose
// tokens are all allowed already are skipped by a range test on a trie-ordered copy of the mask.
// Limits: no Leo optimisation, so right recursion costs O(n^2) over the output (x* and x+ are
// lowered left-recursively); vocabularies with duplicate byte strings allow only the first id.
// Errors: compile() throws GrammarError naming the line:column of the offending item (undefined
// rule, regex syntax, a regex or the grammar past the automaton size bound, an empty language).
// Matcher methods never throw on model output: a rejected token/byte returns false and leaves the
// state unchanged. fill_mask() on a grammar compiled without a vocabulary throws InvalidArgument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/kbnf_parser.h"
#include "grammar/vocab_index.h"

namespace ai00::internal::grammar {

// When the text may end (docs/grammar.md "End policy").
enum class EndPolicy {
  eos,         // token 0 is allowed exactly when a complete parse exists (default)
  kbnf_eager,  // kbnf's behaviour: finished at the first token boundary (after >= 1 token) where
               // a complete parse exists; afterwards only token 0 is allowed
};

struct CompileOptions {
  // Bound on the determinised automata of one grammar (all its regexes together): past it,
  // compile() fails with a GrammarError naming the regex being built (docs/grammar.md
  // "Regex automata"). 0: the process-wide limit max_grammar_states (base/limits.h).
  size_t max_dfa_states = 0;
  // Bound on one regex's NFA (counted repeats such as {0,200} expand into copies). 0: the
  // process-wide limit max_nfa_states.
  size_t max_nfa_states = 0;
  EndPolicy end_policy = EndPolicy::eos;
};

class CompiledGrammar {
 public:
  // Throws GrammarError (see above). `vocab` may be null: byte-level matching only, no masks.
  static CompiledGrammar compile(const Grammar& grammar, std::shared_ptr<const VocabIndex> vocab,
                                 const CompileOptions& options = {});
  // parse_kbnf + compile; a parse error is thrown as GrammarError with its line:column.
  static CompiledGrammar compile_kbnf(std::string_view kbnf,
                                      std::shared_ptr<const VocabIndex> vocab,
                                      const ParseOptions& parse = {},
                                      const CompileOptions& options = {});

  const VocabIndex* vocab() const;  // null when compiled without one
  size_t num_terminals() const;
  size_t num_dfa_states() const;  // all terminals together
  size_t num_productions() const;
  // Bytes held by the automata and the token tables computed so far (they grow lazily).
  size_t memory_bytes() const;

  struct Impl;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  explicit CompiledGrammar(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

class Matcher {
 public:
  explicit Matcher(CompiledGrammar grammar);
  Matcher(const Matcher& other);  // fork: the parse state is copied, the grammar shared
  Matcher& operator=(const Matcher& other);
  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

  // Commits one token: true and advanced if the grammar allows it, false and unchanged if not.
  // Token 0 is accepted when is_complete(); afterwards nothing else is (is_terminated()).
  bool accept_token(uint32_t id);
  // Commits a byte string as one step (rollback(1) undoes it). False and unchanged if any byte
  // is rejected. The empty string is accepted and counts as a step.
  bool accept_bytes(std::string_view bytes);
  // Number of leading bytes of `bytes` the grammar accepts from the current state (no change).
  size_t valid_prefix_length(std::string_view bytes) const;

  // Writes the allowed-token bitset (vocab()->mask_words() words; bit i of word i/64 = token i).
  // Const in effect: it pushes and pops Earley sets on this matcher's own state and restores it.
  void fill_mask(uint64_t* mask) const;
  std::vector<uint64_t> mask() const;

  // Undo the last n committed steps (tokens or accept_bytes calls); n > num_steps() throws
  // InvalidArgument.
  void rollback(size_t n);
  size_t num_steps() const;
  Matcher fork() const { return *this; }
  void reset();  // back to the state right after construction

  bool is_complete() const;    // a complete parse of the start symbol covers all bytes so far
  bool can_continue() const;   // some byte can still follow
  bool is_terminated() const;  // token 0 was accepted, or complete and nothing can follow
  // kbnf_eager only: a complete parse exists at this token boundary, so only token 0 remains.
  bool is_finished() const;
  // Bytes forced next: the longest string every continuation starts with (empty if none).
  std::string forced_bytes() const;

  const CompiledGrammar& grammar() const { return grammar_; }
  // Canonical dump of the current Earley set (tests compare states at token boundaries).
  std::string debug_state() const;

  struct State;  // Earley sets (matcher.cpp)

 private:
  CompiledGrammar grammar_;
  std::unique_ptr<State> state_;  // owned; deep-copied by fork()
  static void walk_uncertain(const CompiledGrammar::Impl& g, State& st, const VocabIndex& v,
                             uint64_t* mask);
};

}  // namespace ai00::internal::grammar
