// Tests of src/format/message.{h,cpp}: the seed 004 message model and its JSON import/export.
#include <catch2/catch.hpp>

#include "format/message.h"

using namespace ai00::internal::format;
namespace json = ai00::internal::json;

namespace {
std::string error_of(const std::string& conversation) {
  auto c = parse_conversation(conversation);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().kind == ai00::internal::ErrorKind::format);
  return c.error().message;
}
}  // namespace

TEST_CASE("message: seed 004 examples import and export byte-stably", "[format][message]") {
  const std::string conv = R"([
    {"role": "system", "contents": [{"type": "text", "text": "You are a friendly and knowledgeable assistant."}]},
    {"role": "user", "contents": [{"type": "image", "image": {"data": "..."}}, {"type": "text", "text": "What you can see in this image?"}]},
    {"role": "assistant", "contents": [{"type": "text", "text": "Let me check the current weather for you."}],
     "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Seoul", "unit": "c"}}, "id": "call_01HZX2..."}]},
    {"role": "tool", "tool_call_id": "call_01HZX2...", "name": "get_weather",
     "contents": [{"type": "value", "value": {"temp": 12.3, "condition": "cloudy"}}]},
    {"role": "tool", "tool_call_id": "call_01HZX2...", "name": "get_weather",
     "contents": [{"type": "value", "value": {"error": {"code": "NOT_FOUND", "message": "Unknown city"}}}]}
  ])";
  auto c = parse_conversation(conv);
  REQUIRE(c.ok());
  const auto& m = c.value();
  REQUIRE(m.size() == 5);
  CHECK(m[1].contents[0].type == PartType::image);
  CHECK(m[2].tool_calls[0].id == "call_01HZX2...");
  CHECK(json::write(m[2].tool_calls[0].arguments) == R"({"city":"Seoul","unit":"c"})");
  CHECK(m[3].role == Role::tool);
  CHECK(*m[3].tool_call_id == "call_01HZX2...");
  CHECK(json::write(m[4].contents[0].data) ==
        R"({"error":{"code":"NOT_FOUND","message":"Unknown city"}})");  // errors travel as values
  const std::string out = json::write(to_json(m));
  auto back = parse_conversation(out);
  REQUIRE(back.ok());
  CHECK(back.value() == m);
  CHECK(json::write(to_json(back.value())) == out);
}

TEST_CASE("message: aliases are accepted", "[format][message]") {
  auto c = parse_conversation(R"([
    {"role": "user", "content": "plain string", "name": "Eric"},
    {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
     "thinking": "hmm",
     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}},
                    {"function": {"id": "c2", "name": "g"}}]},
    {"role": "observation", "id": "c1", "content": "ok"}
  ])");
  REQUIRE(c.ok());
  const auto& m = c.value();
  CHECK(m[0].text() == "plain string");
  CHECK(*m[0].name == "Eric");
  CHECK(m[1].text() == "ab");
  CHECK(*m[1].reasoning == "hmm");
  CHECK(json::write(m[1].tool_calls[0].arguments) == R"({"x":1})");
  CHECK(m[1].tool_calls[1].id == "c2");
  CHECK(json::write(m[1].tool_calls[1].arguments) == "{}");
  CHECK(m[2].role == Role::tool);
  CHECK(*m[2].tool_call_id == "c1");
  // Export writes the seed's names only.
  const std::string out = json::write(to_json(m[1]));
  CHECK(out.find("\"reasoning\":\"hmm\"") != std::string::npos);
  CHECK(out.find("thinking") == std::string::npos);
  CHECK(out.find("\"contents\"") != std::string::npos);
}

