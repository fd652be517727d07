// The scalar kernel table: plain C++ without xsimd or ISA flags. It is the runtime fallback
// (AI00_FORCE_ISA=scalar) and the reference every per-ISA kernel is tested against, so it is
// written for clarity: one weight block is dequantized into a small stack array, then dotted.
// Dot products accumulate in double so the reference is at least as accurate as any SIMD table.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/dtype.h"
#include "base/half.h"
#include "cpu_kernels/isa_tables.h"

namespace ai00::internal::cpu::scalar {
namespace {

using namespace ai00::internal::quant;

uint16_t load_u16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// q(e) of the 32-weight blocks: low nibble of qs[e] for e < 16, high nibble of qs[e - 16].
int nibble(const uint8_t* qs, int e) { return e < 16 ? (qs[e] & 15) : (qs[e - 16] >> 4); }

// Dequantizes one block of each quantized type into out[kQBlock] (out[kKBlock] for Q6_K).
void dequant_q4_0(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b));
  for (int e = 0; e < kQBlock; ++e) out[e] = d * static_cast<float>(nibble(b + 2, e) - 8);
}

void dequant_q4_1(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b)), m = f16_to_f32(load_u16(b + 2));
  for (int e = 0; e < kQBlock; ++e) out[e] = d * static_cast<float>(nibble(b + 4, e)) + m;
}

void dequant_q5_0(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b));
  const uint32_t qh = load_u32(b + 2);
  for (int e = 0; e < kQBlock; ++e) {
    const int q = nibble(b + 6, e) | static_cast<int>(((qh >> e) & 1u) << 4);
    out[e] = d * static_cast<float>(q - 16);
  }
}

void dequant_q5_1(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b)), m = f16_to_f32(load_u16(b + 2));
  const uint32_t qh = load_u32(b + 4);
  for (int e = 0; e < kQBlock; ++e) {
    const int q = nibble(b + 8, e) | static_cast<int>(((qh >> e) & 1u) << 4);
    out[e] = d * static_cast<float>(q) + m;
  }
}

void dequant_q8_0(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b));
  for (int e = 0; e < kQBlock; ++e) out[e] = d * static_cast<float>(static_cast<int8_t>(b[2 + e]));
}

// ggml's dequantize_row_q6_K for one super-block.
void dequant_q6_k(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b + kQ6_KD));
  for (int n = 0; n < 2; ++n) {
    const uint8_t* ql = b + kQ6_KQl + 64 * n;
    const uint8_t* qh = b + kQ6_KQh + 32 * n;
    const int8_t* sc = reinterpret_cast<const int8_t*>(b + kQ6_KScales) + 8 * n;
    float* y = out + 128 * n;
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 15) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 15) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
      y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
  }
}

// One weight row dotted with one activation row.
float dot_row(const uint8_t* w, DType t, const float* x, int64_t cols) {
  double sum = 0.0;
  switch (t) {
    case DType::F32:
      for (int64_t c = 0; c < cols; ++c) {
        float v;
        std::memcpy(&v, w + 4 * c, 4);
        sum += static_cast<double>(v) * x[c];
      }
      return static_cast<float>(sum);
    case DType::F16:
      for (int64_t c = 0; c < cols; ++c)
        sum += static_cast<double>(f16_to_f32(load_u16(w + 2 * c))) * x[c];
      return static_cast<float>(sum);
    case DType::BF16:
      for (int64_t c = 0; c < cols; ++c)
        sum += static_cast<double>(bf16_to_f32(load_u16(w + 2 * c))) * x[c];
      return static_cast<float>(sum);
    default:
      break;
  }
  void (*dequant)(const uint8_t*, float*) = nullptr;
  size_t bytes = 0;
  int block = kQBlock;
  switch (t) {
    case DType::Q4_0:
      dequant = dequant_q4_0;
      bytes = kQ4_0Bytes;
      break;
    case DType::Q4_1:
      dequant = dequant_q4_1;
      bytes = kQ4_1Bytes;
      break;
    case DType::Q5_0:
      dequant = dequant_q5_0;
      bytes = kQ5_0Bytes;
      break;
    case DType::Q5_1:
      dequant = dequant_q5_1;
      bytes = kQ5_1Bytes;
      break;
    case DType::Q8_0:
      dequant = dequant_q8_0;
      bytes = kQ8_0Bytes;
      break;
    case DType::Q6_K:
      dequant = dequant_q6_k;
      bytes = kQ6_KBytes;
      block = kKBlock;
      break;
    default:
      return 0.0f;  // unreachable: the float types returned above
  }
  float tmp[kKBlock];
  // Whole blocks only: cols is a multiple of the block size for quantized types (kernels.h).
  for (int64_t b = 0; b + block <= cols; b += block) {
    dequant(w + (b / block) * bytes, tmp);
    for (int e = 0; e < block; ++e) sum += static_cast<double>(tmp[e]) * x[b + e];
  }
  return static_cast<float>(sum);
}

