// Tests of src/base/dtype.{h,cpp}: names, block geometry and row sizes of the weight types.
#include <catch2/catch.hpp>
#include <string>

#include "base/dtype.h"
#include "base/error.h"

using namespace ai00::internal;

TEST_CASE("weight type names and block geometry", "[base][dtype]") {
  const DType all[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q4_0, DType::Q4_1,
                       DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::Q6_K};
  const char* names[] = {"F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q6_K"};
  const int64_t blocks[] = {1, 1, 1, 32, 32, 32, 32, 32, 256};
  const int64_t bytes[] = {4, 2, 2, 18, 20, 22, 24, 34, 210};
  for (size_t i = 0; i < 9; ++i) {
    INFO(names[i]);
    CHECK(std::string(dtype_name(all[i])) == names[i]);
    CHECK(dtype_block_size(all[i]) == blocks[i]);
    CHECK(dtype_block_bytes(all[i]) == bytes[i]);
    CHECK(dtype_is_quantized(all[i]) == (blocks[i] > 1));
    CHECK(dtype_from_name(names[i]) == all[i]);
  }
  CHECK_FALSE(dtype_from_name("f32"));  // exact names only
  CHECK_FALSE(dtype_from_name("Q6_K "));
  CHECK_FALSE(dtype_from_name("?"));
  CHECK(std::string(dtype_name(static_cast<DType>(200))) == "?");
}

TEST_CASE("dtype_row_bytes throws ModelFileError naming the type and the block", "[base][dtype]") {
  CHECK(dtype_row_bytes(DType::Q8_0, 64) == 68);
  try {
    dtype_row_bytes(DType::Q4_0, 100);
    FAIL("no throw");
  } catch (const ModelFileError& e) {
    const std::string m = e.what();
    CHECK(m.find("100 Q4_0") != std::string::npos);
    CHECK(m.find("block size 32") != std::string::npos);
  }
  CHECK_THROWS_AS(dtype_row_bytes(DType::F32, -1), ModelFileError);
}

TEST_CASE("row bytes follow the block sizes", "[base][dtype]") {
  CHECK(dtype_row_bytes_or_zero(DType::F32, 7) == 28);
  CHECK(dtype_row_bytes_or_zero(DType::F16, 7) == 14);
  CHECK(dtype_row_bytes_or_zero(DType::BF16, 4096) == 8192);
  CHECK(dtype_row_bytes_or_zero(DType::Q4_0, 4096) == 128 * 18);
  CHECK(dtype_row_bytes_or_zero(DType::Q4_1, 64) == 40);
  CHECK(dtype_row_bytes_or_zero(DType::Q5_0, 64) == 44);
  CHECK(dtype_row_bytes_or_zero(DType::Q5_1, 64) == 48);
  CHECK(dtype_row_bytes_or_zero(DType::Q8_0, 32) == 34);
  CHECK(dtype_row_bytes_or_zero(DType::Q6_K, 512) == 420);
  CHECK(dtype_row_bytes_or_zero(DType::Q4_0, 100) == 0);  // not a whole number of blocks
  CHECK(dtype_row_bytes_or_zero(DType::Q6_K, 128) == 0);
  CHECK(dtype_row_bytes_or_zero(DType::F32, -1) == 0);
  CHECK(dtype_row_bytes_or_zero(DType::Q8_0, 0) == 0);
}
