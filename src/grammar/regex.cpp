// Terminal -> byte NFA (Thompson construction, UTF-8 sequences) -> DFA by a subset construction
// over reachable states only, within a budget (regex.h).
#include "grammar/regex.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

#include "base/limits.h"
#include "base/utf8.h"
#include "grammar/regex_internal.h"

namespace ai00::internal::grammar {
namespace {

ErrorInfo budget_error(const DfaBudget& budget) {
  return make_error(ErrorKind::grammar, limit_message("", "the number of DFA states",
                                                      "max_grammar_states", budget.dfa_limit));
}

enum class EdgeKind : uint8_t { byte, eps, start_assert, end_assert };

struct Edge {
  EdgeKind kind;
  uint8_t lo, hi;
  uint32_t to;
};

struct Nfa {
  std::vector<std::vector<Edge>> states;
  uint32_t start = 0, accept = 0;
};

using ByteSeq = std::vector<std::pair<uint8_t, uint8_t>>;

// The UTF-8 bytes of cp (1..4 of them, utf8::encoded_length(cp)) into b[0..4).
void encode(uint32_t cp, uint8_t* b) {
  std::string bytes;  // at most 4 bytes: no allocation
  utf8::append_code_point(cp, bytes);
  std::memcpy(b, bytes.data(), bytes.size());
}

// Splits [lo, hi] (same encoded length) into byte-range sequences (regex-syntax's algorithm).
void split_same_length(uint32_t lo, uint32_t hi, std::vector<ByteSeq>& out) {
  const int n = static_cast<int>(utf8::encoded_length(lo));
  for (int i = 1; i < n; ++i) {
    uint32_t m = (1u << (6 * i)) - 1;
    if ((lo & ~m) != (hi & ~m)) {
      if ((lo & m) != 0) {
        split_same_length(lo, lo | m, out);
        split_same_length((lo | m) + 1, hi, out);
        return;
      }
      if ((hi & m) != m) {
        split_same_length(lo, (hi & ~m) - 1, out);
        split_same_length(hi & ~m, hi, out);
        return;
      }
    }
  }
  uint8_t a[4], b[4];
  encode(lo, a);
  encode(hi, b);
  ByteSeq seq;
  for (int i = 0; i < n; ++i) seq.push_back({a[i], b[i]});
  out.push_back(std::move(seq));
}

void utf8_sequences(const CodeRanges& ranges, std::vector<ByteSeq>& out) {
  static const uint32_t kBounds[][2] = {
      {0, 0x7F}, {0x80, 0x7FF}, {0x800, 0xD7FF}, {0xE000, 0xFFFF}, {0x10000, 0x10FFFF}};
  for (auto [lo, hi] : ranges)
    for (auto& b : kBounds) {
      uint32_t l = std::max(lo, b[0]), h = std::min(hi, b[1]);
      if (l <= h) split_same_length(l, h, out);
    }
}

class NfaBuilder {
 public:
  NfaBuilder(const rx::Ast& ast, size_t max_states) : ast_(ast), max_(max_states) {}

  bool build(Nfa& nfa) {
    nfa_.states.clear();
    uint32_t start = fresh();
    uint32_t end = compile(ast_.root, start);
    if (too_big_) return false;
    nfa_.start = start;
    nfa_.accept = end;
    nfa = std::move(nfa_);
    return true;
  }

 private:
  uint32_t fresh() {
    if (nfa_.states.size() >= max_) {
      too_big_ = true;
      return 0;
    }
    nfa_.states.emplace_back();
    return static_cast<uint32_t>(nfa_.states.size() - 1);
  }
  void edge(uint32_t from, EdgeKind k, uint32_t to, uint8_t lo = 0, uint8_t hi = 0) {
    if (!too_big_) nfa_.states[from].push_back(Edge{k, lo, hi, to});
  }

  uint32_t compile_chars(const CodeRanges& ranges, uint32_t in, bool raw_bytes) {
    uint32_t out = fresh();
    if (raw_bytes) {
      for (auto [lo, hi] : ranges) edge(in, EdgeKind::byte, out, uint8_t(lo), uint8_t(hi));
      return out;
    }
    std::vector<ByteSeq> seqs;
    utf8_sequences(ranges, seqs);
    // Share leading byte ranges between sequences (a small trie keyed by (state, lo, hi)).
    std::unordered_map<uint64_t, uint32_t> shared;
    for (const ByteSeq& s : seqs) {
      uint32_t cur = in;
      for (size_t i = 0; i + 1 < s.size() && !too_big_; ++i) {
        uint64_t key = (uint64_t(cur) << 16) | (uint64_t(s[i].first) << 8) | s[i].second;
        auto it = shared.find(key);
        if (it == shared.end()) {
          uint32_t nx = fresh();
          edge(cur, EdgeKind::byte, nx, s[i].first, s[i].second);
          it = shared.emplace(key, nx).first;
        }
        cur = it->second;
      }
      edge(cur, EdgeKind::byte, out, s.back().first, s.back().second);
    }
    return out;
  }

