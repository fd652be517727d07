// End-to-end forward tests against the shared fixtures (shared/models/README.md):
// the tiny rwkv.cpp model (external ground truth) and the multi-head random model in every
// format, plus sequence / chunked / token-by-token agreement and bad token ids.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/model/state_file.h"
#include "fixtures.h"
#include "test_rwkv7_util.h"

using namespace ai00::internal;
namespace test = ai00::test;
using ai00::test::max_abs_diff;
using ai00::test::read_f32;
using ai00::test::shared_path;

namespace {

// Feeds `"in` to the tiny model in `file` and returns max |diff| vs rwkv.cpp's expected logits.
double tiny_diff(const std::string& file, const ModelParams& params = {}) {
  const std::vector<float> expected = read_f32(shared_path("models/expected-logits-7v0-834K.bin"));
  const std::vector<uint32_t> prompt = {0x22, 0x69, 0x6E};
  auto model = Model::load(shared_path("models/" + file), params);
  REQUIRE(model->config().vocab == 256);
  State st(*model);
  std::vector<float> logits(256);
  ForwardOptions exact;
  exact.fp32_activations = true;  // int8 / bf16 activations: test_rwkv7_isa's tolerance test
  forward(*model, st, prompt.data(), prompt.size(), logits.data(), exact);
  const double d = max_abs_diff(logits.data(), expected.data(), 256);
  WARN(file << " max |diff| = " << d);
  return d;
}

// Runs the 32 fixture tokens through `file` from the zero state and from init.state; checks the
// logits after every token, the final state (rwkv.cpp layout) and the logits from init.state.
void check_rand(const std::string& file, const test::RandFixture& fx) {
  auto model = Model::load(shared_path("models/" + file));
  const int64_t V = model->config().vocab;
  REQUIRE(model->config().n_head == 2);
  State st(*model);
  std::vector<float> logits(fx.tokens.size() * static_cast<size_t>(V));
  ForwardOptions all;
  all.all_logits = true;
  forward(*model, st, fx.tokens.data(), fx.tokens.size(), logits.data(), all);
  const double dl = max_abs_diff(logits.data(), fx.logits.data(), fx.logits.size());
  std::vector<float> flat(st.size());
  st.export_rwkv_cpp(flat.data(), flat.size());
  REQUIRE(flat.size() == fx.state_after.size());
  const double ds = max_abs_diff(flat.data(), fx.state_after.data(), flat.size());
  State from =
      load_ai00_state_file(*model, shared_path("models/rand-rwkv7-c128-l3-v512-init.state"));
  forward(*model, from, fx.tokens.data(), fx.tokens.size(), logits.data(), all);
  const double df = max_abs_diff(logits.data(), fx.logits_from_state.data(), logits.size());
  WARN(file << ": logits " << dl << ", state " << ds << ", from init.state " << df);
  CHECK(dl <= 2e-5);
  CHECK(ds <= 1e-4);
  CHECK(df <= 2e-5);
}

}  // namespace

TEST_CASE("tiny model reproduces rwkv.cpp's expected logits", "[core][rwkv7]") {
  CHECK(tiny_diff("tiny-rwkv-7v0-834K-FP32.bin") <= 5e-6);
  CHECK(tiny_diff("tiny-rwkv-7v0-834K-FP16.bin") <= 5e-6);
  CHECK(tiny_diff("tiny-rwkv-7v0-834K-Q5_0.bin") <= 5e-3);
  CHECK(tiny_diff("tiny-rwkv-7v0-834K-Q5_1.bin") <= 5e-3);
}

TEST_CASE("PyTorch .pth checkpoints give the expected outputs", "[core][rwkv7]") {
  CHECK(tiny_diff("tiny-rwkv-7v0-834K-BF16.pth") <= 5e-6);
  check_rand("rand-rwkv7-c128-l3-v512-F16.pth", test::load_rand_fixture());
}

TEST_CASE("random fixture: logits, final state and init.state in every format", "[core][rwkv7]") {
  const test::RandFixture fx = test::load_rand_fixture();
  for (const char* file : test::kRandFloatFiles) check_rand(file, fx);
}

