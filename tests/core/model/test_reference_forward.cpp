// The engine's forward pass on every ISA this machine supports, against the plain Eigen
// reference of reference_forward.h (docs/model.md "RWKV-7 math"): logits of every token and
// the final State, for the tiny model and the random multi-head model in every file format.
// The reference itself is first checked against the fixtures' expected logits.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "cpu_kernels/kernels.h"
#include "fixtures.h"
#include "reference_forward.h"
#include "test_rwkv7_util.h"

using namespace ai00::internal;
namespace test = ai00::test;
using test::max_abs_diff;
using test::shared_path;

namespace {

struct Outputs {
  std::vector<float> logits;  // [T][V]
  std::vector<float> state;   // the engine's State layout
};

std::vector<std::string> supported_isas() {
  size_t n = 0;
  const cpu::KernelTable* const* all = cpu::all_kernel_tables(&n);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    if (cpu::isa_supported(all[i]->name)) out.push_back(all[i]->name);
  }
  return out;
}

std::shared_ptr<const Model> load(const std::string& file, const std::string& isa) {
  ModelParams p;
  p.forced_isa = isa;
  return Model::load(shared_path("models/" + file), p);
}

Outputs run_reference(const Model& model, const std::vector<uint32_t>& tokens) {
  test::ReferenceForward ref(model);
  Outputs out;
  for (uint32_t t : tokens) {
    const Eigen::VectorXd logits = ref.step(t);
    for (int64_t i = 0; i < logits.size(); ++i) out.logits.push_back(static_cast<float>(logits[i]));
  }
  out.state = ref.state();
  return out;
}

// All tokens in one call (the prefill path), logits of every token.
Outputs run_engine(const Model& model, const std::vector<uint32_t>& tokens) {
  State st(model);
  Outputs out;
  out.logits.resize(tokens.size() * static_cast<size_t>(model.config().vocab));
  ForwardOptions all;
  all.all_logits = true;
  all.fp32_activations = true;  // the reference keeps fp32 activations for quantized weights too
  forward(model, st, tokens.data(), tokens.size(), out.logits.data(), all);
  out.state.assign(st.data(), st.data() + st.size());
  return out;
}

// Every supported ISA against the reference; `logit_tol` and `state_tol` as in test_rwkv7.
void check_every_isa(const std::string& file, const std::vector<uint32_t>& tokens, double logit_tol,
                     double state_tol) {
  const Outputs ref = run_reference(*load(file, "scalar"), tokens);
  for (const std::string& isa : supported_isas()) {
    INFO(file << " on " << isa);
    auto model = load(file, isa);
    REQUIRE(std::string(model->kernels().name) == isa);
    const Outputs got = run_engine(*model, tokens);
    REQUIRE(got.logits.size() == ref.logits.size());
    REQUIRE(got.state.size() == ref.state.size());
    CHECK(max_abs_diff(got.logits.data(), ref.logits.data(), ref.logits.size()) <= logit_tol);
    CHECK(max_abs_diff(got.state.data(), ref.state.data(), ref.state.size()) <= state_tol);
  }
}

const std::vector<uint32_t> kTinyTokens = {0x22, 0x69, 0x6E, 0x20, 0x74, 0x68, 0x65, 0x20,
                                           0x62, 0x65, 0x67, 0x69, 0x6E, 0x6E, 0x69, 0x6E};

}  // namespace

TEST_CASE("the Eigen reference reproduces the fixtures' expected logits",
          "[core][rwkv7][reference]") {
  const std::vector<float> tiny_expected =
      test::read_f32(shared_path("models/expected-logits-7v0-834K.bin"));
  const Outputs tiny =
      run_reference(*load("tiny-rwkv-7v0-834K-FP32.bin", "scalar"), {0x22, 0x69, 0x6E});
  CHECK(max_abs_diff(tiny.logits.data() + 2 * 256, tiny_expected.data(), 256) <= 5e-6);

  const test::RandFixture fx = test::load_rand_fixture();
  auto model = load("rand-rwkv7-c128-l3-v512-FP32.bin", "scalar");
  const Outputs rand = run_reference(*model, fx.tokens);
  CHECK(max_abs_diff(rand.logits.data(), fx.logits.data(), fx.logits.size()) <= 2e-5);
  State st(*model);
  std::copy(rand.state.begin(), rand.state.end(), st.data());
  std::vector<float> flat(st.size());
  st.export_rwkv_cpp(flat.data(), flat.size());
  CHECK(max_abs_diff(flat.data(), fx.state_after.data(), fx.state_after.size()) <= 1e-4);
}

TEST_CASE("every ISA's forward matches the Eigen reference: tiny model", "[core][rwkv7][per_isa]") {
  check_every_isa("tiny-rwkv-7v0-834K-FP32.bin", kTinyTokens, 5e-6, 1e-4);
  check_every_isa("tiny-rwkv-7v0-834K-FP16.bin", kTinyTokens, 5e-6, 1e-4);
}

TEST_CASE("every ISA's forward matches the Eigen reference: random multi-head model",
          "[core][rwkv7][per_isa]") {
  const test::RandFixture fx = test::load_rand_fixture();
  for (const char* file : test::kRandFloatFiles) check_every_isa(file, fx.tokens, 2e-5, 1e-4);
  check_every_isa("rand-rwkv7-c128-l3-v512-F16.pth", fx.tokens, 2e-5, 1e-4);
  // Quantized matrices: the reference dequantizes them, the kernels decode them in registers.
  check_every_isa("rand-rwkv7-c128-l3-v512-Q8_0.gguf", fx.tokens, 2e-5, 1e-4);
  check_every_isa("rand-rwkv7-c128-l3-v512-Q4_0.gguf", fx.tokens, 2e-5, 1e-4);
}
