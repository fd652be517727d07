// Kernel benchmarks (docs/layers.md "Tests and benchmarks"): one benchmark per kernel x runnable
// ISA, single thread, each stated as a ratio to a machine limit measured at start-up in the same
// run (printed first on stderr as "limits: ...", and used by the counters):
//   read bandwidth   reading a 256 MiB array, 1 thread (and 2 threads, for reference), the
//                    best of the access patterns of read_probe.h,
//   fp32 FMA         peak of one core (12 independent chains), avx2 and avx512,
//   int8 dot         vpdpbusd (zmm, avx512_vnni; ymm, avx2_vnni) and pmaddubsw + pmaddwd +
//                    paddd (avx2; 8 chains in assembly, int8_peak.h),
//   bf16 dot         vdpbf16ps (zmm, avx512_bf16).
// matvec/<isa>/<type>/<path>/<rows>x<cols> (T = 1, weights from DRAM: > 96 MiB of copies in
//   rotation; 4096x4096 and the 0.1B decode shapes 768x768, 3072x768, 768x3072, 65536x768):
//   counter "roofline" = (weight bytes/s) / read bandwidth. <path>: f32act (matmul, fp32
//   activations), i8 (quantize_q8 + matmul_q8, quantization included), i8pk (the same on weights
//   rearranged once by pack_q8, where the table has it), bf16dot (round_bf16 + matmul_bf16).
// streamed/<isa>/<type>/<path>/3072x768/T8: the same rotation at T = 8 (batched decode of 8
//   States); counters "roofline" and "peak" (as for gemm): a kernel whose weight read and
//   arithmetic take turns gets the two summing to about 1, one that overlaps them the larger
//   near 1 (docs/batching.md "The weight read under the arithmetic").
// gemm/<isa>/<type>/<path>/T<M> (2048 x 2048 weights, M = 1, 8, 32, 128, 512 tokens): counter
//   "peak" = ops/s over the peak of the instruction the path uses (fp32 FMA for f32act, int8 dot
//   for i8, bf16 dot for bf16dot), an op being one multiply or one add. Counters print "/s" but
//   are ratios.
// gemm/<isa>/<type>/<path>/{768x768,3072x768}/T64: a 0.1B prefill chunk of W_r and the FFN key
//   (i8pk, bf16dot, and f32act for F32, F16 and BF16), same counters.
// gemm/<isa>/<F32|F16>/f32act/64x64/T64 and 64x768/T64: the LoRA shapes of a 0.1B prefill chunk
//   (one head's up-projection rows as stored, a down-projection), same counters.
// lora_up/<isa>/<F32|F16|BF16>/64x64/T<M> (M = 1, 2, 3, 8, 64): one head's up-projection as the
//   forward runs it, matmul_t over the transposed matrix; counter "peak" against fp32 FMA.
// Run: build/bench/bin/bench_kernels --benchmark_min_time=0.2 [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/dtype.h"
#include "base/half.h"
#include "cpu_kernels/kernels.h"
#include "int8_peak.h"
#include "read_probe.h"
#include "thread_time.h"

