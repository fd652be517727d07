// xoshiro256** and splitmix64, transcribed from the reference C code at
// https://prng.di.unimi.it/ (public domain). Only unsigned 64-bit arithmetic: identical on every
// platform.
#include "base/rng.h"

#include "base/error.h"

namespace ai00::internal {
namespace {

uint64_t rotl(uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }

}  // namespace

uint64_t splitmix64_next(uint64_t& state) noexcept {
  uint64_t z = (state += kSplitMix64Gamma);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t splitmix64(uint64_t x) noexcept { return splitmix64_next(x); }

uint64_t splitmix64_at(uint64_t seed, uint64_t position) noexcept {
  // Unsigned arithmetic wraps, so jumping `position` steps ahead is one multiply.
  uint64_t state = seed + kSplitMix64Gamma * position;
  return splitmix64_next(state);
}

// Four splitmix64 outputs are never all zero: splitmix64 is a bijection of a counter that takes
// four distinct values.
void Rng::reseed(uint64_t seed) noexcept {
  uint64_t x = seed;
  for (auto& w : s_) w = splitmix64_next(x);
}

uint64_t Rng::next_u64() noexcept {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::next_double() noexcept {
  // The top 53 bits fill a double's mantissa exactly; the product is exact, so the result is
  // the same on every IEEE-754 machine.
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

void Rng::set_words(const Words& words) {
  if (words[0] == 0 && words[1] == 0 && words[2] == 0 && words[3] == 0) {
    throw InvalidArgument("rng state: all four xoshiro256** words are zero (not a valid state)");
  }
  s_ = words;
}

}  // namespace ai00::internal