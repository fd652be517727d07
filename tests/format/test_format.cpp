// Tests of src/format/format.{h,cpp}: the factory, shared names, and every parser fed random
// marker soup (no throw, deltas always accumulate to the message, text is valid UTF-8).
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "format/format.h"
#include "format_test_util.h"

using namespace ai00::internal::format;
using namespace ai00::test;

TEST_CASE("format: the factory knows the four formats", "[format]") {
  for (const auto& name : format_names()) {
    auto f = make_format(name);
    REQUIRE(f.ok());
    CHECK(f.value()->name() == name);
  }
  auto bad = make_format("chatml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == ai00::internal::ErrorKind::invalid_argument);
  CHECK(bad.error().message ==
        "unknown chat format \"chatml\" (known: ai00-v1, ai00-v0, goose, openchatml)");
  CHECK(thinking_from_name("a-bit") == Thinking::a_bit);
  CHECK_FALSE(thinking_from_name("lots").has_value());
  CHECK(std::string(thinking_name(Thinking::a_lot)) == "a-lot");
  // Every format exports its syntax as data, the same copy its renders carry.
  for (const auto& name : format_names()) {
    auto f = make_format(name).value();
    auto r = f->render({}, RenderOptions{});
    REQUIRE(r.ok());
    CHECK(r.value().constraints.syntax.end_of_turn == f->syntax().end_of_turn);
    CHECK_FALSE(f->syntax().end_of_turn.empty());
  }
}

TEST_CASE("format: random output never breaks a parser", "[format]") {
  const std::vector<std::string> pieces = {"<think>",
                                           "</think>",
                                           "<think",
                                           ">",
                                           "<ai00:function_calls>",
                                           "</ai00:function_calls>",
                                           "<invoke name=\"f\">",
                                           "</invoke>",
                                           "<parameter name=\"x\">",
                                           "</parameter>",
                                           "<ai00:",
                                           "</ai00:assistant>",
                                           "<|function_call|>",
                                           "{",
                                           "}",
                                           "\"",
                                           "\\",
                                           "[",
                                           "]",
                                           "<|start_reason|>",
                                           "<|end_reason|>",
                                           "<|start_reflect|>",
                                           "<|end_reflect|>",
                                           "<|im_end|>",
                                           "<|im",
                                           "<tool_call>",
                                           "</tool_call>",
                                           "\n",
                                           "\n\n",
                                           " ",
                                           "text",
                                           "{\"name\": \"f\", \"arguments\": {}}",
                                           "\xF0\x9F",
                                           "\x98\x80",
                                           "\xFF",
                                           "é"};
  std::mt19937 rng(20261121);
  for (const auto& name : format_names()) {
    auto f = make_format(name).value();
    for (int round = 0; round < 150; ++round) {
      std::string out;
      const int n = 1 + rng() % 30;
      for (int k = 0; k < n; ++k) out += pieces[rng() % pieces.size()];
      ParseOptions po;
      po.thinking_open = rng() % 2;
      INFO(name << " output: " << out);
      std::vector<std::string_view> chunks;
      for (size_t at = 0; at < out.size();) {
        const size_t len = std::min<size_t>(out.size() - at, 1 + rng() % 5);
        chunks.push_back(std::string_view(out).substr(at, len));
        at += len;
      }
      StreamRun whole, split;
      REQUIRE_NOTHROW(whole = run_pieces(*f, po, {out}));
      REQUIRE_NOTHROW(split = run_pieces(*f, po, chunks));
      check_run(split, whole, "random chunks");
      CHECK(valid_utf8(whole.result.message.text()));
    }
  }
}

TEST_CASE("format: a reply cut by the token limit inside a call says length", "[format]") {
  struct Case {
    const char* format;
    std::string complete, partial;
    const char* partial_name;  // the name the parser saw before the cut ("" = not yet)
  };
  const std::vector<Case> cases = {
      {"ai00-v1",
       "Sure.\n\n<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter "
       "name=\"city\">Oslo</parameter>\n  </invoke>\n",
       "  <invoke name=\"get_time\">\n    <parameter name=\"zone\">Eur", "get_time"},
      {"ai00-v0",
       "Sure.\n<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}</"
       "tool_call>\n",
       "<tool_call>{\"name\":\"get_time\",\"arguments\":{\"zone\":\"Eur", "get_time"},
      {"openchatml",
       "Sure.\n<|function_call|>\n{\"arguments\": {\"city\": \"Oslo\"}, \"name\": "
       "\"get_weather\"}\n",
       "<|function_call|>\n{\"arguments\": {\"zone\": \"Eur", ""}};
  for (const auto& c : cases) {
    INFO(c.format);
    auto f = make_format(c.format).value();
    const std::string out = c.complete + c.partial;
    // Cut by the limit: finish reason length, the first call whole, the second incomplete.
    for (size_t chunk : {out.size(), size_t{1}, size_t{5}}) {
      auto p = f->make_parser(ParseOptions{});
      std::vector<MessageDelta> ds;
      for (size_t at = 0; at < out.size(); at += chunk)
        for (auto& d : p->feed(std::string_view(out).substr(at, chunk))) ds.push_back(d);
      for (auto& d : p->finish(FinishReason::length)) ds.push_back(d);
      const ParseResult& r = p->result();
      CHECK(r.finish_reason == FinishReason::length);
      REQUIRE(r.message.tool_calls.size() == 1);
      CHECK(r.message.tool_calls[0].name == "get_weather");
      // The incomplete call: one delta with valid = false, its raw text kept as content.
      size_t incomplete = 0;
      for (const auto& d : ds)
        for (const auto& tc : d.tool_calls)
          if (!tc.valid) {
            ++incomplete;
            CHECK(tc.call == 1);
            CHECK(tc.name == c.partial_name);
            CHECK(tc.raw.find("Eur") != std::string::npos);
          }
      CHECK(incomplete == 1);
      CHECK(r.message.text().find("Eur") != std::string::npos);
      CHECK(ds.back().finish_reason == FinishReason::length);
    }
    // The same bytes ended by a stop: the unfinished call is text, the finish tool_calls.
    auto p = f->make_parser(ParseOptions{});
    p->feed(out);
    p->finish(FinishReason::stop);
    CHECK(p->result().finish_reason == FinishReason::tool_calls);
    // Cut between two complete calls: length, nothing incomplete.
    auto q = f->make_parser(ParseOptions{});
    q->feed(c.complete);
    q->finish(FinishReason::length);
    if (std::string(c.format) == "ai00-v1") {
      CHECK(q->result().finish_reason == FinishReason::length);  // the block was not closed
    } else {
      CHECK(q->result().finish_reason == FinishReason::tool_calls);  // calls are whole
    }
    CHECK(q->result().message.tool_calls.size() == 1);
  }
}

TEST_CASE("format: tool calls stream as start and argument pieces when asked", "[format]") {
  const std::vector<std::pair<const char*, std::string>> outputs = {
      {"ai00-v1",
       "Sure.\n\n<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter "
       "name=\"city\">Oslo</parameter>\n    <parameter name=\"days\">3</parameter>\n  </invoke>\n"
       "  <invoke name=\"now\">\n  </invoke>\n</ai00:function_calls>"},
      {"ai00-v0",
       "Sure.\n<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}"
       "</tool_call>"},
      {"openchatml",
       "Sure.\n<|function_call|>\n{\"arguments\": {\"city\": \"Oslo\"}, \"name\": "
       "\"get_weather\"}"},
  };
  for (const auto& [name, out] : outputs) {
    INFO(name);
    auto f = make_format(name).value();
    for (size_t chunk : {out.size(), size_t{1}, size_t{7}}) {
      ParseOptions plain, streaming;
      streaming.stream_tool_calls = true;
      auto run = [&](const ParseOptions& po, std::vector<MessageDelta>& ds) {
        auto p = f->make_parser(po);
        for (size_t at = 0; at < out.size(); at += chunk)
          for (auto& d : p->feed(std::string_view(out).substr(at, chunk))) ds.push_back(d);
        for (auto& d : p->finish(FinishReason::stop)) ds.push_back(d);
        return p->result();
      };
      std::vector<MessageDelta> a, b;
      const ParseResult ra = run(plain, a);
      const ParseResult rb = run(streaming, b);
      CHECK(ra.message == rb.message);  // previews never change the message
      // Per call: start, then argument pieces that concatenate to the whole call's arguments.
      std::map<size_t, std::string> started, pieces;
      size_t whole = 0;
      for (const auto& d : b)
        for (const auto& c : d.tool_calls) {
          using P = ToolCallDelta::Preview;
          if (c.preview == P::start) {
            CHECK_FALSE(started.count(c.call));
            started[c.call] = c.name;
            CHECK(c.id == tool_call_id(0, c.call));
          } else if (c.preview == P::arguments) {
            REQUIRE(started.count(c.call));
            pieces[c.call] += c.arguments;
          } else if (c.preview == P::none) {
            REQUIRE(started.count(c.call));
            // OpenChatML writes the arguments before the name: its start has none unless the
            // name arrived in the same feed.
            CHECK((started[c.call] == c.name ||
                   (std::string(name) == "openchatml" && started[c.call].empty())));
            CHECK(pieces[c.call] == c.arguments);
            ++whole;
          }
        }
      CHECK(whole == rb.message.tool_calls.size());
      CHECK(whole >= 1);
      for (const auto& d : a)
        for (const auto& c : d.tool_calls) CHECK(c.preview == ToolCallDelta::Preview::none);
    }
  }
  // ai00 v1: a call whose start was streamed and which then turns out malformed is abandoned.
  auto v1 = make_format("ai00-v1").value();
  ParseOptions po;
  po.stream_tool_calls = true;
  auto p = v1->make_parser(po);
  auto ds = p->feed("<ai00:function_calls>\n  <invoke name=\"f\">\n    <oops>");
  for (auto& d : p->finish(FinishReason::stop)) ds.push_back(d);
  std::vector<ToolCallDelta::Preview> kinds;
  for (const auto& d : ds)
    for (const auto& c : d.tool_calls) kinds.push_back(c.preview);
  CHECK(kinds == std::vector<ToolCallDelta::Preview>{ToolCallDelta::Preview::start,
                                                     ToolCallDelta::Preview::abandoned});
  CHECK(p->result().message.tool_calls.empty());
  CHECK(p->result().message.text().find("<oops>") != std::string::npos);
}

// Issue 13 "Image parts": RWKV-7 is text-only, so every format refuses an image part with its
// JSON pointer (docs/chat-formats.md "Message model"), in any message, never dropping it.
TEST_CASE("format: every format refuses image parts with their pointer", "[format]") {
  auto conv =
      parse_conversation(
          R"([{"role":"system","content":"Be brief."},{"role":"user","contents":[)"
          R"({"type":"text","text":"What is this?"},{"type":"image","image":{"url":"x.png"}}]}])")
          .value();
  for (const auto& name : format_names()) {
    INFO(name);
    auto r = make_format(name).value()->render(conv, RenderOptions{});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ai00::internal::ErrorKind::unsupported);
    CHECK(r.error().message.rfind("/1/contents/1: an image part cannot be rendered", 0) == 0);
  }
}
