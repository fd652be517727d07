// The per-sequence Earley recogniser over byte-level terminals and the token mask
// (matcher.h, docs/grammar.md "Token masks").
//
// All Earley sets of the sequence live in one item array; set k is
// items[set_begin[k] .. set_begin[k+1]). A byte pushes one set, rollback pops sets, so the
// uncertain-token walk of fill_mask() and commits share the same two primitives.
#include "grammar/matcher.h"

#include <algorithm>

#include "base/error.h"
#include "grammar/compiler_internal.h"

namespace ai00::internal::grammar {

namespace {
struct Item {
  uint32_t prod, dot, origin, dstate;
  bool operator==(const Item& o) const {
    return prod == o.prod && dot == o.dot && origin == o.origin && dstate == o.dstate;
  }
  bool operator<(const Item& o) const {
    if (prod != o.prod) return prod < o.prod;
    if (dot != o.dot) return dot < o.dot;
    if (origin != o.origin) return origin < o.origin;
    return dstate < o.dstate;
  }
};
constexpr uint32_t kInit = 0xfffffffeu;  // "the start state of the terminal after the dot"

struct StepRec {
  uint32_t num_sets;  // sets before the step
  bool eos;           // the step was token 0
};
}  // namespace

struct Matcher::State {
  std::vector<Item> items;
  std::vector<uint32_t> set_begin;
  std::vector<uint8_t> set_complete;
  std::vector<uint64_t> set_allowed;  // 4 words per set: bytes some scanning item can take
  std::vector<StepRec> steps;
  bool eos = false;
  // Scratch for building a set (not part of the logical state).
  std::vector<uint32_t> slot_item, slot_gen, predicted;
  uint32_t hash_gen = 0, pred_gen = 0;
  std::vector<std::pair<uint64_t, uint32_t>> pairs;  // ((terminal, DFA state), rhs index)
  std::vector<uint32_t> merged, path, anc;
  std::vector<uint64_t> rank_mask;  // the mask being built, indexed by trie rank
};

namespace {

// The Earley operations on one State against one compiled grammar.
class Earley {
 public:
  Earley(const CompiledGrammar::Impl& g, Matcher::State& st) : g_(g), st_(st) {}

  void init() {
    st_.items.clear();
    st_.set_begin.clear();
    st_.set_complete.clear();
    st_.set_allowed.clear();
    st_.steps.clear();
    st_.eos = false;
    st_.predicted.assign(g_.nullable.size(), 0);
    begin_set();
    add(0, 0, 0, kInit);
    closure(0);
  }

  uint32_t num_sets() const { return static_cast<uint32_t>(st_.set_begin.size()); }
  uint32_t cur() const { return num_sets() - 1; }
  bool complete() const { return st_.set_complete.back() != 0; }

  bool allowed(uint8_t b) const {
    return (st_.set_allowed[st_.set_allowed.size() - 4 + (b >> 6)] >> (b & 63)) & 1;
  }

  // Scans byte b into a new set; false (and no new set) if no item can take it.
  bool push_byte(uint8_t b) {
    if (!allowed(b)) return false;
    uint32_t k = cur(), kb = st_.set_begin[k], ke = static_cast<uint32_t>(st_.items.size());
    begin_set();
    for (uint32_t j = kb; j < ke; ++j) {
      Item it = st_.items[j];
      if (it.dot == g_.prod_len(it.prod)) continue;
      int32_t sym = g_.symbol_at(it.prod, it.dot);
      if (sym >= 0) continue;
      const Dfa& dfa = g_.terminals[~sym].dfa;
      uint32_t q = dfa.step(it.dstate, b);
      if (q == Dfa::kDead) continue;
      if (dfa.live_out[q]) add(it.prod, it.dot, it.origin, q);
      if (dfa.accepting[q]) add(it.prod, it.dot + 1, it.origin, kInit);
    }
    AI00_DCHECK(st_.items.size() > st_.set_begin.back(), "allowed byte produced an empty set");
    closure(k + 1);
    return true;
  }

