// forward_batch: many States through one pass. Every State and its logits must be bitwise what
// forward() on that State alone gives, for fp32 and default (int8 / bf16) activations, float
// and quantized fixture models, mixed segment lengths and any chunk; bad input is refused
// before any State is touched.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "fixtures.h"

using namespace ai00::internal;
using ai00::test::shared_path;

namespace {

std::vector<float> state_bytes(const State& s) {
  return std::vector<float>(s.data(), s.data() + s.size());
}

// Token i of member m: a deterministic spread over the vocabulary.
std::vector<uint32_t> tokens_of(size_t m, size_t n, int64_t vocab) {
  std::vector<uint32_t> t(n);
  for (size_t i = 0; i < n; ++i) {
    t[i] = static_cast<uint32_t>((m * 131 + i * 37 + 11) % static_cast<size_t>(vocab));
  }
  return t;
}

enum class Want { none, last, all };

// Members: a different prefix each (advanced alone), then one batched call with mixed lengths
// (1-token decode members next to multi-token prefill members) and logits modes, compared with
// each clone advanced alone by forward().
void check_batch_equals_alone(const std::string& file, bool fp32_act, size_t chunk) {
  auto model = Model::load(shared_path("models/" + file));
  const int64_t V = model->config().vocab;
  const size_t lens[] = {1, 13, 1, 40, 3, 1, 70};
  const Want wants[] = {Want::last, Want::all,  Want::last, Want::none,
                        Want::all,  Want::last, Want::last};
  const size_t K = sizeof(lens) / sizeof(lens[0]);
  ForwardOptions opt;
  opt.fp32_activations = fp32_act;
  std::vector<State> batched, alone;
  std::vector<std::vector<uint32_t>> toks(K);
  for (size_t m = 0; m < K; ++m) {
    State s(*model);
    const std::vector<uint32_t> prefix = tokens_of(m + 100, m + 2, V);
    forward(*model, s, prefix.data(), prefix.size(), nullptr, opt);
    alone.push_back(s.clone());
    batched.push_back(std::move(s));
    toks[m] = tokens_of(m, lens[m], V);
  }
  std::vector<std::vector<float>> got(K), want(K);
  std::vector<BatchSegment> segs;
  for (size_t m = 0; m < K; ++m) {
    const size_t rows = wants[m] == Want::all ? lens[m] : 1;
    got[m].assign(rows * static_cast<size_t>(V), -1.0f);
    want[m].assign(rows * static_cast<size_t>(V), -2.0f);
    float* out = wants[m] == Want::none ? nullptr : got[m].data();
    segs.push_back({&batched[m], toks[m].data(), lens[m], out, wants[m] == Want::all});
  }
  ForwardOptions bo = opt;
  bo.chunk = chunk;
  forward_batch(*model, segs, bo);
  for (size_t m = 0; m < K; ++m) {
    ForwardOptions o = opt;
    o.all_logits = wants[m] == Want::all;
    float* out = wants[m] == Want::none ? nullptr : want[m].data();
    forward(*model, alone[m], toks[m].data(), lens[m], out, o);
    INFO(file << " fp32 " << fp32_act << " chunk " << chunk << " member " << m);
    if (wants[m] != Want::none) CHECK(got[m] == want[m]);
    CHECK(state_bytes(batched[m]) == state_bytes(alone[m]));
  }
}

}  // namespace

TEST_CASE("forward_batch is bitwise forward() per State", "[core][rwkv7][batch]") {
  const char* files[] = {"rand-rwkv7-c128-l3-v512-FP32.bin", "rand-rwkv7-c128-l3-v512-Q8_0.gguf",
                         "rand-rwkv7-c128-l3-v512-Q4_0.gguf", "tiny-rwkv-7v0-834K-Q5_0.bin",
                         "tiny-rwkv-7v0-834K-FP16.bin"};
  for (const char* f : files) {
    for (bool fp32 : {true, false}) {
      for (size_t chunk : {0, 1, 5, 16, 200}) check_batch_equals_alone(f, fp32, chunk);
    }
  }
}

TEST_CASE("forward_batch on 2 threads equals 1 thread", "[core][rwkv7][batch]") {
  const std::string path = shared_path("models/rand-rwkv7-c128-l3-v512-Q8_0.gguf");
  ModelParams p2;
  p2.n_threads = 2;
  auto m1 = Model::load(path);
  auto m2 = Model::load(path, p2);
  std::vector<std::vector<float>> out;
  for (const auto* m : {m1.get(), m2.get()}) {
    std::vector<State> st;
    for (int i = 0; i < 4; ++i) st.emplace_back(*m);
    const std::vector<uint32_t> a = tokens_of(1, 30, 512), b = tokens_of(2, 1, 512);
    std::vector<float> la(512), lb(512);
    forward_batch(*m, {{&st[0], a.data(), a.size(), la.data(), false},
                       {&st[1], b.data(), b.size(), lb.data(), false},
                       {&st[2], a.data(), 5, nullptr, false},
                       {&st[3], b.data(), 1, la.data() + 0, false}});
    la.insert(la.end(), lb.begin(), lb.end());
    for (const State& s : st) la.insert(la.end(), s.data(), s.data() + s.size());
    out.push_back(la);
  }
  CHECK(out[0] == out[1]);
}

TEST_CASE("forward_batch refuses bad input before touching any State", "[core][rwkv7][batch]") {
  auto model = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"));
  auto other = Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  State a(*model), b(*model), foreign(*other);
  const std::vector<uint32_t> good = {1, 2, 3}, bad = {4, 512, 6};
  std::vector<float> logits(512);
  auto expect = [&](const std::vector<BatchSegment>& segs, const char* what) {
    try {
      forward_batch(*model, segs);
      FAIL("accepted: " << what);
    } catch (const ai00::internal::Error& e) {
      INFO(e.what());
      CHECK_THAT(e.what(), Catch::Contains(what));
    }
  };
  expect({}, "empty segment list");
  expect({{&a, good.data(), 3, logits.data(), false}, {&b, good.data(), 0, nullptr, false}},
         "segment 1: empty token list");
  expect({{&a, good.data(), 3, nullptr, false}, {&b, bad.data(), 3, nullptr, false}},
         "segment 1: token id 512 at position 1");
  expect({{&a, good.data(), 3, nullptr, false}, {&a, good.data(), 1, nullptr, false}},
         "segment 1: the same state as segment 0");
  expect({{&a, good.data(), 3, nullptr, false}, {nullptr, good.data(), 1, nullptr, false}},
         "segment 1: null state");
  expect({{&a, good.data(), 3, nullptr, false}, {&foreign, good.data(), 1, nullptr, false}},
         "segment 1: state belongs to another model");
  CHECK_THROWS_AS(forward_batch(*model, {{&a, good.data(), 3, nullptr, false},
                                         {&foreign, good.data(), 1, nullptr, false}}),
                  MismatchError);
  CHECK_THROWS_AS(forward_batch(*model, {{&a, good.data(), 3, nullptr, false},
                                         {&a, good.data(), 1, nullptr, false}}),
                  InvalidArgument);
  for (const State* s : {&a, &b}) {
    for (size_t i = 0; i < s->size(); ++i) REQUIRE(s->data()[i] == 0.0f);
  }
}
