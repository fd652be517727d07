// Model loading: config and bound weights, parameters, errors, and sharing between threads.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/dequant.h"
#include "base/error.h"
#include "base/half.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/tokenizer/tokenizer.h"
#include "cpu_kernels/kernels.h"
#include "fixtures.h"
#include "test_rwkv7_util.h"

using namespace ai00::internal;
namespace test = ai00::test;
using ai00::test::shared_path;

TEST_CASE("the random fixture's config and weights are bound", "[core][model]") {
  auto m = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  const ModelConfig& c = m->config();
  CHECK(c.n_embd == 128);
  CHECK(c.n_layer == 3);
  CHECK(c.n_head == 2);
  CHECK(c.head_size == 64);
  CHECK(c.ffn_size == 512);
  CHECK(c.vocab == 512);
  CHECK((c.d_w == 32 && c.d_a == 48 && c.d_v == 16 && c.d_g == 64));
  CHECK(m->layer(0).v0 == nullptr);  // block 0 has no value residual
  CHECK(m->layer(1).v1.rows == 16);
  CHECK(m->layer(2).ffn_key.rows == 512);
  CHECK(m->global().head.rows == 512);
  CHECK(m->n_threads() == 1);
  CHECK(decode_weight_bytes(*m) > 0);
}

TEST_CASE("embed applies ln0 to a dequantized embedding row", "[core][model]") {
  // The same embedding stored as F32 (.bin) and Q8_0 (.gguf): after ln0 the rows agree up to
  // the quantization error (a wrong row or block layout would differ by O(1)).
  auto f32 = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"));
  auto q8 = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-Q8_0.gguf"));
  std::vector<float> a(128), b(128);
  for (uint32_t t : {0u, 1u, 255u, 511u}) {
    f32->embed(t, a.data());
    q8->embed(t, b.data());
    CHECK(test::max_abs_diff(a.data(), b.data(), 128) < 0.1);
  }
}

TEST_CASE("bad parameters and files are reported", "[core][model]") {
  const std::string tiny = shared_path("models/tiny-rwkv-7v0-834K-FP32.bin");
  ModelParams p;
  p.n_threads = 0;
  CHECK_THROWS_AS(Model::load(tiny, p), InvalidArgument);
  CHECK_THROWS_AS(Model::load(tiny + ".missing"), IoError);
  // A state file is not a model.
  CHECK_THROWS_AS(Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-init.state")),
                  ModelFileError);
}

TEST_CASE("one Model serves several threads at once", "[core][model]") {
  const test::RandFixture fx = test::load_rand_fixture();
  ModelParams p;
  p.n_threads = 2;
  auto m = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP16.bin"), p);
  const size_t V = 512;
  std::vector<std::vector<float>> out(3, std::vector<float>(V));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < out.size(); ++i) {
    threads.emplace_back([&, i] {
      State st(*m);
      forward(*m, st, fx.tokens.data(), fx.tokens.size(), out[i].data());
    });
  }
  for (auto& t : threads) t.join();
  const float* expected_last = fx.logits.data() + (fx.tokens.size() - 1) * V;
  for (const auto& o : out) CHECK(test::max_abs_diff(o.data(), expected_last, V) <= 2e-5);
  CHECK(out[0] == out[1]);
  CHECK(out[1] == out[2]);
}

TEST_CASE("the Model attaches the tokenizer it finds", "[core][model]") {
  auto gguf = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  REQUIRE(gguf->tokenizer() != nullptr);
  CHECK(gguf->tokenizer()->vocab_size() == 512);
  auto tiny = Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  REQUIRE(tiny->tokenizer() != nullptr);
  CHECK(tiny->tokenizer()->encode("in") == std::vector<uint32_t>{0x69, 0x6E});
  auto bin = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"));
  CHECK(bin->tokenizer() == nullptr);
  // The World vocabulary (65530 ids) cannot serve a 512-token model.
  ModelParams p;
  p.vocab_path = shared_path("tokenizer/rwkv_vocab_v20230424.txt");
  try {
    Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"), p);
    FAIL("expected MismatchError");
  } catch (const MismatchError& e) {
    CHECK_THAT(e.what(), Catch::Contains("65530") && Catch::Contains("512"));
  }
  p.vocab_path = shared_path("tokenizer/missing.txt");
  CHECK_THROWS_AS(Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"), p), IoError);
}

TEST_CASE("dequantize_row agrees with the kernels' matmul for every dtype", "[core][model]") {
  // Random rows of 256 weights (one Q6_K block, eight 32-blocks); the f16 scales are set to sane
  // values. dot(dequantize_row(w), x) must equal the scalar kernel's W . x.
  const cpu::KernelTable* k = cpu::select_kernels("scalar", nullptr);
  REQUIRE(k != nullptr);
  const int64_t n = 256;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) + 0.1f;
  uint32_t seed = 12345;
  auto rnd = [&] { return static_cast<uint8_t>((seed = seed * 1103515245u + 12345u) >> 16); };
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q4_0, DType::Q4_1, DType::Q5_0,
                  DType::Q5_1, DType::Q8_0, DType::Q6_K}) {
    INFO(dtype_name(t));
    const size_t bytes = dtype_row_bytes(t, n);
    std::vector<uint8_t> row(bytes);
    for (auto& b : row) b = rnd();
    const uint16_t scale = f32_to_f16(0.01f), bias = f32_to_f16(-0.05f);
    if (t == DType::F32 || t == DType::F16 || t == DType::BF16) {
      for (int64_t i = 0; i < n; ++i) {
        const float v = static_cast<float>(rnd()) / 128.0f - 1.0f;
        const uint16_t h = t == DType::F16 ? f32_to_f16(v) : f32_to_bf16(v);
        if (t == DType::F32)
          std::memcpy(&row[4 * i], &v, 4);
        else
          std::memcpy(&row[2 * i], &h, 2);
      }
    } else if (t == DType::Q6_K) {
      std::memcpy(&row[208], &scale, 2);
    } else {
      const size_t bb = static_cast<size_t>(dtype_block_bytes(t));
      for (size_t b = 0; b < bytes; b += bb) {
        std::memcpy(&row[b], &scale, 2);
        if (t == DType::Q4_1 || t == DType::Q5_1) std::memcpy(&row[b + 2], &bias, 2);
      }
    }
    std::vector<float> deq(n);
    dequantize_row(t, row.data(), n, deq.data());
    double want = 0.0;
    for (int64_t i = 0; i < n; ++i) want += static_cast<double>(deq[i]) * x[i];
    float got = 0.0f;
    cpu::MatmulArgs a;
    a.w = row.data(), a.wtype = t, a.w_row_bytes = bytes, a.cols = n;
    a.x = x.data(), a.x_stride = n, a.y = &got, a.y_stride = 1, a.T = 1;
    a.row_begin = 0, a.row_end = 1;
    k->matmul(a);
    CHECK(std::abs(got - want) <= 1e-4 * (1.0 + std::abs(want)));
  }
}
