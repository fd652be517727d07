// Large JSON Schemas within the default limits (issue 15 "Linear time"; docs/grammar.md "Large
// schemas"): 20,000 properties and a 20,000-value enum compile without exhausting the DFA-state
// budget and keep their language; a 10x larger schema takes less than 30x the time (a loose
// bound, never a wall-clock threshold); the budget still stops explosive regexes by name.
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <string>

#include "base/error.h"
#include "grammar/json_schema.h"
#include "grammar/kbnf_parser.h"
#include "grammar/matcher.h"

using namespace ai00::internal::grammar;
using Catch::Matchers::Contains;

namespace {

std::string many_properties(size_t n, bool required) {
  std::string s = R"({"type":"object","properties":{)", r;
  for (size_t i = 0; i < n; ++i) {
    s += (i ? ",\"p" : "\"p") + std::to_string(i) + R"(":{"type":"integer"})";
    r += (i ? ",\"p" : "\"p") + std::to_string(i) + "\"";
  }
  return s + "}" +
         (required ? R"(,"additionalProperties":false,"required":[)" + r + "]" : std::string()) +
         "}";
}

std::string long_enum(size_t n) {
  std::string s = R"({"enum":[)";
  for (size_t i = 0; i < n; ++i) s += (i ? ",\"value " : "\"value ") + std::to_string(i) + "\"";
  return s + "]}";
}

CompiledGrammar compile_schema(const std::string& schema) {
  auto g = json_schema_to_kbnf(schema);
  REQUIRE(g.ok());
  return CompiledGrammar::compile_kbnf(g.value().kbnf, nullptr);
}

bool accepts(const CompiledGrammar& g, const std::string& text) {
  Matcher m(g);
  return m.accept_bytes(text) && m.is_complete();
}

double seconds(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("a schema with 20,000 properties compiles within the default limits",
          "[grammar][json_schema][limits]") {
  CompiledGrammar g = compile_schema(many_properties(20000, false));
  CHECK(g.num_dfa_states() < 1000);  // keys spelled by shared one-byte rules
  CHECK(accepts(g, R"({"p0": 1, "p17": 2, "p19999": 3})"));
  CHECK(accepts(g, "{}"));
  CHECK_FALSE(accepts(g, R"({"p1": 1, "p1"})"));
  CompiledGrammar req = compile_schema(many_properties(20000, true));
  std::string all = "{";
  for (size_t i = 0; i < 20000; ++i) all += (i ? ", \"p" : "\"p") + std::to_string(i) + "\": 7";
  CHECK(accepts(req, all + "}"));
  CHECK_FALSE(accepts(req, R"({"p0": 1})"));
  CHECK_FALSE(accepts(req, R"({"p0": "x")" + all.substr(std::string("{\"p0\": 7").size()) + "}"));
}

TEST_CASE("an enum of 20,000 strings compiles within the default limits",
          "[grammar][json_schema][limits]") {
  CompiledGrammar g = compile_schema(long_enum(20000));
  CHECK(accepts(g, R"("value 0")"));
  CHECK(accepts(g, R"("value 19999")"));
  CHECK_FALSE(accepts(g, R"("value 20000")"));
  CHECK_FALSE(accepts(g, R"("value ")"));
}

TEST_CASE("schema conversion and compilation grow about linearly", "[grammar][json_schema]") {
  // 30x for a 10x input leaves room for n log n and a noisy machine; quadratic stages (the
  // 20,000-value enum once took 227 s against 0.5 s for 2,000) fail it by far.
  for (auto make : {+[](size_t n) { return many_properties(n, false); },
                    +[](size_t n) { return long_enum(n); }}) {
    const std::string small = make(1000), large = make(10000);
    const double a = seconds([&] { compile_schema(small); });
    const double b = seconds([&] { compile_schema(large); });
    CHECK(b < 30 * a + 0.05);
  }
}

TEST_CASE("the DFA-state budget still names itself for an explosive pattern",
          "[grammar][json_schema][limits]") {
  auto g = json_schema_to_kbnf(R"({"type":"string","pattern":"^(a|b)*a(a|b){24}$"})");
  REQUIRE(g.ok());
  try {
    CompiledGrammar::compile_kbnf(g.value().kbnf, nullptr);
    FAIL("compiled an explosive pattern");
  } catch (const ai00::internal::GrammarError& e) {
    CHECK_THAT(e.what(), Contains("exceeds the limit max_grammar_states = 50000"));
    CHECK_THAT(e.what(), Contains("line "));
  }
}
