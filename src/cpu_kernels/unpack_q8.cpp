// kernels.h unpack_q8_rows: the inverse of pack_q8's byte map, in portable code outside the ISA
// tables (it runs where a packed matrix must be read in the plain layout: fp32 activations).
#include <cstring>

#include "cpu_kernels/kernels.h"

namespace ai00::internal::cpu {

void unpack_q8_rows(DType t, const uint8_t* w, int64_t cols, int64_t r0, int64_t r1, uint8_t* dst) {
  const bool q8 = t == DType::Q8_0;
  const bool min = t == DType::Q4_1 || t == DType::Q5_1;
  const bool five = t == DType::Q5_0 || t == DType::Q5_1;
  const size_t blk = dtype_row_bytes(t, quant::kQBlock);               // plain block bytes
  const size_t qh = min ? 4 : 2, qs = (min ? 4 : 2) + (five ? 4 : 0);  // offsets in a block
  const size_t gblk = static_cast<size_t>(kQ8PackRows) * blk;          // packed group-block
  const size_t qh_off = min ? 64 : 32, codes = qh_off + (five ? 64 : 0);
  const int k4 = q8 ? 8 : 4;  // 4-byte column groups per block
  const int64_t nblk = cols / quant::kQBlock;
  const size_t row_bytes = static_cast<size_t>(nblk) * blk;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t g = r / kQ8PackRows, i = r % kQ8PackRows;
    const uint8_t* gb = w + static_cast<size_t>(g) * kQ8PackRows * row_bytes;
    uint8_t* out = dst + static_cast<size_t>(r - r0) * row_bytes;
    for (int64_t b = 0; b < nblk; ++b, out += blk) {
      const uint8_t* o = gb + static_cast<size_t>(b) * gblk;
      std::memcpy(out, o + 2 * i, 2);
      if (min) std::memcpy(out + 2, o + 32 + 2 * i, 2);
      if (five) std::memcpy(out + qh, o + qh_off + 4 * i, 4);
      for (int k = 0; k < k4; ++k) {
        for (int j = 0; j < 4; ++j) {
          const uint8_t c = o[codes + 64 * k + 4 * i + j];
          out[qs + 4 * k + j] = q8 ? static_cast<uint8_t>(c ^ 0x80u) : c;
        }
      }
    }
  }
}

}  // namespace ai00::internal::cpu
