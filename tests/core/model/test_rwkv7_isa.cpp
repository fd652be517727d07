// The forward pass on every ISA this machine supports, forced in turn (docs/model.md
// "Kernels and ISAs"): each must reproduce the fixtures' expected outputs and agree with the scalar
// table.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "cpu_kernels/kernels.h"
#include "fixtures.h"
#include "test_rwkv7_util.h"

using namespace ai00::internal;
namespace test = ai00::test;
using ai00::test::max_abs_diff;
using ai00::test::read_f32;
using ai00::test::shared_path;

namespace {

std::vector<std::string> supported_isas() {
  size_t n = 0;
  const cpu::KernelTable* const* all = cpu::all_kernel_tables(&n);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    if (cpu::isa_supported(all[i]->name)) out.push_back(all[i]->name);
  }
  return out;
}

// All logits of `tokens` on `file` with the ISA forced.
// fp32_act: ForwardOptions::fp32_activations (quantized weights: the exact path, else int8).
std::vector<float> run(const std::string& file, const std::string& isa,
                       const std::vector<uint32_t>& tokens, bool fp32_act = true) {
  ModelParams p;
  p.forced_isa = isa;
  auto model = Model::load(shared_path("models/" + file), p);
  REQUIRE(std::string(model->kernels().name) == isa);
  State st(*model);
  std::vector<float> logits(tokens.size() * static_cast<size_t>(model->config().vocab));
  ForwardOptions all;
  all.all_logits = true;
  all.fp32_activations = fp32_act;
  forward(*model, st, tokens.data(), tokens.size(), logits.data(), all);
  return logits;
}

}  // namespace

TEST_CASE("every supported ISA reproduces the fixtures", "[core][rwkv7][per_isa]") {
  const std::vector<std::string> isas = supported_isas();
  REQUIRE(!isas.empty());
  const test::RandFixture fx = test::load_rand_fixture();
  const std::vector<float> tiny_expected =
      read_f32(shared_path("models/expected-logits-7v0-834K.bin"));
  const std::vector<float> q4_expected =
      read_f32(shared_path("models/rand-rwkv7-c128-l3-v512-Q4_0-logits.bin"));
  const std::vector<float> scalar = run("rand-rwkv7-c128-l3-v512-FP16.bin", "scalar", fx.tokens);
  for (const std::string& isa : isas) {
    INFO("isa " << isa);
    std::vector<float> tiny = run("tiny-rwkv-7v0-834K-FP16.bin", isa, {0x22, 0x69, 0x6E});
    const double dt = max_abs_diff(tiny.data() + 2 * 256, tiny_expected.data(), 256);
    std::vector<float> rand = run("rand-rwkv7-c128-l3-v512-FP16.bin", isa, fx.tokens);
    const double dr = max_abs_diff(rand.data(), fx.logits.data(), fx.logits.size());
    const double ds = max_abs_diff(rand.data(), scalar.data(), scalar.size());
    std::vector<float> q4 = run("rand-rwkv7-c128-l3-v512-Q4_0.gguf", isa, fx.tokens);
    const double dq = max_abs_diff(q4.data(), q4_expected.data(), q4_expected.size());
    WARN(isa << ": tiny " << dt << ", rand " << dr << ", vs scalar " << ds << ", Q4_0 " << dq);
    CHECK(dt <= 5e-6);
    CHECK(dr <= 2e-5);
    CHECK(ds <= 2e-5);
    CHECK(dq <= 1e-3);
  }
}

TEST_CASE("the BF16 dot path stays within 0.1 of fp32 activations where the ISA has it",
          "[core][rwkv7][per_isa]") {
  // docs/dot-products.md "Integer and BF16 dot products": activations rounded once to bf16, the
  // accuracy rule of the int8 path (logits within 0.1 of the fp32-activation result).
  const std::vector<uint32_t> tokens = {0x22, 0x69, 0x6E, 0x20, 0x74, 0x68, 0x65};
  for (const std::string& isa : supported_isas()) {
    std::string err;
    const bool has_bf16 = cpu::select_kernels(isa, &err)->matmul_bf16 != nullptr;
    const std::vector<float> exact = run("tiny-rwkv-7v0-834K-BF16.pth", isa, tokens, true);
    const std::vector<float> dot = run("tiny-rwkv-7v0-834K-BF16.pth", isa, tokens, false);
    const double d = max_abs_diff(dot.data(), exact.data(), exact.size());
    INFO(isa);
    WARN(isa << ": BF16 .pth bf16 dot vs fp32 activations, max |diff| = " << d);
    CHECK(d <= 0.1);
    if (has_bf16) CHECK(d > 0.0);    // the bf16 dot really ran
    if (!has_bf16) CHECK(d == 0.0);  // no BF16 dot: the fp32 path either way
  }
}

TEST_CASE("the int8 path on every supported ISA stays within 0.1 of fp32 activations",
          "[core][rwkv7][per_isa]") {
  // docs/dot-products.md "Integer and BF16 dot products": logits within 0.1 of the fp32-activation
  // result, on the quantized fixtures, on every ISA (each ISA's own int8 kernels).
  const test::RandFixture fx = test::load_rand_fixture();
  const std::vector<uint32_t> tiny_tokens = {0x22, 0x69, 0x6E, 0x20, 0x74, 0x68, 0x65};
  for (const std::string& isa : supported_isas()) {
    for (const char* file :
         {"rand-rwkv7-c128-l3-v512-Q8_0.gguf", "rand-rwkv7-c128-l3-v512-Q4_0.gguf",
          "tiny-rwkv-7v0-834K-Q5_0.bin", "tiny-rwkv-7v0-834K-Q5_1.bin"}) {
      const bool tiny = std::string(file).rfind("tiny", 0) == 0;
      const std::vector<uint32_t>& tokens = tiny ? tiny_tokens : fx.tokens;
      const std::vector<float> exact = run(file, isa, tokens, true);
      const std::vector<float> int8 = run(file, isa, tokens, false);
      const double d = max_abs_diff(int8.data(), exact.data(), exact.size());
      INFO(isa << ", " << file);
      WARN(isa << ": " << file << " int8 vs fp32 activations, max |diff| = " << d);
      CHECK(d <= 0.1);
      CHECK(d > 0.0);  // the int8 path really ran
    }
  }
}

TEST_CASE("forcing an unknown ISA is an error, not a crash", "[core][rwkv7]") {
  ModelParams p;
  p.forced_isa = "bogus";
  CHECK_THROWS_AS(Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"), p),
                  InvalidArgument);
}

TEST_CASE("AI00_FORCE_ISA chooses the table when the params leave it empty", "[core][rwkv7]") {
  const std::string tiny = shared_path("models/tiny-rwkv-7v0-834K-FP32.bin");
  ::setenv("AI00_FORCE_ISA", "scalar", 1);
  auto scalar = Model::load(tiny);
  ModelParams p;
  p.forced_isa = supported_isas().front();  // the params win over the environment
  auto best = Model::load(tiny, p);
  ::setenv("AI00_FORCE_ISA", "bogus", 1);
  CHECK_THROWS_AS(Model::load(tiny), InvalidArgument);
  ::unsetenv("AI00_FORCE_ISA");
  CHECK(std::string(scalar->kernels().name) == "scalar");
  CHECK(std::string(best->kernels().name) == supported_isas().front());
}
