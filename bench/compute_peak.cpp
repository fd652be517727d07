// The compute peak probes (compute_peak.h).
#include "compute_peak.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/model/model.h"
#include "cpu_kernels/kernels.h"
#include "int8_peak.h"

namespace ai00::bench {
namespace {

// Keeps each probe's chains alive: the sum of their lanes is added here.
std::atomic<uint64_t> g_sink{0};

// Adds the lanes of a probe's chains to g_sink, so that no chain is dead code. Lane is the
// element type of the vectors V; only their bytes are read, so this needs no target.
template <class Lane, class V, size_t N>
void sink(const V (&chains)[N]) {
  Lane lanes[N * sizeof(V) / sizeof(Lane)];
  std::memcpy(lanes, chains, sizeof(chains));
  double s = 0;
  for (Lane x : lanes) s += static_cast<double>(x);
  g_sink += static_cast<uint64_t>(s);
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void fma512(long n) {
  __m512 a[12], x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
  for (auto& v : a) v = _mm512_set1_ps(0.5f);
  for (long i = 0; i < n; ++i) {
    for (auto& v : a) v = _mm512_fmadd_ps(v, x, y);
  }
  sink<float>(a);
}
__attribute__((target("avx2,fma"))) void fma256(long n) {
  __m256 a[12], x = _mm256_set1_ps(1.0000001f), y = _mm256_set1_ps(0.9999999f);
  for (auto& v : a) v = _mm256_set1_ps(0.5f);
  for (long i = 0; i < n; ++i) {
    for (auto& v : a) v = _mm256_fmadd_ps(v, x, y);
  }
  sink<float>(a);
}
__attribute__((target("avx512f,avx512bf16"))) void bf16dot(long n) {
  __m512 a[12];
  for (auto& v : a) v = _mm512_set1_ps(0.0f);
  const __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80), y = (__m512bh)_mm512_set1_epi16(0x3c00);
  for (long i = 0; i < n; ++i) {
    for (auto& v : a) v = _mm512_dpbf16_ps(v, x, y);
  }
  sink<float>(a);
}
__attribute__((target("avx512f,avx512vnni"))) void vnni512(long n) {
  __m512i a[12], x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(-2);
  for (auto& v : a) v = _mm512_setzero_si512();
  for (long i = 0; i < n; ++i) {
    for (auto& v : a) v = _mm512_dpbusd_epi32(v, x, y);
  }
  sink<int32_t>(a);
}
__attribute__((target("avx2,avxvnni"))) void vnni256(long n) {
  __m256i a[12], x = _mm256_set1_epi8(3), y = _mm256_set1_epi8(-2);
  for (auto& v : a) v = _mm256_setzero_si256();
  for (long i = 0; i < n; ++i) {
    for (auto& v : a) v = _mm256_dpbusd_avx_epi32(v, x, y);
  }
  sink<int32_t>(a);
}
// The plain int8 dot (int8_peak.h: in assembly, the C++ form lost its multiplies).
void maddubs256(long n) { int8_peak_ymm(n); }
void maddubs256_sign(long n) { int8_peak_ymm(n, true); }
void maddubs512(long n) { int8_peak_zmm(n); }
#endif

Peak measure(const char* what, void (*fn)(long), double ops) {
  Peak p;
  p.what = what;
  p.fn = fn;
  p.ops = ops;
  for (int t : {1, 2}) p.g[t] = peak_gops(p, t);
  return p;
}

}  // namespace

double run_threads(int threads, const std::function<void(int)>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(f, t);
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double peak_gops(const Peak& p, int threads, long iters) {
  if (p.fn == nullptr) return 0;
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    best = std::min(best, run_threads(threads, [&](int) { p.fn(iters); }));
  }
  return p.ops * static_cast<double>(iters) * threads / best / 1e9;
}

TablePeaks measure_table_peaks() {
  TablePeaks r;
  r.isa = kernel_isa();
#if defined(__x86_64__)
  const std::string& isa = r.isa;
  if (isa.rfind("avx512", 0) == 0) {
    r.fma = measure("fp32 FMA (AVX-512)", fma512, 12 * 16 * 2);
  } else if (isa.rfind("avx2", 0) == 0) {
    r.fma = measure("fp32 FMA (AVX2)", fma256, 12 * 8 * 2);
  }
  if (isa == "avx512_bf16") r.bf16 = measure("bf16 dot (vdpbf16ps)", bf16dot, 12 * 16 * 4);
  if (isa == "avx512_vnni" || isa == "avx512_bf16") {
    r.i8 = measure("int8 dot (vpdpbusd zmm)", vnni512, 12 * 16 * 8);
  } else if (isa == "avx2_vnni") {
    r.i8 = measure("int8 dot (vpdpbusd ymm)", vnni256, 12 * 8 * 8);
  } else if (isa == "avx512") {
    r.i8 = measure("int8 dot (vpmaddubsw zmm)", maddubs512, kInt8PeakOpsZmm);
  } else if (isa == "avx2") {
    r.i8 = measure("int8 dot (vpmaddubsw ymm)", maddubs256, kInt8PeakOpsYmm);
    r.q8_step = measure("Q8_0 step (+ vpsignb)", maddubs256_sign, kInt8PeakOpsYmm);
  }
#endif
  return r;
}

const Peak& peak_for(const TablePeaks& peaks, internal::DType type, bool fp32_activations) {
  using internal::DType;
  if (fp32_activations || type == DType::F32 || type == DType::F16) return peaks.fma;
  if (type == DType::BF16) return peaks.bf16.fn != nullptr ? peaks.bf16 : peaks.fma;
  return peaks.i8;
}

std::string kernel_isa() {
  std::string err;
  const internal::cpu::KernelTable* k = internal::cpu::select_kernels("", &err);
  return k != nullptr ? k->name : "none (" + err + ")";
}

double block_macs(const internal::Model& m) {
  double macs = 0;
  for (int64_t l = 0; l < m.config().n_layer; ++l) {
    const internal::LayerWeights& w = m.layer(l);
    for (const internal::Mat* x :
         {&w.w1, &w.w2, &w.a1, &w.a2, &w.v1, &w.v2, &w.g1, &w.g2, &w.receptance, &w.key, &w.value,
          &w.output, &w.ffn_key, &w.ffn_value}) {
      macs += static_cast<double>(x->rows) * static_cast<double>(x->cols);
    }
  }
  return macs;
}

double head_macs(const internal::Model& m) {
  const internal::Mat& h = m.global().head;
  return static_cast<double>(h.rows) * static_cast<double>(h.cols);
}

}  // namespace ai00::bench