  uint32_t compile(int id, uint32_t in) {
    if (too_big_) return 0;
    const rx::Node& n = ast_.nodes[id];
    switch (n.kind) {
      case rx::NodeKind::empty:
        return in;
      case rx::NodeKind::chars:
        return compile_chars(n.ranges, in, false);
      case rx::NodeKind::bytes:
        return compile_chars(n.ranges, in, true);
      case rx::NodeKind::concat:
        for (int k : n.kids) in = compile(k, in);
        return in;
      case rx::NodeKind::alternate: {
        uint32_t out = fresh();
        for (int k : n.kids) {
          uint32_t kin = fresh();
          edge(in, EdgeKind::eps, kin);
          edge(compile(k, kin), EdgeKind::eps, out);
        }
        return out;
      }
      case rx::NodeKind::assert_start:
      case rx::NodeKind::assert_end: {
        uint32_t out = fresh();
        edge(in,
             n.kind == rx::NodeKind::assert_start ? EdgeKind::start_assert : EdgeKind::end_assert,
             out);
        return out;
      }
      case rx::NodeKind::repeat:
        return compile_repeat(n, in);
    }
    return in;
  }

  uint32_t compile_repeat(const rx::Node& n, uint32_t in) {
    uint32_t cur = in;
    for (int i = 0; i < n.min && !too_big_; ++i) {
      uint32_t kin = fresh();
      edge(cur, EdgeKind::eps, kin);
      cur = compile(n.kids[0], kin);
    }
    if (n.max < 0) {
      uint32_t loop = fresh();
      edge(cur, EdgeKind::eps, loop);
      edge(compile(n.kids[0], loop), EdgeKind::eps, loop);
      return loop;
    }
    uint32_t out = fresh();
    for (int i = n.min; i < n.max && !too_big_; ++i) {
      edge(cur, EdgeKind::eps, out);
      uint32_t kin = fresh();
      edge(cur, EdgeKind::eps, kin);
      cur = compile(n.kids[0], kin);
    }
    edge(cur, EdgeKind::eps, out);
    return out;
  }

  const rx::Ast& ast_;
  size_t max_;
  bool too_big_ = false;
  Nfa nfa_;
};

enum class Mode { plain, early, complement };

struct VecHash {
  size_t operator()(const std::vector<uint32_t>& v) const {
    size_t h = 1469598103934665603ull;
    for (uint32_t x : v) h = (h ^ x) * 1099511628211ull;
    return h;
  }
};

class SubsetBuilder {
 public:
  SubsetBuilder(const Nfa& nfa, Mode mode, DfaBudget& budget)
      : nfa_(nfa), mode_(mode), budget_(budget), mark_(nfa.states.size(), 0) {}

  Result<Dfa> run() {
    make_classes();
    std::vector<uint32_t> init;
    closure({nfa_.start}, true, false, init);
    // The budget may run out on the very first state of this terminal: report it, never go on
    // with an automaton that has no states.
    if (add_state(std::move(init), /*initial=*/true, 0) == Dfa::kDead) return error_;
    std::vector<uint32_t> next;
    std::vector<std::vector<uint32_t>> seeds(dfa_.num_classes);  // per byte class
    for (size_t s = 0; s < sets_.size(); ++s) {
      if (!expand_[s]) continue;
      successors(sets_[s], seeds);
      for (uint32_t c = 0; c < dfa_.num_classes; ++c) {
        // #ex text is valid UTF-8 (docs/grammar.md "Semantics"): its automaton runs a UTF-8
        // decoder beside the subsets; other terminals take bytes as their regex says.
        const int u8 = mode_ == Mode::complement ? utf8_next(utf8_[s], class_rep_[c]) : 0;
        if (u8 < 0) continue;
        if (mode_ == Mode::complement) seeds[c].push_back(nfa_.start);
        if (seeds[c].empty()) continue;
        closure(seeds[c], false, false, next);
        uint32_t t = lookup_or_add(next, static_cast<uint8_t>(u8));
        if (t == Dfa::kDead && !error_.message.empty()) return error_;
        dfa_.next[s * dfa_.num_classes + c] = t;
      }
    }
    prune();
    return std::move(dfa_);
  }

