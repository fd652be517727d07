// Tests of src/format/goose.{h,cpp}: seed 001 prompts, thinking tiers, parsing, presets.
#include <catch2/catch.hpp>

#include "format/goose.h"
#include "format_test_util.h"

using namespace ai00::internal::format;
using namespace ai00::test;

namespace {

const ChatFormat& goose() {
  static auto f = make_goose();
  return *f;
}

std::vector<Message> conv_of(const std::string& json_text) {
  auto c = parse_conversation(json_text);
  INFO((c ? "" : c.error().message));
  REQUIRE(c.ok());
  return c.value();
}

RenderOptions thinking(Thinking t) {
  RenderOptions o;
  o.thinking = t;
  return o;
}

}  // namespace

TEST_CASE("goose: seed 001 prompts render byte for byte", "[format][goose]") {
  auto conv = conv_of(R"([{"role": "system", "content": "..."}, {"role": "user", "content": "..."},
                          {"role": "assistant", "content": "..."}, {"role": "user", "content": "..."}])");
  CHECK(render_ok(goose(), conv, {}) == golden("goose_turns.txt"));
  auto q = conv_of(R"([{"role": "user", "content": "USER_PROMPT"}])");
  CHECK(render_ok(goose(), q, thinking(Thinking::on)) == golden("goose_thinking.txt"));
  CHECK(render_ok(goose(), q, thinking(Thinking::a_bit)) ==
        "User: USER_PROMPT think a bit\n\nAssistant: <think");
  CHECK(render_ok(goose(), q, thinking(Thinking::a_lot)) ==
        "User: USER_PROMPT think a lot\n\nAssistant: <think");
  CHECK(render_ok(goose(), q, {}) == "User: USER_PROMPT\n\nAssistant:");
}

TEST_CASE("goose: newline normalisation and no trailing whitespace", "[format][goose]") {
  auto conv = conv_of(
      R"([{"role": "user", "content": "  Line one\r\n\r\n\n  \nLine two\n\n    indented\n\n "},
                          {"role": "assistant", "content": "ok  "}])");
  RenderOptions o;
  o.add_generation_prompt = false;
  const std::string p = render_ok(goose(), conv, o);
  CHECK(p == "User: Line one\nLine two\n    indented\n\nAssistant: ok");
  auto empty = conv_of(R"([{"role": "user", "content": ""}])");
  CHECK(render_ok(goose(), empty, o) == "User:");
  // Speaker names replace the role label.
  auto named = conv_of(R"([{"role": "user", "name": "Alice", "content": "Hi"}])");
  RenderOptions n;
  n.assistant_name = "Bob";
  CHECK(render_ok(goose(), named, n) == "Alice: Hi\n\nBob:");
  auto r = goose().render(named, {});
  CHECK(r.value().stop_sequences == std::vector<std::string>{"\n\n"});
  CHECK(r.value().stop_on_token0);
  CHECK_FALSE(r.value().prepend_token0);
  GooseOptions t0;
  t0.prepend_token0 = true;
  CHECK(make_goose(t0)->render(named, {}).value().prepend_token0);
}

TEST_CASE("goose: output parses back at every split point", "[format][goose]") {
  auto plain = parse_every_way(goose(), {}, " Hello there!\nHow are you?\n\nUser: ignored");
  CHECK(plain.message.text() == "Hello there!\nHow are you?");
  CHECK(plain.finish_reason == FinishReason::stop);
  ParseOptions po;
  po.thinking_open = true;
  auto think =
      parse_every_way(goose(), po, ">\nThe user greets me.\nI greet back.\n</think>\nHello! 😀\n\n");
  CHECK(*think.message.reasoning == "The user greets me.\nI greet back.");
  CHECK(think.message.text() == "Hello! 😀");
  // The forced-open prompt matches what the renderer writes back for history.
  auto q = conv_of(R"([{"role": "user", "content": "Hi"}])");
  auto r = goose().render(q, thinking(Thinking::on));
  CHECK(r.value().constraints.thinking_open_in_prompt);
  CHECK(r.value().constraints.syntax.thinking.forced_open_completion == ">");
  CHECK(r.value().constraints.syntax.thinking.close == "</think>");
  CHECK(r.value().constraints.syntax.tool_calls.trigger.empty());  // seed 001: no tool syntax
  // Thinking that never closes is all reasoning.
  auto open = parse_every_way(goose(), po, "> still going");
  CHECK(*open.message.reasoning == " still going");
  CHECK(open.message.contents.empty());
}

TEST_CASE("goose: render then parse round-trips reasoning and names", "[format][goose]") {
  auto conv = conv_of(R"([{"role": "user", "name": "Alice", "content": "2+2?"},
    {"role": "assistant", "name": "Goose", "reasoning": "Add them.\nIt is 4.", "content": "4, Alice. ✓"}])");
  RenderOptions o;
  o.assistant_name = "Goose";
  ParseOptions po;
  po.assistant_name = "Goose";
  auto r = parse_every_way(goose(), po, model_output(goose(), conv, o, false));
  CHECK(r.message == conv.back());
}

TEST_CASE("goose: tools and images are refused", "[format][goose]") {
  RenderOptions o;
  o.tools = parse_tools(R"([{"name": "f"}])").value();
  auto e = goose().render({}, o);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().kind == ai00::internal::ErrorKind::unsupported);
  CHECK(e.error().message.rfind("tools: seed 001 defines no tool syntax", 0) == 0);
  auto calls = conv_of(
      R"([{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}])");
  CHECK(goose().render(calls, {}).error().message.rfind("/1/tool_calls: ", 0) == 0);
  auto tool = conv_of(R"([{"role": "tool", "content": "x"}])");
  CHECK(goose().render(tool, {}).error().message.rfind("/0: ", 0) == 0);
  auto image = conv_of(R"([{"role": "user", "contents": [{"type": "image", "image": {}}]}])");
  CHECK(goose().render(image, {}).error().message.rfind("/0/contents/0: an image part", 0) == 0);
  auto name = conv_of(R"([{"role": "user", "name": "A:B", "content": "x"}])");
  CHECK(goose().render(name, {}).error().message.rfind("/0/name: speaker name", 0) == 0);
}

TEST_CASE("goose: recommended sampling presets", "[format][goose]") {
  REQUIRE(goose_sampling_presets().size() == 3);
  auto math = goose_sampling_preset("math");
  REQUIRE(math);
  CHECK(math->temperature == Approx(0.3));
  CHECK(math->top_p == Approx(0.3));
  CHECK(math->penalty_decay == Approx(0.996));
  auto chat = goose_sampling_preset("chat");
  CHECK(chat->presence_penalty == Approx(0.5));
  CHECK(chat->frequency_penalty == Approx(0.5));
  auto creative = goose_sampling_preset("creative");
  CHECK(creative->top_p == Approx(0.7));
  CHECK(creative->presence_penalty == Approx(1.5));
  CHECK(creative->penalty_decay == Approx(0.99));
  CHECK(creative->top_k == 128);
  CHECK_FALSE(goose_sampling_preset("wild"));
}
