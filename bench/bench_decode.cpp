// Decode and prefill speed of the RWKV-7 forward pass (docs/layers.md "Tests and benchmarks").
//
// Decode is a chain of matrix-vector products, so it is memory-bandwidth bound: the honest
// figure is bytes of weights read per token / time, compared with the machine's read
// bandwidth measured here at start-up (a 512 MiB buffer read with 1 and with 2 threads, the best
// of the access patterns of read_probe.h, and memcpy). The shared fixtures are tiny (their weights
// fit in cache, so they measure overhead, not bandwidth); the synthetic model written to a temp
// file at start-up (rwkv.cpp .bin, random weights, C = 1024, 6 layers, V = 65536, F16 and Q8_0) is
// large enough to stream from DRAM.
//
// Counters: items_per_second = tokens/s; bytes_per_second = weight bytes read / s;
// read_bw_ratio = that bandwidth / the read bandwidth measured with the same number of threads
// (Google Benchmark prints it with a "/s" suffix because it is computed as a rate).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/half.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "read_probe.h"

namespace {

double g_read_gbps[3] = {0, 0, 0};  // read bandwidth (read_probe.h), GB/s, with 1 and 2 threads

void measure_bandwidth() {
  const size_t bytes = size_t{512} << 20;
  std::vector<uint64_t> buf(bytes / 8, 1), dst(bytes / 8);
  g_read_gbps[1] = ai00::bench::read_bandwidth(buf, 1).gbps;
  g_read_gbps[2] = ai00::bench::read_bandwidth(buf, 2).gbps;
  double best_copy = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst.data(), buf.data(), bytes);
    best_copy = std::min(
        best_copy, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf(
      "memory: read %.2f GB/s (1 thread), %.2f GB/s (2 threads); "
      "memcpy %.2f GB/s (read+write, 1 thread)\n",
      g_read_gbps[1], g_read_gbps[2], 2.0 * bytes / best_copy / 1e9);
}

// ---- synthetic rwkv.cpp .bin writer (docs/weight-files.md "rwkv.cpp .bin") ----

struct BinWriter {
  std::FILE* f;
  std::mt19937 rng{42};
  void u32(uint32_t v) { std::fwrite(&v, 4, 1, f); }
  // ne is the PyTorch shape; rwkv.cpp stores it reversed.
  void header(const std::string& name, std::vector<uint32_t> shape, uint32_t type) {
    u32(static_cast<uint32_t>(shape.size()));
    u32(static_cast<uint32_t>(name.size()));
    u32(type);
    for (size_t i = shape.size(); i-- > 0;) u32(shape[i]);
    std::fwrite(name.data(), 1, name.size(), f);
  }
  void f32(const std::string& name, std::vector<uint32_t> shape, float lo, float hi) {
    size_t n = 1;
    for (uint32_t d : shape) n *= d;
    header(name, shape, 0);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    std::fwrite(v.data(), 4, n, f);
  }
  // F16 (type 1) or Q8_0 (type 9) matrix (rows, cols) with entries in +-scale.
  void mat(const std::string& name, uint32_t rows, uint32_t cols, uint32_t type, float scale) {
    header(name, {rows, cols}, type);
    std::uniform_real_distribution<float> u(-scale, scale);
    std::uniform_int_distribution<int> q(-127, 127);
    std::vector<uint8_t> row(type == 1 ? cols * 2 : cols / 32 * 34);
    const uint16_t d = ai00::internal::f32_to_f16(scale / 127.0f);
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t c = 0; c < cols; ++c) {
        if (type == 1) {
          const uint16_t h = ai00::internal::f32_to_f16(u(rng));
          std::memcpy(&row[2 * c], &h, 2);
        } else {
          if (c % 32 == 0) std::memcpy(&row[c / 32 * 34], &d, 2);
          row[c / 32 * 34 + 2 + c % 32] = static_cast<uint8_t>(static_cast<int8_t>(q(rng)));
        }
      }
      std::fwrite(row.data(), 1, row.size(), f);
    }
  }
};

