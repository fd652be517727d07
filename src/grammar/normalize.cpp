// Grammar -> plain productions (normalize.h): EBNF operators become fresh nonterminals, adjacent
// literals merge, identical sub-expressions share one nonterminal, identical terminals one
// automaton (built within the grammar's budget), duplicate and unproductive productions go.
#include "grammar/normalize.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "base/error.h"
#include "base/limits.h"

namespace ai00::internal::grammar {
namespace {

std::string where(SourcePos p) {
  return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column);
}

const char* kind_prefix(ExprKind k) {
  switch (k) {
    case ExprKind::regex:
      return "#";
    case ExprKind::regex_early:
      return "#e";
    case ExprKind::regex_complement:
      return "#ex";
    case ExprKind::substrings:
      return "#substrs";
    default:
      return "";
  }
}

class Lowering {
 public:
  Lowering(const Grammar& g, const CompileOptions& o, CompiledGrammar::Impl& impl)
      : g_(g), impl_(impl) {
    Limits lim = limits();
    budget_.max_dfa_states = o.max_dfa_states ? o.max_dfa_states : lim.max_grammar_states;
    budget_.max_nfa_states = o.max_nfa_states ? o.max_nfa_states : lim.max_nfa_states;
    budget_.dfa_limit = budget_.max_dfa_states;
    budget_.max_string_bytes = lim.max_string_bytes;
  }

  void run() {
    uint32_t aug = new_nt("start'");  // nonterminal 0, so its production is production 0
    for (const Rule& r : g_.rules)
      if (!nt_ids_.count(r.name)) nt_ids_[r.name] = new_nt(r.name);
    auto start = nt_ids_.find(g_.start);
    if (start == nt_ids_.end()) throw GrammarError("undefined start rule `" + g_.start + "`");
    add_prod(aug, {static_cast<int32_t>(start->second)});
    for (const Rule& r : g_.rules) lower_alternatives(nt_ids_[r.name], r.body);
    finish();
  }

 private:
  uint32_t new_nt(const std::string& name) {
    impl_.nonterminal_names.push_back(name);
    prods_.emplace_back();
    return static_cast<uint32_t>(prods_.size() - 1);
  }
  void add_prod(uint32_t nt, std::vector<int32_t> seq) { prods_[nt].push_back(std::move(seq)); }

  void lower_alternatives(uint32_t nt, const Expr& e) {
    if (e.kind == ExprKind::choice) {
      for (const Expr& c : e.children) lower_alternatives(nt, c);
      return;
    }
    std::vector<int32_t> seq;
    std::string pending;
    bool has_pending = false;
    lower_sequence(e, seq, pending, has_pending);
    flush(seq, pending, has_pending, e.pos);
    add_prod(nt, std::move(seq));
  }

  // Appends e's items to seq; adjacent literals accumulate in `pending` and merge.
  void lower_sequence(const Expr& e, std::vector<int32_t>& seq, std::string& pending,
                      bool& has_pending) {
    if (e.kind == ExprKind::sequence) {
      for (const Expr& c : e.children) lower_sequence(c, seq, pending, has_pending);
      return;
    }
    if (e.kind == ExprKind::literal) {
      pending += e.text;
      if (!has_pending) pending_pos_ = e.pos;
      has_pending = true;
      return;
    }
    flush(seq, pending, has_pending, e.pos);
    seq.push_back(symbol(e));
  }

  void flush(std::vector<int32_t>& seq, std::string& pending, bool& has_pending, SourcePos) {
    if (has_pending && !pending.empty())
      seq.push_back(terminal(ExprKind::literal, pending, pending_pos_));
    pending.clear();
    has_pending = false;
  }

  int32_t terminal(ExprKind kind, const std::string& text, SourcePos pos) {
    std::string key = std::string(kind_prefix(kind)) + "|" + std::to_string(int(kind)) + "|" + text;
    auto it = term_ids_.find(key);
    if (it != term_ids_.end()) return ~static_cast<int32_t>(it->second);
    auto dfa = build_terminal_dfa(kind, text, budget_);
    if (!dfa.ok()) {
      std::string shown = std::string(kind_prefix(kind)) + kbnf_quote(text);
      if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
      throw GrammarError(where(pos) + ": " + shown + ": " + dfa.error().message);
    }
    uint32_t id = static_cast<uint32_t>(impl_.terminals.size());
    impl_.terminals.push_back(Terminal{kind, text, pos, std::move(dfa).value()});
    term_ids_.emplace(std::move(key), id);
    return ~static_cast<int32_t>(id);
  }

