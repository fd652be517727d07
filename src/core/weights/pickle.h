// A small pickle interpreter for the subset torch.save uses (protocols 2-4): enough to read the
// `data.pkl` of a PyTorch checkpoint as an ordered list of (name, tensor description) pairs.
// Only the callables torch.save emits are recognised (collections.OrderedDict,
// torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter); any other GLOBAL that is
// called is an error, so no pickle can make this code do anything but build a state dict.
// Errors: ModelFileError "<path>: byte offset N: ..." (N = offset in the file, base + position
// in the pickle). Never reads out of bounds. Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ai00::internal {

struct PickleTensor {
  std::string storage_type;  // "torch.BFloat16Storage", "torch.HalfStorage", ...
  std::string storage_key;   // data/<key> in the archive
  int64_t storage_numel = 0;
  int64_t offset = 0;  // in elements
  std::vector<int64_t> size;
  std::vector<int64_t> stride;
};

// Evaluates `data.pkl`; the result must be a dict (optionally wrapping the real one under
// "state_dict") of string keys to tensors. `base_offset` is where the pickle starts in the file.
std::vector<std::pair<std::string, PickleTensor>> read_torch_state_dict(const uint8_t* data,
                                                                        size_t size,
                                                                        const std::string& path,
                                                                        uint64_t base_offset);

}  // namespace ai00::internal