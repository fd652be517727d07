// Kernel benchmarks (docs/layers.md "Tests and benchmarks"): one benchmark per kernel x runnable
// ISA, single thread, plus the machine limits the kernel numbers are read against:
//   read_bandwidth   sums a 256 MiB array (DRAM read bandwidth, 1 and 2 threads),
//   clock            dependent integer adds, one per cycle (core clock estimate),
//   fma_peak/<isa>   independent FMA chains (FLOP/s peak of one core for that ISA).
// matvec/<isa>/<type>  (T = 1) is bandwidth-bound: compare its bytes_per_second with
// read_bandwidth. Its matrices rotate over > 2x the L3 size so weights come from DRAM;
// matvec_l2 runs a 512 x 512 matrix from L2 instead (the kernel's own speed limit).
// prefill/<isa>/<type> (T = 64) reports FLOP/s: compare with fma_peak.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/half.h"
#include "cpu_kernels/kernels.h"

namespace {

using ai00::internal::cpu::KernelTable;
using ai00::internal::cpu::WType;

// ---- machine limits ----------------------------------------------------------------------

void BM_read_bandwidth(benchmark::State& state) {
  static std::vector<uint64_t> data((256u << 20) / sizeof(uint64_t), 1);
  // Each thread reads its own half of the array.
  const size_t n = data.size() / static_cast<size_t>(state.threads());
  const uint64_t* p = data.data() + n * static_cast<size_t>(state.thread_index());
  for (auto _ : state) {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i < n; i += 4) {
      s0 += p[i];
      s1 += p[i + 1];
      s2 += p[i + 2];
      s3 += p[i + 3];
    }
    benchmark::DoNotOptimize(s0 + s1 + s2 + s3);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * sizeof(uint64_t)));
}
// One thread on CPU time, like the kernels (so their GB/s compare directly, even on a busy
// machine); two threads on wall time (aggregate bandwidth).
BENCHMARK(BM_read_bandwidth)->Name("read_bandwidth")->Threads(1);
BENCHMARK(BM_read_bandwidth)->Name("read_bandwidth")->Threads(2)->UseRealTime();

#if defined(__x86_64__)
// 100 dependent 1-cycle adds per loop iteration: items/s = cycles/s.
void BM_clock(benchmark::State& state) {
  for (auto _ : state) {
    uint64_t x = 0;
    for (int i = 0; i < 100000; ++i) {
      asm volatile(
          ".rept 100\n\t"
          "add $1, %0\n\t"
          ".endr"
          : "+r"(x));
    }
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations() * 100000 * 100);
}
BENCHMARK(BM_clock)->Name("clock");

// 12 independent FMA chains hide the FMA latency: FLOP/s = 2 * lanes * 12 * 10000 per iteration.
// Written out per ISA: a shared template would not be compiled with the target attribute.
#define AI00_FMA_CHAINS(V, SET1, FMA, LANES)                         \
  V acc[12];                                                         \
  for (int i = 0; i < 12; ++i) acc[i] = SET1(static_cast<float>(i)); \
  const V m = SET1(0.999f), a = SET1(0.001f);                        \
  for (auto _ : state) {                                             \
    for (int k = 0; k < 10000; ++k) {                                \
      for (int i = 0; i < 12; ++i) acc[i] = FMA(acc[i], m, a);       \
    }                                                                \
    for (int i = 0; i < 12; ++i) benchmark::DoNotOptimize(acc[i]);   \
  }                                                                  \
  state.counters["FLOP/s"] =                                         \
      benchmark::Counter(2.0 * LANES * 12 * 10000, benchmark::Counter::kIsIterationInvariantRate)

__attribute__((target("avx2,fma"))) void BM_fma_peak_avx2(benchmark::State& state) {
  AI00_FMA_CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps, 8);
}
__attribute__((target("avx512f"))) void BM_fma_peak_avx512(benchmark::State& state) {
  AI00_FMA_CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps, 16);
}
#undef AI00_FMA_CHAINS
#endif

// ---- weights -------------------------------------------------------------------------------

const char* wtype_name(WType t) {
  static const char* const names[] = {"F32",  "F16",  "BF16", "Q4_0", "Q4_1",
                                      "Q5_0", "Q5_1", "Q8_0", "Q6_K"};
  return names[static_cast<int>(t)];
}

