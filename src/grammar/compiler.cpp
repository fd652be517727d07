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

// FIRST of the symbols rhs[from, to) into `out`; true if the whole range is nullable.
bool first_of(const CompiledGrammar::Impl& g, const std::vector<uint64_t>& first_nt, uint32_t from,
              uint32_t to, uint64_t* out) {
  for (uint32_t i = from; i < to; ++i) {
    int32_t sym = g.rhs[i];
    const uint64_t* f = sym < 0
                            ? &g.terminals[~sym].dfa.first_bytes[g.terminals[~sym].dfa.start * 4]
                            : &first_nt[sym * 4];
    for (int w = 0; w < 4; ++w) out[w] |= f[w];
    if (sym < 0 ? !g.terminals[~sym].dfa.nullable() : !g.nullable[sym]) return false;
  }
  return true;
}

// FIRST and FOLLOW fixed points over bytes, then the follow set of every rhs position.
void compute_follow(CompiledGrammar::Impl& g) {
  size_t n = g.nullable.size(), p_count = g.prod_lhs.size();
  std::vector<uint64_t> first(n * 4, 0), follow(n * 4, 0);
  auto merge = [](uint64_t* dst, const uint64_t* src) {
    bool changed = false;
    for (int w = 0; w < 4; ++w)
      if ((dst[w] | src[w]) != dst[w]) dst[w] |= src[w], changed = true;
    return changed;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t p = 0; p < p_count; ++p) {
      uint64_t f[4] = {};
      first_of(g, first, g.prod_begin[p], g.prod_begin[p + 1], f);
      changed |= merge(&first[g.prod_lhs[p] * 4], f);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t p = 0; p < p_count; ++p)
      for (uint32_t i = g.prod_begin[p]; i < g.prod_begin[p + 1]; ++i) {
        if (g.rhs[i] < 0) continue;
        uint64_t f[4] = {};
        if (first_of(g, first, i + 1, g.prod_begin[p + 1], f)) merge(f, &follow[g.prod_lhs[p] * 4]);
        changed |= merge(&follow[g.rhs[i] * 4], f);
      }
  }
  g.follow_after.assign(g.rhs.size() * 4, 0);
  for (uint32_t p = 0; p < p_count; ++p)
    for (uint32_t i = g.prod_begin[p]; i < g.prod_begin[p + 1]; ++i) {
      uint64_t* f = &g.follow_after[i * 4];
      if (first_of(g, first, i + 1, g.prod_begin[p + 1], f)) merge(f, &follow[g.prod_lhs[p] * 4]);
    }
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
