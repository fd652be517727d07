// Element-wise kernels and dot on every runnable ISA against the scalar table (docs/model.md
// "Kernels and ISAs"): lengths 0..33 and a few large ones, start offsets 0..3 floats past a 64-byte
// boundary.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "kernel_test_util.h"

namespace {

using ai00::internal::cpu::KernelTable;
using ai00::test::Buffer;

using Unary = void (*)(const float*, float*, int64_t);
using Binary = void (*)(const float*, const float*, float*, int64_t);
using Ternary = void (*)(const float*, const float*, const float*, float*, int64_t);

// Runs `run(table, inputs, out)` on the ISA table and on scalar for every length and offset,
// and compares the outputs (relative tolerance plus a tiny absolute floor near zero).
void check_op(const char* op, float lo, float hi, double rtol, double atol,
              const std::function<void(const KernelTable&, Buffer* in, Buffer& out)>& run) {
  const KernelTable& ref = ai00::test::scalar_table();
  std::mt19937 rng(1234);
  for (const KernelTable* t : ai00::test::simd_tables()) {
    for (int64_t n : ai00::test::test_lengths()) {
      for (int64_t off = 0; off < 4; ++off) {
        Buffer in[3] = {Buffer(n, off, rng, lo, hi), Buffer(n, (off + 1) % 4, rng, lo, hi),
                        Buffer(n, (off + 2) % 4, rng, lo, hi)};
        Buffer got(n, (off + 3) % 4, rng), want(n, 0, rng);
        run(*t, in, got);
        run(ref, in, want);
        INFO(op << " on " << t->name << ", n = " << n << ", offset = " << off);
        const int64_t bad = ai00::test::first_mismatch(got.data(), want.data(), n, rtol, atol);
        if (bad >= 0) {
          INFO("index " << bad << ": x = " << in[0].data()[bad] << ", got " << got.data()[bad]
                        << ", want " << want.data()[bad]);
          CHECK(bad < 0);
        }
        CHECK(got.guards_intact());
      }
    }
  }
}

void check_unary(const char* op, Unary KernelTable::*fn, float lo, float hi, double rtol) {
  check_op(op, lo, hi, rtol, 1e-7, [fn](const KernelTable& t, Buffer* in, Buffer& out) {
    (t.*fn)(in[0].data(), out.data(), out.size());
  });
}

void check_binary(const char* op, Binary KernelTable::*fn) {
  check_op(op, -3.0f, 3.0f, 1e-6, 1e-7, [fn](const KernelTable& t, Buffer* in, Buffer& out) {
    (t.*fn)(in[0].data(), in[1].data(), out.data(), out.size());
  });
}

// a + b * c may be one rounding (FMA) or two: under cancellation the difference is an ulp of
// the operands (|a| + |b c| <= 12 here), not of the result, hence the absolute term.
void check_ternary(const char* op, Ternary KernelTable::*fn) {
  check_op(op, -3.0f, 3.0f, 1e-6, 2e-6, [fn](const KernelTable& t, Buffer* in, Buffer& out) {
    (t.*fn)(in[0].data(), in[1].data(), in[2].data(), out.data(), out.size());
  });
}

}  // namespace

TEST_CASE("unary kernels match scalar on every ISA", "[cpu_kernels][elementwise][per_isa]") {
  check_unary("sigmoid", &KernelTable::sigmoid, -20.0f, 20.0f, 2e-6);
  check_unary("tanh", &KernelTable::tanh, -6.0f, 6.0f, 2e-6);
  check_unary("decay", &KernelTable::decay, -20.0f, 20.0f, 2e-6);
  check_unary("relu_sq", &KernelTable::relu_sq, -3.0f, 3.0f, 1e-6);
}

TEST_CASE("sigmoid and decay saturate without NaN", "[cpu_kernels][elementwise][per_isa]") {
  const float x[5] = {-1000.0f, -89.0f, 0.0f, 89.0f, 1000.0f};
  for (const KernelTable* t : ai00::test::runnable_tables()) {
    float s[5], d[5];
    t->sigmoid(x, s, 5);
    t->decay(x, d, 5);
    INFO(t->name);
    CHECK(s[0] == 0.0f);
    CHECK(s[2] == 0.5f);
    CHECK(s[4] == 1.0f);
    CHECK(d[0] == 1.0f);
    CHECK(d[4] == Approx(std::exp(-0.606531f)).epsilon(1e-6));
  }
}

TEST_CASE("binary and ternary kernels match scalar on every ISA",
          "[cpu_kernels][elementwise][per_isa]") {
  check_binary("add", &KernelTable::add);
  check_binary("mul", &KernelTable::mul);
  check_ternary("lerp", &KernelTable::lerp);
  check_ternary("fma", &KernelTable::fma);
}

TEST_CASE("element-wise kernels accept an output aliasing an input",
          "[cpu_kernels][elementwise][per_isa]") {
  std::mt19937 rng(7);
  for (const KernelTable* t : ai00::test::runnable_tables()) {
    Buffer x(37, 1, rng), d(37, 2, rng), m(37, 3, rng);
    std::vector<float> want(37);
    t->lerp(x.data(), d.data(), m.data(), want.data(), 37);
    t->lerp(x.data(), d.data(), m.data(), x.data(), 37);  // y == x
    INFO(t->name);
    CHECK(ai00::test::first_mismatch(x.data(), want.data(), 37, 0.0, 0.0) < 0);
  }
}

TEST_CASE("dot matches scalar on every ISA and is deterministic", "[cpu_kernels][dot][per_isa]") {
  const KernelTable& ref = ai00::test::scalar_table();
  std::mt19937 rng(99);
  for (const KernelTable* t : ai00::test::simd_tables()) {
    for (int64_t n : ai00::test::test_lengths()) {
      for (int64_t off = 0; off < 4; ++off) {
        Buffer a(n, off, rng), b(n, (off + 1) % 4, rng);
        double scale = 0.0;  // sum |a b|: the condition of the sum
        for (int64_t i = 0; i < n; ++i) scale += std::fabs(double(a.data()[i]) * b.data()[i]);
        const float got = t->dot(a.data(), b.data(), n);
        INFO(t->name << ", n = " << n << ", offset = " << off);
        CHECK(std::fabs(got - ref.dot(a.data(), b.data(), n)) <= 1e-5 * scale + 1e-30);
        CHECK(got == t->dot(a.data(), b.data(), n));
      }
    }
  }
}
