// The scalar kernel table: plain C++ without xsimd or ISA flags. It is the runtime fallback
// (AI00_FORCE_ISA=scalar) and the reference every per-ISA kernel is tested against, so it is
// written for clarity: one weight block is dequantized into a small stack array by the one scalar
// dequantizer (base/dequant.h), then dotted.
// Dot products accumulate in double so the reference is at least as accurate as any SIMD table.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/dequant.h"
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
  const DequantizeBlockFn dequant = dequantize_block_fn(t);
  if (dequant == nullptr) return 0.0f;  // unreachable: the float types returned above
  const auto block = static_cast<int>(dtype_block_size(t));
  const auto bytes = static_cast<size_t>(dtype_block_bytes(t));
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

// kernels.h "quantize_q8", written out independently of the SIMD tables' copy (matmul_i8-inl.h);
// the tests require the same bits from every table.
void quantize_q8(const float* x, BlockQ8* y, int64_t n) {
  for (int64_t b = 0; b < n / kQBlock; ++b) {
    const float* xb = x + b * kQBlock;
    float amax = 0.0f;
    for (int e = 0; e < kQBlock; ++e) amax = std::max(amax, std::fabs(xb[e]));
    const float id = amax > 0.0f ? 127.0f / amax : 0.0f;
    int32_t sum = 0;
    for (int e = 0; e < kQBlock; ++e) {
      const auto q = static_cast<int32_t>(std::nearbyint(xb[e] * id));
      y[b].q[e] = static_cast<int8_t>(q);
      sum += q;
    }
    for (int j = 0; j < 8; ++j) {
      y[b].psum[j] = y[b].q[4 * j] + y[b].q[4 * j + 1] + y[b].q[4 * j + 2] + y[b].q[4 * j + 3];
    }
    y[b].d = amax / 127.0f;
    y[b].s = y[b].d * static_cast<float>(sum);
    y[b].sum = sum;
  }
}

// The integer codes of one weight block (dtype.h layouts) and the offset subtracted from them.
void block_codes(DType t, const uint8_t* blk, int32_t* c, int32_t* offset, float* dw, float* m) {
  *dw = f16_to_f32(load_u16(blk));
  *m = 0.0f;
  *offset = 0;
  if (t == DType::Q8_0) {
    for (int e = 0; e < kQBlock; ++e) c[e] = static_cast<int8_t>(blk[2 + e]);
    return;
  }
  const bool has_min = t == DType::Q4_1 || t == DType::Q5_1;
  const bool five = t == DType::Q5_0 || t == DType::Q5_1;
  if (has_min) *m = f16_to_f32(load_u16(blk + 2));
  const size_t head = has_min ? 4 : 2;
  uint32_t qh = 0;
  if (five) std::memcpy(&qh, blk + head, 4);
  const uint8_t* qs = blk + head + (five ? 4 : 0);
  for (int e = 0; e < kQBlock; ++e) {
    const int nib = e < 16 ? (qs[e] & 15) : (qs[e - 16] >> 4);
    c[e] = nib | (five ? static_cast<int32_t>((qh >> e) & 1u) << 4 : 0);
  }
  if (!has_min) *offset = five ? 16 : 8;
}

// kernels.h MatmulQ8Args: the exact integer dot per block, its float term, summed in double.
void matmul_q8(const MatmulQ8Args& p) {
  if (!matmul_q8_supports(p.wtype)) return;
  const int64_t nblk = p.cols / kQBlock;
  const auto bytes = static_cast<size_t>(dtype_block_bytes(p.wtype));
  for (int64_t t = 0; t < p.T; ++t) {
    const BlockQ8* x = p.x + t * p.x_stride;
    for (int64_t r = p.row_begin; r < p.row_end; ++r) {
      const uint8_t* w = p.w + static_cast<size_t>(r) * p.w_row_bytes;
      double sum = 0.0;
      for (int64_t b = 0; b < nblk; ++b) {
        int32_t c[kQBlock], offset = 0;
        float dw = 0.0f, m = 0.0f;
        block_codes(p.wtype, w + b * bytes, c, &offset, &dw, &m);
        int32_t dot = 0;
        for (int e = 0; e < kQBlock; ++e) dot += (c[e] - offset) * x[b].q[e];
        sum += static_cast<double>((dw * x[b].d) * static_cast<float>(dot));
        sum += static_cast<double>(m * x[b].s);
      }
      p.y[t * p.y_stride + r] = static_cast<float>(sum);
    }
  }
}

// kernels.h MatmulTArgs: each output one chain of fused multiply-adds over d ascending from
// +0.0f (std::fma, correctly rounded), the order every table with a fused multiply-add follows.
void matmul_t(const MatmulTArgs& p) {
  if (!matmul_t_supports(p.wtype)) return;
  const size_t es = p.wtype == DType::F32 ? 4 : 2;
  for (int64_t t = 0; t < p.T; ++t) {
    const float* x = p.x + t * p.x_stride;
    for (int64_t c = p.col_begin; c < p.col_end; ++c) {
      float acc = 0.0f;
      for (int64_t d = 0; d < p.D; ++d) {
        const uint8_t* w =
            p.w + static_cast<size_t>(d) * p.w_row_bytes + static_cast<size_t>(c) * es;
        float v;
        if (p.wtype == DType::F32) {
          std::memcpy(&v, w, 4);
        } else {
          v = p.wtype == DType::F16 ? f16_to_f32(load_u16(w)) : bf16_to_f32(load_u16(w));
        }
        acc = std::fma(x[d], v, acc);
      }
      p.y[t * p.y_stride + c] = acc;
    }
  }
}

}  // namespace

// The BF16 dot entries are left empty: the scalar table has no native BF16 dot; nor does it
// pack (no pack_q8 / unpack_q8).
const KernelTable& kernel_table() {
  static const KernelTable table{
      "scalar", matmul, wkv7, norm,        lerp,      sigmoid, tanh_,   decay,   relu_sq,  add,
      mul,      fma_,   dot,  quantize_q8, matmul_q8, nullptr, nullptr, nullptr, matmul_t, nullptr};
  return table;
}

}  // namespace ai00::internal::cpu::scalar
