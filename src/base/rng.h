// Portable, seeded random numbers for sampling (docs/generation.md "Sampler state").
//
// xoshiro256** (Blackman & Vigna, 2018) seeded through splitmix64, with our own bits-to-float
// conversion: the same seed gives the same sequence on every compiler, standard library, CPU
// and thread count. No std:: distribution is used anywhere, because their output differs between
// standard libraries.
//
// Ownership and threading: a plain value (four 64-bit words); copy it to fork a sequence. Not
// synchronised: one Rng per sequence, used by one thread at a time. No member throws except
// set_words (InvalidArgument on the all-zero state, which xoshiro can never leave).
#pragma once

#include <array>
#include <cstdint>

namespace ai00::internal {

// splitmix64 (Steele, Lea & Flood, 2014): a counter advanced by the golden-ratio gamma, each value
// mixed by a bijective finalizer. Used to seed Rng and wherever a fixed, portable 64-bit mix of a
// seed is needed (tool call ids, the per-turn id seed); never for sampling itself.
inline constexpr uint64_t kSplitMix64Gamma = 0x9E3779B97F4A7C15ull;
// The next output of the sequence whose counter is `state` (advances `state` by the gamma).
uint64_t splitmix64_next(uint64_t& state) noexcept;
// The first output of the sequence seeded with `x`: a well-mixed 64-bit hash of x.
uint64_t splitmix64(uint64_t x) noexcept;
// Output number `position` (0-based) of the sequence seeded with `seed`, in O(1).
uint64_t splitmix64_at(uint64_t seed, uint64_t position) noexcept;

class Rng {
 public:
  using Words = std::array<uint64_t, 4>;

  // Seeds with splitmix64(seed), as recommended by the xoshiro authors; any seed (0 included)
  // gives a valid, non-zero state.
  explicit Rng(uint64_t seed = 0) noexcept { reseed(seed); }

  void reseed(uint64_t seed) noexcept;

  // The next 64 random bits (xoshiro256**).
  uint64_t next_u64() noexcept;

  // Uniform in [0, 1) with 53 random bits: (next_u64() >> 11) * 2^-53. Never returns 1.0.
  double next_double() noexcept;

  // The raw generator state, for serialisation (sampler.h) and exact restoration.
  const Words& words() const noexcept { return s_; }
  // Restores a state saved with words(); throws InvalidArgument if all four words are zero.
  void set_words(const Words& words);

 private:
  Words s_{};
};

}  // namespace ai00::internal