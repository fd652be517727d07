// Tests of src/format/ai00_v0.{h,cpp}: the seed 000 migration table, parsing, options.
#include <catch2/catch.hpp>

#include "format/ai00_v0.h"
#include "format/ai00_v1.h"
#include "format_test_util.h"

using namespace ai00::internal::format;
using namespace ai00::test;

namespace {

const ChatFormat& v0() {
  static auto f = make_ai00_v0();
  return *f;
}

RenderOptions no_gen() {
  RenderOptions o;
  o.add_generation_prompt = false;
  return o;
}

}  // namespace

TEST_CASE("ai00 v0: the seed 000 migration table", "[format][ai00_v0]") {
  auto v1 = make_ai00_v1();
  struct Row {
    Role role;
    const char* v0_text;
    const char* v1_text;
  };
  const Row rows[] = {
      {Role::user, "User: content", "<ai00:user>\ncontent\n</ai00:user>"},
      {Role::assistant, "Assistant: content", "<ai00:assistant>\ncontent\n</ai00:assistant>"},
      {Role::system, "System: content", "<ai00:system>\ncontent\n</ai00:system>"}};
  for (const auto& row : rows) {
    Message m;
    m.role = row.role;
    m.contents.push_back(Part::make_text("content"));
    CHECK(render_ok(v0(), {m}, no_gen()) == row.v0_text);
    CHECK(render_ok(*v1, {m}, no_gen()) == row.v1_text);  // the same message migrates unchanged
  }
  // `<tool_call>{"name":...}</tool_call>` ↔ `<ai00:function_calls><invoke name="...">...`
  Message call;
  call.role = Role::assistant;
  call.tool_calls.push_back(
      ToolCall{"c", "get_weather", ai00::internal::json::parse(R"({"city":"Tokyo"})").value()});
  CHECK(render_ok(v0(), {call}, no_gen()) ==
        R"(Assistant: <tool_call>{"name":"get_weather","arguments":{"city":"Tokyo"}}</tool_call>)");
  CHECK(render_ok(*v1, {call}, no_gen()) ==
        "<ai00:assistant>\n" + golden("ai00_v1_call.txt") + "\n</ai00:assistant>");
}

TEST_CASE("ai00 v0: prompts, options and normalisation", "[format][ai00_v0]") {
  auto conv = parse_conversation(R"([{"role": "system", "content": "Be nice."},
    {"role": "user", "content": "Hi\n\n\nthere "}, {"role": "observation", "content": "42"}])");
  REQUIRE(conv.ok());
  auto r = v0().render(conv.value(), {});
  REQUIRE(r.ok());
  CHECK(r.value().prompt == "System: Be nice.\n\nUser: Hi\nthere\n\nObservation: 42\n\nAssistant:");
  CHECK(r.value().stop_sequences == std::vector<std::string>{"\n\n"});
  Ai00V0Options names;
  names.user = "Human";
  names.assistant = "Bot";
  auto f = make_ai00_v0(names);
  CHECK(render_ok(*f, {conv.value()[1]}, {}) == "Human: Hi\nthere\n\nBot:");
  auto bad = [](const std::string& conv, const RenderOptions& o = {}) {
    auto c = parse_conversation(conv);
    REQUIRE(c.ok());
    auto res = v0().render(c.value(), o);
    REQUIRE_FALSE(res.ok());
    return res.error();
  };
  RenderOptions tools;
  tools.tools = parse_tools(R"([{"name": "f"}])").value();
  CHECK(bad("[]", tools).kind == ai00::internal::ErrorKind::unsupported);
  RenderOptions think;
  think.thinking = Thinking::on;
  CHECK(bad("[]", think).message.rfind("thinking: ai00 v0 has no thinking syntax", 0) == 0);
  CHECK(bad(R"([{"role": "assistant", "reasoning": "r"}])").message.rfind("/0/reasoning", 0) == 0);
  CHECK(bad(R"([{"role": "user", "content": "<tool_call>{}"}])")
            .message.rfind("/0/contents/0/text: contains", 0) == 0);
}

TEST_CASE("ai00 v0: output parses back at every split point", "[format][ai00_v0]") {
  auto r = parse_every_way(v0(), {}, " Hello!\nBye.\n\nUser: more");
  CHECK(r.message.text() == "Hello!\nBye.");
  CHECK(r.finish_reason == FinishReason::stop);
  ParseOptions po;
  po.id_seed = 11;
  auto c = parse_every_way(
      v0(), po,
      " Let me look.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": "
      "\"Tokyo\"}}</tool_call>\n"
      "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}</tool_call>");
  CHECK(c.message.text() == "Let me look.");
  REQUIRE(c.message.tool_calls.size() == 2);
  CHECK(c.message.tool_calls[0].id == tool_call_id(11, 0));
  CHECK(ai00::internal::json::write(c.message.tool_calls[1].arguments) == R"({"a":1})");
  CHECK(c.finish_reason == FinishReason::tool_calls);
  auto bad = parse_every_way(v0(), {}, " <tool_call>oops</tool_call> and <tool_call>{\"name\":");
  CHECK(bad.message.tool_calls.empty());
  CHECK(bad.message.text() == "<tool_call>oops</tool_call> and <tool_call>{\"name\":");
  CHECK(bad.warnings.size() == 2);
}

TEST_CASE("ai00 v0: render then parse round-trips calls and names", "[format][ai00_v0]") {
  auto conv = parse_conversation(R"([{"role": "user", "name": "Ann", "content": "Weather?"},
    {"role": "assistant", "name": "Bot", "content": "Checking.",
     "tool_calls": [{"function": {"name": "w", "arguments": {"city": "Oslo", "n": [1.5, true]}}},
                    {"function": {"name": "t", "arguments": {}}}]}])");
  REQUIRE(conv.ok());
  RenderOptions o;
  o.assistant_name = "Bot";
  ParseOptions po;
  po.assistant_name = "Bot";
  auto r = parse_every_way(v0(), po, model_output(v0(), conv.value(), o, false));
  Message expected = conv.value().back();
  for (size_t k = 0; k < 2; ++k) expected.tool_calls[k].id = tool_call_id(0, k);
  CHECK(r.message == expected);
}
