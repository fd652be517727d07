// Stored element types of weight tensors: the one enum, its names, block sizes and byte layouts,
// shared by the weight loaders (core/weights), the model and the kernels (src/cpu_kernels) —
// docs/weight-files.md, docs/model.md.
//
// Quantized types hold blocks along a row (ggml's ne[0]). Byte layouts (weight index e inside a
// block, q(e) = low nibble of qs[e] for e < 16, high nibble of qs[e - 16] for e >= 16; qh bit e =
// 5th bit of weight e):
//   Q4_0 18 B: d f16 | qs[16]             w = d * (q(e) - 8)
//   Q4_1 20 B: d f16 | m f16 | qs[16]     w = d * q(e) + m
//   Q5_0 22 B: d f16 | qh u32 | qs[16]    w = d * (q(e) + 16 * bit_e(qh) - 16)
//   Q5_1 24 B: d f16 | m f16 | qh u32 | qs[16]   w = d * (q(e) + 16 * bit_e(qh)) + m
//   Q8_0 34 B: d f16 | qs[32] int8        w = d * qs[e]
//   Q6_K 210 B (256 weights): ql[128] | qh[64] | scales[16] int8 | d f16, decoded as ggml's
//        dequantize_row_q6_K: for half n (128 weights), l in 0..31, quarter j in 0..3:
//        w[n*128 + j*32 + l] = d * scales[n*8 + l/16 + 2*j] * (q6 - 32), where q6's low four
//        bits are the low (j = 0, 1) or high (j = 2, 3) nibble of ql[n*64 + l + 32*(j&1)] and
//        its two high bits are bits 2j, 2j+1 of qh[n*32 + l].
// dequant.h turns these blocks into floats.
//
// Pure functions and constants; thread-safe. Only dtype_row_bytes throws (ModelFileError).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ai00::internal {

enum class DType : uint8_t {
  F32,
  F16,
  BF16,
  Q4_0,  // 32 weights / 18 bytes
  Q4_1,  // 32 / 20
  Q5_0,  // 32 / 22
  Q5_1,  // 32 / 24
  Q8_0,  // 32 / 34
  Q6_K,  // 256 / 210
};

// Block geometry as constants, for code that is specialised per type (the SIMD kernels).
namespace quant {
inline constexpr int kQBlock = 32;   // weights per block of the Q4/Q5/Q8 types
inline constexpr int kKBlock = 256;  // weights per K-quant super-block (Q6_K)

inline constexpr size_t kQ4_0Bytes = 18;
inline constexpr size_t kQ4_1Bytes = 20;
inline constexpr size_t kQ5_0Bytes = 22;
inline constexpr size_t kQ5_1Bytes = 24;
inline constexpr size_t kQ8_0Bytes = 34;
inline constexpr size_t kQ6_KBytes = 210;

// Offsets inside a Q6_K block.
inline constexpr size_t kQ6_KQl = 0;
inline constexpr size_t kQ6_KQh = 128;
inline constexpr size_t kQ6_KScales = 192;
inline constexpr size_t kQ6_KD = 208;
}  // namespace quant

const char* dtype_name(DType t);  // "F32", "Q8_0", ...; "?" for a value outside the enum
// The type whose dtype_name is `name` (exact, case-sensitive: "BF16", "Q6_K"); nullopt otherwise.
std::optional<DType> dtype_from_name(std::string_view name);
int64_t dtype_block_size(DType t);   // elements per block (1 for the float types)
int64_t dtype_block_bytes(DType t);  // bytes per block (bytes per element for the float types)
bool dtype_is_quantized(DType t);    // block size > 1

// Bytes of a row of n elements; throws ModelFileError if n is negative or not a multiple of the
// block size.
size_t dtype_row_bytes(DType t, int64_t n);
// The same, for code that must not throw (kernels): 0 when dtype_row_bytes would throw.
size_t dtype_row_bytes_or_zero(DType t, int64_t n) noexcept;

}  // namespace ai00::internal
