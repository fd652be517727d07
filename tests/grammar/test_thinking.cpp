// Thinking wrapper and validation level choice (src/grammar/thinking.h).
#include <catch2/catch.hpp>
#include <string>

#include "grammar/kbnf_parser.h"
#include "grammar/matcher.h"
#include "grammar/thinking.h"

using namespace ai00::internal::grammar;

namespace {

const ai00::internal::ThinkingSyntax kThink = {"<think>", "</think>", ""};

CompiledGrammar wrapped(const std::string& kbnf, ThinkingStart start,
                        const ai00::internal::ThinkingSyntax& markers = kThink) {
  auto r = wrap_thinking_kbnf(kbnf, start, markers);
  if (!r.ok()) FAIL(r.error().message);
  INFO(r.value());
  return CompiledGrammar::compile_kbnf(r.value(), nullptr);
}

bool accepts(const CompiledGrammar& g, std::string_view text) {
  Matcher m(g);
  return m.accept_bytes(text) && m.is_complete();
}

// `restart` contains "start" as a suffix, `start =` uses the other rule syntax, comments mention
// start ::=, and the start rule is referenced recursively: a text replacement breaks all four.
const char* const kTricky = R"((* start ::= 'comment' ; *)
restart ::= 'again' ;
start = 'yes' | 'no' | '(' start ')' | restart ;
(* trailing start ::= comment *)
)";

}  // namespace

TEST_CASE("optional thinking before a custom grammar", "[grammar][thinking]") {
  auto g = wrapped(kTricky, ThinkingStart::optional);
  for (const char* ok : {"yes", "no", "again", "((yes))", "<think>hmm</think>yes",
                         "<think></think>no", "<think>a\nb</think>\n\n(again)"}) {
    INFO(ok);
    CHECK(accepts(g, ok));
  }
  for (const char* bad : {"maybe", "<think>hmm</think>", "<think>yes", "comment",
                          "<think>x</think>y</think>yes", "(start)"}) {
    INFO(bad);
    CHECK_FALSE(accepts(g, bad));
  }
}

TEST_CASE("forced-open thinking starts inside the block", "[grammar][thinking]") {
  auto g = wrapped(kTricky, ThinkingStart::forced_open);
  CHECK(accepts(g, "reasoning</think>yes"));
  CHECK(accepts(g, "</think>\nno"));
  CHECK_FALSE(accepts(g, "yes"));
  CHECK_FALSE(accepts(g, "<think>r</think>yes x"));
  // Goose's prompt ends in "<think": the model writes the ">" first.
  auto goose = wrapped(kTricky, ThinkingStart::forced_open, {"<think>", "</think>", ">"});
  CHECK(accepts(goose, ">reasoning</think> yes"));
  CHECK_FALSE(accepts(goose, "reasoning</think> yes"));
}

TEST_CASE("the wrapper works on the AST: other start symbols and fresh names",
          "[grammar][thinking]") {
  ParseOptions po;
  po.start = "root";
  auto parsed = parse_kbnf("root ::= 'a' root_after_thinking; root_after_thinking ::= 'b';", po);
  REQUIRE(parsed.ok());
  auto w = wrap_thinking(std::move(parsed).value(), ThinkingStart::optional,
                         ai00::internal::ThinkingSyntax{"<|start_reason|>", "<|end_reason|>", ""});
  REQUIRE(w.ok());
  CHECK(w.value().start == "root");
  CHECK(w.value().rules.front().name == "root");
  auto g = CompiledGrammar::compile(w.value(), nullptr);
  CHECK(accepts(g, "ab"));
  CHECK(accepts(g, "<|start_reason|>x<|end_reason|>ab"));
  CHECK_FALSE(accepts(g, "<think>x</think>ab"));

  auto missing = wrap_thinking_kbnf("other ::= 'x';", ThinkingStart::optional, kThink);
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("start"));
  auto syntax = wrap_thinking_kbnf("start ::= 'x'", ThinkingStart::optional, kThink);
  REQUIRE_FALSE(syntax.ok());
  CHECK_THAT(syntax.error().message, Catch::Contains("line 1"));
}

TEST_CASE("validation level: explicit wins, tools or thinking switch structural on",
          "[grammar][thinking]") {
  CHECK(choose_level(std::nullopt, false, false) == ValidationLevel::none);
  CHECK(choose_level(std::nullopt, true, false) == ValidationLevel::structural);
  CHECK(choose_level(std::nullopt, false, true) == ValidationLevel::structural);
  CHECK(choose_level(ValidationLevel::none, true, true) == ValidationLevel::none);
  CHECK(choose_level(ValidationLevel::schema_aware, false, false) == ValidationLevel::schema_aware);
  CHECK(parse_validation_level("schema_aware").value() == ValidationLevel::schema_aware);
  CHECK(std::string(validation_level_name(ValidationLevel::structural)) == "structural");
  auto bad = parse_validation_level("strict");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("strict"));
}
