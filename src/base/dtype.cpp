// Names and block geometry of the weight types (dtype.h).
#include "base/dtype.h"

#include <string>

#include "base/error.h"

namespace ai00::internal {
namespace {

struct DTypeInfo {
  const char* name;
  int64_t block;
  int64_t bytes;
};

DTypeInfo info(DType t) noexcept {
  using namespace quant;
  switch (t) {
    case DType::F32:
      return {"F32", 1, 4};
    case DType::F16:
      return {"F16", 1, 2};
    case DType::BF16:
      return {"BF16", 1, 2};
    case DType::Q4_0:
      return {"Q4_0", kQBlock, kQ4_0Bytes};
    case DType::Q4_1:
      return {"Q4_1", kQBlock, kQ4_1Bytes};
    case DType::Q5_0:
      return {"Q5_0", kQBlock, kQ5_0Bytes};
    case DType::Q5_1:
      return {"Q5_1", kQBlock, kQ5_1Bytes};
    case DType::Q8_0:
      return {"Q8_0", kQBlock, kQ8_0Bytes};
    case DType::Q6_K:
      return {"Q6_K", kKBlock, kQ6_KBytes};
  }
  return {"?", 1, 1};
}

}  // namespace

const char* dtype_name(DType t) { return info(t).name; }
int64_t dtype_block_size(DType t) { return info(t).block; }
int64_t dtype_block_bytes(DType t) { return info(t).bytes; }
std::optional<DType> dtype_from_name(std::string_view name) {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q4_0, DType::Q4_1, DType::Q5_0,
                  DType::Q5_1, DType::Q8_0, DType::Q6_K}) {
    if (name == info(t).name) return t;
  }
  return std::nullopt;
}

bool dtype_is_quantized(DType t) { return info(t).block > 1; }

size_t dtype_row_bytes_or_zero(DType t, int64_t n) noexcept {
  const DTypeInfo i = info(t);
  if (n < 0 || n % i.block != 0) return 0;
  return static_cast<size_t>(n / i.block * i.bytes);
}

size_t dtype_row_bytes(DType t, int64_t n) {
  const DTypeInfo i = info(t);
  if (n < 0 || n % i.block != 0) {
    throw ModelFileError("a row of " + std::to_string(n) + " " + i.name +
                         " elements is not a multiple of the block size " +
                         std::to_string(i.block));
  }
  return static_cast<size_t>(n / i.block * i.bytes);
}

}  // namespace ai00::internal