 private:
  // UTF-8 decoder states (Unicode table 3-7): 0 between characters, 1..3 continuation bytes
  // due, 4..7 the restricted second byte after E0, ED, F0, F4. -1: ill-formed.
  static int utf8_next(uint8_t state, uint8_t b) {
    const bool cont = b >= 0x80 && b <= 0xBF;
    switch (state) {
      case 0:
        if (b < 0x80) return 0;
        if (b >= 0xC2 && b <= 0xDF) return 1;
        if (b == 0xE0) return 4;
        if (b == 0xED) return 5;
        if (b >= 0xE1 && b <= 0xEF) return 2;
        if (b == 0xF0) return 6;
        if (b >= 0xF1 && b <= 0xF3) return 3;
        if (b == 0xF4) return 7;
        return -1;
      case 1:
        return cont ? 0 : -1;
      case 2:
        return cont ? 1 : -1;
      case 3:
        return cont ? 2 : -1;
      case 4:
        return b >= 0xA0 && b <= 0xBF ? 1 : -1;
      case 5:
        return b >= 0x80 && b <= 0x9F ? 1 : -1;
      case 6:
        return b >= 0x90 && b <= 0xBF ? 2 : -1;
      default:
        return b >= 0x80 && b <= 0x8F ? 2 : -1;
    }
  }

  void make_classes() {
    bool cut[257] = {};
    if (mode_ == Mode::complement)  // byte classes must not straddle a UTF-8 boundary
      for (int b : {0x80, 0x90, 0xA0, 0xC0, 0xC2, 0xE0, 0xE1, 0xED, 0xEE, 0xF0, 0xF1, 0xF4, 0xF5})
        cut[b] = true;
    for (const auto& st : nfa_.states)
      for (const Edge& e : st)
        if (e.kind == EdgeKind::byte) cut[e.lo] = true, cut[e.hi + 1] = true;
    uint32_t cls = 0;
    for (int b = 0; b < 256; ++b) {
      if (b > 0 && cut[b]) ++cls;
      dfa_.byte_class[b] = static_cast<uint8_t>(cls);
      if (b == 0 || cut[b]) class_rep_.push_back(static_cast<uint8_t>(b));
    }
    dfa_.num_classes = cls + 1;
  }

  // seeds[c] = the NFA states one byte of class c leads to from `set`, for every class at once:
  // each byte edge covers a run of whole classes (make_classes cuts at every edge's ends), so
  // one walk over the set's edges replaces a walk per class (a terminal with many classes and
  // wide subsets, e.g. a `pattern` of several alternatives under `.*`, spent most of its
  // construction testing every edge against every class).
  void successors(const std::vector<uint32_t>& set, std::vector<std::vector<uint32_t>>& seeds) {
    for (std::vector<uint32_t>& v : seeds) v.clear();
    for (uint32_t q : set)
      for (const Edge& e : nfa_.states[q]) {
        if (e.kind != EdgeKind::byte) continue;
        for (uint32_t c = dfa_.byte_class[e.lo]; c <= dfa_.byte_class[e.hi]; ++c)
          seeds[c].push_back(e.to);
      }
  }

  // Epsilon closure; start asserts only at the start, end asserts only for the final check.
  void closure(const std::vector<uint32_t>& seeds, bool at_start, bool at_end,
               std::vector<uint32_t>& out) {
    ++gen_;
    out.clear();
    std::vector<uint32_t>& stack = stack_;
    stack.clear();
    for (uint32_t q : seeds)
      if (mark_[q] != gen_) mark_[q] = gen_, stack.push_back(q);
    while (!stack.empty()) {
      uint32_t q = stack.back();
      stack.pop_back();
      out.push_back(q);
      for (const Edge& e : nfa_.states[q]) {
        bool follow = e.kind == EdgeKind::eps || (e.kind == EdgeKind::start_assert && at_start) ||
                      (e.kind == EdgeKind::end_assert && at_end);
        if (follow && mark_[e.to] != gen_) mark_[e.to] = gen_, stack.push_back(e.to);
      }
    }
    std::sort(out.begin(), out.end());
  }

  bool contains_accept(const std::vector<uint32_t>& set) const {
    return std::binary_search(set.begin(), set.end(), nfa_.accept);
  }