TEST_CASE("message: bad conversations name the offending field", "[format][message]") {
  CHECK(error_of(R"({"role": "user"})") == "(root): expected an array, got an object");
  CHECK(error_of(R"([{"role": "user"}, 3])") == "/1: expected an object, got a number");
  CHECK(error_of(R"([{"content": "x"}])") == "/0/role: missing (system, user, assistant or tool)");
  CHECK(error_of(R"([{"role": "robot"}])") ==
        "/0/role: unknown role \"robot\" (expected system, user, assistant or tool)");
  CHECK(
      error_of(
          R"([{"role": "user"}, {"role": "user"}, {"role": "assistant", "tool_calls": [{"function": {"name": 7}}]}])") ==
      "/2/tool_calls/0/function/name: expected a string, got a number");
  CHECK(error_of(R"([{"role": "assistant", "tool_calls": [{"function": {"arguments": {}}}]}])") ==
        "/0/tool_calls/0/function/name: missing");
  CHECK(
      error_of(
          R"([{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{x"}}]}])")
          .rfind("/0/tool_calls/0/function/arguments: a string that is not valid JSON", 0) == 0);
  CHECK(
      error_of(
          R"([{"role": "assistant", "tool_calls": [{"type": "code", "function": {"name": "f"}}]}])") ==
      "/0/tool_calls/0/type: expected \"function\"");
  CHECK(error_of(R"([{"role": "user", "tool_calls": [{"function": {"name": "f"}}]}])") ==
        "/0/tool_calls: only assistant messages carry tool calls");
  CHECK(
      error_of(R"([{"role": "user", "contents": [{"type": "video"}]}])") ==
      "/0/contents/0/type: unknown part type \"video\" (expected text, value, function or image)");
  CHECK(error_of(R"([{"role": "user", "contents": [{"type": "text", "text": 1}]}])") ==
        "/0/contents/0/text: expected a string, got a number");
  CHECK(error_of(R"([{"role": "user", "contents": [{"type": "value"}]}])") ==
        "/0/contents/0/value: missing in a value part");
  CHECK(error_of(
            R"([{"role": "user", "content": "a", "contents": [{"type": "text", "text": "b"}]}])") ==
        "/0/content: conflicts with /0/contents");
  CHECK(error_of(R"([{"role": "assistant", "reasoning": "a", "thinking": "b"}])") ==
        "/0/thinking: conflicts with /0/reasoning");
  CHECK(error_of(R"([{"role": "user", "tool_call_id": "x"}])") ==
        "/0/tool_call_id: only tool messages carry tool_call_id");
  CHECK(error_of(R"([{"role": "user", "name": ["a"]}])") ==
        "/0/name: expected a string, got an array");
  CHECK(error_of("[{\"role\": \"user\",}]").rfind("JSON syntax error", 0) == 0);
}

TEST_CASE("message: tool descriptions in all three spellings", "[format][message]") {
  auto t = parse_tools(R"([
    {"name": "get_weather", "description": "Retrieve current weather data for a specific city.",
     "parameters": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
     "returns": {"type": "object"}},
    {"type": "function", "function": {"name": "get_stock_fundamentals", "parameters": {"type": "object"}}},
    {"name": "get_time", "input_schema": {"type": "object", "properties": {}}}
  ])");
  REQUIRE(t.ok());
  REQUIRE(t.value().size() == 3);
  CHECK(t.value()[0].returns.has_value());
  CHECK(t.value()[1].name == "get_stock_fundamentals");
  CHECK(json::write(t.value()[2].parameters) == R"({"type":"object","properties":{}})");
  auto bad = [](const std::string& s) {
    auto r = parse_tools(s);
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(bad(R"([{"type": "function", "function": {"description": "x"}}])") ==
        "/0/function/name: missing");
  CHECK(bad(R"([{"name": "a", "parameters": []}])") ==
        "/0/parameters: expected an object, got an array");
  CHECK(bad(R"([{"name": "a", "parameters": {"type": "object"}, "input_schema": {}}])") ==
        "/0/input_schema: conflicts with /0/parameters");
  CHECK(bad(R"([{"name": "a"}, {"name": "a"}])") == "/1/name: duplicate tool name \"a\"");
  CHECK(bad(R"({"name": "a"})") == "(root): expected an array, got an object");
}
