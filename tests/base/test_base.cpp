#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "base/half.h"
#include "base/mapped_file.h"
#include "base/result.h"
#include "fixtures.h"

using namespace ai00::internal;
namespace test = ai00::test;

TEST_CASE("f16 and bf16 conversions round-trip every finite half", "[base][half]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint16_t x = static_cast<uint16_t>(h);
    bool nan = ((x >> 10) & 0x1f) == 0x1f && (x & 0x3ff) != 0;
    if (nan) continue;
    REQUIRE(f32_to_f16(f16_to_f32(x)) == x);
    REQUIRE(f32_to_bf16(bf16_to_f32(x)) == x);
  }
  CHECK(f16_to_f32(0x3c00) == 1.0f);
  CHECK(f16_to_f32(0xc000) == -2.0f);
  CHECK(f16_to_f32(0x0001) == std::ldexp(1.0f, -24));
  CHECK(f32_to_f16(65520.0f) == 0x7c00);                      // rounds past the largest half to inf
  CHECK(f32_to_f16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);  // tie rounds to even
  CHECK(bf16_to_f32(0x3f80) == 1.0f);
}

TEST_CASE("Result holds a value or an error", "[base][result]") {
  Result<int> good = 7;
  REQUIRE(good.ok());
  CHECK(good.value() == 7);
  Result<int> bad = make_error(ErrorKind::grammar, "1:2: expected ';'");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "1:2: expected ';'");
  CHECK_THROWS_AS(bad.value(), InternalError);
  CHECK_THROWS_AS(std::move(bad).value_or_throw(), Error);
}

TEST_CASE("MappedFile maps a file and reports missing ones", "[base][mapped_file]") {
  std::string dir = test::temp_dir();
  test::write_bytes(dir + "/x.bin", {1, 2, 3});
  MappedFile f = MappedFile::open(dir + "/x.bin");
  REQUIRE(f.size() == 3);
  CHECK(f.data()[2] == 3);
  MappedFile moved = std::move(f);
  CHECK(moved.size() == 3);
  CHECK(moved.data()[0] == 1);
  test::write_bytes(dir + "/empty.bin", {});
  CHECK(MappedFile::open(dir + "/empty.bin").size() == 0);
  try {
    MappedFile::open(dir + "/missing.bin");
    FAIL("no throw");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("missing.bin") != std::string::npos);
  }
  CHECK_THROWS_AS(MappedFile::open(dir), IoError);
}
