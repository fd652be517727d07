// KBNF parser: structure of parsed grammars, printing, and errors with line:column and what was
// expected (docs/grammar.md "KBNF syntax").
#include <catch2/catch.hpp>
#include <chrono>

#include "base/error.h"
#include "grammar/kbnf_parser.h"
#include "grammar/matcher.h"

using namespace ai00::internal::grammar;
using Catch::Matchers::Contains;

namespace {
std::string parse_error(const std::string& text) {
  auto r = parse_kbnf(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == ai00::internal::ErrorKind::grammar);
  return r.error().message;
}
std::string compile_error(const std::string& text) {
  try {
    CompiledGrammar::compile_kbnf(text, nullptr);
  } catch (const ai00::internal::GrammarError& e) {
    return e.what();
  }
  FAIL("compiled without error: " << text);
  return "";
}
}  // namespace

TEST_CASE("alternation binds looser than concatenation", "[grammar][kbnf_parser]") {
  auto r = parse_kbnf("start ::= 'a' | 'b' 'c' | 'd';");
  REQUIRE(r.ok());
  const Expr& body = r.value().rules.at(0).body;
  REQUIRE(body.kind == ExprKind::choice);
  REQUIRE(body.children.size() == 3);
  CHECK(body.children[1].kind == ExprKind::sequence);
  CHECK(body.children[1].children.size() == 2);
  CHECK(body.pos.line == 1);
  CHECK(body.children[2].pos.column == 27);
}

TEST_CASE("terminal kinds, postfix operators and brackets", "[grammar][kbnf_parser]") {
  auto r = parse_kbnf("s ::= #'a' #e'b' #ex'c' #substrs'd' x? y* z+ [w] {v} (u);");
  REQUIRE(r.ok());
  const auto& items = r.value().rules.at(0).body.children;
  REQUIRE(items.size() == 10);
  ExprKind want[] = {ExprKind::regex,      ExprKind::regex_early, ExprKind::regex_complement,
                     ExprKind::substrings, ExprKind::optional,    ExprKind::star,
                     ExprKind::plus,       ExprKind::optional,    ExprKind::star,
                     ExprKind::nonterminal};
  for (size_t i = 0; i < 10; ++i) CHECK(items[i].kind == want[i]);
  CHECK(items[0].text == "a");
  CHECK(r.value().start == "start");
}

TEST_CASE("quote-aware groups keep brackets inside literals", "[grammar][kbnf_parser]") {
  auto r = parse_kbnf("start ::= ( ')' 'x' ) [ '[' ] { '}' };");
  REQUIRE(r.ok());
  const Expr& body = r.value().rules.at(0).body;
  REQUIRE(body.children.size() == 3);
  REQUIRE(body.children[0].kind == ExprKind::sequence);
  CHECK(body.children[0].children[0].text == ")");
  CHECK(body.children[0].children[1].text == "x");
  CHECK(body.children[1].kind == ExprKind::optional);
  CHECK(body.children[1].children[0].text == "[");
  CHECK(body.children[2].children[0].text == "}");
}

TEST_CASE("literal escapes", "[grammar][kbnf_parser]") {
  auto r = parse_kbnf(R"(s ::= '\b\f\n\r\t\v\'\"\\\/\u0041\u{1F600}\x7f\101\0';)");
  REQUIRE(r.ok());
  CHECK(r.value().rules[0].body.text ==
        "\b\f\n\r\t\v'\"\\/A\xF0\x9F\x98\x80\x7f"
        "A" +
            std::string(1, '\0'));
}

TEST_CASE("print and re-parse preserve structure", "[grammar][kbnf_parser]") {
  Grammar g;
  g.rules.push_back(
      Rule{"start",
           Expr::sequence(
               {Expr::literal("it's\n"),
                Expr::unary(ExprKind::plus,
                            Expr::choice({Expr::ref("a"), Expr::terminal(ExprKind::regex, "\\d")})),
                Expr::unary(ExprKind::optional, Expr::ref("a"))}),
           {}});
  g.rules.push_back(Rule{"a", Expr::terminal(ExprKind::regex_complement, "</x>"), {}});
  std::string text = g.to_kbnf();
  CHECK(text == "start ::= 'it\\'s\\n' (a | #'\\\\d')+ [a];\na ::= #ex'</x>';\n");
  auto back = parse_kbnf(text);
  REQUIRE(back.ok());
  CHECK(back.value().to_kbnf() == text);
}