// Writes a random RWKV-7 model; big per-layer matrices in `type` (1 = F16, 9 = Q8_0).
void write_synthetic(const std::string& path, uint32_t type) {
  const uint32_t C = 1024, L = 6, V = 65536, F = 4 * C, H = C / 64, D = 64, Dv = 32, Dg = 128;
  BinWriter w{std::fopen(path.c_str(), "wb")};
  if (!w.f) throw std::runtime_error("cannot write " + path);
  for (uint32_t v : {0x67676d66u, type == 1 ? 100u : 101u, V, C, L, type}) w.u32(v);
  const float s = 1.0f / 32.0f;  // ~ 1/sqrt(C): keeps activations in range
  w.mat("emb.weight", V, C, 1, 1.0f);
  w.f32("blocks.0.ln0.weight", {C}, 0.9f, 1.1f), w.f32("blocks.0.ln0.bias", {C}, -0.1f, 0.1f);
  w.f32("ln_out.weight", {C}, 0.9f, 1.1f), w.f32("ln_out.bias", {C}, -0.1f, 0.1f);
  w.mat("head.weight", V, C, 1, s);
  for (uint32_t l = 0; l < L; ++l) {
    const std::string p = "blocks." + std::to_string(l) + ".";
    for (const char* n : {"ln1.weight", "ln2.weight", "att.ln_x.weight"})
      w.f32(p + n, {C}, 0.9f, 1.1f);
    for (const char* n : {"ln1.bias", "ln2.bias", "att.ln_x.bias"}) w.f32(p + n, {C}, -0.1f, 0.1f);
    w.f32(p + "att.x_rwkvag", {6, 1, C}, 0.0f, 1.0f);
    for (const char* n : {"att.w0", "att.a0", "att.k_k", "att.k_a", "ffn.x_k"}) {
      w.f32(p + n, {1, 1, C}, -0.5f, 0.5f);
    }
    w.f32(p + "att.r_k", {H, 64}, -0.1f, 0.1f);
    w.mat(p + "att.w1", D, C, 1, s), w.mat(p + "att.w2", C, D, 1, 0.1f);
    w.mat(p + "att.a1", D, C, 1, s), w.mat(p + "att.a2", C, D, 1, 0.1f);
    w.mat(p + "att.g1", Dg, C, 1, s), w.mat(p + "att.g2", C, Dg, 1, 0.1f);
    if (l > 0) {
      w.f32(p + "att.v0", {1, 1, C}, -0.5f, 0.5f);
      w.mat(p + "att.v1", Dv, C, 1, s), w.mat(p + "att.v2", C, Dv, 1, 0.1f);
    }
    for (const char* n :
         {"att.receptance.weight", "att.key.weight", "att.value.weight", "att.output.weight"}) {
      w.mat(p + n, C, C, type, s);
    }
    w.mat(p + "ffn.key.weight", F, C, type, s);
    w.mat(p + "ffn.value.weight", C, F, type, s / 2);
  }
  std::fclose(w.f);
}

std::string shared_models() {
  const char* env = std::getenv("AI00_SHARED_DIR");
  return std::string(env ? env : AI00_DEFAULT_SHARED_DIR) + "/models/";
}

// Decode: one token per iteration, last-token logits (what a chat turn does per token).
void BM_decode(benchmark::State& bs, std::string path, int threads) {
  ai00::internal::ModelParams p;
  p.n_threads = threads;
  auto model = ai00::internal::Model::load(path, p);
  ai00::internal::State st(*model);
  std::vector<float> logits(static_cast<size_t>(model->config().vocab));
  uint32_t tok = 1;
  for (auto _ : bs) {
    ai00::internal::forward(*model, st, &tok, 1, logits.data());
    tok = (tok * 7 + 3) % 200 + 1;
    benchmark::DoNotOptimize(logits.data());
  }
  const double per_token = static_cast<double>(ai00::internal::decode_weight_bytes(*model));
  bs.SetItemsProcessed(bs.iterations());
  bs.SetBytesProcessed(static_cast<int64_t>(per_token * static_cast<double>(bs.iterations())));
  bs.counters["weight_MB_per_token"] = per_token / 1e6;
  bs.counters["read_bw_ratio"] = benchmark::Counter(per_token / (g_read_gbps[threads] * 1e9),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}

// Prefill: 64 tokens per iteration, last-token logits.
void BM_prefill(benchmark::State& bs, std::string path, int threads) {
  ai00::internal::ModelParams p;
  p.n_threads = threads;
  auto model = ai00::internal::Model::load(path, p);
  std::vector<uint32_t> tokens(64);
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<uint32_t>(i * 5 % 200 + 1);
  std::vector<float> logits(static_cast<size_t>(model->config().vocab));
  for (auto _ : bs) {
    ai00::internal::State st(*model);
    ai00::internal::forward(*model, st, tokens.data(), tokens.size(), logits.data());
    benchmark::DoNotOptimize(logits.data());
  }
  bs.SetItemsProcessed(bs.iterations() * static_cast<int64_t>(tokens.size()));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  measure_bandwidth();
  const std::string dir = shared_models();
  const std::string tmp = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
  const std::string f16 = tmp + "/ai00_bench_synthetic_F16.bin";
  const std::string q8 = tmp + "/ai00_bench_synthetic_Q8_0.bin";
  write_synthetic(f16, 1);
  write_synthetic(q8, 9);
  struct M {
    const char* name;
    std::string path;
  };
  const M models[] = {{"rand_FP32", dir + "rand-rwkv7-c128-l3-v512-FP32.bin"},
                      {"rand_FP16", dir + "rand-rwkv7-c128-l3-v512-FP16.bin"},
                      {"rand_Q8_0", dir + "rand-rwkv7-c128-l3-v512-Q8_0.gguf"},
                      {"rand_Q4_0", dir + "rand-rwkv7-c128-l3-v512-Q4_0.gguf"},
                      {"synthetic_c1024_l6_F16", f16},
                      {"synthetic_c1024_l6_Q8_0", q8}};
  for (const M& m : models) {
    for (int threads : {1, 2}) {
      const std::string suffix = std::string(m.name) + "/threads:" + std::to_string(threads);
      benchmark::RegisterBenchmark(("decode/" + suffix).c_str(), BM_decode, m.path, threads)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("prefill64/" + suffix).c_str(), BM_prefill, m.path, threads)
          ->UseRealTime();
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::remove(f16.c_str());
  std::remove(q8.c_str());
  return 0;
}
