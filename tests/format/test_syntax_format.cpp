// The seed formats' syntax data (ChatFormat::syntax(), base/chat_syntax.h) against their own
// hand-written renderers: the grammars src/grammar builds from each format's data accept the
// calls, thinking and text that format renders, at both levels. ai00 v0 gets its <tool_call>
// grammar this way, with no code of its own. (Formats made from a spec: test_custom_format.cpp.)
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "format/ai00_v0.h"
#include "format/json.h"
#include "format_test_util.h"
#include "grammar/matcher.h"
#include "grammar/thinking.h"
#include "grammar/tool_grammar.h"

using namespace ai00::test;
namespace format = ai00::internal::format;
namespace json = ai00::internal::json;
namespace grammar = ai00::internal::grammar;

namespace {

const char* const kTools =
    R"([{"name": "get_weather", "description": "Weather", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"]}}])";

const char* const kCallTurn = R"([
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": "Checking.", "tool_calls": [
    {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
    {"type": "function", "function": {"name": "get_weather",
                                      "arguments": {"city": "Bergen", "days": 2}}}]}
])";

const char* const kTextTurn = R"([
  {"role": "user", "content": "Hi"},
  {"role": "assistant", "reasoning": "Greet back.", "content": "Hello!"}
])";

std::shared_ptr<const format::ChatFormat> fmt_of(const char* name) {
  return format::make_format(name).value();
}

grammar::CompiledGrammar grammar_of(const format::ChatFormat& f, grammar::ValidationLevel level) {
  auto specs = grammar::parse_tool_list(kTools);
  REQUIRE(specs.ok());
  grammar::ToolGrammarOptions o;
  o.syntax = f.syntax();
  o.level = level;
  auto g = grammar::build_tool_grammar(specs.value(), o);
  if (!g.ok()) FAIL(g.error().message);
  INFO(g.value().kbnf);
  return grammar::CompiledGrammar::compile_kbnf(g.value().kbnf, nullptr);
}

// The bytes the model writes for the last message of `conv`: the render, up to the end of the
// call section when the syntax has one (the turn ends there), else with end_of_turn appended
// (model_output cuts the stop string off).
std::string model_turn(const format::ChatFormat& f, const char* conversation,
                       const format::RenderOptions& o) {
  auto conv = format::parse_conversation(conversation);
  REQUIRE(conv.ok());
  std::string out = model_output(f, conv.value(), o);
  const std::string& close = f.syntax().tool_calls.section_close;
  const size_t at = close.empty() ? std::string::npos : out.find(close);
  if (at != std::string::npos) return out.substr(0, at + close.size());
  return out + f.syntax().end_of_turn;
}

bool accepts(const grammar::CompiledGrammar& g, std::string_view text) {
  grammar::Matcher m(g);
  return m.accept_bytes(text) && m.is_complete();
}

}  // namespace

TEST_CASE("seed formats: grammars from their syntax data accept their own renders",
          "[format][syntax_format]") {
  for (const char* name : {"ai00-v1", "openchatml", "ai00-v0"}) {
    INFO(name);
    auto f = fmt_of(name);
    format::RenderOptions o{};
    // ai00 v0 has no syntax for tool definitions; its calls render without them.
    if (std::string(name) != "ai00-v0") o.tools = format::parse_tools(kTools).value();
    const std::string call = model_turn(*f, kCallTurn, o);
    INFO("call turn: " << call);
    CHECK(call.find("Bergen") != std::string::npos);
    for (auto level :
         {grammar::ValidationLevel::structural, grammar::ValidationLevel::schema_aware}) {
      const auto g = grammar_of(*f, level);
      CHECK(accepts(g, call));
      CHECK(accepts(g, "Plain text." + f->syntax().end_of_turn));
      CHECK_FALSE(accepts(g, call.substr(0, call.size() - 1)));
    }
  }
  // ai00 v0's syntax: compact JSON between <tool_call> tags, no thinking, "\n\n" ends the turn.
  auto v0 = fmt_of("ai00-v0");
  const auto schema = grammar_of(*v0, grammar::ValidationLevel::schema_aware);
  CHECK(accepts(
      schema,
      R"(<tool_call>{"name":"get_weather","arguments":{"city":"Oslo","days":3}}</tool_call>)"
      "\n\n"));
  CHECK_FALSE(accepts(schema,
                      R"(<tool_call>{"name":"get_weather","arguments":{"days":3}}</tool_call>)"
                      "\n\n"));
  CHECK_FALSE(accepts(schema, R"(<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}})"
                              "</tool_call>\n\n"));
  // No thinking markers: "<think>" is text; the turn ends at its first blank line.
  CHECK(accepts(schema, "<think>x</think>Hi\n\n"));
  CHECK_FALSE(accepts(schema, "Hi\n\nmore\n\n"));
}

TEST_CASE("seed formats: thinking as their renders write it", "[format][syntax_format]") {
  for (const char* name : {"ai00-v1", "openchatml"}) {
    INFO(name);
    auto f = fmt_of(name);
    format::RenderOptions o{};
    o.tools = format::parse_tools(kTools).value();
    const std::string turn = model_turn(*f, kTextTurn, o);
    INFO("turn: " << turn);
    CHECK(turn.find("Greet back.") != std::string::npos);
    CHECK(accepts(grammar_of(*f, grammar::ValidationLevel::structural), turn));
  }
  // Goose: no tool syntax, so a thinking-only grammar; its thinking prompt ends in "<think" and
  // the syntax says the model writes the ">".
  auto goose = fmt_of("goose");
  CHECK(goose->syntax().tool_calls.trigger.empty());
  auto kbnf =
      grammar::thinking_only_kbnf(goose->syntax().thinking, grammar::ThinkingStart::forced_open);
  REQUIRE(kbnf.ok());
  const auto g = grammar::CompiledGrammar::compile_kbnf(kbnf.value(), nullptr);
  CHECK(accepts(g, ">\nGreet back.\n</think>\nHello!"));
  CHECK_FALSE(accepts(g, "Greet back.\n</think>\nHello!"));
}

