// State: layout, clone/reset, serialization round trips and their error paths, the rwkv.cpp
// layout, and ai00 .state files (good and bad).
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/half.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/model/state_file.h"
#include "fixtures.h"
#include "test_rwkv7_util.h"

using namespace ai00::internal;
namespace test = ai00::test;
using ai00::test::shared_path;

namespace {

std::shared_ptr<const Model> rand_model(const char* file = "rand-rwkv7-c128-l3-v512-FP16.bin") {
  return Model::load(shared_path(std::string("models/") + file));
}

std::vector<float> step(const Model& m, State& st, const std::vector<uint32_t>& tokens) {
  std::vector<float> logits(static_cast<size_t>(m.config().vocab));
  forward(m, st, tokens.data(), tokens.size(), logits.data());
  return logits;
}

}  // namespace

TEST_CASE("a new State is zero, laid out per layer, and clone is independent", "[core][state]") {
  auto m = rand_model();
  State st(*m);
  const int64_t C = 128, N = 64, L = 3;
  CHECK(st.size() == static_cast<size_t>(L * C * (N + 2)));
  CHECK(st.size() == static_cast<size_t>(m->config().state_floats()));
  CHECK(reinterpret_cast<uintptr_t>(st.data()) % 64 == 0);
  CHECK(st.ffn_shift(1) - st.data() == C * (N + 2) + C);
  CHECK(st.wkv(2) - st.data() == 2 * C * (N + 2) + 2 * C);
  for (size_t i = 0; i < st.size(); ++i) REQUIRE(st.data()[i] == 0.0f);

  step(*m, st, {1, 2, 3});
  State copy = st.clone();
  CHECK(std::memcmp(copy.data(), st.data(), st.size_bytes()) == 0);
  std::vector<float> a = step(*m, st, {4});
  std::vector<float> b = step(*m, copy, {4});
  CHECK(a == b);
  st.reset();
  for (size_t i = 0; i < st.size(); ++i) REQUIRE(st.data()[i] == 0.0f);
  CHECK(copy.data()[0] != 0.0f);
}

TEST_CASE("serialize, deserialize and continue gives identical logits", "[core][state]") {
  auto m = rand_model();
  State st(*m);
  step(*m, st, {0, 69, 66, 408});
  const std::vector<uint8_t> bytes = st.serialize();
  CHECK(bytes.size() == st.serialized_size());
  CHECK(bytes.size() == 64 + st.size_bytes() + 8 + st.sampler().serialized_size());
  State back = State::deserialize(*m, bytes.data(), bytes.size());
  CHECK(step(*m, st, {256, 302}) == step(*m, back, {256, 302}));

  // Same weights in another file format: the fingerprint (and so the State) is compatible.
  auto st_model = rand_model("rand-rwkv7-c128-l3-v512.st");
  CHECK(st_model->fingerprint() == m->fingerprint());
  CHECK_NOTHROW(State::deserialize(*st_model, bytes.data(), bytes.size()));

  std::vector<uint8_t> small(10);
  CHECK_THROWS_AS(st.serialize_into(small.data(), small.size()), InvalidArgument);
}

TEST_CASE("a State of another model is refused", "[core][state]") {
  auto tiny = Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  auto m = rand_model();
  CHECK(tiny->fingerprint() != m->fingerprint());
  State t(*tiny);
  const std::vector<uint8_t> bytes = t.serialize();
  try {
    State::deserialize(*m, bytes.data(), bytes.size());
    FAIL("expected MismatchError");
  } catch (const MismatchError& e) {
    CHECK_THAT(e.what(), Catch::Contains("another model") && Catch::Contains("n_embd 64"));
  }
  // Same shapes, other weights: the Q4_0 file's embedding differs, so its fingerprint too.
  auto q4 = rand_model("rand-rwkv7-c128-l3-v512-Q4_0.gguf");
  State s(*m);
  const std::vector<uint8_t> b2 = s.serialize();
  CHECK_THROWS_AS(State::deserialize(*q4, b2.data(), b2.size()), MismatchError);
}