namespace {

using ai00::internal::DType;
using ai00::internal::cpu::KernelTable;
using WType = ai00::internal::DType;

// ---- machine limits, measured once at start-up -------------------------------------------

struct Limits {
  double read_bw1 = 0, read_bw2 = 0;    // bytes/s
  double fma_avx2 = 0, fma_avx512 = 0;  // fp32 ops/s (FMA = 2)
  double i8_avx2 = 0, i8_vnni = 0;      // int8 ops/s (multiply-add = 2)
  double i8_avx2_q8 = 0;                // Q8_0's avx2 step (with vpsignb): a bound, not a peak
  double i8_avxvnni = 0;                // VEX vpdpbusd on 256 bits (avx2_vnni)
  double bf16 = 0;                      // bf16 dot ops/s
};
Limits g_limits;

// Single-thread limits use this thread's CPU time, like the benchmarks' counters, so a ratio
// stays meaningful on a machine shared with other work; the 2-thread bandwidth uses wall time.
using ai00::bench::thread_cpu_seconds;

// The best access pattern's best of 5 reads over each thread's share of a 256 MiB array
// (read_probe.h); bytes/s.
double measure_read_bw(int threads) {
  static const std::vector<uint64_t> data((256u << 20) / sizeof(uint64_t), 1);
  return ai00::bench::read_bandwidth(data, threads, threads == 1).gbps * 1e9;
}

#if defined(__x86_64__)
// 12 independent chains of one instruction; best of 5 runs of 2e5 rounds; returns ops/s.
#define AI00_PEAK(V, INIT, STEP, OPS_PER_INSTR)                                           \
  V acc[12];                                                                              \
  for (int i = 0; i < 12; ++i) acc[i] = INIT;                                             \
  double best = 0;                                                                        \
  for (int rep = 0; rep < 5; ++rep) {                                                     \
    const double t0 = thread_cpu_seconds();                                               \
    for (int k = 0; k < 200000; ++k) {                                                    \
      for (int i = 0; i < 12; ++i) acc[i] = STEP;                                         \
    }                                                                                     \
    for (int i = 0; i < 12; ++i) benchmark::DoNotOptimize(acc[i]);                        \
    best = std::max(best, 12.0 * 200000 * (OPS_PER_INSTR) / (thread_cpu_seconds() - t0)); \
  }                                                                                       \
  return best

__attribute__((target("avx2,fma"))) double peak_fma_avx2() {
  const __m256 m = _mm256_set1_ps(0.999f), a = _mm256_set1_ps(0.001f);
  AI00_PEAK(__m256, _mm256_set1_ps(1.0f), _mm256_fmadd_ps(acc[i], m, a), 16.0);
}
__attribute__((target("avx512f"))) double peak_fma_avx512() {
  const __m512 m = _mm512_set1_ps(0.999f), a = _mm512_set1_ps(0.001f);
  AI00_PEAK(__m512, _mm512_set1_ps(1.0f), _mm512_fmadd_ps(acc[i], m, a), 32.0);
}
// Plain AVX2 int8 dot: 32 byte products per pmaddubsw + pmaddwd + paddd (what matmul_q8 runs),
// in assembly (int8_peak.h: the C++ form lost its multiplies); best of 5 runs of 2e5 rounds.
// With `sign`, Q8_0's step, which adds a vpsignb per 32 products.
double peak_i8_avx2(bool sign = false) {
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = thread_cpu_seconds();
    ai00::bench::int8_peak_ymm(200000, sign);
    best = std::max(best, 200000 * ai00::bench::kInt8PeakOpsYmm / (thread_cpu_seconds() - t0));
  }
  return best;
}
__attribute__((target("avx512f,avx512vnni"))) double peak_i8_vnni() {
  const __m512i u = _mm512_set1_epi8(3), s = _mm512_set1_epi8(-2);
  AI00_PEAK(__m512i, _mm512_setzero_si512(), _mm512_dpbusd_epi32(acc[i], u, s), 128.0);
}
__attribute__((target("avx2,avxvnni"))) double peak_i8_avxvnni() {
  const __m256i u = _mm256_set1_epi8(3), s = _mm256_set1_epi8(-2);
  AI00_PEAK(__m256i, _mm256_setzero_si256(), _mm256_dpbusd_avx_epi32(acc[i], u, s), 64.0);
}
__attribute__((target("avx512f,avx512bf16"))) double peak_bf16() {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512bh a = _mm512_cvtne2ps_pbh(one, one);
  AI00_PEAK(__m512, _mm512_setzero_ps(), _mm512_dpbf16_ps(acc[i], a, a), 64.0);
}
#undef AI00_PEAK
#endif

void measure_limits() {
  Limits& L = g_limits;
  L.read_bw1 = measure_read_bw(1);
  L.read_bw2 = measure_read_bw(2);
#if defined(__x86_64__)
  using ai00::internal::cpu::isa_supported;
  if (isa_supported("avx2")) {
    L.fma_avx2 = peak_fma_avx2(), L.i8_avx2 = peak_i8_avx2(), L.i8_avx2_q8 = peak_i8_avx2(true);
  }
  if (isa_supported("avx512")) L.fma_avx512 = peak_fma_avx512();
  if (isa_supported("avx512_vnni")) L.i8_vnni = peak_i8_vnni();
  if (isa_supported("avx2_vnni")) L.i8_avxvnni = peak_i8_avxvnni();
  if (isa_supported("avx512_bf16")) L.bf16 = peak_bf16();
#endif
  std::fprintf(stderr,
               "limits: read_bw 1 thread %.1f GB/s, 2 threads %.1f GB/s; fp32 FMA avx2 %.0f, "
               "avx512 %.0f GFLOP/s; int8 dot avx2 (maddubs) %.0f (Q8_0's step with vpsignb at "
               "most %.0f), avx2_vnni vpdpbusd ymm %.0f, avx512 vpdpbusd %.0f GOP/s; bf16 "
               "vdpbf16ps %.0f GFLOP/s (one core)\n",
               L.read_bw1 / 1e9, L.read_bw2 / 1e9, L.fma_avx2 / 1e9, L.fma_avx512 / 1e9,
               L.i8_avx2 / 1e9, L.i8_avx2_q8 / 1e9, L.i8_avxvnni / 1e9, L.i8_vnni / 1e9,
               L.bf16 / 1e9);
}

