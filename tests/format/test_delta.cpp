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

// A delta merges into the last call at its position, in whatever order positions come (parsers
// send them in order: then the call is found from the end; out of order: by a scan).
TEST_CASE("delta: calls merge by position, in order and out of order", "[format][delta]") {
  MessageDelta acc;
  for (size_t k = 0; k < 3; ++k)
    acc.accumulate(
        MessageDelta::call(ToolCallDelta{k, "call_" + std::to_string(k), "f", "", true, ""}));
  acc.accumulate(MessageDelta::call(ToolCallDelta{2, "", "2", "", true, ""}));
  acc.accumulate(MessageDelta::call(ToolCallDelta{0, "", "0", "", true, ""}));  // back to 0
  acc.accumulate(MessageDelta::call(ToolCallDelta{5, "call_5", "g", "", true, ""}));
  acc.accumulate(MessageDelta::call(ToolCallDelta{4, "call_4", "h", "", true, ""}));  // unordered
  acc.accumulate(MessageDelta::call(ToolCallDelta{5, "", "5", "", true, ""}));
  acc.accumulate(MessageDelta::call(ToolCallDelta{1, "", "1", "", true, ""}));
  const Message m = acc.finish();
  std::vector<std::string> names;
  for (const auto& c : m.tool_calls) names.push_back(c.id + ":" + c.name);
  CHECK(names ==
        std::vector<std::string>{"call_0:f0", "call_1:f1", "call_2:f2", "call_5:g5", "call_4:h"});
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

TEST_CASE("delta queue: order, empty deltas dropped, everything accumulated", "[format][delta]") {
  DeltaQueue q;
  q.push(MessageDelta{});  // carries nothing: dropped
  CHECK(q.empty());
  q.push(MessageDelta::text("a"));
  q.push(MessageDelta::text("b"));  // not coalesced unless asked
  MessageDelta fin;
  fin.finish_reason = FinishReason::stop;
  q.push(fin);  // a finish reason alone is not empty
  REQUIRE(q.size() == 3);
  CHECK(q.pop().contents[0].text == "a");
  const std::vector<MessageDelta> rest = q.take_all();
  REQUIRE(rest.size() == 2);
  CHECK(rest[0].contents[0].text == "b");
  CHECK(rest[1].finish_reason == FinishReason::stop);
  CHECK(q.empty());
  CHECK_THROWS(q.pop());
  // Handing deltas out does not forget them: the message holds all of them.
  CHECK(q.message().contents.at(0).text == "ab");
  q.push(MessageDelta::text("c"));
  CHECK(q.message().contents.at(0).text == "abc");  // recomputed after a push
}

TEST_CASE("delta queue: coalescing merges only same-kind one-field deltas", "[format][delta]") {
  DeltaQueue q;
  q.push(MessageDelta::thinking("th"), true);
  q.push(MessageDelta::thinking("ink"), true);
  q.push(MessageDelta::text("Hel"), true);
  q.push(MessageDelta::text("lo"), true);
  q.push(MessageDelta::call(ToolCallDelta{0, "call_1", "f", "{}", true, ""}), true);
  q.push(MessageDelta::text("!"), true);  // after a call: a new delta
  const std::vector<MessageDelta> out = q.take_all();
  REQUIRE(out.size() == 4);
  CHECK(out[0].reasoning == "think");
  CHECK(out[1].contents[0].text == "Hello");
  CHECK(out[2].tool_calls.size() == 1);
  CHECK(out[3].contents[0].text == "!");
  const Message m = q.message();
  CHECK(m.reasoning == "think");
  CHECK(m.tool_calls.size() == 1);
}
