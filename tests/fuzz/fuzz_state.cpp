// Fuzz target: State files of the tiny fixture model: the serialized AI00STAT record
// (State::deserialize) and the ai00 `.state` safetensors file (load_ai00_state_bytes). The
// first byte picks the reader.
#include <cmath>
#include <cstdio>
#include <memory>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/state.h"
#include "core/model/state_file.h"
#include "fuzz_common.h"

namespace {
const ai00::internal::Model& model() {
  static std::shared_ptr<const ai00::internal::Model> m = ai00::internal::Model::load(
      ai00_fuzz::shared_dir() + "/models/tiny-rwkv-7v0-834K-FP32.bin", {});
  return *m;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::small_limits();
  const auto& m = model();
  if (size == 0) return 0;
  const bool record = data[0] & 1;
  ++data, --size;
  try {
    ai00::internal::State s = record ? ai00::internal::State::deserialize(m, data, size)
                                     : ai00::internal::load_ai00_state_bytes(m, data, size, "f");
    // A loaded State holds finite values only.
    const int64_t n = s.n_head() * s.head_size() * s.head_size();
    for (int64_t l = 0; l < s.n_layer(); ++l) {
      const float* wkv = s.wkv(l);
      for (int64_t i = 0; i < n; ++i)
        if (!std::isfinite(wkv[i])) std::abort();
    }
  } catch (const ai00::internal::Error&) {
  }
  return 0;
}