  void pop_set() {
    st_.items.resize(st_.set_begin.back());
    st_.set_begin.pop_back();
    st_.set_complete.pop_back();
    st_.set_allowed.resize(st_.set_allowed.size() - 4);
  }

 private:
  void begin_set() {
    st_.set_begin.push_back(static_cast<uint32_t>(st_.items.size()));
    st_.set_complete.push_back(0);
    st_.set_allowed.resize(st_.set_allowed.size() + 4, 0);
    ++st_.hash_gen;
    ++st_.pred_gen;
    if (st_.slot_item.empty()) st_.slot_item.assign(64, 0), st_.slot_gen.assign(64, 0);
  }

  static uint32_t hash(const Item& it) {
    uint64_t h = (uint64_t(it.prod) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(it.dot) << 40) ^
                 (uint64_t(it.origin) * 0xC2B2AE3D27D4EB4Full) ^ (uint64_t(it.dstate) << 20);
    return static_cast<uint32_t>(h ^ (h >> 29));
  }

  void rehash() {
    size_t cap = st_.slot_item.size() * 2;
    st_.slot_item.assign(cap, 0);
    st_.slot_gen.assign(cap, 0);
    ++st_.hash_gen;
    for (uint32_t i = st_.set_begin.back(); i < st_.items.size(); ++i) insert_slot(i);
  }

  void insert_slot(uint32_t index) {
    uint32_t mask = static_cast<uint32_t>(st_.slot_item.size() - 1);
    uint32_t h = hash(st_.items[index]) & mask;
    while (st_.slot_gen[h] == st_.hash_gen) h = (h + 1) & mask;
    st_.slot_gen[h] = st_.hash_gen;
    st_.slot_item[h] = index;
  }

  void add(uint32_t prod, uint32_t dot, uint32_t origin, uint32_t dstate) {
    if (dstate == kInit) {
      dstate = 0;
      if (dot < g_.prod_len(prod)) {
        int32_t sym = g_.symbol_at(prod, dot);
        if (sym < 0) dstate = g_.terminals[~sym].dfa.start;
      }
    }
    Item it{prod, dot, origin, dstate};
    size_t in_set = st_.items.size() - st_.set_begin.back();
    if ((in_set + 1) * 2 > st_.slot_item.size()) rehash();
    uint32_t mask = static_cast<uint32_t>(st_.slot_item.size() - 1);
    for (uint32_t h = hash(it) & mask; st_.slot_gen[h] == st_.hash_gen; h = (h + 1) & mask)
      if (st_.items[st_.slot_item[h]] == it) return;
    st_.items.push_back(it);
    insert_slot(static_cast<uint32_t>(st_.items.size() - 1));
    if (prod == 0 && dot == 1 && origin == 0) st_.set_complete.back() = 1;
  }

  void closure(uint32_t k) {
    for (uint32_t i = st_.set_begin[k]; i < st_.items.size(); ++i) {
      Item it = st_.items[i];
      uint32_t len = g_.prod_len(it.prod);
      if (it.dot == len) {
        if (it.origin == k) continue;  // empty derivation: handled by the nullable rule below
        complete(g_.prod_lhs[it.prod], it.origin);
        continue;
      }
      int32_t sym = g_.symbol_at(it.prod, it.dot);
      if (sym >= 0) {
        if (st_.predicted[sym] != st_.pred_gen) {
          st_.predicted[sym] = st_.pred_gen;
          for (uint32_t p = g_.nt_prod_begin[sym]; p < g_.nt_prod_begin[sym + 1]; ++p)
            add(p, 0, k, kInit);
        }
        if (g_.nullable[sym]) add(it.prod, it.dot + 1, it.origin, kInit);
      } else {
        const Dfa& dfa = g_.terminals[~sym].dfa;
        uint64_t* allowed = &st_.set_allowed[st_.set_allowed.size() - 4];
        for (int w = 0; w < 4; ++w) allowed[w] |= dfa.first_bytes[it.dstate * 4 + w];
        if (it.dstate == dfa.start && dfa.nullable()) add(it.prod, it.dot + 1, it.origin, kInit);
      }
    }
  }

