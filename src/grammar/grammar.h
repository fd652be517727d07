// The parsed KBNF grammar (docs/grammar.md "KBNF syntax", "Semantics"): rules made of expression
// trees over literals, regex terminals and rule references. This is the AST the KBNF parser
// produces (kbnf_parser.h), the grammar builders edit (JSON Schema, tool-call and thinking
// grammars) and the compiler (matcher.h) turns into automata.
//
// Ownership and threading: plain values, freely copied; no hidden sharing, no caches.
// Rule references are by name, so a builder can rename or add rules freely; names are resolved
// (and an undefined one reported) when the grammar is compiled.
// Errors: nothing here throws except std::bad_alloc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ai00::internal::grammar {

// 1-based position in the KBNF source; {0, 0} for nodes a program synthesised.
struct SourcePos {
  uint32_t line = 0;
  uint32_t column = 0;
};

enum class ExprKind : uint8_t {
  literal,           // 'text' / "text": `text` holds the unescaped bytes ('' is empty)
  regex,             // #'re': `text` holds the regex source after the literal unescape
  regex_early,       // #e're': ends at the first (shortest, non-empty) match
  regex_complement,  // #ex're': any non-empty text containing no match of re
  substrings,        // #substrs'text': any substring of `text` (unescaped), the empty one too
  nonterminal,       // rule reference: `text` holds the rule name
  sequence,          // children concatenated (juxtaposition or `,`); >= 2 children when parsed
  choice,            // alternatives (`|`); >= 2 children when parsed
  optional,          // one child: [x] or x?
  star,              // one child: {x} or x*
  plus,              // one child: x+
};

// True for the five kinds that are terminals (leaves matched by an automaton).
inline bool is_terminal(ExprKind k) { return k <= ExprKind::substrings; }

struct Expr {
  ExprKind kind = ExprKind::literal;
  std::string text;            // terminals and nonterminal names; empty for operators
  std::vector<Expr> children;  // operators only
  SourcePos pos;               // where the item starts in the source (errors name it)

  static Expr literal(std::string bytes, SourcePos pos = {});
  static Expr terminal(ExprKind kind, std::string text, SourcePos pos = {});
  static Expr ref(std::string rule_name, SourcePos pos = {});
  static Expr sequence(std::vector<Expr> items, SourcePos pos = {});
  static Expr choice(std::vector<Expr> alternatives, SourcePos pos = {});
  static Expr unary(ExprKind kind, Expr child, SourcePos pos = {});  // optional, star, plus
};

// One definition `name ::= body;`. A name defined several times means the alternatives of all
// its bodies (docs/grammar.md "KBNF syntax"); Grammar keeps each definition as written.
struct Rule {
  std::string name;
  Expr body;
  SourcePos pos;
};

struct Grammar {
  std::vector<Rule> rules;      // in source order; names may repeat
  std::string start = "start";  // start symbol (ai00's [bnf] start_nonterminal)

  // Index of the first definition of `name`, or -1.
  int find_rule(std::string_view name) const;
  // Names of the defined rules that derive no finite string (each terminal counted as able to
  // match something, an undefined rule as unable), in order of first definition. The compiler
  // refuses a start rule among them (normalize.cpp); builders use this to name the culprit.
  std::vector<std::string> unproductive_rules() const;
  // The grammar as KBNF text, one `name ::= body;` line per definition, that parse_kbnf reads
  // back to an equivalent grammar (literals re-escaped, operators parenthesised where needed).
  std::string to_kbnf() const;
};

// One expression as KBNF text (the body syntax of Grammar::to_kbnf).
std::string to_kbnf(const Expr& e);
// A KBNF literal for `bytes` in single quotes with escapes (\n, \t, \', \\, \xHH for other
// control bytes); the KBNF parser reads it back to exactly `bytes`.
std::string kbnf_quote(std::string_view bytes);

}  // namespace ai00::internal::grammar
