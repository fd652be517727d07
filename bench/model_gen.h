// Random RWKV-7 models with the real G1 shapes (shared/docs/rwkv7.md "Hyper-parameters, and
// the released G1 model shapes"), written in any type through the convert writer, so the
// benchmarks make their own 0.1B / 0.4B / 1.5B files (never committed). Bench-only code: it
// uses the internal layers.
//
// Values are a function of (seed, tensor, row) only (a counter-based generator), so a file is
// the same whatever the order it is written in, and two types of one size and seed hold the
// same model up to rounding. Scales keep activations in range (LayerNorms near 1, matrices
// about 1/sqrt(cols)), so the forward pass does real work on ordinary numbers.
#pragma once

#include <cstdint>
#include <string>

#include "core/model/model_convert.h"

namespace ai00::bench {

// C, L, LoRA ranks of a G1 size: "0.1b" (768, 12), "0.4b" (1024, 24), "1.5b" (2048, 24),
// "2.9b", "7.2b"; V = 65536, N = 64, F = 4C. Throws std::invalid_argument for another name.
internal::ModelConfig g1_config(const std::string& size);

// The canonical tensors of a random model of shape `c` (their rows are computed on demand).
internal::SourceSet random_model(const internal::ModelConfig& c, uint64_t seed);

// Writes a random model of `c` to `path` (GGUF when format is gguf, else .st) in `type`.
void write_random_model(const std::string& path, const internal::ModelConfig& c, uint64_t seed,
                        internal::DType type,
                        internal::OutputFormat format = internal::OutputFormat::gguf);

}  // namespace ai00::bench
