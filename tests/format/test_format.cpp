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
