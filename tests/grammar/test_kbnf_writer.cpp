// KBNF literal writer (src/grammar/kbnf_writer.h): arbitrary bytes round-trip through the
// engine's parser and matcher; regex escaping matches text literally.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "grammar/kbnf_parser.h"
#include "grammar/kbnf_writer.h"
#include "grammar/matcher.h"

using namespace ai00::internal::grammar;

namespace {

// The bytes the engine's parser reads back from kbnf_literal(bytes).
std::string parsed_literal(const std::string& bytes) {
  auto g = parse_kbnf("start ::= " + kbnf_literal(bytes) + ";");
  if (!g.ok()) FAIL(g.error().message);
  const Expr& e = g.value().rules.at(0).body;
  REQUIRE(e.kind == ExprKind::literal);
  return e.text;
}

bool accepts(const CompiledGrammar& g, std::string_view text) {
  Matcher m(g);
  return m.accept_bytes(text) && m.is_complete();
}

}  // namespace

TEST_CASE("literals round-trip special and non-UTF-8 bytes", "[grammar][kbnf_writer]") {
  const std::vector<std::string> cases = {
      "",
      "plain",
      "it's",
      "say \"hi\"",
      "back\\slash \\n not a newline",
      "line\nbreak\r\ttab",
      std::string("nul\0byte", 8),
      "\x7f\x01\x1f",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
      "\xff\xfe stray \x80 bytes \xc3",
      "\xed\xa0\x80 surrogate, \xc0\xaf overlong",
      "(* not a comment *) ; ::= | ' \" #ex'x'",
  };
  for (const auto& s : cases) {
    INFO("literal " << kbnf_literal(s));
    CHECK(parsed_literal(s) == s);
  }
}

TEST_CASE("literals round-trip random byte strings", "[grammar][kbnf_writer]") {
  std::mt19937 rng(12345);
  for (int n = 0; n < 500; ++n) {
    std::string s(rng() % 24, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    INFO("case " << n);
    CHECK(parsed_literal(s) == s);
  }
  // Every single byte, and the literal is accepted byte for byte by the matcher.
  for (int b = 0; b < 256; ++b) {
    const std::string s(1, static_cast<char>(b));
    CHECK(parsed_literal(s) == s);
    auto g = CompiledGrammar::compile_kbnf("start ::= 'a' " + kbnf_literal(s) + " 'z';", nullptr);
    CHECK(accepts(g, "a" + s + "z"));
  }
}

TEST_CASE("regex_escape matches text literally", "[grammar][kbnf_writer]") {
  const std::vector<std::string> texts = {
      "a.b*c+d?",   "(x|y)[z]{2}",   "^$\\",           "#&-~",       "</ai00:function_calls>",
      "<|im_end|>", "tab\there\nnl", "quote ' and \"", "caf\xc3\xa9"};
  for (const auto& t : texts) {
    INFO("text " << t << " regex " << regex_escape(t));
    auto g =
        CompiledGrammar::compile_kbnf("start ::= " + kbnf_regex(regex_escape(t)) + ";", nullptr);
    CHECK(accepts(g, t));
    CHECK_FALSE(accepts(g, t + "x"));
    CHECK_FALSE(accepts(g, t.substr(1)));
  }
  auto ex = CompiledGrammar::compile_kbnf(
      "start ::= " +
          kbnf_regex(regex_escape("a.b") + "|" + regex_escape("(c)"), RegexKind::complement) +
          " '!';",
      nullptr);
  CHECK(accepts(ex, "axb c!"));
  CHECK_FALSE(accepts(ex, "x a.b!"));
  CHECK_FALSE(accepts(ex, "(c)!"));
}

TEST_CASE("JSON escaping and identifiers", "[grammar][kbnf_writer]") {
  CHECK(json_quote("a\"b\\c\n\x01") == "\"a\\\"b\\\\c\\n\\u0001\"");
  CHECK(json_escape("caf\xc3\xa9/") == "caf\xc3\xa9/");
  CHECK(kbnf_identifier("get-weather.v2") == "get_weather_v2");
  CHECK(kbnf_identifier("9lives") == "_9lives");
  CHECK(kbnf_identifier("") == "_");
}
