// Internal helpers shared by the weight-file loaders (weights_*.cpp). Not part of the public
// interface: bounds-checked byte reading, checked arithmetic, error messages that name the file,
// the tensor and the byte offset, and the canonicalisation step common to every format.
// Everything here throws ModelFileError on bad input; nothing reads outside [data, data+size).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/weights/weights.h"

namespace ai00::internal::weights_detail {

// "<path>: byte offset <off>: <what>" (tensor == "") or
// "<path>: tensor '<tensor>' at byte offset <off>: <what>".
[[noreturn]] void fail(const std::string& path, const std::string& tensor, uint64_t offset,
                       const std::string& what);

// Checked arithmetic: false on overflow.
inline bool checked_mul(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool checked_add(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// Bytes of a tensor of `dtype` and `shape` (PyTorch order; blocks run along the last dim).
// Fails (naming path/tensor/offset) on a non-positive dimension, a last dimension that is not a
// multiple of the block size, or overflow.
uint64_t tensor_bytes(DType dtype, const std::vector<int64_t>& shape, const std::string& path,
                      const std::string& tensor, uint64_t offset);

// "(512, 128)"
std::string shape_to_string(const std::vector<int64_t>& shape);

// Sequential little-endian reader over [base, base + size) that never reads out of bounds.
class Reader {
 public:
  Reader(const uint8_t* base, size_t size, const std::string& path, size_t pos = 0)
      : base_(base), size_(size), pos_(pos), path_(path) {}

  size_t pos() const { return pos_; }
  size_t size() const { return size_; }
  size_t remaining() const { return size_ - pos_; }
  void seek(size_t pos) { pos_ = pos; }
  // Context for messages ("" = none): the tensor being read.
  void set_tensor(const std::string& t) { tensor_ = t; }

  // Ensures n more bytes exist; `what` names the field for the message.
  void need(uint64_t n, const char* what) const;
  const uint8_t* bytes(uint64_t n, const char* what);
  uint8_t u8(const char* what) { return *bytes(1, what); }
  uint16_t u16(const char* what) { return load<uint16_t>(what); }
  uint32_t u32(const char* what) { return load<uint32_t>(what); }
  uint64_t u64(const char* what) { return load<uint64_t>(what); }
  std::string str(uint64_t n, const char* what) {
    const uint8_t* p = bytes(n, what);
    return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
  }
  [[noreturn]] void fail_here(const std::string& what) const { fail(path_, tensor_, pos_, what); }
  [[noreturn]] void fail_at(uint64_t off, const std::string& what) const {
    fail(path_, tensor_, off, what);
  }
  const std::string& path() const { return path_; }

 private:
  template <typename T>
  T load(const char* what) {
    T v;
    std::memcpy(&v, bytes(sizeof(T), what), sizeof(T));  // little-endian hosts only (docs/layers.md)
    return v;
  }
  const uint8_t* base_;
  size_t size_;
  size_t pos_;
  const std::string& path_;
  std::string tensor_;
};

// How the LoRA matrices of a file are oriented (docs/weight-files.md "Canonical tensors").
enum class LoraLayout {
  detect,   // from the shapes; (C, C) is taken as Linear (ai00 .st, rwkv.cpp, GGUF)
  pytorch,  // .pth: w1/a1/v1/g1 stored (C, D), w2/... (D, C): always transposed at load
};

// Turns the tensors as stored (already renamed to canonical names by the loader, shapes in
// PyTorch order, data bounds-checked) into the canonical set and adds them to `wf`:
//  * `blocks.N.att.x_rwkvag` (6*C elements, float) becomes six views att.x_r ... att.x_g;
//  * shapes (1, ..., 1, C) with at least 3 dims are squeezed to (C);
//  * block-0 att.v0/v1/v2 are dropped;
//  * LoRA matrices are transposed into owned storage when not in Linear orientation.
void finalize_tensors(WeightFile& wf, std::vector<TensorView> stored, LoraLayout layout);

// The loaders. Each reads wf.file (already mapped) and fills wf through finalize_tensors.
void load_rwkv_cpp_bin(WeightFile& wf);
void load_safetensors(WeightFile& wf);
void load_gguf(WeightFile& wf);
void load_pth(WeightFile& wf);

}  // namespace ai00::internal::weights_detail
