// Fuzz target: the pickle interpreter of .pth files (read_torch_state_dict) and the ZIP reader
// on their own, so mutations reach them without first forming a valid container. The first
// byte picks the reader.
#include "base/error.h"
#include "core/weights/pickle.h"
#include "core/weights/zip_reader.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::small_limits();
  if (size == 0) return 0;
  const bool zip = data[0] & 1;
  ++data, --size;
  try {
    if (zip) {
      ai00::internal::ZipArchive a(data, size, "fuzz.zip");
      for (const auto& e : a.entries()) {
        uint64_t off = 0;
        try {
          (void)a.open(e, &off);
        } catch (const ai00::internal::Error&) {
        }
      }
    } else {
      (void)ai00::internal::read_torch_state_dict(data, size, "fuzz.pkl", 0);
    }
  } catch (const ai00::internal::Error&) {
  }
  return 0;
}
