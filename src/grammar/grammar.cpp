// Grammar AST helpers and the KBNF printer (grammar.h).
#include "grammar/grammar.h"

#include <cstdio>
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
