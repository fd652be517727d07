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

// The JSON formats stream their arguments as the tokens arrive too (docs/chat-formats.md
// "Deltas and finish reasons"): a forced call in ai00 v0 (name first) and OpenChatML
// (arguments first, so the start has no name yet).
TEST_CASE("a Generator's chat turn streams JSON tool-call arguments in ai00 v0 and OpenChatML",
          "[generator][tool_stream]") {
  struct FormatCase {
    const char* format;
    const char* grammar;
    bool named_start;
  };
  const FormatCase cases[] = {
      {"ai00-v0",
       "start ::= '<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"location\":\"' "
       "#'[A-Za-z]{4,12}' '\",\"unit\":\"' #'[a-z]{4,12}' '\"}}</tool_call>';",
       true},
      {"openchatml",
       "start ::= '<|function_call|>\\n{\"arguments\": {\"location\": \"' #'[A-Za-z]{4,12}' "
       "'\", \"unit\": \"' #'[a-z]{4,12}' '\"}, \"name\": \"get_weather\"}';",
       false},
  };
  auto m = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  for (const auto& fc : cases) {
    INFO(fc.format);
    ChatRequest req = weather_request();
    req.format = format::make_format(fc.format).value();
    if (std::string(fc.format) == "ai00-v0") req.render.tools.clear();  // v0 lists no tools
    State st(*m);
    GenerateOptions o;
    o.seed = 11;
    o.max_tokens = 300;
    o.grammar = GrammarRequest{GrammarMode::kbnf, fc.grammar};
    o.stream_tool_calls = true;
    Generator g(m, st, req, o);
    std::vector<format::MessageDelta> deltas;
    REQUIRE(g.run([&](const format::MessageDelta& d) {
      deltas.push_back(d);
      return 0;
    }) == format::FinishReason::tool_calls);
    REQUIRE(g.message().tool_calls.size() == 1);
    CHECK(g.message().tool_calls[0].name == "get_weather");
    const Seen s = tally(deltas);
    CHECK(s.starts == 1);
    CHECK(s.whole_calls == 1);
    CHECK(s.previews_before_whole);
    // Several pieces: the arguments came token by token, not in one piece at the end.
    CHECK(s.argument_pieces >= 4);
    std::string pieces, whole, start_name;
    for (const auto& d : deltas)
      for (const auto& c : d.tool_calls) {
        if (c.preview == Preview::start) start_name = c.name;
        if (c.preview == Preview::arguments) pieces += c.arguments;
        if (c.preview == Preview::none) whole = c.arguments;
      }
    CHECK(pieces == whole);
    CHECK(start_name == (fc.named_start ? "get_weather" : ""));
  }
}

// Issue 13 "Finish reason tool_calls hides a length cut": a turn cut by max_tokens inside the
// forced call finishes with `length`, its call is one incomplete delta (valid = false) closing
// the streamed preview, and the call's text is content, not a tool call.
TEST_CASE("a Generator's turn cut by max_tokens inside a call says length",
          "[generator][tool_stream]") {
  auto m = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  GenerateOptions o;
  o.seed = 3;
  o.max_tokens = 300;
  o.grammar = GrammarRequest{GrammarMode::kbnf, kForcedCall};
  o.stream_tool_calls = true;
  size_t whole_call_tokens = 0;
  {
    State st(*m);
    Generator g(m, st, weather_request(), o);
    REQUIRE(g.run([](const format::MessageDelta&) { return 0; }) ==
            format::FinishReason::tool_calls);
    whole_call_tokens = g.tokens().size();
  }
  // The same turn (same seed) cut two thirds of the way: past the invoke name, before its end.
  o.max_tokens = whole_call_tokens * 2 / 3;
  State st(*m);
  Generator g(m, st, weather_request(), o);
  std::vector<format::MessageDelta> deltas;
  CHECK(g.run([&](const format::MessageDelta& d) {
    deltas.push_back(d);
    return 0;
  }) == format::FinishReason::length);
  CHECK(g.message().tool_calls.empty());
  CHECK(g.message().text().find("<invoke name=\"get_weather\">") != std::string::npos);
  size_t starts = 0, incomplete = 0, abandoned = 0;
  for (const auto& d : deltas)
    for (const auto& c : d.tool_calls) {
      if (c.preview == Preview::start) ++starts;
      if (c.preview == Preview::abandoned) ++abandoned;
      if (c.preview == Preview::none) {
        CHECK_FALSE(c.valid);
        CHECK(c.name == "get_weather");
        ++incomplete;
      }
    }
  CHECK(starts == 1);
  CHECK(incomplete == 1);
  CHECK(abandoned == 0);
}