namespace {

const char* const kTypedTools =
    R"([{"name": "plan", "parameters": {"type": "object", "properties": {
        "days": {"type": "integer"}, "span": {"type": "integer", "minimum": 1, "maximum": 30},
        "step": {"type": "integer", "multipleOf": 5}, "ratio": {"type": "number"},
        "ok": {"type": "boolean"}, "opts": {"type": "object"}, "tags": {"type": "array"},
        "note": {"type": "string"}}}}])";

const char* const kTypedArgs =
    R"({"days": 2, "span": 14, "step": 10, "ratio": 2.5, "ok": true, "opts": {"k": [1, null]},
        "tags": ["a", 2], "note": "2"})";

grammar::CompiledGrammar typed_grammar(const format::ChatFormat& f) {
  auto specs = grammar::parse_tool_list(kTypedTools);
  REQUIRE(specs.ok());
  grammar::ToolGrammarOptions o;
  o.syntax = f.syntax();
  o.level = grammar::ValidationLevel::schema_aware;
  auto g = grammar::build_tool_grammar(specs.value(), o);
  if (!g.ok()) FAIL(g.error().message);
  return grammar::CompiledGrammar::compile_kbnf(g.value().kbnf, nullptr);
}

// `s` with the value `from` of the parameter `key` replaced by `to` (the first `from` after
// the key's name, in any call layout).
std::string with_value(std::string s, const std::string& key, const std::string& from,
                       const std::string& to) {
  const size_t at = s.find(from, s.find("\"" + key + "\""));
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("seed formats: typed parameters come back as their JSON types, integers as integers",
          "[format][syntax_format]") {
  const json::Value args = json::parse(kTypedArgs).value();
  const std::string conversation =
      R"([{"role": "user", "content": "Plan."}, {"role": "assistant", "tool_calls": [
          {"type": "function", "function": {"name": "plan", "arguments": )" +
      std::string(kTypedArgs) + "}}]}]";
  for (const char* name : {"ai00-v1", "openchatml", "ai00-v0"}) {
    INFO(name);
    auto f = fmt_of(name);
    format::RenderOptions o{};
    if (std::string(name) != "ai00-v0") o.tools = format::parse_tools(kTypedTools).value();
    std::string call = model_turn(*f, conversation.c_str(), o);
    // The ai00 v1 renderer writes object and array values compact, its grammar in the
    // canonical layout (docs/grammar.md "JSON Schema"); both parse to the same value.
    if (std::string(name) == "ai00-v1") {
      call = with_value(call, "opts", R"({"k":[1,null]})", R"({"k": [1, null]})");
      call = with_value(call, "tags", R"(["a",2])", R"(["a", 2])");
    }
    INFO("call turn: " << call);
    const auto g = typed_grammar(*f);
    CHECK(accepts(g, call));
    format::ParseOptions po;
    po.tools = format::parse_tools(kTypedTools).value();
    auto r = parse_every_way(*f, po, call);
    REQUIRE(r.message.tool_calls.size() == 1);
    CHECK(r.message.tool_calls[0].arguments == args);
    CHECK(r.warnings.empty());
    // An integer only as digits: JSON Schema's 2.0, 2e0 and 2.0000000000 are refused, with
    // and without bounds and multipleOf.
    for (const auto& [key, value] :
         {std::pair<std::string, std::string>{"days", "2"}, {"span", "14"}, {"step", "10"}}) {
      for (const char* suffix : {".0", ".0000000000", "e0"}) {
        INFO(key << " " << value << suffix);
        CHECK_FALSE(accepts(g, with_value(call, key, value, value + suffix)));
      }
    }
  }
}

TEST_CASE("ai00 v1: integers written with a zero fraction or an exponent are typed as integers",
          "[format][syntax_format]") {
  // A grammar that allowed JSON Schema's integer forms (a custom one, or structural) must not
  // turn an integer parameter into a string: the parser reads the value and writes digits.
  auto f = fmt_of("ai00-v1");
  format::ParseOptions po;
  po.tools = format::parse_tools(kTypedTools).value();
  const std::string head = "<ai00:function_calls>\n  <invoke name=\"plan\">\n";
  const std::string tail = "  </invoke>\n</ai00:function_calls>";
  const std::pair<const char*, const char*> cases[] = {{"2.0000000000", "2"}, {"1e3", "1000"},
                                                       {"-2.50e1", "-25"},    {"0.0", "0"},
                                                       {"-0", "-0"},          {"12E+0", "12"}};
  for (const auto& [text, digits] : cases) {
    INFO(text);
    auto r = parse_every_way(
        *f, po, head + "    <parameter name=\"days\">" + text + "</parameter>\n" + tail);
    REQUIRE(r.message.tool_calls.size() == 1);
    CHECK(json::write(r.message.tool_calls[0].arguments) ==
          std::string("{\"days\":") + digits + "}");
    CHECK(r.warnings.empty());
  }
  // Not integers: kept as strings, with a warning naming the parameter.
  for (const char* text : {"2.5", "1e-1", "two"}) {
    INFO(text);
    auto r = parse_every_way(
        *f, po, head + "    <parameter name=\"days\">" + text + "</parameter>\n" + tail);
    REQUIRE(r.message.tool_calls.size() == 1);
    CHECK(r.message.tool_calls[0].arguments.find("days")->is_string());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("\"days\"") != std::string::npos);
  }
}
