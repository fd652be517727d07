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

// Known gap (docs/generation.md "Generator"): Generator never sets ParseOptions::stream_tool_calls
// (generator.cpp builds its ParseOptions without it and GenerateOptions has no such field), so a
// generated call arrives only whole, when it closes. [!shouldfail]: this test starts to "fail"
// (its checks pass) once the option is plumbed through; then drop the tag.
TEST_CASE("a Generator's chat turn streams tool-call argument pieces",
          "[generator][tool_stream][!shouldfail]") {
  std::string text;
  const Seen s = tally(generate(&text));
  CHECK(s.whole_calls == 1);
  CHECK(s.starts == 1);
  CHECK(s.argument_pieces >= 2);
}
