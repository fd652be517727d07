// ai00 `.state` files: state-tuned initial states (docs/weight-files.md "ai00 state files").
//
// The file is safetensors holding `blocks.{l}.att.time_state` for every block, shape (H, N, N),
// stored [h][key j][value i] (ai00's converter transposes the last two axes); F16 as ai00 writes
// it, F32 and BF16 accepted too. Loading transposes each head back into the State's
// [h][value i][key j] order; the token shifts start at zero. Other tensors are ignored.
//
// Errors: IoError if the file cannot be read; ModelFileError naming the file, the tensor and the
// byte offset for a malformed container (truncated, bad JSON header, offsets outside the data,
// wrong dtype, a missing block); MismatchError when the shapes do not fit the model (a state of
// another model). Thread-safe: pure functions of their inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/model/state.h"

namespace ai00::internal {

class Model;

State load_ai00_state_file(const Model& model, const std::string& path);
// Same on bytes in memory; `name` is used in messages.
State load_ai00_state_bytes(const Model& model, const uint8_t* bytes, size_t size,
                            const std::string& name);

}  // namespace ai00::internal