  uint32_t lookup_or_add(std::vector<uint32_t>& set, uint8_t u8) {
    // The decoder state is part of the key (a value no NFA state id reaches).
    if (mode_ == Mode::complement) set.push_back(0xFFFFFF00u | u8);
    auto it = index_.find(set);
    if (mode_ == Mode::complement) set.pop_back();
    if (it != index_.end()) return it->second;
    return add_state(set, false, u8);
  }

  uint32_t add_state(std::vector<uint32_t> set, bool initial, uint8_t u8) {
    if (budget_.max_dfa_states == 0) {
      error_ = budget_error(budget_);
      return Dfa::kDead;
    }
    --budget_.max_dfa_states;
    uint32_t id = static_cast<uint32_t>(sets_.size());
    std::vector<uint32_t> fin;
    closure(set, initial, true, fin);
    bool match_inside = contains_accept(set), match_final = contains_accept(fin);
    bool accepting = match_final, expand = true;
    if (mode_ == Mode::early) {
      accepting = match_final && !initial;
      expand = !accepting;  // #e ends at its first match
    } else if (mode_ == Mode::complement) {
      accepting = !match_final && !initial && u8 == 0;  // ends between characters
      expand = !match_inside;  // a match inside the text kills every continuation
    }
    dfa_.accepting.push_back(accepting);
    expand_.push_back(expand);
    utf8_.push_back(u8);
    dfa_.next.resize(dfa_.next.size() + dfa_.num_classes, Dfa::kDead);
    if (!initial) {
      std::vector<uint32_t> key = set;
      if (mode_ == Mode::complement) key.push_back(0xFFFFFF00u | u8);
      index_.emplace(std::move(key), id);
    }
    sets_.push_back(std::move(set));
    return id;
  }

  // States that cannot reach acceptance become kDead; live_out says whether a byte can follow.
  void prune() {
    size_t n = dfa_.accepting.size(), k = dfa_.num_classes;
    std::vector<std::vector<uint32_t>> rev(n);
    for (size_t s = 0; s < n; ++s)
      for (size_t c = 0; c < k; ++c)
        if (uint32_t t = dfa_.next[s * k + c]; t != Dfa::kDead) rev[t].push_back(uint32_t(s));
    std::vector<uint8_t> live(n, 0);
    std::vector<uint32_t> stack;
    for (size_t s = 0; s < n; ++s)
      if (dfa_.accepting[s]) live[s] = 1, stack.push_back(uint32_t(s));
    while (!stack.empty()) {
      uint32_t s = stack.back();
      stack.pop_back();
      for (uint32_t p : rev[s])
        if (!live[p]) live[p] = 1, stack.push_back(p);
    }
    dfa_.live_out.assign(n, 0);
    for (size_t s = 0; s < n; ++s)
      for (size_t c = 0; c < k; ++c) {
        uint32_t& t = dfa_.next[s * k + c];
        if (t != Dfa::kDead && !live[t]) t = Dfa::kDead;
        if (t != Dfa::kDead) dfa_.live_out[s] = 1;
      }
    dfa_.first_bytes.assign(n * 4, 0);
    for (size_t s = 0; s < n; ++s)
      for (int b = 0; b < 256; ++b)
        if (dfa_.next[s * k + dfa_.byte_class[b]] != Dfa::kDead)
          dfa_.first_bytes[s * 4 + (b >> 6)] |= uint64_t(1) << (b & 63);
    dfa_.start = 0;
  }

