// Scalar dequantization: weight blocks (layouts in dtype.h) -> fp32, the one reference
// implementation. The scalar kernel table dots rows with these blocks; the model expands the
// embedding rows and small vectors with dequantize_row. The SIMD kernels decode the same layouts
// in registers and are tested bit-for-bit close against the scalar table.
//
// Numerics: every weight is computed in float exactly as written in dtype.h (d * q, d * q + m,
// d * scale * q for Q6_K, in that order), so all callers get identical bits.
// Pure functions; thread-safe; nothing throws. Pointers are not checked: callers pass whole
// blocks (dtype_row_bytes) and room for the output.
#pragma once

#include <cstdint>

#include "base/dtype.h"

namespace ai00::internal {

// One block of each quantized type into out[quant::kQBlock] (out[quant::kKBlock] for Q6_K).
void dequantize_q4_0(const uint8_t* block, float* out);
void dequantize_q4_1(const uint8_t* block, float* out);
void dequantize_q5_0(const uint8_t* block, float* out);
void dequantize_q5_1(const uint8_t* block, float* out);
void dequantize_q8_0(const uint8_t* block, float* out);
void dequantize_q6_k(const uint8_t* block, float* out);

// The block function of a quantized type; nullptr for F32, F16 and BF16.
using DequantizeBlockFn = void (*)(const uint8_t* block, float* out);
DequantizeBlockFn dequantize_block_fn(DType t);

// A row of n elements of type t (n a multiple of the block size) into out[n]; F32 is copied,
// F16 and BF16 are widened.
void dequantize_row(DType t, const uint8_t* src, int64_t n, float* out);

}  // namespace ai00::internal