  int32_t symbol(const Expr& e) {
    switch (e.kind) {
      case ExprKind::literal:
      case ExprKind::regex:
      case ExprKind::regex_early:
      case ExprKind::regex_complement:
      case ExprKind::substrings:
        return terminal(e.kind, e.text, e.pos);
      case ExprKind::nonterminal: {
        auto it = nt_ids_.find(e.text);
        if (it == nt_ids_.end())
          throw GrammarError(where(e.pos) + ": undefined rule `" + e.text + "`");
        return static_cast<int32_t>(it->second);
      }
      default:
        break;
    }
    // Operators: one fresh nonterminal per distinct sub-expression (keyed by its KBNF text).
    std::string key = to_kbnf(e) + "#" + std::to_string(int(e.kind));
    auto it = shared_.find(key);
    if (it != shared_.end()) return static_cast<int32_t>(it->second);
    uint32_t nt = new_nt("(" + std::string(to_kbnf(e)).substr(0, 40) + ")");
    shared_.emplace(key, nt);
    if (e.kind == ExprKind::sequence || e.kind == ExprKind::choice) {
      lower_alternatives(nt, e);
      return static_cast<int32_t>(nt);
    }
    const Expr& child = e.children.at(0);
    int32_t x = symbol_or_group(child);
    int32_t self = static_cast<int32_t>(nt);
    if (e.kind == ExprKind::optional) {
      add_prod(nt, {});
      add_prod(nt, {x});
    } else if (e.kind == ExprKind::star) {  // left recursion: cheap for Earley
      add_prod(nt, {});
      add_prod(nt, {self, x});
    } else {
      add_prod(nt, {x});
      add_prod(nt, {self, x});
    }
    return self;
  }

  int32_t symbol_or_group(const Expr& e) { return symbol(e); }

  // Productive analysis, nullable sets, CSR layout.
  // marked[a] = 1 when some production of a has only terminals t with term[t] and marked
  // nonterminals; each production keeps a count of its unmarked symbols (the classic linear
  // algorithm for productive and nullable nonterminals).
  void mark_fixed_point(const std::vector<uint8_t>& term, std::vector<uint8_t>& marked) {
    size_t n = prods_.size();
    marked.assign(n, 0);
    std::vector<std::pair<uint32_t, uint32_t>> prod_ids;  // (lhs, index within lhs)
    std::vector<uint32_t> pending;                        // unmarked symbols per production
    std::vector<std::vector<uint32_t>> uses(n);           // nonterminal -> productions using it
    std::vector<uint32_t> work;
    for (size_t a = 0; a < n; ++a)
      for (size_t k = 0; k < prods_[a].size(); ++k) {
        uint32_t id = static_cast<uint32_t>(prod_ids.size());
        prod_ids.push_back({uint32_t(a), uint32_t(k)});
        uint32_t count = 0;
        bool dead = false;
        for (int32_t s : prods_[a][k]) {
          if (s < 0) {
            if (!term[~s]) dead = true;
          } else {
            ++count;
            uses[s].push_back(id);
          }
        }
        pending.push_back(dead ? UINT32_MAX : count);
        if (!dead && count == 0 && !marked[a]) marked[a] = 1, work.push_back(uint32_t(a));
      }
    while (!work.empty()) {
      uint32_t b = work.back();
      work.pop_back();
      for (uint32_t id : uses[b]) {
        if (pending[id] == UINT32_MAX || pending[id] == 0) continue;
        uint32_t a = prod_ids[id].first;
        if (--pending[id] == 0 && !marked[a]) marked[a] = 1, work.push_back(a);
      }
    }
  }

  void finish() {
    size_t n = prods_.size();
    std::vector<uint8_t> productive(n, 0), term_ok(impl_.terminals.size());
    for (size_t t = 0; t < term_ok.size(); ++t) {
      const Dfa& d = impl_.terminals[t].dfa;
      term_ok[t] = d.accepting[d.start] || d.live_out[d.start];
    }
    // Productive, then nullable: least fixed points by a worklist over the occurrences of each
    // nonterminal, linear in the grammar's size (a 50,000-rule chain is no harder than a short
    // one).
    std::vector<uint8_t> term_null(term_ok.size());
    for (size_t t = 0; t < term_ok.size(); ++t)
      term_null[t] = term_ok[t] && impl_.terminals[t].dfa.nullable();
    mark_fixed_point(term_ok, productive);
    auto sym_ok = [&](int32_t s) { return s < 0 ? term_ok[~s] != 0 : productive[s] != 0; };
    if (!productive[0])
      throw GrammarError("the grammar accepts no string (start rule `" + g_.start +
                         "` cannot complete)");
    mark_fixed_point(term_null, impl_.nullable);
    impl_.prod_begin.push_back(0);
    impl_.nt_prod_begin.push_back(0);
    for (size_t a = 0; a < n; ++a) {
      std::set<std::vector<int32_t>> seen;
      for (auto& seq : prods_[a]) {
        if (!std::all_of(seq.begin(), seq.end(), sym_ok)) continue;  // can never complete
        if (!seen.insert(seq).second) continue;                      // duplicate alternative
        impl_.rhs.insert(impl_.rhs.end(), seq.begin(), seq.end());
        impl_.prod_begin.push_back(static_cast<uint32_t>(impl_.rhs.size()));
        impl_.prod_lhs.push_back(static_cast<uint32_t>(a));
      }
      impl_.nt_prod_begin.push_back(static_cast<uint32_t>(impl_.prod_lhs.size()));
    }
  }

  const Grammar& g_;
  CompiledGrammar::Impl& impl_;
  DfaBudget budget_;
  std::map<std::string, uint32_t> nt_ids_;
  std::unordered_map<std::string, uint32_t> term_ids_, shared_;
  std::vector<std::vector<std::vector<int32_t>>> prods_;
  SourcePos pending_pos_;
};

}  // namespace

void lower_grammar(const Grammar& grammar, const CompileOptions& options,
                   CompiledGrammar::Impl& impl) {
  Lowering(grammar, options, impl).run();
}

}  // namespace ai00::internal::grammar