TEST_CASE("truncated or corrupt serialized states name the byte offset", "[core][state]") {
  auto m = rand_model();
  State st(*m);
  step(*m, st, {5, 6});
  const std::vector<uint8_t> good = st.serialize();
  auto expect = [&](std::vector<uint8_t> b, const char* what) {
    try {
      State::deserialize(*m, b.data(), b.size());
      FAIL("expected ModelFileError: " << what);
    } catch (const ModelFileError& e) {
      INFO(e.what());
      CHECK_THAT(e.what(), Catch::Contains("byte offset") && Catch::Contains(what));
    }
  };
  expect(std::vector<uint8_t>(good.begin(), good.begin() + 20), "truncated header");
  expect(std::vector<uint8_t>(good.begin(), good.end() - 4), "truncated");
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  expect(longer, "trailing bytes");
  std::vector<uint8_t> magic = good;
  magic[0] = 'X';
  expect(magic, "bad magic");
  std::vector<uint8_t> version = good;
  version[8] = 9;
  expect(version, "version");
  std::vector<uint8_t> flipped = good;
  flipped[1000] ^= 0x40;
  expect(flipped, "checksum");
  CHECK_THROWS_AS(State::deserialize(*m, nullptr, 0), ModelFileError);
}

TEST_CASE("rwkv.cpp layout export/import round trip", "[core][state]") {
  auto m = rand_model();
  State st(*m);
  step(*m, st, {7, 8, 9});
  std::vector<float> flat(st.size());
  st.export_rwkv_cpp(flat.data(), flat.size());
  // ffn_x comes first in rwkv.cpp's layout.
  CHECK(std::memcmp(flat.data(), st.ffn_shift(0), 128 * 4) == 0);
  CHECK(std::memcmp(flat.data() + 128, st.att_shift(0), 128 * 4) == 0);
  State back(*m);
  back.import_rwkv_cpp(flat.data(), flat.size());
  CHECK(std::memcmp(back.data(), st.data(), st.size_bytes()) == 0);
  CHECK_THROWS_AS(back.import_rwkv_cpp(flat.data(), flat.size() - 1), InvalidArgument);
  CHECK_THROWS_AS(st.export_rwkv_cpp(flat.data(), 3), InvalidArgument);
}

TEST_CASE("ai00 .state files: transposed load, bad files", "[core][state]") {
  auto m = rand_model();
  const std::string path = shared_path("models/rand-rwkv7-c128-l3-v512-init.state");
  State st = load_ai00_state_file(*m, path);
  for (int64_t l = 0; l < 3; ++l) {
    for (int i = 0; i < 128; ++i) REQUIRE(st.att_shift(l)[i] == 0.0f);
  }
  const std::vector<uint8_t> bytes = test::read_bytes(path);
  // Entry [h=1][j=2][i=5] of block 0 in the file is S[1][5][2] in the State.
  uint64_t hdr;
  std::memcpy(&hdr, bytes.data(), 8);
  const std::string json(reinterpret_cast<const char*>(bytes.data() + 8), hdr);
  const size_t key = json.find("\"blocks.0.att.time_state\"");
  REQUIRE(key != std::string::npos);
  const size_t off_pos = json.find("data_offsets", key);
  const uint64_t begin = std::stoull(json.substr(json.find('[', off_pos) + 1));
  uint16_t raw;
  std::memcpy(&raw, bytes.data() + 8 + hdr + begin + 2 * ((1 * 64 + 2) * 64 + 5), 2);
  CHECK(st.wkv(0)[(1 * 64 + 5) * 64 + 2] == f16_to_f32(raw));

  auto expect_file_error = [&](std::vector<uint8_t> b, const char* what) {
    try {
      load_ai00_state_bytes(*m, b.data(), b.size(), "x.state");
      FAIL("expected ModelFileError: " << what);
    } catch (const ModelFileError& e) {
      INFO(e.what());
      CHECK_THAT(e.what(), Catch::Contains("x.state") && Catch::Contains(what));
    }
  };
  expect_file_error(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 4), "truncated");
  expect_file_error(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 100), "past the end");
  expect_file_error(std::vector<uint8_t>(bytes.begin(), bytes.end() - 2), "data area");
  std::vector<uint8_t> bad_json = bytes;
  bad_json[8] = '[';
  expect_file_error(bad_json, "JSON");
  // A state of another model (tiny: 1 head) is a mismatch.
  auto tiny = Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  CHECK_THROWS_AS(load_ai00_state_file(*tiny, path), MismatchError);
  CHECK_THROWS_AS(load_ai00_state_file(*m, path + ".missing"), IoError);
}
