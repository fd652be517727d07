// The kernel table: every hot loop of the forward pass, written once against
// xsimd::batch<float, Arch> and compiled per ISA (docs/model.md "Kernels and ISAs").
//
// src/core sees only this header: plain argument structs and one table of function pointers per
// ISA, chosen once at model load (select_kernels) and kept by the Model. Kernels never include
// core, never allocate on the hot path, never throw, and never start threads: the core splits
// rows (matmul) and heads (wkv7) into fixed ranges and calls a kernel per range, so results do
// not depend on the number of threads.
//
// Numerics: activations and accumulators are fp32; weights stay in their stored type (F16,
// BF16, Q8_0, Q4_0, ...) and are widened in registers, block by block: a quantized matrix is
// never expanded into an fp32 copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/dtype.h"

namespace ai00::internal::cpu {

// Weights are stored as one of the types of base/dtype.h (ai00::internal::DType, also used by
// the loaders); their row sizes come from dtype_row_bytes_or_zero.

// Y[t][r] = sum_c W[r][c] * X[t][c]  for t in [0, T), r in [row_begin, row_end).
// T = 1 is the decode matrix-vector product; T > 1 is prefill (weights read once per tile of
// rows, reused over the T activation rows).
struct MatmulArgs {
  const uint8_t* w = nullptr;  // [rows][cols] in `wtype`; quantized blocks run along cols
  DType wtype = DType::F32;
  size_t w_row_bytes = 0;    // bytes of one weight row
  int64_t cols = 0;          // K: input width (a multiple of the block size for quantized)
  const float* x = nullptr;  // [T][x_stride] activations, fp32
  int64_t x_stride = 0;
  float* y = nullptr;  // [T][y_stride] outputs, fp32 (overwritten, not accumulated)
  int64_t y_stride = 0;
  int64_t T = 1;
  int64_t row_begin = 0;  // rows of W handled by this call: [row_begin, row_end)
  int64_t row_end = 0;
};

// WKV-7 recurrence (docs/model.md "WKV-7") for heads [head_begin, head_end) over T tokens,
// in token order. Per head h and token t, with the head's N-slices of the inputs:
//   sa[i]   = sum_j S[i][j] * a[j]               (a = -kk, uses the old state)
//   S[i][j] = S[i][j] * w[j] + sa[i] * b[j] + v[i] * k[j]   (b = kk * a_rate)
//   y[i]    = sum_j S[i][j] * r[j]               (uses the new state)
struct Wkv7Args {
  float* state = nullptr;    // [H][N][N] S[h][i=value][j=key], updated in place
  const float* r = nullptr;  // [T][C] receptance
  const float* w = nullptr;  // [T][C] decay, already exp(-0.606531 * sigmoid(.)), in (0, 1)
  const float* k = nullptr;  // [T][C] replacement key (k modified by k_a)
  const float* v = nullptr;  // [T][C] value (after the value residual)
  const float* a = nullptr;  // [T][C] -kk
  const float* b = nullptr;  // [T][C] kk * a_rate
  float* y = nullptr;        // [T][C] readout
  int64_t T = 1;
  int64_t C = 0;   // row stride of r, w, k, v, a, b, y (= H * N)
  int64_t N = 64;  // head size
  int64_t head_begin = 0;
  int64_t head_end = 0;
};

// LayerNorm of `rows` rows of length n: y = (x - mean) / sqrt(var + eps) * weight + bias,
// biased variance computed in two passes. With group_size < n, each group of group_size
// consecutive channels is normalised on its own (GroupNorm, one group per head) before the
// affine over all n channels. x and y may alias.
struct NormArgs {
  const float* x = nullptr;       // [rows][n]
  float* y = nullptr;             // [rows][n]
  const float* weight = nullptr;  // [n]
  const float* bias = nullptr;    // [n]
  int64_t rows = 1;
  int64_t n = 0;
  int64_t group_size = 0;  // 0 or n: plain LayerNorm
  float eps = 1e-5f;
};

// Element-wise ops over n floats; outputs may alias inputs.
struct KernelTable {
  const char* name;  // "scalar", "sse2", "avx2", "avx512", "neon64"
  void (*matmul)(const MatmulArgs&);
  void (*wkv7)(const Wkv7Args&);
  void (*norm)(const NormArgs&);
  // y = x + d * m  (token-shift lerp: d = x_prev - x, m = mix factors)
  void (*lerp)(const float* x, const float* d, const float* m, float* y, int64_t n);
  // y = 1 / (1 + exp(-x))
  void (*sigmoid)(const float* x, float* y, int64_t n);
  // y = tanh(x)
  void (*tanh)(const float* x, float* y, int64_t n);
  // y = exp(-0.606531 * sigmoid(x))   (RWKV-7 decay)
  void (*decay)(const float* x, float* y, int64_t n);
  // y = max(x, 0)^2
  void (*relu_sq)(const float* x, float* y, int64_t n);
  // y = a + b ; y = a * b ; y = a + b * c
  void (*add)(const float* a, const float* b, float* y, int64_t n);
  void (*mul)(const float* a, const float* b, float* y, int64_t n);
  void (*fma)(const float* a, const float* b, const float* c, float* y, int64_t n);
  // sum_i a[i] * b[i], fixed reduction order for a given n
  float (*dot)(const float* a, const float* b, int64_t n);
};

// Tables compiled into this binary for the host architecture, best first. Every entry may not
// be runnable on this CPU: use isa_supported().
const KernelTable* const* all_kernel_tables(size_t* count);
bool isa_supported(const std::string& name);

// Chooses the table: `forced` (from the AI00_FORCE_ISA environment variable or a parameter) if
// non-empty, else the best ISA the CPU and OS support. Returns nullptr and writes a message to
// *error for an unknown or unsupported forced name (never SIGILL).
const KernelTable* select_kernels(const std::string& forced, std::string* error);

}  // namespace ai00::internal::cpu
