// The byte map of the packed int8 layout (kernels.h pack_q8) in portable code outside the ISA
// tables, in its two Q5 high-bit orders: pack_q8_portable / unpack_q8_rows (by row: the tables
// that read the layout in parts of a group, avx2, avx2_vnni, neon64_dotprod) and pack_q8_masked /
// unpack_q8_rows_masked (by code vector: avx512_vnni, avx512_bf16). The unpackers run where a
// packed matrix must be read in the plain layout (fp32 activations), through the table's
// unpack_q8.
#include <cstdlib>
#include <cstring>

#include "cpu_kernels/kernels.h"

namespace ai00::internal::cpu {
namespace {

// Where each part of a plain block lands in a packed group-block (kernels.h "pack_q8").
struct PackMap {
  bool q8, min, five;
  bool masks;            // Q5 high bits by code vector (kernels.h "pack_q8"), else by row
  size_t blk;            // plain block bytes
  size_t qh, qs;         // offsets of the high bits and codes in a plain block
  size_t gblk;           // packed group-block bytes
  size_t qh_off, codes;  // offsets of the high-bit words and codes in a group-block
  int k4;                // 4-byte column groups per block
  int64_t nblk;          // blocks per row
  size_t row_bytes;
  PackMap(DType t, int64_t cols, bool q5_masks)
      : q8(t == DType::Q8_0),
        min(t == DType::Q4_1 || t == DType::Q5_1),
        five(t == DType::Q5_0 || t == DType::Q5_1),
        masks(q5_masks),
        blk(dtype_row_bytes(t, quant::kQBlock)),
        qh(min ? 4 : 2),
        qs((min ? 4 : 2) + (five ? 4 : 0)),
        gblk(static_cast<size_t>(kQ8PackRows) * blk),
        qh_off(min ? 64 : 32),
        codes(qh_off + (five ? 64 : 0)),
        k4(q8 ? 8 : 4),
        nblk(cols / quant::kQBlock),
        row_bytes(static_cast<size_t>(nblk) * blk) {}
};

// Q5 high bits of row i (its plain 32-bit word qh, bit c = column c) in the group-block `o`.
// By row: the word at 4 i. By code vector: nibble (half, k) of the word, columns 16 half + 4 k
// .. + 3, is bits 4 i .. 4 i + 3 of the 64-bit mask 4 half + k, i.e. the low (even i) or high
// (odd i) nibble of its byte i / 2.
void put_q5_bits(const PackMap& m, uint8_t* o, int i, const uint8_t* qh) {
  if (!m.masks) {
    std::memcpy(o + m.qh_off + 4 * i, qh, 4);
    return;
  }
  uint32_t w;
  std::memcpy(&w, qh, 4);
  for (int s = 0; s < 8; ++s) {  // s = 4 half + k: bits 16 half + 4 k = 4 s of the word
    uint8_t& byte = o[m.qh_off + 8 * s + i / 2];
    const int shift = 4 * (i % 2);
    byte = static_cast<uint8_t>((byte & ~(0xF << shift)) | (((w >> (4 * s)) & 0xF) << shift));
  }
}

void get_q5_bits(const PackMap& m, const uint8_t* o, int i, uint8_t* qh) {
  if (!m.masks) {
    std::memcpy(qh, o + m.qh_off + 4 * i, 4);
    return;
  }
  uint32_t w = 0;
  for (int s = 0; s < 8; ++s) {
    w |= static_cast<uint32_t>((o[m.qh_off + 8 * s + i / 2] >> (4 * (i % 2))) & 0xF) << (4 * s);
  }
  std::memcpy(qh, &w, 4);
}

void unpack_rows(const PackMap& m, const uint8_t* w, int64_t r0, int64_t r1, uint8_t* dst) {
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t g = r / kQ8PackRows;
    const int i = static_cast<int>(r % kQ8PackRows);
    const uint8_t* gb = w + static_cast<size_t>(g) * kQ8PackRows * m.row_bytes;
    uint8_t* out = dst + static_cast<size_t>(r - r0) * m.row_bytes;
    for (int64_t b = 0; b < m.nblk; ++b, out += m.blk) {
      const uint8_t* o = gb + static_cast<size_t>(b) * m.gblk;
      std::memcpy(out, o + 2 * i, 2);
      if (m.min) std::memcpy(out + 2, o + 32 + 2 * i, 2);
      if (m.five) get_q5_bits(m, o, i, out + m.qh);
      for (int k = 0; k < m.k4; ++k) {
        for (int j = 0; j < 4; ++j) {
          const uint8_t c = o[m.codes + 64 * k + 4 * i + j];
          out[m.qs + 4 * k + j] = m.q8 ? static_cast<uint8_t>(c ^ 0x80u) : c;
        }
      }
    }
  }
}

// Group by group through one group of scratch (so dst may equal src), the byte map of
// unpack_rows run forwards.
int64_t pack_rows(DType t, const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols,
                  bool q5_masks) {
  if (!matmul_q8_supports(t)) return 0;
  const PackMap m(t, cols, q5_masks);
  const int64_t groups = rows / kQ8PackRows;
  const size_t gbytes = static_cast<size_t>(kQ8PackRows) * m.row_bytes;
  // malloc, not a vector: a failed allocation packs nothing (returns 0), it never throws.
  auto* tmp = static_cast<uint8_t*>(std::malloc(gbytes));
  if (tmp == nullptr) return 0;
  for (int64_t g = 0; g < groups; ++g) {
    std::memcpy(tmp, src + static_cast<size_t>(g) * gbytes, gbytes);
    uint8_t* o = dst + static_cast<size_t>(g) * gbytes;
    for (int64_t b = 0; b < m.nblk; ++b, o += m.gblk) {
      for (int i = 0; i < kQ8PackRows; ++i) {
        const uint8_t* blk =
            tmp + static_cast<size_t>(i) * m.row_bytes + static_cast<size_t>(b) * m.blk;
        std::memcpy(o + 2 * i, blk, 2);
        if (m.min) std::memcpy(o + 32 + 2 * i, blk + 2, 2);
        if (m.five) put_q5_bits(m, o, i, blk + m.qh);
        for (int k = 0; k < m.k4; ++k) {
          for (int j = 0; j < 4; ++j) {
            const uint8_t c = blk[m.qs + 4 * k + j];
            o[m.codes + 64 * k + 4 * i + j] = m.q8 ? static_cast<uint8_t>(c ^ 0x80u) : c;
          }
        }
      }
    }
  }
  std::free(tmp);
  const size_t done = static_cast<size_t>(groups) * gbytes;
  if (dst != src) {
    std::memcpy(dst + done, src + done, static_cast<size_t>(rows) * m.row_bytes - done);
  }
  return groups * kQ8PackRows;
}

}  // namespace

void unpack_q8_rows(DType t, const uint8_t* w, int64_t cols, int64_t r0, int64_t r1, uint8_t* dst) {
  unpack_rows(PackMap(t, cols, false), w, r0, r1, dst);
}

void unpack_q8_rows_masked(DType t, const uint8_t* w, int64_t cols, int64_t r0, int64_t r1,
                           uint8_t* dst) {
  unpack_rows(PackMap(t, cols, true), w, r0, r1, dst);
}

int64_t pack_q8_portable(DType t, const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols) {
  return pack_rows(t, src, dst, rows, cols, false);
}

int64_t pack_q8_masked(DType t, const uint8_t* src, uint8_t* dst, int64_t rows, int64_t cols) {
  return pack_rows(t, src, dst, rows, cols, true);
}

}  // namespace ai00::internal::cpu
