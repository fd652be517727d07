// Helpers of the per-ISA kernel tests (docs/model.md "Kernels and ISAs"): the tables to compare
// against the scalar reference, seeded random data, misaligned buffers and tolerances.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cpu_kernels/kernels.h"

namespace ai00::test {
using namespace ::ai00::internal;  // test helpers of the internal layers

// The scalar reference table.
inline const cpu::KernelTable& scalar_table() {
  std::string err;
  return *cpu::select_kernels("scalar", &err);
}

// Every compiled table this CPU can run, except scalar (the reference).
inline std::vector<const cpu::KernelTable*> simd_tables() {
  size_t n = 0;
  const cpu::KernelTable* const* all = cpu::all_kernel_tables(&n);
  std::vector<const cpu::KernelTable*> out;
  for (size_t i = 0; i < n; ++i) {
    if (std::string(all[i]->name) != "scalar" && cpu::isa_supported(all[i]->name)) {
      out.push_back(all[i]);
    }
  }
  return out;
}

// Every runnable table including scalar.
inline std::vector<const cpu::KernelTable*> runnable_tables() {
  std::vector<const cpu::KernelTable*> out = simd_tables();
  out.push_back(&scalar_table());
  return out;
}

// Lengths 0 .. 2 * 16 + 1 (twice the widest lane count plus one) and a few large ones.
inline std::vector<int64_t> test_lengths() {
  std::vector<int64_t> out;
  for (int64_t n = 0; n <= 33; ++n) out.push_back(n);
  for (int64_t n : {63, 64, 65, 100, 1000, 4097}) out.push_back(n);
  return out;
}

// A float buffer whose data() starts `offset` floats past a 64-byte boundary, filled with
// uniform values in [lo, hi). Guard floats after the end detect out-of-range writes.
class Buffer {
 public:
  static constexpr int64_t kGuard = 16;
  static constexpr float kGuardValue = -12345.0f;
  Buffer(int64_t n, int64_t offset, std::mt19937& rng, float lo = -2.0f, float hi = 2.0f)
      : store_(static_cast<size_t>(n + offset + kGuard + 16), kGuardValue), n_(n) {
    auto addr = reinterpret_cast<uintptr_t>(store_.data());
    const int64_t skip = static_cast<int64_t>(((64 - addr % 64) % 64) / sizeof(float));
    begin_ = skip + offset;
    std::uniform_real_distribution<float> dist(lo, hi);
    for (int64_t i = 0; i < n; ++i) data()[i] = dist(rng);
  }
  float* data() { return store_.data() + begin_; }
  const float* data() const { return store_.data() + begin_; }
  int64_t size() const { return n_; }
  bool guards_intact() const {
    for (int64_t i = 0; i < kGuard; ++i) {
      if (store_[static_cast<size_t>(begin_ + n_ + i)] != kGuardValue) return false;
    }
    return true;
  }

 private:
  std::vector<float> store_;
  int64_t begin_ = 0;
  int64_t n_ = 0;
};

// |got - want| <= rtol * |want| + atol, element by element; returns the first bad index or -1.
inline int64_t first_mismatch(const float* got, const float* want, int64_t n, double rtol,
                              double atol) {
  for (int64_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(d <= rtol * std::fabs(static_cast<double>(want[i])) + atol)) return i;
  }
  return -1;
}

}  // namespace ai00::test
