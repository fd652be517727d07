// Grammar -> CompiledGrammar::Impl (normalize.cpp lowers the rules and builds the automata) and
// the token classes per (terminal, DFA state), computed on first use by one trie walk each.
#include <algorithm>

#include "base/error.h"
#include "grammar/compiler_internal.h"
#include "grammar/normalize.h"

namespace ai00::internal::grammar {
namespace {

// One walk of the vocabulary trie from DFA state s (section 4: per-state token classes).
TokenClasses* classify(const Dfa& dfa, uint32_t s, const VocabIndex& vocab) {
  auto* out = new TokenClasses();
  const auto& nodes = vocab.nodes();
  std::vector<uint32_t> state(130), inside;
  std::vector<uint8_t> acc_upto(130, 0);  // acc_upto[d]: accepting after 1..d bytes
  // exits[d * 4 + w]: bytes p_{i+1} (i + 1 <= d) following an accepting point i >= 1 on the path
  std::vector<uint64_t> exits(130 * 4, 0);
  state[0] = s;
  for (uint32_t n = 1; n < nodes.size();) {
    const auto& node = nodes[n];
    uint32_t d = node.depth;
    if (d >= state.size()) state.resize(d + 1), acc_upto.resize(d + 1), exits.resize((d + 1) * 4);
    for (int w = 0; w < 4; ++w) exits[d * 4 + w] = exits[(d - 1) * 4 + w];
    if (d >= 2 && dfa.accepting[state[d - 1]])
      exits[d * 4 + (node.byte >> 6)] |= uint64_t(1) << (node.byte & 63);
    uint32_t q = dfa.step(state[d - 1], node.byte);
    if (q == Dfa::kDead) {
      if (acc_upto[d -
                   1]) {  // the terminal can end before this byte: every token below is uncertain
        out->uncertain_roots.push_back(n);
        out->root_exit_bytes.insert(out->root_exit_bytes.end(), &exits[d * 4], &exits[d * 4] + 4);
      }
      n = node.subtree_end;
      continue;
    }
    state[d] = q;
    acc_upto[d] = acc_upto[d - 1] | dfa.accepting[q];
    if (node.token != VocabIndex::kNoToken) inside.push_back(n);
    ++n;
  }
  if (inside.size() * 32 >= vocab.mask_bits()) {
    out->inside_bits.assign(vocab.mask_words(), 0);
    out->inside_rank_bits.assign(vocab.rank_words(), 0);
    for (uint32_t node : inside) {
      uint32_t id = nodes[node].token, r = vocab.rank_begin(node);
      out->inside_bits[id >> 6] |= uint64_t(1) << (id & 63);
      out->inside_rank_bits[r >> 6] |= uint64_t(1) << (r & 63);
    }
  } else {
    for (uint32_t node : inside) {
      out->inside_ids.push_back(nodes[node].token);
      out->inside_ranks.push_back(vocab.rank_begin(node));
    }
  }
  return out;
}

// Least fixed point of set[dst] |= set[src] over `edges` (src -> dst), from the seeded sets: a
// worklist, so each edge is revisited only when its source grows (at most 256 times).
void propagate(std::vector<uint64_t>& sets, const std::vector<std::vector<uint32_t>>& edges) {
  size_t n = edges.size();
  std::vector<uint32_t> work;
  std::vector<uint8_t> queued(n, 1);
  for (size_t a = 0; a < n; ++a) work.push_back(uint32_t(a));
  while (!work.empty()) {
    uint32_t a = work.back();
    work.pop_back();
    queued[a] = 0;
    for (uint32_t b : edges[a]) {
      bool grew = false;
      for (int w = 0; w < 4; ++w)
        if ((sets[b * 4 + w] | sets[a * 4 + w]) != sets[b * 4 + w])
          sets[b * 4 + w] |= sets[a * 4 + w], grew = true;
      if (grew && !queued[b]) queued[b] = 1, work.push_back(b);
    }
  }
}

// FIRST and FOLLOW over bytes, then the follow set of every rhs position. Each production is
// walked backwards once (suffix FIRST and suffix nullability), and the fixed points are
// worklists, so the time is linear in the grammar's size times the 256 bytes.
void compute_follow(CompiledGrammar::Impl& g) {
  size_t n = g.nullable.size(), p_count = g.prod_lhs.size();
  auto sym_nullable = [&](int32_t sym) {
    return sym < 0 ? g.terminals[~sym].dfa.nullable() : g.nullable[sym] != 0;
  };
  auto term_first = [&](int32_t sym) {
    return &g.terminals[~sym].dfa.first_bytes[g.terminals[~sym].dfa.start * 4];
  };
  std::vector<uint64_t> first(n * 4, 0), follow(n * 4, 0);
  std::vector<std::vector<uint32_t>> first_edges(n), follow_edges(n);
  for (uint32_t p = 0; p < p_count; ++p) {
    uint32_t lhs = g.prod_lhs[p];
    for (uint32_t i = g.prod_begin[p]; i < g.prod_begin[p + 1]; ++i) {
      int32_t sym = g.rhs[i];
      if (sym < 0) {
        for (int w = 0; w < 4; ++w) first[lhs * 4 + w] |= term_first(sym)[w];
      } else {
        first_edges[sym].push_back(lhs);
      }
      if (!sym_nullable(sym)) break;
    }
  }
  propagate(first, first_edges);
  // Suffix FIRST per position: follow_after[i] = FIRST(rhs[i+1..end)) (+ FOLLOW(lhs) later).
  g.follow_after.assign(g.rhs.size() * 4, 0);
  std::vector<uint8_t> tail_nullable(g.rhs.size(), 0);
  for (uint32_t p = 0; p < p_count; ++p) {
    uint32_t lhs = g.prod_lhs[p], begin = g.prod_begin[p], end = g.prod_begin[p + 1];
    uint64_t acc[4] = {};
    bool nullable = true;
    for (uint32_t i = end; i-- > begin;) {
      for (int w = 0; w < 4; ++w) g.follow_after[i * 4 + w] = acc[w];
      tail_nullable[i] = nullable;
      int32_t sym = g.rhs[i];
      if (sym >= 0) {
        for (int w = 0; w < 4; ++w) follow[sym * 4 + w] |= acc[w];
        if (nullable) follow_edges[lhs].push_back(uint32_t(sym));
      }
      const uint64_t* f = sym < 0 ? term_first(sym) : &first[sym * 4];
      if (!sym_nullable(sym)) {
        for (int w = 0; w < 4; ++w) acc[w] = f[w];
        nullable = false;
      } else {
        for (int w = 0; w < 4; ++w) acc[w] |= f[w];
      }
    }
  }
  propagate(follow, follow_edges);
  for (uint32_t p = 0; p < p_count; ++p)
    for (uint32_t i = g.prod_begin[p]; i < g.prod_begin[p + 1]; ++i)
      if (tail_nullable[i])
        for (int w = 0; w < 4; ++w) g.follow_after[i * 4 + w] |= follow[g.prod_lhs[p] * 4 + w];
}

}  // namespace

CompiledGrammar::Impl::~Impl() {
  for (size_t i = 0; i < total_states; ++i) delete classes[i].load(std::memory_order_acquire);
}

const TokenClasses& CompiledGrammar::Impl::token_classes(uint32_t t, uint32_t s) const {
  auto& slot = classes[class_base[t] + s];
  const TokenClasses* p = slot.load(std::memory_order_acquire);
  if (p) return *p;
  TokenClasses* fresh = classify(terminals[t].dfa, s, *vocab);
  const TokenClasses* expected = nullptr;
  if (slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread published first
  return *expected;
}

CompiledGrammar CompiledGrammar::compile(const Grammar& grammar,
                                         std::shared_ptr<const VocabIndex> vocab,
                                         const CompileOptions& options) {
  auto impl = std::make_shared<Impl>();
  impl->vocab = std::move(vocab);
  impl->end_policy = options.end_policy;
  lower_grammar(grammar, options, *impl);
  compute_follow(*impl);
  for (const Terminal& t : impl->terminals) {
    impl->class_base.push_back(static_cast<uint32_t>(impl->total_states));
    impl->total_states += t.dfa.num_states();
  }
  impl->classes.reset(new std::atomic<const TokenClasses*>[impl->total_states]);
  for (size_t i = 0; i < impl->total_states; ++i) impl->classes[i].store(nullptr);
  return CompiledGrammar(std::move(impl));
}

CompiledGrammar CompiledGrammar::compile_kbnf(std::string_view kbnf,
                                              std::shared_ptr<const VocabIndex> vocab,
                                              const ParseOptions& parse,
                                              const CompileOptions& options) {
  auto g = parse_kbnf(kbnf, parse);
  if (!g.ok()) throw GrammarError(g.error().message);
  return compile(g.value(), std::move(vocab), options);
}

const VocabIndex* CompiledGrammar::vocab() const { return impl_->vocab.get(); }
size_t CompiledGrammar::num_terminals() const { return impl_->terminals.size(); }
size_t CompiledGrammar::num_dfa_states() const { return impl_->total_states; }
size_t CompiledGrammar::num_productions() const { return impl_->prod_lhs.size(); }

size_t CompiledGrammar::memory_bytes() const {
  const Impl& g = *impl_;
  size_t bytes =
      sizeof(Impl) + g.rhs.size() * 4 + g.prod_begin.size() * 8 + g.total_states * sizeof(void*);
  for (const Terminal& t : g.terminals)
    bytes += t.text.size() + t.dfa.next.size() * 4 + t.dfa.accepting.size() * 2 +
             t.dfa.first_bytes.size() * 8;
  for (size_t i = 0; i < g.total_states; ++i)
    if (const TokenClasses* tc = g.classes[i].load(std::memory_order_acquire))
      bytes += sizeof(TokenClasses) + (tc->inside_bits.size() + tc->inside_rank_bits.size()) * 8 +
               (tc->inside_ids.size() + tc->inside_ranks.size() + tc->uncertain_roots.size()) * 4;
  return bytes;
}

}  // namespace ai00::internal::grammar