  void complete(uint32_t lhs, uint32_t origin) {
    uint32_t ob = st_.set_begin[origin], oe = st_.set_begin[origin + 1];
    for (uint32_t j = ob; j < oe; ++j) {
      Item p = st_.items[j];
      if (p.dot < g_.prod_len(p.prod) && g_.symbol_at(p.prod, p.dot) == int32_t(lhs))
        add(p.prod, p.dot + 1, p.origin, kInit);
    }
  }

  const CompiledGrammar::Impl& g_;
  Matcher::State& st_;
};

}  // namespace

Matcher::Matcher(CompiledGrammar grammar)
    : grammar_(std::move(grammar)), state_(std::make_unique<State>()) {
  Earley(*grammar_.impl(), *state_).init();
}

Matcher::Matcher(const Matcher& o)
    : grammar_(o.grammar_), state_(std::make_unique<State>(*o.state_)) {}
Matcher& Matcher::operator=(const Matcher& o) {
  if (this != &o) {
    grammar_ = o.grammar_;
    state_ = std::make_unique<State>(*o.state_);
  }
  return *this;
}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

void Matcher::reset() { Earley(*grammar_.impl(), *state_).init(); }

bool Matcher::accept_bytes(std::string_view bytes) {
  if (state_->eos || is_finished()) return false;
  Earley e(*grammar_.impl(), *state_);
  uint32_t before = e.num_sets();
  for (char c : bytes) {
    if (!e.push_byte(static_cast<uint8_t>(c))) {
      while (e.num_sets() > before) e.pop_set();
      return false;
    }
  }
  state_->steps.push_back(StepRec{before, false});
  return true;
}

bool Matcher::accept_token(uint32_t id) {
  const VocabIndex* v = grammar_.vocab();
  if (!v)
    throw InvalidArgument("Matcher::accept_token: the grammar was compiled without a vocabulary");
  if (state_->eos || id >= v->size()) return false;
  if (id == 0) {
    bool eager = grammar_.impl()->end_policy == EndPolicy::kbnf_eager;
    if (!(eager ? is_finished() : is_complete())) return false;
    state_->steps.push_back(StepRec{static_cast<uint32_t>(state_->set_begin.size()), true});
    state_->eos = true;
    return true;
  }
  std::string_view bytes = v->token(id);
  if (bytes.empty()) return false;
  return accept_bytes(bytes);
}

size_t Matcher::valid_prefix_length(std::string_view bytes) const {
  if (state_->eos) return 0;
  Earley e(*grammar_.impl(), *state_);
  uint32_t before = e.num_sets();
  size_t n = 0;
  while (n < bytes.size() && e.push_byte(static_cast<uint8_t>(bytes[n]))) ++n;
  while (e.num_sets() > before) e.pop_set();
  return n;
}

void Matcher::rollback(size_t n) {
  if (n > state_->steps.size())
    throw InvalidArgument("Matcher::rollback(" + std::to_string(n) + "): only " +
                          std::to_string(state_->steps.size()) + " steps committed");
  Earley e(*grammar_.impl(), *state_);
  for (size_t i = 0; i < n; ++i) {
    StepRec r = state_->steps.back();
    state_->steps.pop_back();
    if (r.eos) state_->eos = false;
    while (e.num_sets() > r.num_sets) e.pop_set();
  }
}

size_t Matcher::num_steps() const { return state_->steps.size(); }

bool Matcher::is_complete() const { return state_->set_complete.back() != 0; }

bool Matcher::can_continue() const {
  if (state_->eos) return false;
  const uint64_t* allowed = &state_->set_allowed[state_->set_allowed.size() - 4];
  return (allowed[0] | allowed[1] | allowed[2] | allowed[3]) != 0;
}

bool Matcher::is_terminated() const {
  return state_->eos || is_finished() || (is_complete() && !can_continue());
}

bool Matcher::is_finished() const {
  return grammar_.impl()->end_policy == EndPolicy::kbnf_eager && !state_->eos &&
         !state_->steps.empty() && is_complete();
}

std::string Matcher::forced_bytes() const {
  std::string out;
  if (state_->eos) return out;
  const auto& g = *grammar_.impl();
  Earley e(g, *state_);
  uint32_t before = e.num_sets();
  while (!e.complete() && out.size() < 4096) {
    const uint64_t* allowed = &state_->set_allowed[state_->set_allowed.size() - 4];
    int count = 0, only = -1;
    for (int w = 0; w < 4; ++w)
      if (allowed[w])
        count += __builtin_popcountll(allowed[w]), only = w * 64 + __builtin_ctzll(allowed[w]);
    if (count != 1 || !e.push_byte(static_cast<uint8_t>(only))) break;
    out += static_cast<char>(only);
  }
  while (e.num_sets() > before) e.pop_set();
  return out;
}

std::string Matcher::debug_state() const {
  std::vector<Item> set(state_->items.begin() + state_->set_begin.back(), state_->items.end());
  std::sort(set.begin(), set.end());
  std::string out = state_->eos ? "eos " : "";
  for (const Item& it : set)
    out += std::to_string(it.prod) + "." + std::to_string(it.dot) + "@" +
           std::to_string(it.origin) + ":" + std::to_string(it.dstate) + " ";
  return out;
}

std::vector<uint64_t> Matcher::mask() const {
  const VocabIndex* v = grammar_.vocab();
  if (!v) throw InvalidArgument("Matcher::mask: the grammar was compiled without a vocabulary");
  std::vector<uint64_t> m(v->mask_words());
  fill_mask(m.data());
  return m;
}

void Matcher::fill_mask(uint64_t* mask) const {
  const auto& g = *grammar_.impl();
  const VocabIndex* v = g.vocab.get();
  if (!v)
    throw InvalidArgument("Matcher::fill_mask: the grammar was compiled without a vocabulary");
  std::fill(mask, mask + v->mask_words(), 0);
  State& st = *state_;
  if (st.eos) return;
  if (is_finished()) {  // kbnf_eager: end of text and nothing else
    mask[0] |= 1;
    return;
  }
  if (g.end_policy == EndPolicy::eos && is_complete()) mask[0] |= 1;
  // 1. Active (terminal, DFA state) pairs of the current set.
  st.pairs.clear();
  for (uint32_t j = st.set_begin.back(); j < st.items.size(); ++j) {
    const Item& it = st.items[j];
    if (it.dot == g.prod_len(it.prod)) continue;
    int32_t sym = g.symbol_at(it.prod, it.dot);
    if (sym < 0)
      st.pairs.push_back({(uint64_t(~sym) << 32) | it.dstate, g.prod_begin[it.prod] + it.dot});
  }
  std::sort(st.pairs.begin(), st.pairs.end());
  // 2. OR the tokens that stay inside a terminal; gather the uncertain subtrees.
  st.merged.clear();
  st.rank_mask.assign(v->rank_words(), 0);
  uint64_t* rank_mask = st.rank_mask.data();
  size_t distinct = 0;
  for (size_t i = 0; i < st.pairs.size();) {
    uint64_t key = st.pairs[i].first;
    uint64_t follow[4] = {};  // what may come after the terminal, over every item with this key
    for (; i < st.pairs.size() && st.pairs[i].first == key; ++i)
      for (int w = 0; w < 4; ++w) follow[w] |= g.follow_after[st.pairs[i].second * 4 + w];
    ++distinct;
    const TokenClasses& tc = g.token_classes(uint32_t(key >> 32), uint32_t(key));
    if (!tc.inside_bits.empty()) {
      for (size_t w = 0; w < v->mask_words(); ++w) mask[w] |= tc.inside_bits[w];
      for (size_t w = 0; w < v->rank_words(); ++w) rank_mask[w] |= tc.inside_rank_bits[w];
    } else {
      for (uint32_t id : tc.inside_ids) mask[id >> 6] |= uint64_t(1) << (id & 63);
      for (uint32_t r : tc.inside_ranks) rank_mask[r >> 6] |= uint64_t(1) << (r & 63);
    }
    // An uncertain subtree can only be accepted through a byte after a terminal exit that the
    // grammar allows there: drop the others without any Earley step.
    for (size_t r = 0; r < tc.uncertain_roots.size(); ++r) {
      const uint64_t* exits = &tc.root_exit_bytes[r * 4];
      if ((exits[0] & follow[0]) | (exits[1] & follow[1]) | (exits[2] & follow[2]) |
          (exits[3] & follow[3]))
        st.merged.push_back(tc.uncertain_roots[r]);
    }
  }
  if (st.merged.empty()) return;
  if (distinct > 1) {
    std::sort(st.merged.begin(), st.merged.end());
    st.merged.erase(std::unique(st.merged.begin(), st.merged.end()), st.merged.end());
  }
  walk_uncertain(g, st, *v, mask);
}

namespace {
// True when every token in n's subtree is already allowed: walking it would change nothing.
// Stops at the first undecided token, so it is cheap when the answer is no.
bool subtree_decided(const VocabIndex& v, uint32_t n, const uint64_t* rank_mask) {
  uint32_t lo = v.rank_begin(n), hi = v.rank_begin(v.nodes()[n].subtree_end);  // [lo, hi)
  while (lo < hi && (lo & 63)) {
    if (!((rank_mask[lo >> 6] >> (lo & 63)) & 1)) return false;
    ++lo;
  }
  for (; lo + 64 <= hi; lo += 64)
    if (rank_mask[lo >> 6] != ~uint64_t(0)) return false;
  for (; lo < hi; ++lo)
    if (!((rank_mask[lo >> 6] >> (lo & 63)) & 1)) return false;
  return true;
}
}  // namespace

// 3. Walk the uncertain subtrees in trie preorder with real Earley steps: the path to the current
// node is pushed byte by byte and shared by the following nodes; a byte the set cannot take skips
// that node's whole subtree (rejected-prefix skipping).
void Matcher::walk_uncertain(const CompiledGrammar::Impl& g, State& st, const VocabIndex& v,
                             uint64_t* mask) {
  const auto& nodes = v.nodes();
  Earley e(g, st);
  uint32_t base = e.num_sets();
  std::vector<uint32_t>& path = st.path;  // trie node per pushed byte
  path.clear();
  uint32_t done_until = 0;
  for (uint32_t root : st.merged) {
    if (root < done_until) continue;  // nested in a subtree already walked
    uint32_t end = nodes[root].subtree_end;
    done_until = end;
    for (uint32_t n = root; n < end;) {
      if (subtree_decided(v, n, st.rank_mask.data())) {  // e.g. tokens another terminal takes whole
        n = nodes[n].subtree_end;
        continue;
      }
      while (!path.empty() && !(n > path.back() && n < nodes[path.back()].subtree_end)) {
        e.pop_set();
        path.pop_back();
      }
      uint32_t depth = nodes[n].depth;
      if (st.anc.size() < depth) st.anc.resize(depth);
      for (uint32_t a = n, d = depth; d > path.size(); a = nodes[a].parent) st.anc[--d] = a;
      uint32_t failed = 0;
      for (uint32_t d = static_cast<uint32_t>(path.size()); d < depth; ++d) {
        uint32_t a = st.anc[d];
        if (!e.push_byte(nodes[a].byte)) {
          failed = a;
          break;
        }
        path.push_back(a);
      }
      if (failed) {
        n = nodes[failed].subtree_end;
        continue;
      }
      uint32_t tok = nodes[n].token;
      if (tok != VocabIndex::kNoToken) {
        uint32_t r = v.rank_begin(n);
        mask[tok >> 6] |= uint64_t(1) << (tok & 63);
        st.rank_mask[r >> 6] |= uint64_t(1) << (r & 63);
      }
      ++n;
    }
  }
  while (e.num_sets() > base) e.pop_set();
}

}  // namespace ai00::internal::grammar
