// Issue 13 "tool-call argument fragments as they stream": what a Generator's chat turn emits
// while the model writes a tool call (a forced ai00 v1 call on the random 512-token fixture),
// against what the output parser emits with ParseOptions::stream_tool_calls for the same text.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/model/state.h"
#include "core/pipeline/generator.h"
#include "fixtures.h"

using namespace ai00::internal;
using ai00::test::shared_path;
using Preview = format::ToolCallDelta::Preview;

namespace {

ChatRequest weather_request() {
  ChatRequest req;
  req.format = format::make_format("ai00-v1").value();
  format::Message user;
  user.role = format::Role::user;
  user.contents.push_back(format::Part::make_text("Weather in Tokyo, in celsius?"));
  req.conversation = {user};
  req.render.tools = format::parse_tools(R"([{"name": "get_weather",
      "description": "Weather for a city",
      "input_schema": {"type": "object", "properties": {"location": {"type": "string"},
                       "unit": {"type": "string"}}, "required": ["location"]}}])")
                         .value();
  return req;
}

// The call the grammar forces: two parameters, each value a few letters.
const char* kForcedCall =
    "start ::= '<ai00:function_calls>\\n  <invoke name=\"get_weather\">\\n    <parameter "
    "name=\"location\">' #'[A-Za-z]{1,8}' '</parameter>\\n    <parameter name=\"unit\">' "
    "#'[a-z]{1,8}' '</parameter>\\n  </invoke>\\n</ai00:function_calls>';";

struct Seen {
  size_t starts = 0, argument_pieces = 0, whole_calls = 0;
  bool previews_before_whole = true;
};

Seen tally(const std::vector<format::MessageDelta>& deltas) {
  Seen s;
  for (const auto& d : deltas)
    for (const auto& c : d.tool_calls) {
      if (c.preview == Preview::start) s.starts++;
      if (c.preview == Preview::arguments) s.argument_pieces++;
      if (c.preview == Preview::none) s.whole_calls++;
      if (c.preview != Preview::none && s.whole_calls > 0) s.previews_before_whole = false;
    }
  return s;
}

// The deltas of the forced turn; `text` gets the call's text, rebuilt from the parsed values.
std::vector<format::MessageDelta> generate(std::string* text) {
  auto m = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  State st(*m);
  GenerateOptions o;
  o.seed = 3;
  o.max_tokens = 300;
  o.grammar = GrammarRequest{GrammarMode::kbnf, kForcedCall};
  o.stream_tool_calls = true;
  Generator g(m, st, weather_request(), o);
  std::vector<format::MessageDelta> deltas;
  REQUIRE(g.run([&](const format::MessageDelta& d) {
    deltas.push_back(d);
    return 0;
  }) == format::FinishReason::tool_calls);
  REQUIRE(g.message().tool_calls.size() == 1);
  const auto& call = g.message().tool_calls[0];
  *text =
      "<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter "
      "name=\"location\">" +
      call.arguments.find("location")->as_string() + "</parameter>\n    <parameter name=\"unit\">" +
      call.arguments.find("unit")->as_string() +
      "</parameter>\n  </invoke>\n</ai00:function_calls>";
  return deltas;
}

}  // namespace

TEST_CASE("the output parser streams a call's start and one argument piece per parameter",
          "[generator][tool_stream]") {
  std::string text;
  generate(&text);
  format::ParseOptions po;
  po.tools = weather_request().render.tools;
  po.stream_tool_calls = true;
  auto parser = format::make_format("ai00-v1").value()->make_parser(po);
  std::vector<format::MessageDelta> deltas;
  for (size_t i = 0; i < text.size(); i += 3)  // chunks about the size of tokens
    for (auto& d : parser->feed(std::string_view(text).substr(i, 3))) deltas.push_back(d);
  for (auto& d : parser->finish(format::FinishReason::stop)) deltas.push_back(d);
  const Seen s = tally(deltas);
  CHECK(s.starts == 1);
  CHECK(s.argument_pieces >= 2);
  CHECK(s.whole_calls == 1);
  CHECK(s.previews_before_whole);
}

// GenerateOptions::stream_tool_calls hands ParseOptions::stream_tool_calls to the Generator's
// output parser: the call's start, then one argument piece per parameter, then the whole call.
TEST_CASE("a Generator's chat turn streams tool-call argument pieces", "[generator][tool_stream]") {
  std::string text;
  const auto deltas = generate(&text);
  const Seen s = tally(deltas);
  CHECK(s.whole_calls == 1);
  CHECK(s.starts == 1);
  CHECK(s.argument_pieces >= 2);
  CHECK(s.previews_before_whole);
  // The pieces concatenate to the whole call's arguments.
  std::string pieces, whole;
  for (const auto& d : deltas)
    for (const auto& c : d.tool_calls) {
      if (c.preview == Preview::arguments) pieces += c.arguments;
      if (c.preview == Preview::none) whole = c.arguments;
    }
  CHECK(pieces == whole);
}

namespace {

ChatRequest clock_request() {
  ChatRequest req = weather_request();
  req.render.tools = format::parse_tools(R"([{"name": "get_weather",
      "input_schema": {"type": "object", "properties": {"location": {"type": "string"}}}},
      {"name": "get_time", "parameters": {"type": "object", "additionalProperties": false}}])")
                         .value();
  return req;
}

}  // namespace

TEST_CASE("a Generator's tool choice forces the named tool, once", "[generator][tool_stream]") {
  auto m = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  State st(*m);
  GenerateOptions o;
  o.seed = 5;
  o.max_tokens = 200;
  o.grammar = GrammarRequest{GrammarMode::schema_aware, ""};
  o.tool_choice.mode = grammar::ToolChoiceMode::named;
  o.tool_choice.name = "get_time";
  o.tool_choice.parallel_calls = false;
  o.stream_tool_calls = true;
  Generator g(m, st, clock_request(), o);
  CHECK(g.run([](const format::MessageDelta&) { return 0; }) == format::FinishReason::tool_calls);
  REQUIRE(g.message().tool_calls.size() == 1);
  CHECK(g.message().tool_calls[0].name == "get_time");
  CHECK(g.message().contents.empty());
}

TEST_CASE("a Generator refuses a tool choice it cannot carry", "[generator][tool_stream]") {
  auto m = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  State st(*m);
  GenerateOptions o;
  o.tool_choice.mode = grammar::ToolChoiceMode::named;
  o.tool_choice.name = "get_tme";
  CHECK_THROWS_WITH(Generator(m, st, clock_request(), o),
                    Catch::Contains("`get_tme`") && Catch::Contains("get_weather, get_time"));
  o.grammar = GrammarRequest{GrammarMode::kbnf, kForcedCall};
  o.tool_choice.name = "get_time";
  CHECK_THROWS_WITH(Generator(m, st, clock_request(), o), Catch::Contains("`kbnf`"));
  RawRequest raw;
  raw.prompt = "Hi";
  o.grammar = GrammarRequest{};
  CHECK_THROWS_WITH(Generator(m, st, raw, o), Catch::Contains("chat turn"));
}
