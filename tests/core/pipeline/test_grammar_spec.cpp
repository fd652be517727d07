// The grammar choice of a turn (src/core/pipeline/grammar_spec.h) with a tool choice: which
// grammars it narrows, and the errors for a choice no tool grammar can carry.
#include <catch2/catch.hpp>
#include <string>

#include "core/pipeline/grammar_spec.h"
#include "grammar/matcher.h"

using namespace ai00::internal;

namespace {

GrammarContext chat_context(const char* format_name) {
  GrammarContext c;
  c.hints.syntax = format::make_format(format_name).value()->syntax();
  c.hints.tools = format::parse_tools(R"([
      {"name": "get_weather", "parameters": {"type": "object",
       "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
       "required": ["city"]}},
      {"name": "get_time"}])")
                      .value();
  return c;
}

grammar::ToolChoice choice_of(grammar::ToolChoiceMode mode, std::string name = "",
                              bool parallel = true) {
  grammar::ToolChoice c;
  c.mode = mode;
  c.name = std::move(name);
  c.parallel_calls = parallel;
  return c;
}

bool accepts(const std::string& kbnf, std::string_view text) {
  grammar::Matcher m(grammar::CompiledGrammar::compile_kbnf(kbnf, nullptr));
  return m.accept_bytes(text) && m.is_complete();
}

std::string error_of(const GrammarRequest& r, const GrammarContext& c) {
  auto g = grammar_kbnf_for(r, c);
  return g.ok() ? std::string("<no error>") : g.error().message;
}

const char* const kWeather =
    "<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter "
    "name=\"city\">Oslo</parameter>\n    <parameter name=\"days\">2</parameter>\n  "
    "</invoke>\n</ai00:function_calls>";
const char* const kTime =
    "<ai00:function_calls>\n  <invoke name=\"get_time\">\n  </invoke>\n</ai00:function_calls>";

}  // namespace

TEST_CASE("tool choice narrows the turn's tool grammar", "[generator][grammar_spec]") {
  for (GrammarMode mode :
       {GrammarMode::automatic, GrammarMode::structural, GrammarMode::schema_aware}) {
    INFO(grammar_mode_name(mode));
    GrammarContext c = chat_context("ai00-v1");
    const GrammarRequest r{mode, ""};
    c.tool_choice = choice_of(grammar::ToolChoiceMode::none);
    auto none = grammar_kbnf_for(r, c);
    REQUIRE(none.ok());
    CHECK(accepts(none.value().kbnf, "Sunny.</ai00:assistant>"));
    CHECK_FALSE(accepts(none.value().kbnf, kWeather));
    c.tool_choice = choice_of(grammar::ToolChoiceMode::required);
    auto required = grammar_kbnf_for(r, c);
    REQUIRE(required.ok());
    CHECK(accepts(required.value().kbnf, kWeather));
    CHECK(accepts(required.value().kbnf, kTime));
    CHECK_FALSE(accepts(required.value().kbnf, "Sunny.</ai00:assistant>"));
    c.tool_choice = choice_of(grammar::ToolChoiceMode::named, "get_time");
    auto named = grammar_kbnf_for(r, c);
    REQUIRE(named.ok());
    CHECK(accepts(named.value().kbnf, kTime));
    CHECK_FALSE(accepts(named.value().kbnf, kWeather));
  }
  // With thinking on the block stays optional before the forced call.
  GrammarContext c = chat_context("ai00-v1");
  c.thinking = true;
  c.tool_choice = choice_of(grammar::ToolChoiceMode::required, "", false);
  auto g = grammar_kbnf_for(GrammarRequest{GrammarMode::schema_aware, ""}, c);
  REQUIRE(g.ok());
  CHECK(accepts(g.value().kbnf, std::string("<think>Oslo.</think>\n") + kWeather));
  CHECK(accepts(g.value().kbnf, kWeather));
  // With thinking off a forced call is the call block alone.
  c.thinking = false;
  auto plain = grammar_kbnf_for(GrammarRequest{GrammarMode::schema_aware, ""}, c);
  REQUIRE(plain.ok());
  CHECK(accepts(plain.value().kbnf, kWeather));
  CHECK_FALSE(accepts(plain.value().kbnf, std::string("<think>Oslo.</think>\n") + kWeather));
}

TEST_CASE("a tool choice without a tool grammar is refused, saying why",
          "[generator][grammar_spec]") {
  GrammarContext c = chat_context("ai00-v1");
  c.tool_choice = choice_of(grammar::ToolChoiceMode::named, "get_wether");
  CHECK_THAT(error_of(GrammarRequest{GrammarMode::schema_aware, ""}, c),
             Catch::Contains("`get_wether`") && Catch::Contains("get_weather, get_time"));
  c.tool_choice = choice_of(grammar::ToolChoiceMode::required);
  for (GrammarMode mode : {GrammarMode::none, GrammarMode::kbnf, GrammarMode::json_schema})
    CHECK_THAT(error_of(GrammarRequest{mode, "start ::= 'a';"}, c),
               Catch::Contains("tool_choice `required`") &&
                   Catch::Contains(std::string("`") + grammar_mode_name(mode) + "`"));
  GrammarContext raw = c;
  raw.chat = false;
  CHECK_THAT(error_of(GrammarRequest{}, raw), Catch::Contains("chat turn"));
  GrammarContext no_tools = c;
  no_tools.hints.tools.clear();
  CHECK_THAT(error_of(GrammarRequest{}, no_tools), Catch::Contains("no tools"));
  GrammarContext goose = c;
  goose.hints.syntax = format::make_format("goose").value()->syntax();
  CHECK_THAT(error_of(GrammarRequest{}, goose), Catch::Contains("no tool-call syntax"));
  GrammarContext single = chat_context("ai00-v1");
  single.tool_choice = choice_of(grammar::ToolChoiceMode::automatic, "", false);
  CHECK_THAT(error_of(GrammarRequest{GrammarMode::kbnf, "start ::= 'a';"}, single),
             Catch::Contains("parallel_tool_calls = false"));
  // tool_choice none in a format without tool syntax: nothing to drop, no error.
  GrammarContext goose_none = goose;
  goose_none.tool_choice = choice_of(grammar::ToolChoiceMode::none);
  CHECK(grammar_kbnf_for(GrammarRequest{}, goose_none).ok());
}
