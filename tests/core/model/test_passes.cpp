// How a token is organised into parallel passes (docs/model.md "Passes per token"): a model
// large enough for every pass to fork counts 5 fork-joins per block plus one for the head; a
// small model forks none; and results are bit-identical for 1 and 2 threads, token by token and
// in prefill, on a random model written by the benchmarks' generator (bench/model_gen.h).
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "fixtures.h"
#include "model_gen.h"

using namespace ai00::internal;

namespace {

// C 512, L 2: every pass is above the one-thread threshold even for one token.
ModelConfig medium_config() {
  ModelConfig c = ai00::bench::g1_config("0.1b");
  c.n_embd = 512, c.n_head = 8, c.n_layer = 2, c.ffn_size = 2048, c.vocab = 1024;
  return c;
}

struct Run {
  std::vector<float> logits;  // [n][V]
  std::vector<float> state;
  uint64_t fork_joins = 0;
};

Run run(const std::string& path, int threads, bool prefill, const std::vector<uint32_t>& toks) {
  ModelParams mp;
  mp.n_threads = threads;
  auto m = Model::load(path, mp);
  const size_t V = static_cast<size_t>(m->config().vocab);
  State st(*m);
  Run r;
  r.logits.resize(toks.size() * V);
  const uint64_t f0 = m->fork_join_count();
  if (prefill) {
    ForwardOptions o;
    o.all_logits = true;
    forward(*m, st, toks.data(), toks.size(), r.logits.data(), o);
  } else {
    for (size_t i = 0; i < toks.size(); ++i) forward(*m, st, &toks[i], 1, r.logits.data() + i * V);
  }
  r.fork_joins = m->fork_join_count() - f0;
  r.state.resize(st.size());
  st.export_rwkv_cpp(r.state.data(), r.state.size());
  return r;
}

}  // namespace

TEST_CASE("a token is 5 passes per block plus the head, identical on 1 and 2 threads",
          "[rwkv7][passes]") {
  const std::string dir = ai00::test::temp_dir();
  const ModelConfig c = medium_config();
  const std::vector<uint32_t> toks = {1, 17, 900, 3, 64, 511, 2, 1000};
  for (DType t : {DType::F16, DType::BF16, DType::Q8_0}) {
    const std::string path = dir + "/m-" + dtype_name(t) + ".gguf";
    ai00::bench::write_random_model(path, c, 7, t);
    INFO(dtype_name(t));
    for (bool prefill : {false, true}) {
      const Run one = run(path, 1, prefill, toks), two = run(path, 2, prefill, toks);
      CHECK(one.fork_joins == 0);
      // Decode: per token 5 passes per block + the head; prefill: the same once for 8 rows.
      const uint64_t per = static_cast<uint64_t>(5 * c.n_layer + 1);
      CHECK(two.fork_joins == (prefill ? per : per * toks.size()));
      REQUIRE(one.logits.size() == two.logits.size());
      CHECK(std::memcmp(one.logits.data(), two.logits.data(), one.logits.size() * 4) == 0);
      CHECK(std::memcmp(one.state.data(), two.state.data(), one.state.size() * 4) == 0);
      float amax = 0.0f;
      for (float v : one.logits) amax = std::max(amax, std::abs(v));
      CHECK(amax > 0.1f);  // the model computes ordinary, non-zero numbers
      CHECK(amax < 100.0f);
    }
    // Prefill and token-by-token agree (the same math in another row grouping).
    const Run a = run(path, 2, false, toks), b = run(path, 2, true, toks);
    CHECK(ai00::test::max_abs_diff(a.logits.data(), b.logits.data(), a.logits.size()) < 1e-3);
  }
}

TEST_CASE("a small model runs every pass on the calling thread", "[rwkv7][passes]") {
  ModelParams mp;
  mp.n_threads = 2;
  auto m = Model::load(ai00::test::shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"), mp);
  State st(*m);
  std::vector<float> logits(512);
  const uint32_t tok = 5;
  forward(*m, st, &tok, 1, logits.data());
  CHECK(m->fork_join_count() == 0);
}

// A pass of 64 rows from three States: the row-wise steps (layer norms, token shift, mixes) and
// the activation conversion fork too, and in a quantized model the F16 LoRA down-projections
// run in smaller row blocks next to the int8 block matrices (rwkv7.cpp block_rows). Neither
// may change a bit: 1 and 2 threads give the same logits and States.
TEST_CASE("a 64-row pass forks its row steps too, identical on 1 and 2 threads",
          "[rwkv7][passes]") {
  const std::string dir = ai00::test::temp_dir();
  ModelConfig c = ai00::bench::g1_config("0.1b");  // C 768, as the real 0.1B
  c.n_layer = 2, c.vocab = 1024;
  const size_t V = static_cast<size_t>(c.vocab), lens[] = {30, 20, 14};
  for (DType t : {DType::F16, DType::BF16, DType::Q8_0}) {
    const std::string path = dir + "/m64-" + dtype_name(t) + ".gguf";
    ai00::bench::write_random_model(path, c, 9, t);
    INFO(dtype_name(t));
    std::vector<float> out[2];
    uint64_t forks[2] = {0, 0};
    bool dot_path = t == DType::Q8_0;  // BF16: only on a table with a bf16 dot (not plain AVX2)
    for (int threads : {1, 2}) {
      ModelParams mp;
      mp.n_threads = threads;
      auto m = Model::load(path, mp);
      if (t == DType::BF16) dot_path = m->kernels().matmul_bf16 != nullptr;
      std::vector<State> st;
      std::vector<std::vector<uint32_t>> toks;
      std::vector<std::vector<float>> logits;
      std::vector<BatchSegment> segs;
      for (size_t i = 0; i < 3; ++i) {
        st.emplace_back(*m);
        toks.emplace_back();
        for (size_t j = 0; j < lens[i]; ++j) toks[i].push_back((i * 301 + j * 53 + 1) % V);
        logits.emplace_back(lens[i] * V);
      }
      for (size_t i = 0; i < 3; ++i) {
        segs.push_back({&st[i], toks[i].data(), lens[i], logits[i].data(), true});
      }
      const uint64_t f0 = m->fork_join_count();
      forward_batch(*m, segs);
      forks[threads - 1] = m->fork_join_count() - f0;
      std::vector<float>& o = out[threads - 1];
      for (size_t i = 0; i < 3; ++i) {
        o.insert(o.end(), logits[i].begin(), logits[i].end());
        std::vector<float> s(st[i].size());
        st[i].export_rwkv_cpp(s.data(), s.size());
        o.insert(o.end(), s.begin(), s.end());
      }
    }
    CHECK(forks[0] == 0);
    // More than the 5 products per block and the head: the row steps above the one-thread
    // threshold forked as well (at C 768 and 64 rows both layer norms and the time-mix mixes;
    // on the dot paths also the conversions of pass 1 and of the FFN value product; BF16 takes
    // the fp32 path, like F16, where the kernel table has no bf16 dot).
    const uint64_t products = 5 * static_cast<uint64_t>(c.n_layer) + 1;
    CHECK(forks[1] == products + (dot_path ? 5 : 3) * static_cast<uint64_t>(c.n_layer));
    REQUIRE(out[0].size() == out[1].size());
    CHECK(std::memcmp(out[0].data(), out[1].data(), out[0].size() * 4) == 0);
  }
}
