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
// never expanded into an fp32 copy. The int8 and BF16 dot paths (matmul_q8, matmul_bf16) take
// activations converted once per input row (quantize_q8, round_bf16) instead.
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

// ---- int8 path (docs/dot-products.md "Integer and BF16 dot products")
// ------------------------------ Activations quantized to int8 in blocks of 32 (the weight block of
// Q4_0/Q4_1/Q5_0/Q5_1/Q8_0), once per token per input vector, then dotted with the weight codes in
// integers.
//
// quantize_q8 (the same bits on every ISA): per block of 32 floats, amax = max |x|,
//   d = amax / 127, q[e] = nearbyint(x[e] * (127 / amax)) (0 when amax = 0),
//   psum[j] = q[4j] + q[4j+1] + q[4j+2] + q[4j+3], sum = sum of q, s = d * sum.
// psum is what a 32-bit lane of vpdpbusd / pmaddubsw+pmaddwd over the block sums, so the
// offset of the _0 types (q - 8, q - 16) is one integer lane add; sum is the same offset for
// the row-interleaved layout (pack_q8), whose lanes are rows; s serves the _1 types' min.
struct BlockQ8 {
  int8_t q[32];
  int32_t psum[8];
  float d;
  float s;
  int32_t sum;
};
static_assert(sizeof(BlockQ8) == 76, "BlockQ8 is packed by construction");

// The exact result of matmul_q8, which the scalar table computes and every ISA matches up to
// fp32 summation order: per (token t, row r), with weight block b (scale dw, min m, codes c)
// and activation block b (d, s, q), terms in float, summed over b:
//   Q8_0:  (dw * d) * float(sum_e c[e] * q[e])           (c signed)
//   Q4_0:  (dw * d) * float(sum_e (c[e] - 8) * q[e])     Q5_0: offset 16
//   Q4_1/Q5_1: (dw * d) * float(sum_e c[e] * q[e]) + m * s
// The integer sums are exact. Accuracy against fp32 activations: docs/dot-products.md "Integer and
// BF16 dot products". As for matmul, a (row, token) pair gets the same bits whatever row range, T
// or tile it runs in, so callers may split rows among threads freely; the same holds for
// matmul_bf16. Usage: quantize each of the T input rows once (quantize_q8), then call
// matmul_q8 per row range with the same blocks.
struct MatmulQ8Args {
  const uint8_t* w = nullptr;  // [rows][cols] in `wtype` (one of matmul_q8_supports)
  DType wtype = DType::Q8_0;
  size_t w_row_bytes = 0;
  int64_t cols = 0;            // a multiple of 32
  const BlockQ8* x = nullptr;  // [T][x_stride] blocks; row t holds cols / 32 blocks
  int64_t x_stride = 0;        // blocks between token rows
  float* y = nullptr;          // [T][y_stride] fp32 (overwritten)
  int64_t y_stride = 0;
  int64_t T = 1;
  int64_t row_begin = 0;
  int64_t row_end = 0;
  // Rows [0, packed_rows) of the whole matrix are in the row-interleaved layout written by this
  // table's pack_q8 (a multiple of 16; 0 = every row in the plain layout). The rows from
  // packed_rows on stay plain. A property of the matrix: the same value for every row range.
  int64_t packed_rows = 0;
};