// A rows x cols matrix of random bytes with every block scale set to a sane f16 value (random
// bits could make NaN or huge scales; the speed would not change, the numbers would be ugly).
std::vector<uint8_t> make_weights(WType t, int64_t rows, int64_t cols, std::mt19937& rng) {
  const size_t row_bytes = ai00::internal::cpu::wtype_row_bytes(t, cols);
  std::vector<uint8_t> w(row_bytes * static_cast<size_t>(rows));
  std::uniform_int_distribution<int> byte(0, 255);
  for (uint8_t& b : w) b = static_cast<uint8_t>(byte(rng));
  const uint16_t scale = ai00::internal::f32_to_f16(0.01f);
  auto set_scale = [&](size_t block_bytes, std::initializer_list<size_t> offsets) {
    for (size_t b = 0; b < w.size(); b += block_bytes) {
      for (size_t o : offsets) std::memcpy(w.data() + b + o, &scale, 2);
    }
  };
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  switch (t) {
    case WType::F32:
      for (size_t i = 0; i < w.size(); i += 4) {
        const float f = dist(rng);
        std::memcpy(w.data() + i, &f, 4);
      }
      break;
    case WType::F16:
    case WType::BF16:
      for (size_t i = 0; i < w.size(); i += 2) {
        const float f = dist(rng);
        const uint16_t h = t == WType::F16 ? ai00::internal::f32_to_f16(f) : ai00::internal::f32_to_bf16(f);
        std::memcpy(w.data() + i, &h, 2);
      }
      break;
    case WType::Q4_0:
      set_scale(18, {0});
      break;
    case WType::Q4_1:
      set_scale(20, {0, 2});
      break;
    case WType::Q5_0:
      set_scale(22, {0});
      break;
    case WType::Q5_1:
      set_scale(24, {0, 2});
      break;
    case WType::Q8_0:
      set_scale(34, {0});
      break;
    case WType::Q6_K:
      set_scale(210, {208});
      break;
  }
  return w;
}

std::vector<float> random_floats(size_t n, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(n);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& f : v) f = dist(rng);
  return v;
}

