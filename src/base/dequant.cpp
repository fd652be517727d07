// Scalar dequantization (dequant.h). Written for clarity: it is the reference the SIMD kernels
// are tested against.
#include "base/dequant.h"

#include <cstring>

#include "base/half.h"

namespace ai00::internal {
namespace {

using namespace quant;

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

}  // namespace

void dequantize_q4_0(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b));
  for (int e = 0; e < kQBlock; ++e) out[e] = d * static_cast<float>(nibble(b + 2, e) - 8);
}

void dequantize_q4_1(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b)), m = f16_to_f32(load_u16(b + 2));
  for (int e = 0; e < kQBlock; ++e) out[e] = d * static_cast<float>(nibble(b + 4, e)) + m;
}

void dequantize_q5_0(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b));
  const uint32_t qh = load_u32(b + 2);
  for (int e = 0; e < kQBlock; ++e) {
    const int q = nibble(b + 6, e) | static_cast<int>(((qh >> e) & 1u) << 4);
    out[e] = d * static_cast<float>(q - 16);
  }
}

void dequantize_q5_1(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b)), m = f16_to_f32(load_u16(b + 2));
  const uint32_t qh = load_u32(b + 4);
  for (int e = 0; e < kQBlock; ++e) {
    const int q = nibble(b + 8, e) | static_cast<int>(((qh >> e) & 1u) << 4);
    out[e] = d * static_cast<float>(q) + m;
  }
}

void dequantize_q8_0(const uint8_t* b, float* out) {
  const float d = f16_to_f32(load_u16(b));
  for (int e = 0; e < kQBlock; ++e) out[e] = d * static_cast<float>(static_cast<int8_t>(b[2 + e]));
}

// ggml's dequantize_row_q6_K for one super-block.
void dequantize_q6_k(const uint8_t* b, float* out) {
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

DequantizeBlockFn dequantize_block_fn(DType t) {
  switch (t) {
    case DType::Q4_0:
      return dequantize_q4_0;
    case DType::Q4_1:
      return dequantize_q4_1;
    case DType::Q5_0:
      return dequantize_q5_0;
    case DType::Q5_1:
      return dequantize_q5_1;
    case DType::Q8_0:
      return dequantize_q8_0;
    case DType::Q6_K:
      return dequantize_q6_k;
    case DType::F32:
    case DType::F16:
    case DType::BF16:
      break;
  }
  return nullptr;
}

void dequantize_row(DType t, const uint8_t* src, int64_t n, float* out) {
  switch (t) {
    case DType::F32:
      std::memcpy(out, src, static_cast<size_t>(n) * 4);
      return;
    case DType::F16:
      for (int64_t i = 0; i < n; ++i) out[i] = f16_to_f32(load_u16(src + 2 * i));
      return;
    case DType::BF16:
      for (int64_t i = 0; i < n; ++i) out[i] = bf16_to_f32(load_u16(src + 2 * i));
      return;
    default:
      break;
  }
  const DequantizeBlockFn block_fn = dequantize_block_fn(t);
  const int64_t block = dtype_block_size(t);
  const auto bytes = static_cast<size_t>(dtype_block_bytes(t));
  for (int64_t i = 0; i < n / block; ++i)
    block_fn(src + bytes * static_cast<size_t>(i), out + block * i);
}

}  // namespace ai00::internal