// The row-interleaved ("packed") layout of pack_q8 (every matmul_q8 type): the same bytes as the
// plain matrix, rearranged in place group by group. Group g = rows [16 g, 16 g + 16) occupies
// the same 16 * row_bytes bytes as before, as nblk group-blocks of 16 * block bytes; group-block
// b holds the 16 rows' f16 scales (32 bytes; _1 types: then their 16 f16 mins; Q5: then their
// high bits, 64 bytes, in the table's order below), then the codes of block b with lanes = rows:
// 64 bytes per 4 columns (row i's 4 bytes at 4 i), so one vpdpbusd multiplies 16 rows by 4
// columns of one activation (broadcast):
//   Q8_0: 8 x 64 bytes, columns 4k..4k+3 in k-th, each code XOR 0x80 (unsigned c + 128; the
//         kernel subtracts 128 * sum(q) in integers);
//   Q4_x, Q5_x: 4 x 64 bytes, the stored bytes qs[4k..4k+3] of each row: low nibbles are
//         columns 4k..4k+3, high nibbles 16+4k..16+4k+3 (offsets 8 / 16 of the _0 types: the
//         kernel subtracts 8 or 16 * sum(q); the _1 types add m * s in a second chain, as in
//         the plain kernels; Q5's fifth bits come from the high bits in registers).
// The Q5 high bits, 64 bytes, in one of two orders, fixed by the table that packs:
//   by row (pack_q8_portable; avx2, avx2_vnni, neon64_dotprod): row i's plain 32-bit word at
//         4 i (bit c = column c), which those kernels spread over their halves or quarters;
//   by code vector (pack_q8_masked; avx512_vnni, avx512_bf16): 8 little-endian 64-bit masks, mask
//         4 half + k has bit 4 i + j set when row i's column 16 half + 4 k + j has its high bit,
//         i.e. one bit per byte of the k-th code vector (low nibbles: half 0, high: half 1), so
//         the kernel loads a mask register and adds 16 under it (one instruction).
// Per (row, token) the packed kernel forms the exact integer block sum and then
//   acc = fma(dw * d, float(isum), acc), block by block in column order
// (the scalar reference's order), so a row's result does not depend on its group, range or T.
// Only the table that packed a matrix reads it, and only through matmul_q8: matmul (fp32
// activations) and the other tables read the plain layout (the packing table's unpack_q8 gives
// it back).
// Rows past the last whole group stay plain and run the plain kernel.
constexpr int64_t kQ8PackRows = 16;

// Rows [r0, r1) (r1 <= packed_rows) of a rows x cols matrix of type t packed by pack_q8_portable
// (unpack_q8_rows) or pack_q8_masked (unpack_q8_rows_masked), written in the plain layout to dst
// ([r1 - r0][row bytes]): the bytes the matrix had before packing. Portable code outside the
// tables, for the paths that read the plain layout on a packed matrix (the core's
// fp32-activation matmul, through KernelTable::unpack_q8); not a hot path.
void unpack_q8_rows(DType t, const uint8_t* w, int64_t cols, int64_t r0, int64_t r1, uint8_t* dst);
void unpack_q8_rows_masked(DType t, const uint8_t* w, int64_t cols, int64_t r0, int64_t r1,
                           uint8_t* dst);

// pack_q8 (the KernelTable entry, below) in portable code outside the tables: the forward maps of
// the layout, Q5 high bits by row for the tables whose kernels read it in halves or quarters of
// a group (avx2, avx2_vnni: 8 rows per register; neon64_dotprod: 4), by code vector for the
// AVX-512 ones. Same contract as the entry.
int64_t pack_q8_portable(DType t, const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols);
int64_t pack_q8_masked(DType t, const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols);

// Whether matmul_q8 takes this weight type (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0).
constexpr bool matmul_q8_supports(DType t) {
  return t == DType::Q4_0 || t == DType::Q4_1 || t == DType::Q5_0 || t == DType::Q5_1 ||
         t == DType::Q8_0;
}

