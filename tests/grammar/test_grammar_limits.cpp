// Regression tests of issue 15 for src/grammar: the DFA budget running out on a terminal's first
// state, nesting depth of groups and classes, linear time on the 50,000-rule chain and on
// #substrs of a 30,000-byte text and on the unproductive rules of a long chain, and limits checked
// before the work (base/limits.h).
#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "base/error.h"
#include "base/limits.h"
#include "grammar/json_schema.h"
#include "grammar/kbnf_parser.h"
#include "grammar/matcher.h"
#include "grammar/regex.h"

using namespace ai00::internal::grammar;
using ai00::internal::Limits;
using Catch::Matchers::Contains;

namespace {

std::string compile_error(const std::string& text, const CompileOptions& o = {}) {
  try {
    CompiledGrammar::compile_kbnf(text, nullptr, {}, o);
  } catch (const ai00::internal::GrammarError& e) {
    return e.what();
  }
  FAIL("compiled without error");
  return "";
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The fastest of three runs: a scaling check compares two timings, and on a busy machine one
// preempted run must not decide it (the quadratic cases it guards against are seconds apart).
template <typename F>
double best_of_three(F f) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

bool full(const Dfa& d, const std::string& s) {
  uint32_t q = d.start;
  for (unsigned char b : s) {
    q = d.step(q, b);
    if (q == Dfa::kDead) return false;
  }
  return d.accepting[q] != 0;
}

// Restores the process-wide limits when a test ends.
struct LimitsGuard {
  Limits saved = ai00::internal::limits();
  ~LimitsGuard() { ai00::internal::set_limits(saved); }
};

}  // namespace

TEST_CASE("the DFA budget running out on a terminal's first state is an error, not a crash",
          "[grammar][limits]") {
  for (ExprKind k : {ExprKind::literal, ExprKind::regex, ExprKind::regex_early,
                     ExprKind::regex_complement, ExprKind::substrings}) {
    DfaBudget budget;
    budget.max_dfa_states = 0;
    budget.dfa_limit = 7;
    auto r = build_terminal_dfa(k, "ab", budget);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message,
               Contains("the number of DFA states exceeds the limit max_grammar_states = 7"));
  }
  // Whole grammars: each literal "wN" of two bytes takes 3 states; with a budget of 3k states,
  // literal k + 1 finds the budget empty at its first state, for every k.
  for (size_t k = 1; k <= 40; ++k) {
    std::string g = "start ::= ";
    for (size_t i = 0; i <= k; ++i)
      g += (i ? " | '" : "'") + std::string(1, char('a' + i % 26)) +
           std::string(1, char('a' + i / 26)) + "'";
    g += ";";
    CompileOptions o;
    o.max_dfa_states = 3 * k;
    CHECK_THAT(compile_error(g, o),
               Contains("exceeds the limit max_grammar_states = " + std::to_string(3 * k)));
  }
}

TEST_CASE("nesting is bounded by max_nesting_depth everywhere in a grammar", "[grammar][limits]") {
  LimitsGuard guard;
  const std::string deep(100000, '[');
  CHECK_THAT(compile_error("start ::= #'" + deep + "a" + std::string(100000, ']') + "';"),
             Contains("character class nesting exceeds the limit max_nesting_depth = 256"));
  std::string andand = "[a";
  for (int i = 0; i < 30000; ++i) andand += "&&[a";
  andand += std::string(30001, ']');
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THAT(compile_error("start ::= #'" + andand + "';"),
             Contains("character class nesting exceeds the limit max_nesting_depth = 256"));
  CHECK(seconds_since(t0) < 2.0);  // the operand is parsed in place, not copied per level
  Limits l = ai00::internal::limits();
  l.max_nesting_depth = 10;
  ai00::internal::set_limits(l);
  CHECK_THAT(compile_error("start ::= #'[[[[[[[[[[[a]]]]]]]]]]]';"),
             Contains("exceeds the limit max_nesting_depth = 10"));
  CHECK_THAT(compile_error("start ::= ((((((((((('a')))))))))));"),
             Contains("line 1, column 21: group nesting exceeds the limit max_nesting_depth = 10"));
  CHECK_THAT(compile_error("start ::= #'(((((((((((a)))))))))))';"),
             Contains("exceeds the limit max_nesting_depth = 10"));
  CompiledGrammar::compile_kbnf("start ::= #'[[[[[[[[[a]]]]]]]]]' ((((((((('b')))))))));", nullptr);
}

TEST_CASE("a 50,000-rule chain compiles in linear time", "[grammar][limits]") {
  auto chain = [](int n, bool reversed) {
    std::string g;
    for (int k = 0; k < n; ++k) {
      int i = reversed ? n - 1 - k : k;
      g += "r" + std::to_string(i) + " ::= 'a' r" + std::to_string(i + 1) + " | 'c';\n";
    }
    return g + "r" + std::to_string(n) + " ::= 'b';\n";
  };
  for (bool reversed : {false, true}) {
    ParseOptions p;
    p.start = "r0";
    // 10x the rules in under 30x the time (no absolute threshold: the machine may be busy); the
    // quadratic fixed points this guards against took 8.7 s for 50,000 rules.
    const std::string small = chain(5000, reversed), large = chain(50000, reversed);
    const double a = best_of_three([&] { (void)CompiledGrammar::compile_kbnf(small, nullptr, p); });
    const double b = best_of_three([&] { (void)CompiledGrammar::compile_kbnf(large, nullptr, p); });
    CHECK(b < 30 * a + 0.25);
    CompiledGrammar g = CompiledGrammar::compile_kbnf(large, nullptr, p);
    Matcher m(g);
    CHECK(m.accept_bytes("aaac"));
    CHECK(m.is_complete());
  }
}

