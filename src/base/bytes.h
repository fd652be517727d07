// Byte-level helpers of the library's own binary formats (State files, State bundles, the
// sampler-state section, the model fingerprint): the FNV-1a 64 hash and unaligned
// little-endian loads and stores. The formats are little-endian; so is every host ai00 builds
// for (x86-64, AArch64), so a memcpy of the value is the little-endian encoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ai00::internal {

inline constexpr uint64_t kFnv1aBasis = 0xcbf29ce484222325ull;

// FNV-1a, 64 bit, over n bytes, continuing from h (chain calls to hash several ranges). A
// checksum and a stable fingerprint, not a defence against deliberate collisions.
inline uint64_t fnv1a64(const void* data, size_t n, uint64_t h = kFnv1aBasis) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

// Writes v at out + off / reads a T at in + off (no alignment needed).
template <class T>
void store_le(uint8_t* out, size_t off, T v) {
  std::memcpy(out + off, &v, sizeof(T));
}
template <class T>
T load_le(const uint8_t* in, size_t off) {
  T v;
  std::memcpy(&v, in + off, sizeof(T));
  return v;
}

}  // namespace ai00::internal