  const Nfa& nfa_;
  Mode mode_;
  DfaBudget& budget_;
  Dfa dfa_;
  std::vector<uint8_t> class_rep_;
  std::vector<std::vector<uint32_t>> sets_;
  std::vector<uint8_t> expand_;
  std::vector<uint8_t> utf8_;  // decoder state per DFA state (#ex only)
  std::unordered_map<std::vector<uint32_t>, uint32_t, VecHash> index_;
  std::vector<uint32_t> mark_, stack_;
  uint32_t gen_ = 0;
  ErrorInfo error_;
};

// #substrs: the suffix automaton of the text (Blumer et al.), built online in O(n * classes)
// time with at most 2n - 1 states, every one accepting (each is reached by a substring). Its
// states count against the grammar's budget as they are made, so a text too large for the
// budget fails after work proportional to the budget.
Result<Dfa> substrings_dfa(std::string_view text, DfaBudget& budget) {
  Dfa dfa;
  bool present[256] = {};
  for (unsigned char b : text) present[b] = true;
  uint32_t k = 1;  // class 0: bytes absent from the text (always dead)
  for (int b = 0; b < 256; ++b) dfa.byte_class[b] = present[b] ? static_cast<uint8_t>(k++) : 0;
  dfa.num_classes = k;
  std::vector<uint32_t> len, link;
  auto add = [&](uint32_t l) -> uint32_t {
    if (budget.max_dfa_states == 0) return Dfa::kDead;
    --budget.max_dfa_states;
    len.push_back(l);
    link.push_back(Dfa::kDead);
    dfa.next.resize(dfa.next.size() + k, Dfa::kDead);
    return static_cast<uint32_t>(len.size() - 1);
  };
  if (add(0) == Dfa::kDead) return budget_error(budget);
  uint32_t last = 0;
  for (unsigned char byte : text) {
    uint32_t c = dfa.byte_class[byte];
    uint32_t cur = add(len[last] + 1);
    if (cur == Dfa::kDead) return budget_error(budget);
    uint32_t p = last;
    while (p != Dfa::kDead && dfa.next[p * k + c] == Dfa::kDead) {
      dfa.next[p * k + c] = cur;
      p = link[p];
    }
    if (p == Dfa::kDead) {
      link[cur] = 0;
    } else {
      uint32_t q = dfa.next[p * k + c];
      if (len[p] + 1 == len[q]) {
        link[cur] = q;
      } else {
        uint32_t clone = add(len[p] + 1);
        if (clone == Dfa::kDead) return budget_error(budget);
        std::copy(dfa.next.begin() + size_t(q) * k, dfa.next.begin() + size_t(q + 1) * k,
                  dfa.next.begin() + size_t(clone) * k);
        link[clone] = link[q];
        while (p != Dfa::kDead && dfa.next[p * k + c] == q) {
          dfa.next[p * k + c] = clone;
          p = link[p];
        }
        link[q] = link[cur] = clone;
      }
    }
    last = cur;
  }
  size_t n = len.size();
  dfa.accepting.assign(n, 1);
  dfa.live_out.assign(n, 0);
  dfa.first_bytes.assign(n * 4, 0);
  for (size_t s = 0; s < n; ++s)
    for (int b = 0; b < 256; ++b)
      if (dfa.next[s * k + dfa.byte_class[b]] != Dfa::kDead) {
        dfa.live_out[s] = 1;
        dfa.first_bytes[s * 4 + (b >> 6)] |= uint64_t(1) << (b & 63);
      }
  dfa.start = 0;
  return dfa;
}

rx::Ast literal_ast(std::string_view text) {
  rx::Ast ast;
  rx::Node cat;
  cat.kind = rx::NodeKind::concat;
  for (unsigned char b : text) {
    rx::Node n;
    n.kind = rx::NodeKind::bytes;
    n.ranges = {{b, b}};
    ast.nodes.push_back(std::move(n));
    cat.kids.push_back(static_cast<int>(ast.nodes.size() - 1));
  }
  ast.nodes.push_back(std::move(cat));
  ast.root = static_cast<int>(ast.nodes.size() - 1);
  return ast;
}

}  // namespace

Result<Dfa> build_terminal_dfa(ExprKind kind, std::string_view text, DfaBudget& budget) {
  Nfa nfa;
  Mode mode = kind == ExprKind::regex_early        ? Mode::early
              : kind == ExprKind::regex_complement ? Mode::complement
                                                   : Mode::plain;
  if (text.size() > budget.max_string_bytes)  // before any work
    return make_error(ErrorKind::grammar,
                      limit_message("", "a terminal of " + std::to_string(text.size()) + " bytes",
                                    "max_string_bytes", budget.max_string_bytes));
  if (kind == ExprKind::substrings) {
    return substrings_dfa(text, budget);
  } else {
    rx::Ast ast;
    if (kind == ExprKind::literal) {
      ast = literal_ast(text);
    } else {
      auto parsed = rx::parse_regex(text);
      if (!parsed.ok()) return parsed.error();
      ast = std::move(parsed).value();
    }
    if (!NfaBuilder(ast, budget.max_nfa_states).build(nfa))
      return make_error(ErrorKind::grammar,
                        limit_message("", "the regex's NFA (a counted repeat too large?)",
                                      "max_nfa_states", budget.max_nfa_states));
  }
  return SubsetBuilder(nfa, mode, budget).run();
}

}  // namespace ai00::internal::grammar
