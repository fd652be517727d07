// Tests of src/format/format.{h,cpp}: the factory, shared names, and every parser fed random
// marker soup (no throw, deltas always accumulate to the message, text is valid UTF-8).
#include <catch2/catch.hpp>
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
      {"ai00-v0", "Sure.\n<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}</tool_call>\n",
       "<tool_call>{\"name\":\"get_time\",\"arguments\":{\"zone\":\"Eur", ""},
      {"openchatml",
       "Sure.\n<|function_call|>\n{\"arguments\": {\"city\": \"Oslo\"}, \"name\": \"get_weather\"}\n",
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
