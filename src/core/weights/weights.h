// Weight files: one interface over every RWKV-7 file a user has (docs/weight-files.md
// "Canonical tensors").
//
// open_weights() recognises the format from the content (never the extension), validates the
// container, and yields the model's tensors under *canonical* names and shapes:
//  * names are BlinkDL's (`emb.weight`, `blocks.3.att.key.weight`, `blocks.0.ln0.bias`, ...);
//  * shapes are in PyTorch order (row-major, last index fastest);
//  * (1,1,C) vectors are squeezed to (C); `att.r_k` is (H, N);
//  * the six token-shift mixes are separate `att.x_r` ... `att.x_g` (C) tensors, even where
//    the file fuses them (rwkv.cpp `x_rwkvag`, GGUF `time_mix_lerp_fused`): then they are
//    views into the fused data, not copies;
//  * every LoRA matrix is in Linear orientation (out, in): w1/a1/v1/g1 are (D, C) and
//    w2/a2/v2/g2 are (C, D). A `.pth` stores their transpose; those few small matrices are
//    transposed once at load into storage the WeightFile owns. Orientation is detected from
//    the shapes, so `.st` files in either orientation load;
//  * unused tensors (block-0 att.v0/v1/v2, GGUF dummies) are dropped.
// Large matrices are never copied or converted: views point into the memory-mapped file and
// keep their stored dtype (F16, BF16, Q8_0, ...), so quantized weights are used in place.
//
// Errors: ModelFileError whose message names the file, the tensor and the byte offset (truncated
// file, wrong magic, unknown dtype, shape or offset overflow, data past the end of file, a pickle
// that is not a state dict, ...). Never a crash and never a read out of bounds.
// Thread-safety: a WeightFile is immutable after open_weights() returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "base/mapped_file.h"

namespace ai00::internal {

// Element types of stored tensors (DType, dtype_name, dtype_row_bytes, ...): base/dtype.h.

struct TensorView {
  std::string name;  // canonical BlinkDL name
  DType dtype = DType::F32;
  std::vector<int64_t> shape;  // PyTorch order, e.g. (V, C) for emb.weight
  const uint8_t* data = nullptr;
  size_t nbytes = 0;
  uint64_t file_offset = 0;  // where the data starts in the file (for messages)
  std::string stored_name;   // the name in the file (GGUF/rwkv.cpp names differ)

  int64_t numel() const;
  std::string shape_string() const;  // "(512, 128)"
};

enum class WeightFormat { rwkv_cpp_bin, safetensors, gguf, pytorch_pth };
const char* weight_format_name(WeightFormat f);  // "rwkv.cpp", "safetensors", "gguf", "pth"

class WeightFile {
 public:
  WeightFormat format = WeightFormat::safetensors;
  std::string path;

  const std::vector<TensorView>& tensors() const { return tensors_; }
  // nullptr when absent.
  const TensorView* find(const std::string& canonical_name) const;
  // Throws ModelFileError "<path>: missing tensor <name>" when absent.
  const TensorView& get(const std::string& canonical_name) const;

  // GGUF only: the vocabulary as stored (`tokenizer.ggml.tokens`, escaped strings; index = id)
  // and `tokenizer.ggml.token_type`; empty for other formats or a GGUF without a tokenizer.
  std::vector<std::string> gguf_tokens;
  std::vector<int32_t> gguf_token_types;
  // Byte offset in the file of the first byte of each gguf_tokens entry (for located errors).
  std::vector<uint64_t> gguf_token_offsets;
  // Scalar metadata rendered as text: GGUF key/values (e.g. "rwkv7.block_count" -> "3"),
  // safetensors `__metadata__`, rwkv.cpp header fields ("rwkv_cpp.version", ...).
  std::map<std::string, std::string> metadata;

  // Used by the loaders.
  void add(TensorView t);
  // Storage owned by the WeightFile (transposed LoRAs, decoded data); returns a stable pointer.
  uint8_t* own(std::vector<uint8_t> bytes);
  std::shared_ptr<MappedFile> file;

 private:
  std::vector<TensorView> tensors_;
  std::map<std::string, size_t> index_;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> owned_;
};

// Opens, detects and validates a weight file. Throws IoError or ModelFileError.
std::unique_ptr<WeightFile> open_weights(const std::string& path);
// Same over a file already in memory (MappedFile::from_bytes, buffers handed over the C ABI);
// messages name file.path().
std::unique_ptr<WeightFile> open_weights(MappedFile file);

}  // namespace ai00::internal