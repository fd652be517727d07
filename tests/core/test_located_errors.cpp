// Issue 15 regressions of the core readers: errors say where (a GGUF vocabulary escape: file and
// byte offset; a State of another model: which dimension; a `.state` file with NaN or infinity:
// tensor, element and byte offset) and limits are checked before the work (pickle MARK nesting,
// file size before mapping, threads before loading, max_tokens before prefill).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/limits.h"
#include "base/mapped_file.h"
#include "core/model/model.h"
#include "core/model/state.h"
#include "core/model/state_file.h"
#include "core/pipeline/generator.h"
#include "core/tokenizer/tokenizer.h"
#include "core/weights/pickle.h"
#include "fixtures.h"

using namespace ai00::internal;
using ai00::test::shared_path;
using Catch::Matchers::Contains;

namespace {
struct LimitsGuard {
  Limits saved = limits();
  ~LimitsGuard() { set_limits(saved); }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// An ai00 `.state` file (safetensors, F32) for a model of L layers, H heads of size N.
std::vector<uint8_t> state_file(int64_t L, int64_t H, int64_t N, float poison, size_t at) {
  std::string header = "{";
  std::vector<uint8_t> data;
  for (int64_t l = 0; l < L; ++l) {
    std::vector<float> v(static_cast<size_t>(H * N * N), 0.5f);
    if (l == 1) v[at] = poison;
    size_t begin = data.size();
    data.resize(begin + v.size() * 4);
    std::memcpy(data.data() + begin, v.data(), v.size() * 4);
    header += std::string(l ? "," : "") + "\"blocks." + std::to_string(l) +
              ".att.time_state\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(H) + "," +
              std::to_string(N) + "," + std::to_string(N) + "],\"data_offsets\":[" +
              std::to_string(begin) + "," + std::to_string(data.size()) + "]}";
  }
  header += "}";
  std::vector<uint8_t> out(8 + header.size() + data.size());
  uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  std::memcpy(out.data() + 8, header.data(), header.size());
  std::memcpy(out.data() + 8 + header.size(), data.data(), data.size());
  return out;
}
}  // namespace

TEST_CASE("a bad escape in a GGUF vocabulary names the file and byte offset", "[core][limits]") {
  std::vector<std::string> tokens = {"<s>", "a", "ok\\x4"};
  std::string msg = error_of([&] { Tokenizer::from_gguf(tokens, {}, "m.gguf", {100, 120, 140}); });
  CHECK_THAT(msg, Contains("m.gguf: GGUF tokenizer.ggml.tokens[2] at byte offset 142: bad "
                           "escape \\x: expected 2 hex digits"));
  msg = error_of([&] { Tokenizer::from_gguf(tokens, {}); });
  CHECK_THAT(msg, Contains("tokens[2] at byte 2 of the entry"));
}

TEST_CASE("a State of another model says which dimension differs", "[core][limits]") {
  auto tiny = Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  auto rnd = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  auto q8 = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-Q8_0.gguf"));
  State t(*tiny);
  CHECK_THAT(error_of([&] { t.check_model(*rnd); }),
             Contains("n_layer differs (state 12, model 3)"));
  State r(*rnd);
  auto bytes = r.serialize();
  CHECK_THAT(error_of([&] { State::deserialize(*q8, bytes.data(), bytes.size()); }),
             Contains("the dimensions agree but the weights differ"));
}

TEST_CASE("NaN or infinity in a State is an error with its location", "[core][limits]") {
  auto tiny = Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  State s(*tiny);
  const int64_t L = s.n_layer(), H = s.n_head(), N = s.head_size();
  auto good = state_file(L, H, N, 0.25f, 3);
  CHECK_NOTHROW(load_ai00_state_bytes(*tiny, good.data(), good.size(), "good.state"));
  auto bad = state_file(L, H, N, NAN, 3);
  std::string msg =
      error_of([&] { load_ai00_state_bytes(*tiny, bad.data(), bad.size(), "x.state"); });
  CHECK_THAT(msg, Contains("x.state: byte offset"));
  CHECK_THAT(msg, Contains("tensor 'blocks.1.att.time_state' element [0, 0, 3] is NaN"));
  auto inf = state_file(L, H, N, INFINITY, 3);
  CHECK_THAT(error_of([&] { load_ai00_state_bytes(*tiny, inf.data(), inf.size(), "x.state"); }),
             Contains("is infinite"));
  std::vector<float> flat(s.size(), 0.0f);
  flat[10] = NAN;
  CHECK_THAT(error_of([&] { s.import_rwkv_cpp(flat.data(), flat.size()); }),
             Contains("float 10 is NaN"));
}

TEST_CASE("pickle nesting, file size, threads and tokens are bounded before the work",
          "[core][limits]") {
  LimitsGuard guard;
  std::string pk = "\x80\x02" + std::string(300, '(') + ".";
  CHECK_THAT(error_of([&] {
               read_torch_state_dict(reinterpret_cast<const uint8_t*>(pk.data()), pk.size(),
                                     "w.pth", 1000);
             }),
             Contains("w.pth: byte offset 1258: pickle: MARK nesting exceeds the limit "
                      "max_nesting_depth = 256"));
  Limits l = limits();
  l.max_file_bytes = 1000;
  l.max_threads = 4;
  l.max_tokens = 5;
  set_limits(l);
  const std::string model_path = shared_path("models/tiny-rwkv-7v0-834K-FP32.bin");
  CHECK_THAT(error_of([&] { MappedFile::open(model_path); }),
             Contains("exceeds the limit max_file_bytes = 1000"));
  ModelParams p;
  p.n_threads = 5;
  CHECK_THAT(error_of([&] { Model::load("/nonexistent", p); }),
             Contains("ModelParams.n_threads: 5 threads exceeds the limit max_threads = 4"));
  l.max_file_bytes = guard.saved.max_file_bytes;
  set_limits(l);
  auto m = Model::load(model_path);
  State st(*m);
  GenerateOptions o;
  o.max_tokens = 6;
  CHECK_THAT(error_of([&] {
               Generator g(m, st, RawRequest{"hi", {}}, o);
             }),
             Contains("max_tokens 6 exceeds the limit max_tokens = 5"));
  o.max_tokens = 2;
  CHECK_THAT(error_of([&] {
               Generator g(m, st, RawRequest{"a prompt of many bytes", {}}, o);
             }),
             Contains("tokens exceeds the limit max_tokens = 5"));
}
