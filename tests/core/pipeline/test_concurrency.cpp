// Concurrency (issue 15; run under ThreadSanitizer by the `tsan` preset, where the model's
// parallel loops use the instrumented std::thread pool, docs/model.md "Threads under
// ThreadSanitizer"): one shared multi-threaded Model used by many threads, many generators at
// once (with a shared compiled grammar), cancellation from other threads, and State cloning
// while other sequences run. Each result must equal the sequential one.
#include <atomic>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/pipeline/generator.h"
#include "core/pipeline/grammar_spec.h"
#include "fixtures.h"

using namespace ai00::internal;
using ai00::test::shared_path;

namespace {

std::shared_ptr<const Model> rand_model(int threads) {
  ModelParams p;
  p.n_threads = threads;
  return Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"), p);
}

GenerateOptions sampled(uint64_t seed, size_t max_tokens) {
  GenerateOptions o;
  o.seed = seed;
  o.max_tokens = max_tokens;
  o.sampler.temperature = 1.0f;
  o.sampler.top_p = 0.9f;
  o.sampler.ban_eos = true;
  o.prefill_chunk = 4;
  return o;
}

std::vector<uint32_t> run_raw(std::shared_ptr<const Model> m, State& st, const std::string& prompt,
                              const GenerateOptions& o) {
  Generator g(m, st, RawRequest{prompt, {}}, o);
  g.run([](const format::MessageDelta&) { return 0; });
  return g.tokens();
}

}  // namespace

TEST_CASE("a shared Model with its own thread pool serves many threads", "[concurrency]") {
  auto m = rand_model(3);
  const std::vector<uint32_t> tokens = {5, 17, 300, 42, 7, 7, 9};
  std::vector<float> ref(static_cast<size_t>(m->config().vocab));
  {
    State st(*m);
    forward(*m, st, tokens.data(), tokens.size(), ref.data());
  }
  std::vector<std::vector<float>> got(4, std::vector<float>(ref.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      State st(*m);
      forward(*m, st, tokens.data(), tokens.size(), got[t].data());
    });
  for (auto& th : threads) th.join();
  for (const auto& g : got) CHECK(g == ref);
}

TEST_CASE("many generators share a model and a compiled grammar", "[concurrency]") {
  auto m = rand_model(2);
  auto cache = std::make_shared<GrammarCache>(*m);
  auto options = [&](uint64_t seed) {
    GenerateOptions o = sampled(seed, 12);
    o.grammar = GrammarRequest{GrammarMode::kbnf, "start ::= #'[a-z ]{1,40}';"};
    o.grammar_cache = cache;
    return o;
  };
  std::vector<std::vector<uint32_t>> ref(4), got(4);
  for (int i = 0; i < 4; ++i) {
    State st(*m);
    ref[i] = run_raw(m, st, "npc " + std::to_string(i), options(i));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      State st(*m);
      got[i] = run_raw(m, st, "npc " + std::to_string(i), options(i));
    });
  for (auto& th : threads) th.join();
  for (int i = 0; i < 4; ++i) CHECK(got[i] == ref[i]);
}

TEST_CASE("cancellation from other threads while others generate", "[concurrency]") {
  auto m = rand_model(2);
  std::vector<std::thread> threads;
  std::atomic<int> cancelled{0};
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&, i] {
      State st(*m);
      Generator g(m, st, RawRequest{"long story " + std::to_string(i), {}}, sampled(i, 100000));
      std::atomic<bool> started{false};
      std::thread canceller([&] {
        while (!started.load()) std::this_thread::yield();
        g.cancel();
      });
      auto reason = g.run([&](const format::MessageDelta&) {
        started.store(true);
        return 0;
      });
      canceller.join();
      if (reason == format::FinishReason::cancelled) ++cancelled;
    });
  for (auto& th : threads) th.join();
  CHECK(cancelled.load() == 3);
}

TEST_CASE("cloning States while other threads run them", "[concurrency]") {
  auto m = rand_model(2);
  State base(*m);
  run_raw(m, base, "shared prefix", sampled(9, 4));
  std::vector<std::vector<uint32_t>> ref(3), got(3);
  for (int i = 0; i < 3; ++i) {
    State c = base.clone();
    ref[i] = run_raw(m, c, " branch " + std::to_string(i), sampled(20 + i, 8));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&, i] {
      State c = base.clone();  // concurrent const reads of `base`
      got[i] = run_raw(m, c, " branch " + std::to_string(i), sampled(20 + i, 8));
    });
  for (auto& th : threads) th.join();
  for (int i = 0; i < 3; ++i) CHECK(got[i] == ref[i]);
}
