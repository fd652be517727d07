// Tests of src/format/delta.{h,cpp}: accumulating streamed deltas into a Message.
#include <catch2/catch.hpp>

#include "format/delta.h"

using namespace ai00::internal::format;

TEST_CASE("delta: accumulate and finish", "[format][delta]") {
  MessageDelta acc;
  acc.accumulate(MessageDelta::thinking("Let me "));
  acc.accumulate(MessageDelta::thinking("think."));
  acc.accumulate(MessageDelta::text("Hel"));
  acc.accumulate(MessageDelta::text("lo"));
  ToolCallDelta a{0, "call_1", "get_", "{\"city\":", true, ""};
  ToolCallDelta b{0, "", "weather", "\"Tokyo\"}", true, ""};
  ToolCallDelta c{1, "call_2", "f", "", true, ""};
  acc.accumulate(MessageDelta::call(a));
  acc.accumulate(MessageDelta::call(b));
  acc.accumulate(MessageDelta::call(c));
  MessageDelta fin;
  fin.finish_reason = FinishReason::tool_calls;
  acc.accumulate(fin);
  Message m = acc.finish();
  CHECK(m.role == Role::assistant);
  CHECK(*m.reasoning == "Let me think.");
  REQUIRE(m.contents.size() == 1);
  CHECK(m.contents[0].text == "Hello");
  REQUIRE(m.tool_calls.size() == 2);
  CHECK(m.tool_calls[0].id == "call_1");
  CHECK(m.tool_calls[0].name == "get_weather");
  CHECK(ai00::internal::json::write(m.tool_calls[0].arguments) == R"({"city":"Tokyo"})");
  CHECK(ai00::internal::json::write(m.tool_calls[1].arguments) == "{}");
  CHECK(*acc.finish_reason == FinishReason::tool_calls);
}

TEST_CASE("delta: a malformed call goes back to the content", "[format][delta]") {
  MessageDelta acc;
  acc.accumulate(MessageDelta::text("Sure. "));
  acc.accumulate(MessageDelta::call(ToolCallDelta{0, "call_1", "f", "{\"x\":", false, "<call f>"}));
  Message m = acc.finish();
  CHECK(m.tool_calls.empty());
  CHECK(m.text() == "Sure. <call f>");
}

TEST_CASE("delta: PartDelta merges text and replaces other parts", "[format][delta]") {
  PartDelta p{PartType::text, "a", {}};
  p.accumulate(PartDelta{PartType::text, "b", {}});
  CHECK(p.finish().text == "ab");
  p.accumulate(PartDelta{PartType::value, "", ai00::internal::json::Value(3)});
  CHECK(p.finish().type == PartType::value);
  CHECK(finish_reason_from_name("grammar_done") == FinishReason::grammar_done);
  CHECK_FALSE(finish_reason_from_name("done").has_value());
  CHECK(MessageDelta().empty());
}