// Decode matvec: T = 1. With from_dram, over copies of the matrix totalling >= 96 MiB (3x L3),
// one per call in turn, so each call streams its weights from DRAM; else one matrix that stays
// in L2 (the kernel's compute ceiling).
void matvec(benchmark::State& state, const KernelTable* k, WType t, int64_t n, bool from_dram) {
  std::mt19937 rng(1);
  const size_t bytes = ai00::internal::cpu::wtype_row_bytes(t, n) * static_cast<size_t>(n);
  const size_t copies = from_dram ? std::max<size_t>(1, (96u << 20) / bytes + 1) : 1;
  std::vector<std::vector<uint8_t>> w;
  for (size_t i = 0; i < copies; ++i) w.push_back(make_weights(t, n, n, rng));
  const std::vector<float> x = random_floats(static_cast<size_t>(n), rng);
  std::vector<float> y(static_cast<size_t>(n));
  ai00::internal::cpu::MatmulArgs p;
  p.wtype = t;
  p.w_row_bytes = ai00::internal::cpu::wtype_row_bytes(t, n);
  p.cols = n;
  p.x = x.data();
  p.x_stride = n;
  p.y = y.data();
  p.y_stride = n;
  p.T = 1;
  p.row_end = n;
  size_t i = 0;
  for (auto _ : state) {
    p.w = w[i].data();
    i = (i + 1) % copies;
    k->matmul(p);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

// Prefill: T = 64 tokens against one 4096 x 4096 matrix; FLOP/s = 2 * rows * cols * T / s.
void prefill(benchmark::State& state, const KernelTable* k, WType t, int64_t n, int64_t T) {
  std::mt19937 rng(2);
  const std::vector<uint8_t> w = make_weights(t, n, n, rng);
  const std::vector<float> x = random_floats(static_cast<size_t>(n * T), rng);
  std::vector<float> y(static_cast<size_t>(n * T));
  ai00::internal::cpu::MatmulArgs p;
  p.w = w.data();
  p.wtype = t;
  p.w_row_bytes = ai00::internal::cpu::wtype_row_bytes(t, n);
  p.cols = n;
  p.x = x.data();
  p.x_stride = n;
  p.y = y.data();
  p.y_stride = n;
  p.T = T;
  p.row_end = n;
  for (auto _ : state) {
    k->matmul(p);
    benchmark::ClobberMemory();
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(n * n * T),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// ---- element-wise, norm, wkv7 ------------------------------------------------------------

constexpr int64_t kVec = 4096;  // C of a large model; all buffers stay in L1/L2

void elementwise(benchmark::State& state, const KernelTable* k, const std::string& op) {
  std::mt19937 rng(3);
  std::vector<float> a = random_floats(kVec, rng), b = random_floats(kVec, rng),
                     c = random_floats(kVec, rng), y(kVec);
  int64_t streams = 3;  // floats read + written per element
  for (auto _ : state) {
    if (op == "lerp") {
      k->lerp(a.data(), b.data(), c.data(), y.data(), kVec), streams = 4;
    } else if (op == "sigmoid") {
      k->sigmoid(a.data(), y.data(), kVec), streams = 2;
    } else if (op == "tanh") {
      k->tanh(a.data(), y.data(), kVec), streams = 2;
    } else if (op == "decay") {
      k->decay(a.data(), y.data(), kVec), streams = 2;
    } else if (op == "relu_sq") {
      k->relu_sq(a.data(), y.data(), kVec), streams = 2;
    } else if (op == "add") {
      k->add(a.data(), b.data(), y.data(), kVec);
    } else if (op == "mul") {
      k->mul(a.data(), b.data(), y.data(), kVec);
    } else if (op == "fma") {
      k->fma(a.data(), b.data(), c.data(), y.data(), kVec), streams = 4;
    } else {
      benchmark::DoNotOptimize(k->dot(a.data(), b.data(), kVec)), streams = 2;
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kVec * streams * 4);
}

void norm(benchmark::State& state, const KernelTable* k, int64_t group) {
  std::mt19937 rng(4);
  std::vector<float> x = random_floats(kVec, rng), w = random_floats(kVec, rng),
                     b = random_floats(kVec, rng), y(kVec);
  ai00::internal::cpu::NormArgs p;
  p.x = x.data();
  p.y = y.data();
  p.weight = w.data();
  p.bias = b.data();
  p.n = kVec;
  p.group_size = group;
  for (auto _ : state) {
    k->norm(p);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kVec * 4 * 4);
}

// H = 64 heads of N = 64 (C = 4096), T tokens: the 1 MiB state is read and written per token.
void wkv7(benchmark::State& state, const KernelTable* k, int64_t T) {
  const int64_t H = 64, N = 64, C = H * N;
  std::mt19937 rng(5);
  std::vector<float> S = random_floats(static_cast<size_t>(H * N * N), rng, -0.1f, 0.1f);
  std::vector<float> r = random_floats(C * T, rng), w = random_floats(C * T, rng, 0.6f, 1.0f),
                     kk = random_floats(C * T, rng), v = random_floats(C * T, rng),
                     a = random_floats(C * T, rng, -0.1f, 0.0f),
                     b = random_floats(C * T, rng, 0.0f, 0.1f), y(C * T);
  ai00::internal::cpu::Wkv7Args p;
  p.state = S.data();
  p.r = r.data();
  p.w = w.data();
  p.k = kk.data();
  p.v = v.data();
  p.a = a.data();
  p.b = b.data();
  p.y = y.data();
  p.T = T;
  p.C = C;
  p.N = N;
  p.head_end = H;
  for (auto _ : state) {
    k->wkv7(p);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * T * H * N * N * 4 * 2);
}

void register_all() {
#if defined(__x86_64__)
  if (ai00::internal::cpu::isa_supported("avx2")) {
    benchmark::RegisterBenchmark("fma_peak/avx2", BM_fma_peak_avx2);
  }
  if (ai00::internal::cpu::isa_supported("avx512")) {
    benchmark::RegisterBenchmark("fma_peak/avx512", BM_fma_peak_avx512);
  }
#endif
  size_t count = 0;
  const KernelTable* const* tables = ai00::internal::cpu::all_kernel_tables(&count);
  const WType types[] = {WType::F32,  WType::F16,  WType::BF16, WType::Q4_0, WType::Q4_1,
                         WType::Q5_0, WType::Q5_1, WType::Q8_0, WType::Q6_K};
  for (size_t i = 0; i < count; ++i) {
    const KernelTable* k = tables[i];
    if (!ai00::internal::cpu::isa_supported(k->name)) continue;
    const std::string isa = k->name;
    for (WType t : types) {
      benchmark::RegisterBenchmark(("matvec/" + isa + "/" + wtype_name(t) + "/4096x4096").c_str(),
                                   matvec, k, t, int64_t{4096}, true)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("matvec_l2/" + isa + "/" + wtype_name(t) + "/512x512").c_str(),
                                   matvec, k, t, int64_t{512}, false);
    }
    for (WType t : types) {
      if (isa == "scalar") break;  // minutes per iteration, and not a prefill path anyone uses
      benchmark::RegisterBenchmark(
          ("prefill/" + isa + "/" + wtype_name(t) + "/4096x4096/T64").c_str(), prefill, k, t,
          int64_t{4096}, int64_t{64})
          ->Unit(benchmark::kMillisecond);
    }
    for (const char* op :
         {"lerp", "sigmoid", "tanh", "decay", "relu_sq", "add", "mul", "fma", "dot"}) {
      benchmark::RegisterBenchmark(("elementwise/" + isa + "/" + op + "/4096").c_str(), elementwise,
                                   k, std::string(op));
    }
    benchmark::RegisterBenchmark(("norm/" + isa + "/layernorm/4096").c_str(), norm, k, int64_t{0});
    benchmark::RegisterBenchmark(("norm/" + isa + "/groupnorm64/4096").c_str(), norm, k,
                                 int64_t{64});
    benchmark::RegisterBenchmark(("wkv7/" + isa + "/H64xN64/T1").c_str(), wkv7, k, int64_t{1});
    benchmark::RegisterBenchmark(("wkv7/" + isa + "/H64xN64/T16").c_str(), wkv7, k, int64_t{16});
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
