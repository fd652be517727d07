// Generators with a PrefixCache: a hit gives the same logits and tokens as a miss, chat turns
// store the message boundaries (a new conversation with the same persona hits), the sampler
// state stays the caller's, a State that is not pristine uses no cache, threads share a cache.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/model/model.h"
#include "core/model/prefix_cache.h"
#include "core/model/state.h"
#include "core/pipeline/batch.h"
#include "core/pipeline/generator.h"
#include "fixtures.h"

using namespace ai00::internal;
using ai00::test::shared_path;

namespace {

std::shared_ptr<const Model> tiny() {
  return Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
}

GenerateOptions sampled(std::shared_ptr<PrefixCache> cache) {
  GenerateOptions o;
  o.seed = 99;
  o.max_tokens = 12;
  o.sampler.temperature = 1.0f;
  o.sampler.top_p = 0.9f;
  o.sampler.ban_eos = true;
  o.prefill_chunk = 16;
  o.prefix_cache = std::move(cache);
  return o;
}

const char* kPersona =
    "You are Mira, the blacksmith of Oakvale. You are gruff but kind, you love iron and "
    "you distrust the mayor. You answer in one or two short sentences.";

ChatRequest persona_chat(const std::string& line) {
  ChatRequest req;
  req.format = format::make_format("ai00-v1").value();
  format::Message sys;
  sys.role = format::Role::system;
  sys.contents.push_back(format::Part::make_text(kPersona));
  format::Message user;
  user.role = format::Role::user;
  user.contents.push_back(format::Part::make_text(line));
  req.conversation = {sys, user};
  return req;
}

struct Turn {
  std::vector<uint32_t> tokens;
  // Logits after the turn's last token: equal bits mean every forward after the (restored or
  // prefilled) prompt saw the same State and logits.
  std::vector<float> final_logits;
  size_t prompt_size = 0;
};

template <class Request>
Turn run(const std::shared_ptr<const Model>& m, State& st, const Request& req,
         const GenerateOptions& o) {
  Generator g(m, st, req, o);
  Turn t;
  t.prompt_size = g.prompt_tokens().size();
  g.run(nullptr);
  t.tokens = g.tokens();
  t.final_logits = g.logits();
  return t;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

}  // namespace

TEST_CASE("a raw prompt served from the cache equals a full prefill", "[generator][prefix_cache]") {
  auto m = tiny();
  auto cache = std::make_shared<PrefixCache>();
  const RawRequest req{"Once upon a time, in a village by the river, there lived an old smith", {}};
  State a(*m);
  Turn miss = run(m, a, req, sampled(cache));
  CHECK(cache->stats().misses == 1);
  CHECK(cache->stats().inserts == 1);  // the end of the prompt
  State b(*m);
  Turn hit = run(m, b, req, sampled(cache));
  CHECK(cache->stats().hits == 1);
  CHECK(cache->stats().hit_tokens == miss.prompt_size);
  CHECK(same_bits(hit.final_logits, miss.final_logits));
  CHECK(hit.tokens == miss.tokens);
  CHECK(std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
  // And without any cache.
  State c(*m);
  Turn plain = run(m, c, req, sampled(nullptr));
  CHECK(same_bits(plain.final_logits, miss.final_logits));
  CHECK(plain.tokens == miss.tokens);
}

TEST_CASE("a new conversation with the same persona starts from the stored system prompt",
          "[generator][prefix_cache]") {
  auto m = tiny();
  auto cache = std::make_shared<PrefixCache>();
  State a(*m);
  run(m, a, persona_chat("Can you fix my sword?"), sampled(cache));
  const PrefixCacheStats first = cache->stats();
  CHECK(first.misses == 1);
  CHECK(first.inserts >= 2);  // the system message boundary and the end of the prompt

  // Another player's line: the persona part hits, the rest is prefilled.
  auto other = persona_chat("What do you think of the mayor?");
  State b(*m);
  Turn hit = run(m, b, other, sampled(cache));
  const PrefixCacheStats second = cache->stats();
  CHECK(second.hits == 1);
  const size_t skipped = second.hit_tokens;
  CHECK(skipped > 10);
  CHECK(skipped < hit.prompt_size);
  // The same turn on a cold cache (a miss, the same chunk cuts) gives the same bits.
  auto cold = std::make_shared<PrefixCache>();
  State c(*m);
  Turn miss = run(m, c, other, sampled(cold));
  CHECK(cold->stats().misses == 1);
  CHECK(same_bits(hit.final_logits, miss.final_logits));
  CHECK(hit.tokens == miss.tokens);
}

TEST_CASE("a State that is not pristine never uses the cache", "[generator][prefix_cache]") {
  auto m = tiny();
  auto cache = std::make_shared<PrefixCache>();
  const RawRequest req{"The river runs past the mill", {}};
  State a(*m);
  run(m, a, req, sampled(cache));
  // `a` now holds a whole turn: the same prompt again is relative to it.
  const PrefixCacheStats before = cache->stats();
  Turn second = run(m, a, req, sampled(cache));
  const PrefixCacheStats after = cache->stats();
  CHECK(after.hits == before.hits);
  CHECK(after.misses == before.misses);
  CHECK(after.inserts == before.inserts);
  CHECK(second.tokens.size() == 12);
  // After reset() it is pristine again and hits.
  a.reset();
  run(m, a, req, sampled(cache));
  CHECK(cache->stats().hits == before.hits + 1);
}

TEST_CASE("generators on several threads share one cache", "[generator][prefix_cache][concurrency]") {
  auto m = tiny();
  const std::vector<std::string> lines = {"Hello there.", "Any work for me?", "Goodbye!"};
  std::vector<std::vector<uint32_t>> expected;
  for (const auto& l : lines) {
    State s(*m);
    // A cold private cache: the same chunk cuts as every run below, hit or miss.
    expected.push_back(run(m, s, persona_chat(l), sampled(std::make_shared<PrefixCache>())).tokens);
  }
  auto cache = std::make_shared<PrefixCache>();
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; ++th) {
    threads.emplace_back([&, th] {
      for (size_t it = 0; it < 3; ++it) {
        const size_t k = (static_cast<size_t>(th) + it) % lines.size();
        State s(*m);
        Generator g(m, s, persona_chat(lines[k]), sampled(cache));
        g.run(nullptr);
        if (g.tokens() != expected[k]) ++wrong[static_cast<size_t>(th)];
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int w : wrong) CHECK(w == 0);
  const PrefixCacheStats st = cache->stats();
  CHECK(st.hits + st.misses == 12);
  CHECK(st.hits >= 8);  // every thread's later turns find at least its own first turn's entries
}

TEST_CASE("members of a Batch start from the cache like lone generators",
          "[generator][prefix_cache][batch]") {
  auto m = tiny();
  const std::vector<std::string> lines = {"Hello there.", "Any work for me?", "Goodbye!"};
  std::vector<std::vector<uint32_t>> expected;
  for (const auto& l : lines) {
    State s(*m);
    expected.push_back(run(m, s, persona_chat(l), sampled(std::make_shared<PrefixCache>())).tokens);
  }
  auto cache = std::make_shared<PrefixCache>();
  State first(*m);
  run(m, first, persona_chat(lines[0]), sampled(cache));  // stores the persona and line 0
  std::vector<State> states;
  for (size_t k = 0; k < lines.size(); ++k) states.emplace_back(*m);
  std::vector<std::unique_ptr<Generator>> gens;
  Batch b(m);
  for (size_t k = 0; k < lines.size(); ++k) {
    gens.push_back(std::make_unique<Generator>(m, states[k], persona_chat(lines[k]),
                                               sampled(cache)));
    b.add(*gens.back());
  }
  for (int guard = 0; guard < 10000 && b.step(4, 0).steps > 0; ++guard) {
  }
  for (size_t k = 0; k < lines.size(); ++k) {
    CHECK(gens[k]->finished());
    CHECK(gens[k]->tokens() == expected[k]);
  }
  const PrefixCacheStats st = cache->stats();
  CHECK(st.hits == 3);  // line 0 whole, the others at the persona boundary
  CHECK(st.misses == 1);
}
