// Grammar AST helpers and the KBNF printer (grammar.h).
#include "grammar/grammar.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <utility>

namespace ai00::internal::grammar {

Expr Expr::literal(std::string bytes, SourcePos pos) {
  return terminal(ExprKind::literal, std::move(bytes), pos);
}

Expr Expr::terminal(ExprKind kind, std::string text, SourcePos pos) {
  Expr e;
  e.kind = kind;
  e.text = std::move(text);
  e.pos = pos;
  return e;
}

Expr Expr::ref(std::string rule_name, SourcePos pos) {
  return terminal(ExprKind::nonterminal, std::move(rule_name), pos);
}

Expr Expr::sequence(std::vector<Expr> items, SourcePos pos) {
  Expr e;
  e.kind = ExprKind::sequence;
  e.children = std::move(items);
  e.pos = pos;
  return e;
}

Expr Expr::choice(std::vector<Expr> alternatives, SourcePos pos) {
  Expr e;
  e.kind = ExprKind::choice;
  e.children = std::move(alternatives);
  e.pos = pos;
  return e;
}

Expr Expr::unary(ExprKind kind, Expr child, SourcePos pos) {
  Expr e;
  e.kind = kind;
  e.children.push_back(std::move(child));
  e.pos = pos;
  return e;
}

int Grammar::find_rule(std::string_view name) const {
  for (size_t i = 0; i < rules.size(); ++i)
    if (rules[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

// Whether `e` derives a finite string given the rules known productive so far (`ok` by name id;
// `ref` gives the name id of each nonterminal occurrence that names a defined rule).
bool productive_expr(const Expr& e, const std::vector<uint8_t>& ok,
                     const std::unordered_map<const Expr*, uint32_t>& ref) {
  switch (e.kind) {
    case ExprKind::nonterminal: {
      auto it = ref.find(&e);
      return it != ref.end() && ok[it->second];
    }
    case ExprKind::sequence:
    case ExprKind::plus:
      for (const Expr& c : e.children)
        if (!productive_expr(c, ok, ref)) return false;
      return true;
    case ExprKind::choice:
      for (const Expr& c : e.children)
        if (productive_expr(c, ok, ref)) return true;
      return false;
    case ExprKind::optional:
    case ExprKind::star:
      return true;
    default:
      return true;  // terminals
  }
}

}  // namespace

std::vector<std::string> Grammar::unproductive_rules() const {
  // Names as dense ids, and the id of every nonterminal occurrence, so that each name is hashed
  // once rather than at every look-up of the fixed point.
  std::unordered_map<std::string_view, uint32_t> id;
  std::vector<uint32_t> rule_id(rules.size());
  for (size_t i = 0; i < rules.size(); ++i)
    rule_id[i] = id.emplace(rules[i].name, static_cast<uint32_t>(id.size())).first->second;
  std::unordered_map<const Expr*, uint32_t> ref;
  // Worklist: a definition is looked at again only when a rule it references turned productive
  // (a chain of n rules in any order costs O(n), not n passes).
  std::vector<std::vector<size_t>> users(id.size());  // name id -> definitions using it
  std::vector<const Expr*> todo;
  for (size_t i = 0; i < rules.size(); ++i) {
    todo.push_back(&rules[i].body);
    while (!todo.empty()) {
      const Expr* e = todo.back();
      todo.pop_back();
      if (e->kind == ExprKind::nonterminal) {
        if (auto it = id.find(e->text); it != id.end()) {
          ref.emplace(e, it->second);
          // Each definition once per name: a rule used 100k times in one body (a shared
          // one-byte rule in a long enum) must not queue that body 100k times.
          auto& u = users[it->second];
          if (u.empty() || u.back() != i) u.push_back(i);
        }
      }
      for (const Expr& c : e->children) todo.push_back(&c);
    }
  }
  std::vector<uint8_t> ok(id.size(), 0);
  std::vector<size_t> queue(rules.size());
  std::vector<uint8_t> queued(rules.size(), 1);
  for (size_t i = 0; i < rules.size(); ++i) queue[i] = rules.size() - 1 - i;
  while (!queue.empty()) {
    const size_t i = queue.back();
    queue.pop_back();
    queued[i] = 0;
    if (ok[rule_id[i]] || !productive_expr(rules[i].body, ok, ref)) continue;
    ok[rule_id[i]] = 1;
    for (size_t j : users[rule_id[i]])
      if (!ok[rule_id[j]] && !queued[j]) queued[j] = 1, queue.push_back(j);
  }
  std::vector<std::string> out;
  std::vector<uint8_t> listed(id.size(), 0);  // each name once, in rule order
  for (size_t i = 0; i < rules.size(); ++i)
    if (!ok[rule_id[i]] && !listed[rule_id[i]])
      listed[rule_id[i]] = 1, out.push_back(rules[i].name);
  return out;
}

std::string kbnf_quote(std::string_view bytes) {
  std::string out = "'";
  for (unsigned char c : bytes) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);  // UTF-8 bytes >= 0x80 pass through unchanged
        }
    }
  }
  out += "'";
  return out;
}

namespace {

// Binding strength: choice < sequence < postfix/atom. A child weaker than its context gets
// parentheses.
int strength(const Expr& e) {
  if (e.kind == ExprKind::choice) return 0;
  if (e.kind == ExprKind::sequence) return 1;
  return 2;
}

void print(const Expr& e, std::string& out);

void print_child(const Expr& child, int min_strength, std::string& out) {
  if (strength(child) < min_strength) {
    out += "(";
    print(child, out);
    out += ")";
  } else {
    print(child, out);
  }
}

void print(const Expr& e, std::string& out) {
  switch (e.kind) {
    case ExprKind::literal:
      out += kbnf_quote(e.text);
      return;
    case ExprKind::regex:
      out += "#" + kbnf_quote(e.text);
      return;
    case ExprKind::regex_early:
      out += "#e" + kbnf_quote(e.text);
      return;
    case ExprKind::regex_complement:
      out += "#ex" + kbnf_quote(e.text);
      return;
    case ExprKind::substrings:
      out += "#substrs" + kbnf_quote(e.text);
      return;
    case ExprKind::nonterminal:
      out += e.text;
      return;
    case ExprKind::sequence:
      if (e.children.empty()) out += "''";
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i) out += " ";
        print_child(e.children[i], 2, out);
      }
      return;
    case ExprKind::choice:
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i) out += " | ";
        print_child(e.children[i], 1, out);
      }
      return;
    case ExprKind::optional:
    case ExprKind::star:
    case ExprKind::plus: {
      // Brackets print any child without ambiguity; `+` needs a group for a compound child.
      const Expr& c = e.children.at(0);
      if (e.kind == ExprKind::optional || e.kind == ExprKind::star) {
        out += e.kind == ExprKind::optional ? "[" : "{";
        print(c, out);
        out += e.kind == ExprKind::optional ? "]" : "}";
      } else {
        bool group = strength(c) < 2 || c.kind == ExprKind::optional || c.kind == ExprKind::star ||
                     c.kind == ExprKind::plus;
        out += group ? "(" : "";
        print(c, out);
        out += group ? ")+" : "+";
      }
      return;
    }
  }
}

}  // namespace

std::string to_kbnf(const Expr& e) {
  std::string out;
  print(e, out);
  return out;
}

std::string Grammar::to_kbnf() const {
  std::string out;
  for (const Rule& r : rules) {
    out += r.name;
    out += " ::= ";
    out += grammar::to_kbnf(r.body);
    out += ";\n";
  }
  return out;
}

}  // namespace ai00::internal::grammar
