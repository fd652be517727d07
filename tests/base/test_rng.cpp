// Tests of src/base/rng.{h,cpp}: splitmix64 and xoshiro256** against the reference C code's
// outputs, the 53-bit double conversion, and state restoration.
#include <catch2/catch.hpp>

#include "base/error.h"
#include "base/rng.h"

using namespace ai00::internal;

TEST_CASE("splitmix64 matches the reference outputs", "[base][rng]") {
  // The reference splitmix64.c seeded with 0 gives these three outputs.
  uint64_t state = 0;
  CHECK(splitmix64_next(state) == 0xE220A8397B1DCDAFull);
  CHECK(splitmix64_next(state) == 0x6E789E6AA1B965F4ull);
  CHECK(splitmix64_next(state) == 0x06C45D188009454Full);
  CHECK(state == 3 * kSplitMix64Gamma);
  CHECK(splitmix64(0) == 0xE220A8397B1DCDAFull);
  // splitmix64_at jumps straight to output n of any seed's sequence.
  for (uint64_t seed : {uint64_t{0}, uint64_t{42}, ~uint64_t{0}}) {
    uint64_t s = seed;
    for (uint64_t n = 0; n < 100; ++n) REQUIRE(splitmix64_at(seed, n) == splitmix64_next(s));
  }
}

TEST_CASE("rng: xoshiro256** matches the reference implementation", "[base][rng]") {
  Rng a(0);
  CHECK(a.next_u64() == 0x99ec5f36cb75f2b4ull);
  CHECK(a.next_u64() == 0xbf6e1f784956452aull);
  CHECK(a.next_u64() == 0x1a5f849d4933e6e0ull);
  Rng b(42);
  CHECK(b.next_u64() == 0x15780b2e0c2ec716ull);
  CHECK(b.next_u64() == 0x6104d9866d113a7eull);
  CHECK(b.next_u64() == 0xae17533239e499a1ull);
  // 53-bit conversion: the first double of seed 0 is (0x99ec5f36cb75f2b4 >> 11) * 2^-53.
  Rng c(0);
  CHECK(c.next_double() == static_cast<double>(0x99ec5f36cb75f2b4ull >> 11) * 0x1.0p-53);
  for (int i = 0; i < 10000; ++i) {
    const double u = c.next_double();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
  }
  CHECK_THROWS_AS(c.set_words(Rng::Words{}), InvalidArgument);
  Rng d(7);
  Rng e(8);
  e.set_words(d.words());
  CHECK(e.next_u64() == d.next_u64());
}
