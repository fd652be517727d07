// Tests of src/base/dequant.{h,cpp}: hand-built blocks of every quantized type decode to the
// values the layouts in base/dtype.h define; rows of every type go through the same functions.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "base/dequant.h"
#include "base/half.h"

using namespace ai00::internal;

namespace {

void put_f16(uint8_t* p, float v) {
  const uint16_t h = f32_to_f16(v);
  std::memcpy(p, &h, 2);
}

void put_u32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }

}  // namespace

TEST_CASE("32-weight blocks decode as d * q (+ m)", "[base][dequant]") {
  float out[32];
  uint8_t q4_0[18] = {};
  put_f16(q4_0, 0.5f);
  q4_0[2] = 0x21;  // q(0) = 1 (low nibble), q(16) = 2 (high nibble)
  dequantize_q4_0(q4_0, out);
  CHECK(out[0] == 0.5f * (1 - 8));
  CHECK(out[16] == 0.5f * (2 - 8));
  CHECK(out[1] == 0.5f * -8);

  uint8_t q4_1[20] = {};
  put_f16(q4_1, 0.5f);
  put_f16(q4_1 + 2, 1.0f);
  q4_1[4] = 0xF3;
  dequantize_q4_1(q4_1, out);
  CHECK(out[0] == 0.5f * 3 + 1.0f);
  CHECK(out[16] == 0.5f * 15 + 1.0f);

  uint8_t q5_0[22] = {};
  put_f16(q5_0, 0.5f);
  put_u32(q5_0 + 2, (1u << 0) | (1u << 16));  // fifth bit of weights 0 and 16
  q5_0[6] = 0x21;
  dequantize_q5_0(q5_0, out);
  CHECK(out[0] == 0.5f * (17 - 16));
  CHECK(out[16] == 0.5f * (18 - 16));
  CHECK(out[1] == 0.5f * -16);

  uint8_t q5_1[24] = {};
  put_f16(q5_1, 0.5f);
  put_f16(q5_1 + 2, 1.0f);
  put_u32(q5_1 + 4, 1u << 31);
  q5_1[8 + 15] = 0x70;  // q(31) = 7
  dequantize_q5_1(q5_1, out);
  CHECK(out[31] == 0.5f * (7 + 16) + 1.0f);
  CHECK(out[0] == 1.0f);

  uint8_t q8_0[34] = {};
  put_f16(q8_0, 0.5f);
  q8_0[2] = 0xFC;  // -4
  q8_0[2 + 31] = 127;
  dequantize_q8_0(q8_0, out);
  CHECK(out[0] == -2.0f);
  CHECK(out[31] == 63.5f);
}

TEST_CASE("Q6_K super-blocks decode as ggml's dequantize_row_q6_K", "[base][dequant]") {
  uint8_t b[210] = {};
  put_f16(b + quant::kQ6_KD, 0.5f);
  auto* scales = reinterpret_cast<int8_t*>(b + quant::kQ6_KScales);
  b[quant::kQ6_KQl + 0] = 0x05;  // low nibble: weight 0; high nibble (0): weight 64
  b[quant::kQ6_KQh + 0] = 0x01;  // bits 0-1: weight 0's high bits
  scales[0] = 2;
  scales[4] = -1;
  b[quant::kQ6_KQl + 64] = 0x0F;  // second half: weight 128
  b[quant::kQ6_KQh + 32] = 0x03;
  scales[8] = 3;
  float out[256];
  dequantize_q6_k(b, out);
  CHECK(out[0] == 0.5f * 2 * ((5 | 16) - 32));
  CHECK(out[64] == 0.5f * -1 * -32);
  CHECK(out[128] == 0.5f * 3 * ((15 | 48) - 32));
}

TEST_CASE("dequantize_row covers the float types and whole rows of blocks", "[base][dequant]") {
  CHECK(dequantize_block_fn(DType::F32) == nullptr);
  CHECK(dequantize_block_fn(DType::BF16) == nullptr);
  CHECK(dequantize_block_fn(DType::Q6_K) == &dequantize_q6_k);

  const float f32[2] = {1.5f, -2.25f};
  float out[64];
  dequantize_row(DType::F32, reinterpret_cast<const uint8_t*>(f32), 2, out);
  CHECK(out[0] == 1.5f);
  CHECK(out[1] == -2.25f);
  const uint16_t f16[2] = {0x3c00, 0xc000};  // 1, -2
  dequantize_row(DType::F16, reinterpret_cast<const uint8_t*>(f16), 2, out);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == -2.0f);
  const uint16_t bf16[1] = {0x3f80};  // 1
  dequantize_row(DType::BF16, reinterpret_cast<const uint8_t*>(bf16), 1, out);
  CHECK(out[0] == 1.0f);

  // Two Q8_0 blocks: the second block's weights land at 32..63 with its own scale.
  std::vector<uint8_t> row(2 * quant::kQ8_0Bytes, 0);
  put_f16(row.data(), 1.0f);
  put_f16(row.data() + quant::kQ8_0Bytes, 0.25f);
  row[2] = 3;
  row[quant::kQ8_0Bytes + 2] = 8;
  dequantize_row(DType::Q8_0, row.data(), 64, out);
  CHECK(out[0] == 3.0f);
  CHECK(out[32] == 2.0f);
  float block[32];
  dequantize_q8_0(row.data() + quant::kQ8_0Bytes, block);
  CHECK(std::memcmp(block, out + 32, sizeof block) == 0);
}