// ---- BF16 dot path --------------------------------------------------------------------------
// BF16 weights times activations rounded once to bf16 (round-to-nearest-even): one vdpbf16ps
// per 32 columns of a (row, token) pair, products and sums in fp32. Rounding keeps 8 mantissa
// bits of each activation, so, like the int8 path, it is a documented approximation of the
// fp32-activation product (docs/dot-products.md "Integer and BF16 dot products"). round_bf16
// writes, per token row, bf16(x[c]) for the whole groups of 32 columns; the last cols % 32 columns
// are multiplied in fp32 from xf.
struct MatmulBf16Args {
  const uint8_t* w = nullptr;  // [rows][cols] BF16
  size_t w_row_bytes = 0;
  int64_t cols = 0;             // any width; the last cols % 32 columns are done in fp32
  const uint16_t* x = nullptr;  // [T][x_stride] from round_bf16
  int64_t x_stride = 0;         // uint16 elements between token rows (>= cols / 32 * 32)
  const float* xf = nullptr;    // [T][xf_stride] the fp32 activations (for the odd tail)
  int64_t xf_stride = 0;
  float* y = nullptr;  // [T][y_stride] fp32 (overwritten)
  int64_t y_stride = 0;
  int64_t T = 1;
  int64_t row_begin = 0;
  int64_t row_end = 0;
};

// Y[t][c] = sum_d X[t][d] * W[d][c]  for t in [0, T), c in [col_begin, col_end), over a matrix
// stored transposed: row d holds input d's weight for every output. The LoRA up-projections
// (C outputs from 32 to 256 inputs) take this layout at load (docs/dot-products.md "LoRA
// up-projections"): a product over a 64-wide input then needs no horizontal sum, each output a
// lane. Every output is one chain from +0.0f over d ascending, one fused multiply-add per term
// (std::fma), so a result does not depend on T, the column range or the tile, and every table
// with a fused multiply-add gives the scalar table's bits (sse2, which has none, rounds twice).
// wtype: F32, F16 or BF16 (matmul_t_supports).
struct MatmulTArgs {
  const uint8_t* w = nullptr;  // [D][w_row_bytes]: row d = input d's weights, column c = output c
  DType wtype = DType::F32;
  size_t w_row_bytes = 0;
  int64_t D = 0;             // inputs: rows of the stored matrix
  const float* x = nullptr;  // [T][x_stride] activations, fp32, the first D used
  int64_t x_stride = 0;
  float* y = nullptr;  // [T][y_stride] outputs, fp32 (overwritten)
  int64_t y_stride = 0;
  int64_t T = 1;
  int64_t col_begin = 0;  // outputs of this call: [col_begin, col_end)
  int64_t col_end = 0;
};

constexpr bool matmul_t_supports(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}

struct KernelTable {
  // "scalar", "sse2", "avx2", "avx2_vnni", "avx512", "avx512_vnni", "avx512_bf16", "neon64",
  // "neon64_dotprod"
  const char* name;
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

  // int8 path: x[n] (n a multiple of 32) -> y[n / 32] blocks; then the integer matmul.
  // Every table has both (portable integer code where the ISA has no byte dot product).
  void (*quantize_q8)(const float* x, BlockQ8* y, int64_t n);
  void (*matmul_q8)(const MatmulQ8Args&);
  // Rearranges a rows x cols matrix of type t into the packed layout (above) for this table's
  // matmul_q8 (dst may equal src: in place; the model's memory stays the same). Returns the
  // number of packed rows (pass it as MatmulQ8Args::packed_rows; rows past it are copied as
  // they are), 0 and dst untouched when this table does not pack t. nullptr where the table has no
  // packed kernel. Called at model load, not per token (it allocates one group of scratch).
  int64_t (*pack_q8)(DType t, const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols);
  // BF16 dot path; nullptr where the CPU has no native BF16 dot (use matmul then).
  // round_bf16: x[n] -> xs[(n / 32) * 32] bf16 (above MatmulBf16Args).
  void (*round_bf16)(const float* x, uint16_t* xs, int64_t n);
  void (*matmul_bf16)(const MatmulBf16Args&);
  // The transposed-layout product (MatmulTArgs); every table has it.
  void (*matmul_t)(const MatmulTArgs&);
  // The inverse of pack_q8 (unpack_q8_rows or unpack_q8_rows_masked, above); set with pack_q8.
  void (*unpack_q8)(DType t, const uint8_t* w, int64_t cols, int64_t r0, int64_t r1, uint8_t* dst);
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
