// chat_store_points (prefix_reuse.h) reads each message boundary's tokens off the prompt's own
// tokenization instead of encoding every rendered prefix again. The points must be the ones the
// encoding gave: checked against that reference on random conversations in every format, with
// tools, tool results, reasoning and Goose's token-0 prefix, under the World vocabulary (where
// many boundaries fall inside multi-byte tokens) and a byte-level one.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/pipeline/prefix_reuse.h"
#include "core/tokenizer/tokenizer.h"
#include "fixtures.h"
#include "format/format.h"
#include "format/message.h"

using namespace ai00::internal;
using ai00::test::shared_path;

namespace {

// The reference: every candidate prefix (the first and last few, prefix_reuse.h) rendered and
// encoded, as chat_store_points did before.
std::vector<size_t> reference_points(const format::ChatFormat& f,
                                     const std::vector<format::Message>& conv,
                                     const format::RenderOptions& render, const std::string& prompt,
                                     bool token0, const Tokenizer& tok,
                                     const std::vector<uint32_t>& prompt_tokens) {
  format::RenderOptions ro = render;
  ro.add_generation_prompt = false;
  std::vector<size_t> points;
  std::vector<format::Message> head;
  for (const auto& m : conv) {
    head.push_back(m);
    if (head.size() > kChatStorePointsHead && conv.size() - head.size() >= kChatStorePointsTail)
      continue;
    auto r = f.render(head, ro);
    if (!r.ok()) continue;
    const std::string& text = r.value().prompt;
    if (text.empty() || text.size() > prompt.size() || prompt.compare(0, text.size(), text) != 0)
      continue;
    std::vector<uint32_t> ids;
    if (token0) ids.push_back(0);
    tok.encode_append(text, ids);
    if (ids.size() < prompt_tokens.size() &&
        std::equal(ids.begin(), ids.end(), prompt_tokens.begin()))
      points.push_back(ids.size());
  }
  return points;
}

std::string random_text(std::mt19937& rng) {
  static const char* kWords[] = {"Hello", " world", ".",  "\n", " the", "ing", " RWKV", "?",
                                 " 😀",    "é",      "  ", ":",  "123",  " a",  "\n\n",  "tion"};
  std::string s;
  for (int n = 1 + rng() % 8; n > 0; --n) s += kWords[rng() % 16];
  return s;
}

std::vector<format::Message> random_conversation(std::mt19937& rng, bool tools) {
  std::vector<format::Message> conv;
  format::Message sys;
  sys.role = format::Role::system;
  sys.contents.push_back(format::Part::make_text("Be brief." + random_text(rng)));
  if (rng() % 2) conv.push_back(sys);
  // Up to 12 turns (37 messages): longer than the head and tail of candidates together.
  for (int turn = 0, n = 1 + rng() % 12; turn < n; ++turn) {
    format::Message user;
    user.role = format::Role::user;
    user.contents.push_back(format::Part::make_text(random_text(rng)));
    conv.push_back(user);
    format::Message a;
    a.role = format::Role::assistant;
    a.contents.push_back(format::Part::make_text(random_text(rng)));
    if (tools && rng() % 2) {
      a.tool_calls.push_back(
          format::ToolCall{"call_" + std::to_string(turn), "get_weather",
                           json::Value(json::Object{{"city", json::Value(random_text(rng))}})});
      conv.push_back(a);
      format::Message t;
      t.role = format::Role::tool;
      t.tool_call_id = "call_" + std::to_string(turn);
      t.contents.push_back(format::Part::make_text("sunny" + random_text(rng)));
      conv.push_back(t);
      continue;
    }
    conv.push_back(a);
  }
  return conv;
}

}  // namespace

TEST_CASE("chat store points equal those of encoding every rendered prefix", "[prefix_cache]") {
  const auto world = Tokenizer::from_vocab_file(shared_path("tokenizer/rwkv_vocab_v20230424.txt"));
  const auto bytes = Tokenizer::byte_level(256);
  std::mt19937 rng(13);
  size_t checked = 0, points = 0;
  for (const auto& name : format::format_names()) {
    auto f = format::make_format(name).value();
    const bool tools = name == "ai00-v1" || name == "openchatml";
    for (int round = 0; round < 60; ++round) {
      const auto conv = random_conversation(rng, tools || name == "ai00-v0");
      format::RenderOptions ro;
      if (tools && rng() % 2)
        ro.tools = format::parse_tools(R"([{"name":"get_weather","parameters":{"type":"object",)"
                                       R"("properties":{"city":{"type":"string"}}}}])")
                       .value();
      if (name == "goose" && rng() % 2) ro.prepend_token0 = true;
      if (name != "ai00-v0" && rng() % 3 == 0) ro.thinking = format::Thinking::on;
      auto r = f->render(conv, ro);
      if (!r.ok()) continue;  // e.g. a v0 call with tools (v0 lists none): nothing to store
      for (const auto* tok : {world.get(), bytes.get()}) {
        std::vector<uint32_t> ids;
        if (r.value().prepend_token0) ids.push_back(0);
        tok->encode_append(r.value().prompt, ids);
        INFO(name << " round " << round << "\n" << r.value().prompt);
        const auto got =
            chat_store_points(*f, conv, ro, r.value().prompt, r.value().prepend_token0, *tok, ids);
        CHECK(got == reference_points(*f, conv, ro, r.value().prompt, r.value().prepend_token0,
                                      *tok, ids));
        ++checked;
        points += got.size();
      }
    }
  }
  CHECK(checked > 300);
  CHECK(points > 100);  // the conversations do have boundaries on token boundaries
}

TEST_CASE("a long conversation gets store points only near its start and end", "[prefix_cache]") {
  // 2,000 messages: every prefix rendered was 2,000 renderings of up to the whole conversation
  // and a prefill cut into 2,000 chunks; now the first and last few boundaries are candidates.
  const auto bytes = Tokenizer::byte_level(256);
  auto f = format::make_format("ai00-v1").value();
  std::vector<format::Message> conv;
  for (int i = 0; i < 2000; ++i) {
    format::Message m;
    m.role = i % 2 ? format::Role::assistant : format::Role::user;
    m.contents.push_back(format::Part::make_text("message " + std::to_string(i)));
    conv.push_back(std::move(m));
  }
  format::RenderOptions ro;
  auto r = f->render(conv, ro);
  REQUIRE(r.ok());
  std::vector<uint32_t> ids;
  bytes->encode_append(r.value().prompt, ids);
  const auto got = chat_store_points(*f, conv, ro, r.value().prompt, false, *bytes, ids);
  // Byte-level tokens: every boundary is on a token boundary, so every candidate is a point (the
  // last one too: the generation prompt follows it).
  REQUIRE(got.size() == kChatStorePointsHead + kChatStorePointsTail);
  CHECK(got == reference_points(*f, conv, ro, r.value().prompt, false, *bytes, ids));
  // The head's points are at the first boundaries, the tail's within the last messages' bytes.
  CHECK(got[kChatStorePointsHead - 1] < ids.size() / 100);
  CHECK(got[kChatStorePointsHead] > ids.size() - ids.size() / 100);
}
