// Sampling cost per token at the RWKV World vocabulary size (V = 65536): greedy, top-p without
// top-k (the growing partial sort), the Goose chat preset (top_k 128, penalties over a table of
// ~500 tokens), a grammar mask, and pure temperature over every token (the worst case, a full
// sort). Items processed = tokens sampled, so "items_per_second" is samples per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/rng.h"
#include "core/sampling/sampler.h"

namespace {

constexpr size_t kVocab = 65536;

// Model-like logits: a bell-shaped body (sum of four uniforms) with a few strong candidates.
std::vector<float> fake_logits(uint64_t seed) {
  ai00::internal::Rng rng(seed);
  std::vector<float> l(kVocab);
  for (float& x : l) {
    double s = 0;
    for (int k = 0; k < 4; ++k) s += rng.next_double();
    x = static_cast<float>((s - 2.0) * 3.0);
  }
  for (int k = 0; k < 8; ++k) l[rng.next_u64() % kVocab] += 8.0f + k;
  return l;
}

void run(benchmark::State& bs, const ai00::internal::SamplerParams& params, bool with_mask,
         size_t history) {
  std::vector<std::vector<float>> logits;
  for (uint64_t i = 0; i < 8; ++i) logits.push_back(fake_logits(i));
  std::vector<uint64_t> mask(kVocab / 64, 0);
  for (size_t w = 0; w < mask.size(); ++w) mask[w] = (w % 4 == 0) ? ~uint64_t{0} : 0x5555ull;
  ai00::internal::Sampler sampler;
  ai00::internal::SamplerState state(1);
  ai00::internal::Rng pick(7);
  for (size_t i = 0; i < history; ++i) {
    state.accept(static_cast<uint32_t>(pick.next_u64() % 65530), params);
  }
  const ai00::internal::SamplerState start = state;
  size_t step = 0;
  for (auto _ : bs) {
    ai00::internal::SamplerInput in;
    in.logits = logits[step % logits.size()].data();
    in.n_vocab = kVocab;
    if (with_mask) {
      in.mask = mask.data();
      in.mask_words = mask.size();
    }
    benchmark::DoNotOptimize(sampler.sample(params, state, in));
    // Keep the penalty table at its starting size so every iteration costs the same.
    if (++step % 256 == 0) state = start;
  }
  bs.SetItemsProcessed(static_cast<int64_t>(bs.iterations()));
}

ai00::internal::SamplerParams no_penalty(ai00::internal::SamplerParams p) {
  p.presence_penalty = 0.0f;
  p.frequency_penalty = 0.0f;
  return p;
}

void BM_Greedy(benchmark::State& bs) {
  ai00::internal::SamplerParams p;
  p.method = ai00::internal::SamplerMethod::greedy;
  run(bs, no_penalty(p), false, 0);
}
void BM_TopP(benchmark::State& bs) {  // top_p 0.9, no top_k, T 1
  ai00::internal::SamplerParams p;
  p.top_k = 0;
  p.top_p = 0.9f;
  run(bs, no_penalty(p), false, 0);
}
void BM_GooseChat(benchmark::State& bs) {
  run(bs, ai00::internal::goose_preset(ai00::internal::GoosePreset::chat), false, 500);
}
void BM_GooseChatMasked(benchmark::State& bs) {
  run(bs, ai00::internal::goose_preset(ai00::internal::GoosePreset::chat), true, 500);
}
void BM_GooseCreative(benchmark::State& bs) {
  run(bs, ai00::internal::goose_preset(ai00::internal::GoosePreset::creative), false, 500);
}
void BM_Typical(benchmark::State& bs) {
  ai00::internal::SamplerParams p;
  p.method = ai00::internal::SamplerMethod::typical;
  run(bs, p, false, 500);
}
void BM_MirostatV2(benchmark::State& bs) {
  ai00::internal::SamplerParams p;
  p.method = ai00::internal::SamplerMethod::mirostat_v2;
  run(bs, p, false, 0);
}
void BM_FullTemperature(benchmark::State& bs) {  // top_k 0, top_p 1, T 0.8: every token kept
  ai00::internal::SamplerParams p;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.temperature = 0.8f;
  run(bs, no_penalty(p), false, 0);
}

// The machine's yardstick: one copy of 256 KiB of logits, rotating over the same 8 arrays as
// the samplers (what every sampler does first). Sampler times are reported as multiples of it.
void BM_CopyLogits(benchmark::State& bs) {
  std::vector<std::vector<float>> src;
  for (uint64_t i = 0; i < 8; ++i) src.push_back(fake_logits(i));
  std::vector<float> dst(kVocab);
  size_t step = 0;
  for (auto _ : bs) {
    std::memcpy(dst.data(), src[step++ % src.size()].data(), kVocab * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  bs.SetBytesProcessed(static_cast<int64_t>(bs.iterations() * kVocab * sizeof(float)));
}

}  // namespace

BENCHMARK(BM_CopyLogits)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Greedy)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TopP)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GooseChat)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GooseChatMasked)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GooseCreative)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Typical)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MirostatV2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FullTemperature)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
