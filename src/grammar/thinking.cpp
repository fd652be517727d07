// Thinking wrapper on the grammar AST and validation level helpers (thinking.h).
#include "grammar/thinking.h"

#include <utility>
#include <vector>

#include "grammar/kbnf_parser.h"
#include "grammar/kbnf_writer.h"

namespace ai00::internal::grammar {

Result<ValidationLevel> parse_validation_level(std::string_view name) {
  if (name == "none") return ValidationLevel::none;
  if (name == "structural") return ValidationLevel::structural;
  if (name == "schema_aware") return ValidationLevel::schema_aware;
  return make_error(ErrorKind::invalid_argument,
                    "unknown validation level `" + std::string(name) +
                        "` (expected none, structural or schema_aware)");
}

const char* validation_level_name(ValidationLevel level) {
  switch (level) {
    case ValidationLevel::none:
      return "none";
    case ValidationLevel::structural:
      return "structural";
    case ValidationLevel::schema_aware:
      return "schema_aware";
  }
  return "none";
}

ValidationLevel choose_level(std::optional<ValidationLevel> explicit_level, bool has_tools,
                             bool thinking) {
  if (explicit_level) return *explicit_level;
  return (has_tools || thinking) ? ValidationLevel::structural : ValidationLevel::none;
}

namespace {

void rename_refs(Expr& e, const std::string& from, const std::string& to) {
  if (e.kind == ExprKind::nonterminal && e.text == from) e.text = to;
  for (auto& c : e.children) rename_refs(c, from, to);
}

bool mentions(const Expr& e, const std::string& name) {
  if (e.kind == ExprKind::nonterminal && e.text == name) return true;
  for (const auto& c : e.children)
    if (mentions(c, name)) return true;
  return false;
}

// A name no rule defines or references.
std::string fresh_name(const Grammar& g, const std::string& base) {
  for (int k = 0;; ++k) {
    std::string name = base + (k ? "_" + std::to_string(k) : "");
    bool used = false;
    for (const auto& r : g.rules) used = used || r.name == name || mentions(r.body, name);
    if (!used) return name;
  }
}

}  // namespace

Result<Grammar> wrap_thinking(Grammar g, ThinkingStart start, const ThinkingSyntax& markers) {
  if (g.find_rule(g.start) < 0)
    return make_error(ErrorKind::grammar, "undefined start rule `" + g.start + "`");
  if (markers.open.empty() || markers.close.empty())
    return make_error(ErrorKind::invalid_argument, "thinking markers must not be empty");
  const std::string inner = fresh_name(g, g.start + "_after_thinking");
  for (auto& r : g.rules) {
    if (r.name == g.start) r.name = inner;
    rename_refs(r.body, g.start, inner);
  }
  // The block: `#ex'close'? close ws inner` (an empty block is allowed).
  std::vector<Expr> block;
  block.push_back(Expr::unary(
      ExprKind::optional, Expr::terminal(ExprKind::regex_complement, regex_escape(markers.close))));
  block.push_back(Expr::literal(markers.close));
  block.push_back(Expr::terminal(ExprKind::regex, "[ \\t\\r\\n]*"));
  block.push_back(Expr::ref(inner));
  Expr body;
  switch (start) {
    case ThinkingStart::optional: {
      block.insert(block.begin(), Expr::literal(markers.open));
      body = Expr::choice({Expr::sequence(std::move(block)), Expr::ref(inner)});
      break;
    }
    case ThinkingStart::forced_open:
      // A prompt that stops inside the open marker (one ending in "<think") leaves the
      // marker's last bytes to the model.
      if (!markers.forced_open_completion.empty())
        block.insert(block.begin(), Expr::literal(markers.forced_open_completion));
      body = Expr::sequence(std::move(block));
      break;
  }
  Rule rule;
  rule.name = g.start;
  rule.body = std::move(body);
  g.rules.insert(g.rules.begin(), std::move(rule));
  return g;
}

Result<std::string> wrap_thinking_kbnf(std::string_view kbnf, ThinkingStart start,
                                       const ThinkingSyntax& markers) {
  auto parsed = parse_kbnf(kbnf);
  if (!parsed.ok()) return parsed.error();
  auto wrapped = wrap_thinking(std::move(parsed).value(), start, markers);
  if (!wrapped.ok()) return wrapped.error();
  return wrapped.value().to_kbnf();
}

Result<std::string> thinking_only_kbnf(const ThinkingSyntax& markers, ThinkingStart start) {
  return wrap_thinking_kbnf("start ::= #'[\\\\s\\\\S]*';\n", start, markers);
}

}  // namespace ai00::internal::grammar