TEST_CASE("#substrs builds a linear automaton, limits checked before the work",
          "[grammar][limits]") {
  std::mt19937 rng(15);
  for (int trial = 0; trial < 200; ++trial) {
    std::string text;
    int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) text += char('a' + rng() % 3);
    DfaBudget budget;
    auto r = build_terminal_dfa(ExprKind::substrings, text, budget);
    REQUIRE(r.ok());
    CHECK(r.value().num_states() <= std::max<size_t>(1, 2 * text.size()));
    for (int probe = 0; probe < 30; ++probe) {
      std::string s;
      int m = static_cast<int>(rng() % 5);
      for (int i = 0; i < m; ++i) s += char('a' + rng() % 4);
      INFO(text << " / " << s);
      CHECK(full(r.value(), s) == (text.find(s) != std::string::npos));
    }
  }
  std::string big;
  for (int i = 0; i < 30000; ++i) big += char('a' + (i * 7 + i / 13) % 26);
  auto t0 = std::chrono::steady_clock::now();
  CompiledGrammar g = CompiledGrammar::compile_kbnf("start ::= #substrs'" + big + "';", nullptr);
  CHECK(seconds_since(t0) < 2.0);  // was 15 s and 880 MB
  Matcher m(g);
  CHECK(m.accept_bytes(big.substr(12345, 500)));
  // A text longer than max_string_bytes is refused before anything is built.
  LimitsGuard guard;
  Limits l = ai00::internal::limits();
  l.max_string_bytes = 1000;
  ai00::internal::set_limits(l);
  t0 = std::chrono::steady_clock::now();
  CHECK_THAT(compile_error("start ::= #substrs'" + big + "';"),
             Contains("a terminal of 30000 bytes exceeds the limit max_string_bytes = 1000"));
  CHECK(seconds_since(t0) < 0.5);
  l.max_input_bytes = 100;
  ai00::internal::set_limits(l);
  auto p = parse_kbnf("start ::= '" + std::string(200, 'x') + "';");
  REQUIRE_FALSE(p.ok());
  CHECK_THAT(p.error().message,
             Contains("KBNF grammar: 213 bytes exceeds the limit max_input_bytes = 100"));
}

TEST_CASE("limits refuse zero values naming the field", "[grammar][limits]") {
  Limits l;
  l.max_threads = 0;
  try {
    ai00::internal::set_limits(l);
    FAIL("accepted a zero limit");
  } catch (const ai00::internal::InvalidArgument& e) {
    CHECK_THAT(e.what(), Contains("max_threads"));
  }
}

TEST_CASE("the largest nesting limit still fits the stack", "[grammar][limits]") {
  LimitsGuard guard;
  Limits l = ai00::internal::limits();
  l.max_nesting_depth = ai00::internal::kMaxNestingDepthCap + 1;
  CHECK_THROWS_AS(ai00::internal::set_limits(l), ai00::internal::InvalidArgument);
  l.max_nesting_depth = ai00::internal::kMaxNestingDepthCap;
  ai00::internal::set_limits(l);
  const size_t n = ai00::internal::kMaxNestingDepthCap - 1;
  // Run on a thread with the default stack, as a library caller would.
  std::thread t([&] {
    CHECK(parse_kbnf("start ::= " + std::string(n, '(') + "'a'" + std::string(n, ')') + ";").ok());
    CompiledGrammar::compile_kbnf(
        "start ::= #'" + std::string(n, '(') + "a" + std::string(n, ')') + "';", nullptr);
    CompiledGrammar::compile_kbnf(
        "start ::= #'" + std::string(n, '[') + "a" + std::string(n, ']') + "';", nullptr);
  });
  t.join();
}

TEST_CASE("JSON Schema nesting is bounded by max_nesting_depth", "[grammar][limits]") {
  LimitsGuard guard;
  Limits l = ai00::internal::limits();
  l.max_nesting_depth = 5;
  ai00::internal::set_limits(l);
  std::string s = "{\"type\":\"string\"}";
  for (int i = 0; i < 6; ++i) s = "{\"type\":\"array\",\"items\":" + s + "}";
  auto r = json_schema_to_kbnf(s);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message,
             Contains("schema nested deeper than the limit max_nesting_depth = 5"));
  CHECK_THAT(r.error().message, Contains("/items/items/items/items"));
}

TEST_CASE("unproductive rules of a long chain are listed in linear time", "[grammar][limits]") {
  // r0 -> r1 -> ... -> rN -> rN: nothing completes; each name is listed once, in rule order.
  auto chain = [](int n) {
    std::string g;
    for (int i = 0; i < n; ++i)
      g += "r" + std::to_string(i) + " ::= 'a' r" + std::to_string(i + 1) + ";\n";
    return g + "r" + std::to_string(n) + " ::= 'a' r" + std::to_string(n) + ";\nr0 ::= r1;\n";
  };
  ParseOptions p;
  p.start = "r0";
  auto small = parse_kbnf(chain(5000), p), large = parse_kbnf(chain(50000), p);
  REQUIRE(small.ok());
  REQUIRE(large.ok());
  std::vector<std::string> a, b;
  const double ta = best_of_three([&] { a = small.value().unproductive_rules(); });
  const double tb = best_of_three([&] { b = large.value().unproductive_rules(); });
  CHECK(tb < 30 * ta + 0.25);  // was quadratic: a linear search per name (seconds at 50,000)
  CHECK(a.size() == 5001);
  REQUIRE(b.size() == 50001);
  CHECK(b.front() == "r0");
  CHECK(b.back() == "r50000");
}
