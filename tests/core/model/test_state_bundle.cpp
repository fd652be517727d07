// State bundles: round trip (buffer and file, all and by name), and bad input: truncated,
// another model, duplicated names, corrupt checksums, each error naming entry and offset.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/model/state_bundle.h"
#include "fixtures.h"

using namespace ai00::internal;
using ai00::test::shared_path;

namespace {

std::shared_ptr<const Model> tiny() {
  return Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
}

// Three villagers with different histories and seeds.
std::vector<State> village(const Model& m) {
  std::vector<State> v;
  for (uint32_t k = 0; k < 3; ++k) {
    State s(m);
    std::vector<uint32_t> t = {10 + k, 20 + k, 30 + k, 40};
    forward(m, s, t.data(), t.size() - k, nullptr);
    s.sampler().set_seed(100 + k);
    v.push_back(std::move(s));
  }
  return v;
}

std::vector<BundleItem> items_of(const std::vector<State>& v) {
  static const char* const names[] = {"smith", "baker", "mayor"};
  std::vector<BundleItem> items;
  for (size_t i = 0; i < v.size(); ++i) items.push_back({names[i], &v[i]});
  return items;
}

}  // namespace

TEST_CASE("a bundle round-trips many States through a buffer and a file", "[state_bundle]") {
  auto m = tiny();
  const std::vector<State> v = village(*m);
  const std::vector<uint8_t> bytes = save_state_bundle(items_of(v));
  CHECK(bytes.size() == state_bundle_size(items_of(v)));
  StateBundle b = StateBundle::open(bytes.data(), bytes.size(), "village");
  REQUIRE(b.size() == 3);
  CHECK(b.name(1) == "baker");
  CHECK(b.fingerprint(2) == m->fingerprint());
  CHECK(b.find("mayor") == 2);
  CHECK(b.find("nobody") == 3);
  std::vector<State> all = b.load_all(*m);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(all[i].serialize() == v[i].serialize());  // floats and sampler state
  }
  State baker = b.load(*m, b.find("baker"));
  CHECK(baker.sampler().seed() == 101);

  const std::string path = ai00::test::temp_dir() + "/village.ai00bundle";
  save_state_bundle_file(items_of(v), path);
  StateBundle f = StateBundle::open_file(path);
  CHECK(f.load(*m, 0).serialize() == v[0].serialize());
  CHECK(ai00::test::read_bytes(path) == bytes);

  // An empty bundle is valid.
  const std::vector<uint8_t> empty = save_state_bundle({});
  CHECK(StateBundle::open(empty.data(), empty.size(), "empty").size() == 0);
}

TEST_CASE("bundles with bad input fail naming the entry and the byte offset", "[state_bundle]") {
  auto m = tiny();
  const std::vector<State> v = village(*m);
  const std::vector<uint8_t> bytes = save_state_bundle(items_of(v));
  const size_t entry1 = 32 + 32 + 5 + v[0].serialized_size();  // offset of "baker"

  SECTION("duplicated or empty names are refused when saving") {
    std::vector<BundleItem> dup = items_of(v);
    dup[2].name = "smith";
    CHECK_THROWS_WITH(save_state_bundle(dup),
                      Catch::Contains("entry 2") && Catch::Contains("'smith' is used twice"));
    dup[2].name = "";
    CHECK_THROWS_WITH(save_state_bundle(dup), Catch::Contains("entry 2: the name is empty"));
    dup[2].name = "\xff";
    CHECK_THROWS_AS(save_state_bundle(dup), InvalidArgument);
  }
  SECTION("truncated at every region") {
    for (size_t cut : {size_t{10}, size_t{40}, entry1 + 10, bytes.size() - 1}) {
      CAPTURE(cut);
      CHECK_THROWS_AS(StateBundle::open(bytes.data(), cut, "village"), ModelFileError);
    }
    CHECK_THROWS_WITH(StateBundle::open(bytes.data(), bytes.size() - 1, "village"),
                      Catch::Contains("entry 2 ('mayor')") && Catch::Contains("byte offset"));
  }
  SECTION("a corrupt byte fails the entry's checksum") {
    std::vector<uint8_t> bad = bytes;
    bad[entry1 + 32 + 5 + 100] ^= 0x40;  // inside baker's State floats
    CHECK_THROWS_WITH(StateBundle::open(bad.data(), bad.size(), "village"),
                      Catch::Contains("entry 1 ('baker')") &&
                          Catch::Contains("byte offset " + std::to_string(entry1 + 24)) &&
                          Catch::Contains("checksum"));
    std::vector<uint8_t> head = bytes;
    head[16] = 9;  // the count: the header checksum catches it
    CHECK_THROWS_WITH(StateBundle::open(head.data(), head.size(), "village"),
                      Catch::Contains("byte offset 24") && Catch::Contains("header checksum"));
    std::vector<uint8_t> magic = bytes;
    magic[0] = 'X';
    CHECK_THROWS_WITH(StateBundle::open(magic.data(), magic.size(), "village"),
                      Catch::Contains("bad magic"));
  }
  SECTION("a duplicated name in a bundle written elsewhere") {
    std::vector<uint8_t> dup = bytes;
    std::memcpy(dup.data() + entry1 + 32, "smith", 5);  // baker -> smith, checksum fixed below
    uint64_t h = 0xcbf29ce484222325ull;
    const size_t len = 5 + v[1].serialized_size();
    for (size_t i = 0; i < len; ++i) {
      h ^= dup[entry1 + 32 + i];
      h *= 0x100000001b3ull;
    }
    std::memcpy(dup.data() + entry1 + 24, &h, 8);
    CHECK_THROWS_WITH(StateBundle::open(dup.data(), dup.size(), "village"),
                      Catch::Contains("entry 1 ('smith')") && Catch::Contains("used twice"));
  }
  SECTION("States of another model") {
    auto other = Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"));
    StateBundle b = StateBundle::open(bytes.data(), bytes.size(), "village");
    CHECK_THROWS_WITH(b.load(*other, 1), Catch::Contains("entry 1 ('baker') at byte offset " +
                                                         std::to_string(entry1)) &&
                                             Catch::Contains("another model"));
    CHECK_THROWS_AS(b.load_all(*other), MismatchError);
    CHECK_THROWS_AS(b.load(*m, 3), InvalidArgument);
  }
}