TEST_CASE("syntax errors name line, column and what was expected", "[grammar][kbnf_parser]") {
  CHECK_THAT(parse_error("start ::= 'a'"), Contains("line 1, column 14: expected `;`"));
  CHECK_THAT(parse_error("start ::= 'a'\n  | ;"), Contains("line 2, column 5: expected an item"));
  CHECK_THAT(parse_error("start ::= 'a'**;"), Contains("line 1, column 15: expected `;`"));
  CHECK_THAT(parse_error("start ::= 'a\\d';"),
             Contains("line 1, column 13: expected a valid escape"));
  CHECK_THAT(parse_error("start ::= 'abc;\n"),
             Contains("expected closing ' of the string opened at 1:11"));
  CHECK_THAT(parse_error("function-call ::= 'a';"), Contains("line 1, column 9: expected `::=`"));
  CHECK_THAT(parse_error("start ::= 'a' (* no *);"),
             Contains("line 1, column 16: expected an item"));
  CHECK_THAT(parse_error("# comment\nstart ::= 'a';"),
             Contains("line 1, column 1: expected a rule name or a comment"));
  CHECK_THAT(parse_error("start ::= ('a' | 'b';"),
             Contains("`)` closing the group opened at 1:11"));
  CHECK_THAT(parse_error("start ::= 'a'{2};"), Contains("line 1, column 15: expected an item"));
  CHECK_THAT(parse_error("start ::= #x'a';"),
             Contains("line 1, column 12: expected a quote after `#`"));
  CHECK_THAT(parse_error("(* open\nstart ::= 'a';"),
             Contains("`*)` closing the comment opened at 1:1"));
  CHECK_THAT(parse_error("start ::= ;"), Contains("line 1, column 11: expected an item"));
  CHECK_THAT(
      parse_error("start ::= " + std::string(100000, '(') + "'a'" + std::string(100000, ')') + ";"),
      Contains("line 1, column 267: group nesting exceeds the limit max_nesting_depth = 256"));
  CHECK_THAT(compile_error("start ::= #'" + std::string(100000, '(') + "a" +
                           std::string(100000, ')') + "';"),
             Contains("regex offset 256: group nesting exceeds the limit max_nesting_depth = 256"));
}

TEST_CASE("undefined rules are named with their position", "[grammar][kbnf_parser]") {
  auto r = parse_kbnf("start ::= a b;\na ::= 'x';");
  REQUIRE(r.ok());
  CHECK_THAT(check_references(r.value()).message,
             Contains("line 1, column 13: undefined rule `b`"));
  CHECK_THAT(compile_error("start ::= a b;\na ::= 'x';"),
             Contains("line 1, column 13: undefined rule `b`"));
  CHECK_THAT(compile_error("begin ::= 'x';"), Contains("undefined start rule `start`"));
  CHECK(check_references(parse_kbnf("start ::= 'x';").value()).message.empty());
}

TEST_CASE("regex errors and the automaton bound name the terminal", "[grammar][kbnf_parser]") {
  CHECK_THAT(compile_error("start ::= 'a'\n  #'[a-';"), Contains("line 2, column 3: #'[a-'"));
  CHECK_THAT(compile_error("start ::= #'(?=a)';"), Contains("look-around is not supported"));
  CHECK_THAT(compile_error("start ::= #'\\\\bword';"), Contains("word boundaries"));
  CHECK_THAT(compile_error("start ::= #'\\\\p{Hanzi}';"), Contains("unsupported Unicode property"));
  CHECK_NOTHROW(CompiledGrammar::compile_kbnf(
      "start ::= #'\\\\p{Han}+' [#'[\\\\p{Letter}\\\\p{sc=Greek}]'];", nullptr));
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THAT(compile_error("start ::= 'x'\n          #'(a|b)*a(a|b){24}';"),
             Contains("line 2, column 11: #'(a|b)*a(a|b){24}': the number of DFA states exceeds "
                      "the limit max_grammar_states = 50000"));
  CHECK_THAT(compile_error("start ::= #'(a{1000}){1000}';"),
             Contains("exceeds the limit max_nfa_states = 200000"));
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(s < 5.0);  // a bound, not a hang (typically well under a second)
  CHECK_THAT(compile_error("start ::= #ex'a*' 'b';"), Contains("accepts no string"));
}