void matmul(const MatmulArgs& p) {
  for (int64_t t = 0; t < p.T; ++t) {
    const float* x = p.x + t * p.x_stride;
    float* y = p.y + t * p.y_stride;
    for (int64_t r = p.row_begin; r < p.row_end; ++r) {
      y[r] = dot_row(p.w + static_cast<size_t>(r) * p.w_row_bytes, p.wtype, x, p.cols);
    }
  }
}

// WKV-7 (kernels.h): per row i of the head's state, sa uses the old row, y the new one.
void wkv7(const Wkv7Args& p) {
  const int64_t N = p.N;
  for (int64_t h = p.head_begin; h < p.head_end; ++h) {
    float* S = p.state + h * N * N;
    for (int64_t t = 0; t < p.T; ++t) {
      const int64_t o = t * p.C + h * N;
      const float *r = p.r + o, *w = p.w + o, *k = p.k + o, *v = p.v + o, *a = p.a + o,
                  *b = p.b + o;
      for (int64_t i = 0; i < N; ++i) {
        float* Si = S + i * N;
        double sa = 0.0;
        for (int64_t j = 0; j < N; ++j) sa += static_cast<double>(Si[j]) * a[j];
        const float saf = static_cast<float>(sa);
        double yi = 0.0;
        for (int64_t j = 0; j < N; ++j) {
          Si[j] = Si[j] * w[j] + saf * b[j] + v[i] * k[j];
          yi += static_cast<double>(Si[j]) * r[j];
        }
        p.y[o + i] = static_cast<float>(yi);
      }
    }
  }
}

// Normalises x[0, n) in place into y with its own mean/variance (two passes), no affine.
void normalize_group(const float* x, float* y, int64_t n, float eps) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const double mean = sum / static_cast<double>(n);
  double sq = 0.0;
  for (int64_t i = 0; i < n; ++i) sq += (x[i] - mean) * (x[i] - mean);
  const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(n) + eps);
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>((x[i] - mean) * rstd);
}

void norm(const NormArgs& p) {
  const int64_t g = (p.group_size > 0 && p.group_size < p.n) ? p.group_size : p.n;
  for (int64_t row = 0; row < p.rows; ++row) {
    const float* x = p.x + row * p.n;
    float* y = p.y + row * p.n;
    // A last partial group (n not a multiple of group_size) is normalised on its own.
    for (int64_t c = 0; c < p.n; c += g) normalize_group(x + c, y + c, std::min(g, p.n - c), p.eps);
    for (int64_t i = 0; i < p.n; ++i) y[i] = y[i] * p.weight[i] + p.bias[i];
  }
}

float sigmoid1(float x) { return 1.0f / (1.0f + std::exp(-x)); }

void lerp(const float* x, const float* d, const float* m, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + d[i] * m[i];
}
void sigmoid(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = sigmoid1(x[i]);
}
void tanh_(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
}
void decay(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(-0.606531f * sigmoid1(x[i]));
}
void relu_sq(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float r = x[i] > 0.0f ? x[i] : 0.0f;
    y[i] = r * r;
  }
}
void add(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
void mul(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}
void fma_(const float* a, const float* b, const float* c, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i] * c[i];
}
float dot(const float* a, const float* b, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return static_cast<float>(s);
}

}  // namespace

const KernelTable& kernel_table() {
  static const KernelTable table{"scalar", matmul,  wkv7, norm, lerp, sigmoid, tanh_,
                                 decay,    relu_sq, add,  mul,  fma_, dot};
  return table;
}

}  // namespace ai00::internal::cpu::scalar
