// Weight-file writers: GGUF (llama.cpp's `rwkv7` layout) and safetensors, plus the block
// quantizers they need (docs/weight-files.md "Writing weight files").
//
// A writer takes a list of tensors, each with its name in the output file, its shape (PyTorch
// order), the type to store and a source: either raw bytes already in that type (copied as they
// are) or a function that yields fp32 rows (quantized or narrowed here, row by row, so a large
// tensor is never held whole in fp32). The file is written to a temporary name beside `path` and
// renamed into place only when complete: no half-written file ever carries the final name.
//
// Errors: IoError naming the path (cannot create, write or rename; `path` exists and overwrite
// is false), InvalidArgument naming the tensor (a row length that is not a multiple of the
// block size of the chosen type, a type the format cannot hold). Callbacks may throw; the
// exception propagates after the temporary file is removed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/dtype.h"

namespace ai00::internal {

// Quantizes one row of n floats (n a multiple of 32 for the block types) into `out`
// (dtype_row_bytes(t, n) bytes). F32 is copied, F16/BF16 rounded to nearest even; Q4_0, Q4_1,
// Q5_0, Q5_1 and Q8_0 follow ggml's reference quantizers (quantize_row_*_ref). Q6_K is not
// supported (InvalidArgument).
void quantize_row(DType t, const float* x, int64_t n, uint8_t* out);

struct WriteTensor {
  std::string name;              // name in the output file
  std::vector<int64_t> shape;    // PyTorch order; rows run along the last dimension
  DType type = DType::F32;       // stored type
  const uint8_t* raw = nullptr;  // when set: the tensor's bytes already in `type`
  // Otherwise: writes rows [row_begin, row_begin + n_rows) as fp32 into out[n_rows][last dim].
  std::function<void(int64_t row_begin, int64_t n_rows, float* out)> rows;

  int64_t numel() const;
  int64_t row_len() const { return shape.empty() ? 1 : shape.back(); }
};

// One GGUF key/value. Only the value kinds the rwkv7 metadata needs.
struct GgufValue {
  enum Kind { u32, f32, str, str_array, i32_array } kind = u32;
  uint32_t u = 0;
  float f = 0.0f;
  std::string s;
  std::vector<std::string> strings;
  std::vector<int32_t> ints;
};
struct GgufKv {
  std::string key;
  GgufValue value;
};

// Called with (bytes written, bytes in total) after each chunk of tensor data.
using WriteProgress = std::function<void(uint64_t done, uint64_t total)>;

struct WriteOptions {
  bool overwrite = false;
  WriteProgress progress;  // may be empty
};

// GGUF v3, alignment 32, tensors in the given order.
void write_gguf(const std::string& path, const std::vector<GgufKv>& metadata,
                const std::vector<WriteTensor>& tensors, const WriteOptions& options);

// safetensors: F32, F16 and BF16 only; `metadata` goes to "__metadata__".
void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& metadata,
                       const std::vector<WriteTensor>& tensors, const WriteOptions& options);

// The ggml type id of t (F32 0, F16 1, Q4_0 2, Q4_1 3, Q5_0 6, Q5_1 7, Q8_0 8, Q6_K 14, BF16 30).
uint32_t ggml_type_id(DType t);

}  // namespace ai00::internal