enum class Path { F32Act, I8, I8Packed, Bf16Dot };
const char* path_name(Path p) {
  return p == Path::F32Act     ? "f32act"
         : p == Path::I8       ? "i8"
         : p == Path::I8Packed ? "i8pk"
                               : "bf16dot";
}

// The peak of the instruction a path runs on table k (0 when not measured: no ratio).
double path_peak(const KernelTable* k, Path path) {
  const std::string isa = k->name;
  const bool wide = isa.rfind("avx512", 0) == 0;
  if (path == Path::Bf16Dot) return g_limits.bf16;
  if (path == Path::I8 || path == Path::I8Packed) {
    if (isa == "avx512_vnni" || isa == "avx512_bf16") return g_limits.i8_vnni;
    if (isa == "avx2_vnni") return g_limits.i8_avxvnni;
    return (isa == "avx2" || isa == "avx512") ? g_limits.i8_avx2 : 0.0;
  }
  if (wide) return g_limits.fma_avx512;
  return isa.rfind("avx2", 0) == 0 ? g_limits.fma_avx2 : 0.0;
}

// ---- weights -------------------------------------------------------------------------------

const char* wtype_name(WType t) {
  static const char* const names[] = {"F32",  "F16",  "BF16", "Q4_0", "Q4_1",
                                      "Q5_0", "Q5_1", "Q8_0", "Q6_K"};
  return names[static_cast<int>(t)];
}

