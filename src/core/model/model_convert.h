// Model conversion: any weight file ai00 loads -> GGUF (llama.cpp's `rwkv7` names and metadata)
// or safetensors/.st (ai00 layout), in a chosen weight type (docs/weight-files.md "Writing
// weight files"). The tensors go through the canonical set of core/weights, so every loader's
// quirks (fused lerps, transposed LoRAs, flattened r_k) are undone once and redone per format.
//
// Errors: IoError (input unreadable, output exists without overwrite, output not creatable),
// ModelFileError (malformed input), UnsupportedError (a quantized type into safetensors, Q6_K),
// Error{cancelled} when the progress callback asks to stop. The output never appears half
// written: weight_writer.h writes a temporary file and renames it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/model/model_config.h"
#include "core/weights/weight_writer.h"

namespace ai00::internal {

enum class OutputFormat { gguf, safetensors };

struct ConvertOptions {
  DType target = DType::F16;  // type of the large matrices (and of everything in a .st)
  OutputFormat format = OutputFormat::gguf;
  bool overwrite = false;
  WriteProgress progress;  // (bytes written, total); may throw to stop
};

// One canonical tensor to write: its name and shape as in weights.h, and its data either as raw
// bytes of `type` (copied when the output keeps the type) or as fp32 rows.
struct SourceTensor {
  std::vector<int64_t> shape;
  DType type = DType::F32;
  const uint8_t* raw = nullptr;
  std::function<void(int64_t row_begin, int64_t n_rows, float* out)> rows;
};
using SourceSet = std::map<std::string, SourceTensor>;  // canonical name -> tensor

// The GGUF vocabulary: escaped tokens (tokenizer.ggml.tokens) and llama.cpp token types.
struct GgufVocab {
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
};

// Token bytes escaped as llama.cpp's converter does (Python's repr of bytes without b'...').
std::string gguf_escape_token(const std::string& bytes);

// Writes the model `c` from `src` (every tensor derive_config requires) to `path`.
void write_model(const std::string& path, const ModelConfig& c, const SourceSet& src,
                 const GgufVocab& vocab, const ConvertOptions& options);

// Loads `in` (any supported format; `vocab_path` as ModelParams::vocab_path) and writes it to
// `out`. The vocabulary is included in a GGUF when the model has one.
void convert_model(const std::string& in, const std::string& out, const std::string& vocab_path,
                   const ConvertOptions& options);

// The type a tensor gets in the output (public for tests and the docs' table).
DType output_type(const std::string& canonical_name, const std::vector<int64_t>& shape,
                  DType target, OutputFormat format);

}  // namespace ai00::internal