TEST_CASE("random fixture: quantized GGUF files", "[core][rwkv7]") {
  const test::RandFixture fx = test::load_rand_fixture();
  for (const char* q : {"Q8_0", "Q4_0"}) {
    const std::string base = std::string("models/rand-rwkv7-c128-l3-v512-") + q;
    auto model = Model::load(shared_path(base + ".gguf"));
    const std::vector<float> expected = read_f32(shared_path(base + "-logits.bin"));
    State st(*model);
    std::vector<float> logits(expected.size());
    ForwardOptions all;
    all.all_logits = true;
    all.fp32_activations = true;  // the references were computed with fp32 activations
    forward(*model, st, fx.tokens.data(), fx.tokens.size(), logits.data(), all);
    const double d = max_abs_diff(logits.data(), expected.data(), expected.size());
    WARN(q << ".gguf max |diff| = " << d);
    CHECK(d <= 1e-3);
  }
}

TEST_CASE("token by token, whole sequence and chunked prefill agree", "[core][rwkv7]") {
  const test::RandFixture fx = test::load_rand_fixture();
  auto model = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP16.bin"));
  const size_t V = static_cast<size_t>(model->config().vocab), T = fx.tokens.size();
  ForwardOptions all;
  all.all_logits = true;
  State whole(*model);
  std::vector<float> seq(T * V);
  forward(*model, whole, fx.tokens.data(), T, seq.data(), all);

  State one(*model);
  std::vector<float> rnn(T * V);
  for (size_t t = 0; t < T; ++t) forward(*model, one, &fx.tokens[t], 1, rnn.data() + t * V);
  CHECK(max_abs_diff(seq.data(), rnn.data(), seq.size()) <= 1e-5);
  CHECK(max_abs_diff(whole.data(), one.data(), whole.size()) <= 1e-5);

  for (size_t chunk : {1, 5, 7, 31, 32}) {
    State st(*model);
    std::vector<float> got(T * V);
    ForwardOptions o = all;
    o.chunk = chunk;
    forward(*model, st, fx.tokens.data(), T, got.data(), o);
    INFO("chunk " << chunk);
    CHECK(max_abs_diff(seq.data(), got.data(), seq.size()) <= 1e-5);
    // Last-token-only logits equal the last row of the all-logits run.
    State st2(*model);
    std::vector<float> last(V);
    ForwardOptions lo;
    lo.chunk = chunk;
    forward(*model, st2, fx.tokens.data(), T, last.data(), lo);
    CHECK(max_abs_diff(last.data(), seq.data() + (T - 1) * V, V) <= 1e-5);
  }
  // Prefill without logits then one decode step gives the same last logits.
  State pre(*model);
  forward(*model, pre, fx.tokens.data(), T - 1, nullptr);
  std::vector<float> last(V);
  forward(*model, pre, &fx.tokens[T - 1], 1, last.data());
  CHECK(max_abs_diff(last.data(), seq.data() + (T - 1) * V, V) <= 1e-5);
}

TEST_CASE("1 and 2 threads give identical logits", "[core][rwkv7]") {
  const test::RandFixture fx = test::load_rand_fixture();
  const std::string path = shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin");
  ModelParams p1, p2;
  p2.n_threads = 2;
  auto m1 = Model::load(path, p1);
  auto m2 = Model::load(path, p2);
  const size_t V = 512, T = fx.tokens.size();
  ForwardOptions all;
  all.all_logits = true;
  State s1(*m1), s2(*m2);
  std::vector<float> l1(T * V), l2(T * V);
  forward(*m1, s1, fx.tokens.data(), T, l1.data(), all);
  forward(*m2, s2, fx.tokens.data(), T, l2.data(), all);
  CHECK(l1 == l2);
  CHECK(std::vector<float>(s1.data(), s1.data() + s1.size()) ==
        std::vector<float>(s2.data(), s2.data() + s2.size()));
}

TEST_CASE("forward rejects bad tokens and foreign states", "[core][rwkv7]") {
  auto model = Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  State st(*model);
  std::vector<float> logits(256);
  const std::vector<uint32_t> bad = {1, 2, 256};
  try {
    forward(*model, st, bad.data(), bad.size(), logits.data());
    FAIL("expected InvalidArgument");
  } catch (const InvalidArgument& e) {
    CHECK_THAT(e.what(), Catch::Contains("256") && Catch::Contains("position 2"));
  }
  // Nothing was consumed: the state is still zero.
  for (size_t i = 0; i < st.size(); ++i) REQUIRE(st.data()[i] == 0.0f);
  CHECK_THROWS_AS(forward(*model, st, nullptr, 0, logits.data()), InvalidArgument);
  CHECK_THROWS_AS(forward(*model, st, bad.data(), 0, logits.data()), InvalidArgument);

  auto other = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"));
  State foreign(*other);
  CHECK_THROWS_AS(forward(*model, foreign, bad.data(), 2, logits.data()), MismatchError);
}
