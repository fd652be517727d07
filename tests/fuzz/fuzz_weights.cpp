// Fuzz target: every weight-file reader through content detection (rwkv.cpp .bin, safetensors,
// GGUF, PyTorch .pth = ZIP + pickle), then the hyper-parameters derived from the shapes.
// Any input must give a WeightFile or an ai00 Error; never a crash, hang or leak.
#include <vector>

#include "base/error.h"
#include "base/mapped_file.h"
#include "core/model/model_config.h"
#include "core/weights/weights.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::small_limits();
  try {
    auto file =
        ai00::internal::MappedFile::from_bytes(std::vector<uint8_t>(data, data + size), "fuzz.bin");
    auto wf = ai00::internal::open_weights(std::move(file));
    for (const auto& t : wf->tensors()) (void)t.shape_string();
    (void)ai00::internal::derive_config(*wf);
  } catch (const ai00::internal::Error&) {
  }
  return 0;
}
