// Memory of a loaded Model with and without packed int8 weights (ModelParams::pack_weights,
// docs/dot-products.md "Packed weights in the model"): loads one weight file, runs one decode token
// (so every matrix of the pass has been read), and prints the load time and /proc/self/status
// VmHWM (peak resident), VmRSS, RssAnon (private pages: packed matrices, fp32 copies, scratch)
// and RssFile (pages of the mapped file). Run once per setting, each in its own process, so the
// peaks do not mix:
//   bench_load_memory MODEL on   and   bench_load_memory MODEL off
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"

namespace {

// The value in kB of a /proc/self/status field ("VmHWM"), or -1.
long status_kb(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long v = -1;
  const size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, field, n) == 0 && line[n] == ':') {
      std::sscanf(line + n + 1, "%ld", &v);
      break;
    }
  }
  std::fclose(f);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_load_memory MODEL on|off\n");
    return 2;
  }
  ai00::internal::ModelParams mp;
  mp.pack_weights = std::string(argv[2]) == "on";
  const auto t0 = std::chrono::steady_clock::now();
  auto model = ai00::internal::Model::load(argv[1], mp);
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ai00::internal::State st(*model);
  std::vector<float> logits(static_cast<size_t>(model->config().vocab));
  uint32_t tok = 1;
  ai00::internal::forward(*model, st, &tok, 1, logits.data());
  std::printf(
      "pack %s (%s): load %.2f s, VmHWM %ld MB, VmRSS %ld MB, RssAnon %ld MB, "
      "RssFile %ld MB\n",
      argv[2], model->kernels().name, load_s, status_kb("VmHWM") / 1024, status_kb("VmRSS") / 1024,
      status_kb("RssAnon") / 1024, status_kb("RssFile") / 1024);
  return 0;
}