// A rows x cols matrix of random bytes with every block scale set to a sane f16 value (random
// bits could make NaN or huge scales; the speed would not change, the numbers would be ugly).
std::vector<uint8_t> make_weights(WType t, int64_t rows, int64_t cols, std::mt19937& rng) {
  const size_t row_bytes = ai00::internal::dtype_row_bytes_or_zero(t, cols);
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
        const uint16_t h =
            t == WType::F16 ? ai00::internal::f32_to_f16(f) : ai00::internal::f32_to_bf16(f);
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

// One matmul call on table k along `path`, activations converted as the model does (once per
// call: quantize_q8 / round_bf16 of the T input rows).
struct MatmulRun {
  const KernelTable* k;
  Path path;
  DType t;
  int64_t rows, cols, T;
  std::vector<float> x, y;  // [T][cols], [T][rows]
  std::vector<ai00::internal::cpu::BlockQ8> xq;
  std::vector<uint16_t> xs;
  int64_t packed_rows = 0;
  MatmulRun(const KernelTable* k_, Path p, DType t_, int64_t rows_, int64_t cols_, int64_t T_,
            std::mt19937& rng)
      : k(k_),
        path(p),
        t(t_),
        rows(rows_),
        cols(cols_),
        T(T_),
        x(random_floats(static_cast<size_t>(T_ * cols_), rng)),
        y(static_cast<size_t>(T_ * rows_)),
        xq(static_cast<size_t>(T_ * cols_ / 32 + 1)),
        xs(static_cast<size_t>(T_ * cols_)) {}
  // The i8pk path rearranges w in place once (kernels.h pack_q8), as a model load would.
  void pack(std::vector<uint8_t>& w) {
    if (path == Path::I8Packed) packed_rows = k->pack_q8(t, w.data(), w.data(), rows, cols);
  }
  void operator()(const uint8_t* w) {
    const size_t rb = ai00::internal::dtype_row_bytes_or_zero(t, cols);
    if (path == Path::I8 || path == Path::I8Packed) {
      for (int64_t i = 0; i < T; ++i)
        k->quantize_q8(x.data() + i * cols, xq.data() + i * (cols / 32), cols);
      ai00::internal::cpu::MatmulQ8Args p;
      p.w = w, p.wtype = t, p.w_row_bytes = rb, p.cols = cols, p.x = xq.data(),
      p.x_stride = cols / 32, p.y = y.data(), p.y_stride = rows, p.T = T, p.row_end = rows;
      p.packed_rows = packed_rows;
      k->matmul_q8(p);
    } else if (path == Path::Bf16Dot) {
      for (int64_t i = 0; i < T; ++i)
        k->round_bf16(x.data() + i * cols, xs.data() + i * cols, cols);
      ai00::internal::cpu::MatmulBf16Args p;
      p.w = w, p.w_row_bytes = rb, p.cols = cols, p.x = xs.data(), p.x_stride = cols,
      p.xf = x.data(), p.xf_stride = cols, p.y = y.data(), p.y_stride = rows, p.T = T,
      p.row_end = rows;
      k->matmul_bf16(p);
    } else {
      ai00::internal::cpu::MatmulArgs p;
      p.w = w, p.wtype = t, p.w_row_bytes = rb, p.cols = cols, p.x = x.data(), p.x_stride = cols,
      p.y = y.data(), p.y_stride = rows, p.T = T, p.row_end = rows;
      k->matmul(p);
    }
  }
};

// Decode matvec: T = 1, over copies of the matrix totalling >= 96 MiB (3x L3), one per call in
// turn, so each call streams its weights from DRAM. With T > 1 (streamed/...), the batched
// decode of T States: the same rotation, and "peak" as in gemm besides "roofline".
void streamed(benchmark::State& state, const KernelTable* k, DType t, Path path, int64_t rows,
              int64_t cols, int64_t T) {
  std::mt19937 rng(1);
  const size_t bytes = ai00::internal::dtype_row_bytes_or_zero(t, cols) * static_cast<size_t>(rows);
  const size_t copies = std::max<size_t>(1, (96u << 20) / bytes + 1);
  std::vector<std::vector<uint8_t>> w;
  for (size_t i = 0; i < copies; ++i) w.push_back(make_weights(t, rows, cols, rng));
  MatmulRun run(k, path, t, rows, cols, T, rng);
  for (std::vector<uint8_t>& wi : w) run.pack(wi);
  size_t i = 0;
  for (auto _ : state) {
    run(w[i].data());
    i = (i + 1) % copies;
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["roofline"] = benchmark::Counter(static_cast<double>(bytes) / g_limits.read_bw1,
                                                  benchmark::Counter::kIsIterationInvariantRate);
  const double peak = path_peak(k, path);
  if (T > 1 && peak > 0) {
    const double ops = 2.0 * static_cast<double>(rows * cols * T);
    state.counters["peak"] =
        benchmark::Counter(ops / peak, benchmark::Counter::kIsIterationInvariantRate);
  }
}

// The decode shape: one token.
void matvec(benchmark::State& state, const KernelTable* k, DType t, Path path, int64_t rows,
            int64_t cols) {
  streamed(state, k, t, path, rows, cols, 1);
}

// GEMM: M = T tokens against one rows x cols matrix (2 rows cols T ops per call), weights in
// cache after the first call: the compute side of prefill and of batched decode.
void gemm(benchmark::State& state, const KernelTable* k, DType t, Path path, int64_t rows,
          int64_t cols, int64_t T) {
  std::mt19937 rng(2);
  std::vector<uint8_t> w = make_weights(t, rows, cols, rng);
  MatmulRun run(k, path, t, rows, cols, T, rng);
  run.pack(w);
  for (auto _ : state) {
    run(w.data());
    benchmark::ClobberMemory();
  }
  const double ops = 2.0 * static_cast<double>(rows * cols * T);
  state.counters["GOP/s"] =
      benchmark::Counter(ops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  const double peak = path_peak(k, path);
  if (peak > 0) {
    state.counters["peak"] =
        benchmark::Counter(ops / peak, benchmark::Counter::kIsIterationInvariantRate);
  }
}

// One head's LoRA up-projection as the forward pass runs it (matmul_t over the matrix
// transposed head by head, Mat::t_block): the head's contiguous [D][64] block (D 64 inputs) for
// T tokens, its 64 outputs in a row of a 0.1B model's C 768.
void lora_up(benchmark::State& state, const KernelTable* k, DType t, int64_t T) {
  constexpr int64_t D = 64, N = 64, C = 768;
  std::mt19937 rng(4);
  const std::vector<uint8_t> w = make_weights(t, D, N, rng);
  const std::vector<float> x = random_floats(T * D, rng);
  std::vector<float> y(static_cast<size_t>(T * C));
  ai00::internal::cpu::MatmulTArgs a;
  a.w = w.data(), a.wtype = t, a.w_row_bytes = ai00::internal::dtype_row_bytes(t, N), a.D = D;
  a.x = x.data(), a.x_stride = D, a.y = y.data() + 128, a.y_stride = C, a.T = T;  // head 2
  a.col_begin = 0, a.col_end = N;
  for (auto _ : state) {
    k->matmul_t(a);
    benchmark::ClobberMemory();
  }
  const double ops = 2.0 * static_cast<double>(D * 64 * T);
  state.counters["GOP/s"] =
      benchmark::Counter(ops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  const double peak = path_peak(k, Path::F32Act);
  if (peak > 0) {
    state.counters["peak"] =
        benchmark::Counter(ops / peak, benchmark::Counter::kIsIterationInvariantRate);
  }
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
  size_t count = 0;
  const KernelTable* const* tables = ai00::internal::cpu::all_kernel_tables(&count);
  const DType types[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q4_0, DType::Q4_1,
                         DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::Q6_K};
  for (size_t i = 0; i < count; ++i) {
    const KernelTable* k = tables[i];
    if (!ai00::internal::cpu::isa_supported(k->name)) continue;
    const std::string isa = k->name;
    for (DType t : types) {
      std::vector<Path> paths = {Path::F32Act};
      if (ai00::internal::cpu::matmul_q8_supports(t)) paths.push_back(Path::I8);
      if (k->pack_q8 != nullptr && ai00::internal::cpu::matmul_q8_supports(t)) {
        paths.push_back(Path::I8Packed);
      }
      if (t == DType::BF16 && k->matmul_bf16 != nullptr) paths.push_back(Path::Bf16Dot);
      for (Path path : paths) {
        const std::string name = isa + "/" + wtype_name(t) + "/" + path_name(path);
        benchmark::RegisterBenchmark(("matvec/" + name + "/4096x4096").c_str(), matvec, k, t, path,
                                     int64_t{4096}, int64_t{4096})
            ->Unit(benchmark::kMillisecond);
        if (isa == "scalar") continue;  // minutes per iteration
        // The decode shapes of a 0.1B model (docs/decode-speed.md "Where a decode token's time
        // goes"): rows of 768 columns (r/k/v/o, FFN key, the head) and of 3072 (FFN value).
        for (const auto& [rows, cols] :
             {std::pair<int64_t, int64_t>{768, 768}, {3072, 768}, {768, 3072}, {65536, 768}}) {
          benchmark::RegisterBenchmark(
              ("matvec/" + name + "/" + std::to_string(rows) + "x" + std::to_string(cols)).c_str(),
              matvec, k, t, path, rows, cols)
              ->Unit(benchmark::kMicrosecond);
        }
        // Batched decode of 8 States at a 0.1B shape: both limits matter at once (docs/batching.md
        // "Where a batched step's time goes"), so this is where their overlap shows.
        benchmark::RegisterBenchmark(("streamed/" + name + "/3072x768/T8").c_str(), streamed, k, t,
                                     path, int64_t{3072}, int64_t{768}, int64_t{8})
            ->Unit(benchmark::kMicrosecond);
        for (int64_t T : {1, 8, 32, 128, 512}) {
          benchmark::RegisterBenchmark(
              ("gemm/" + name + "/2048x2048/T" + std::to_string(T)).c_str(), gemm, k, t, path,
              int64_t{2048}, int64_t{2048}, T)
              ->Unit(benchmark::kMillisecond);
        }
        const bool float_weights = t == DType::F32 || t == DType::F16 || t == DType::BF16;
        if (path == Path::Bf16Dot || path == Path::I8Packed ||
            (path == Path::F32Act && float_weights)) {
          // A 0.1B prefill chunk of the block matrices (768 columns, 64 tokens): W_r and the
          // FFN key, as the forward pass runs them (64-row blocks inside one call here).
          for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{768, 768}, {3072, 768}}) {
            benchmark::RegisterBenchmark(
                ("gemm/" + name + "/" + std::to_string(rows) + "x" + std::to_string(cols) + "/T64")
                    .c_str(),
                gemm, k, t, path, rows, cols, int64_t{64});
          }
        }
        if (path != Path::F32Act || (t != DType::F32 && t != DType::F16)) continue;
        // The LoRA shapes of a 0.1B prefill chunk (F32 and F16 in GGUF files): the
        // up-projection of one head (64 rows, 64 columns) and a down-projection (64 x 768).
        for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{64, 64}, {64, 768}}) {
          benchmark::RegisterBenchmark(
              ("gemm/" + name + "/" + std::to_string(rows) + "x" + std::to_string(cols) + "/T64")
                  .c_str(),
              gemm, k, t, path, rows, cols, int64_t{64});
        }
      }
    }
    if (isa != "scalar") {
      for (DType t : {DType::F32, DType::F16, DType::BF16}) {
        for (int64_t T : {1, 2, 3, 8, 64}) {
          benchmark::RegisterBenchmark(
              ("lora_up/" + isa + "/" + wtype_name(t) + "/64x64/T" + std::to_string(T)).c_str(),
              lora_up, k, t, T);
        }
      }
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
  measure_limits();
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
