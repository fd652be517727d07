// matmul_t, the product over a transposed matrix (kernels.h MatmulTArgs), on every runnable ISA:
//   * the scalar table against a plain double sum pins the layout (row d = input d);
//   * every table with a fused multiply-add gives the scalar table's bits, sse2 (two roundings
//     per term) is within a tolerance relative to sum |x w|;
//   * every table gives the same bits for an output whatever the column range, T or tile.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "base/half.h"
#include "kernel_test_util.h"

namespace {

using ai00::internal::DType;
using ai00::internal::cpu::KernelTable;
using ai00::internal::cpu::MatmulTArgs;

// [D][C] weights stored one byte past an aligned address (row stride padded by `pad` elements),
// and the exact value of each.
struct TMatrix {
  DType type;
  int64_t D, C, stride;  // stride: elements between rows
  std::vector<uint8_t> store;
  std::vector<double> value;  // [D][C]
  const uint8_t* data() const { return store.data() + 1; }
  size_t es() const { return type == DType::F32 ? 4 : 2; }
};

TMatrix make_matrix(DType t, int64_t D, int64_t C, int64_t pad, std::mt19937& rng) {
  TMatrix m{t, D, C, C + pad, {}, {}};
  m.store.assign(1 + static_cast<size_t>(D * m.stride) * m.es() + 64, 0xA5);
  m.value.resize(static_cast<size_t>(D * C));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t d = 0; d < D; ++d) {
    for (int64_t c = 0; c < C; ++c) {
      uint8_t* p = m.store.data() + 1 + static_cast<size_t>(d * m.stride + c) * m.es();
      const float v = dist(rng);
      float exact = v;
      if (t == DType::F32) {
        std::memcpy(p, &v, 4);
      } else if (t == DType::F16) {
        const uint16_t h = ai00::internal::f32_to_f16(v);
        std::memcpy(p, &h, 2);
        exact = ai00::internal::f16_to_f32(h);
      } else {
        const uint16_t h = ai00::internal::f32_to_bf16(v);
        std::memcpy(p, &h, 2);
        exact = ai00::internal::bf16_to_f32(h);
      }
      m.value[static_cast<size_t>(d * C + c)] = exact;
    }
  }
  return m;
}

// y [T][C] (the columns outside [c0, c1) keep the guard value).
std::vector<float> run(const KernelTable& k, const TMatrix& m, const std::vector<float>& x,
                       int64_t T, int64_t c0, int64_t c1) {
  std::vector<float> y(static_cast<size_t>(std::max<int64_t>(T, 1) * m.C), -7.0f);
  MatmulTArgs a;
  a.w = m.data(), a.wtype = m.type, a.w_row_bytes = static_cast<size_t>(m.stride) * m.es();
  a.D = m.D, a.x = x.data(), a.x_stride = m.D + 3, a.y = y.data(), a.y_stride = m.C, a.T = T;
  a.col_begin = c0, a.col_end = c1;
  k.matmul_t(a);
  return y;
}

bool has_fma(const KernelTable& k) { return std::string(k.name) != "sse2"; }

}  // namespace

TEST_CASE("matmul_t: scalar equals the exact sum, every ISA scalar's bits (or within a tolerance)",
          "[cpu_kernels][matmul_t][per_isa]") {
  std::mt19937 rng(5);
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    for (int64_t D : {1, 7, 32, 64, 128}) {
      for (int64_t C : {1, 5, 16, 64, 67, 200}) {
        for (int64_t T : {1, 2, 3, 4, 9}) {  // tiles of 1, 2, 3, 4 tokens (mt_regs)
          const TMatrix m = make_matrix(t, D, C, D % 3, rng);
          std::vector<float> x(static_cast<size_t>(T * (D + 3)));
          for (float& v : x) v = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
          INFO(ai00::internal::dtype_name(t) << " D " << D << " C " << C << " T " << T);
          const std::vector<float> want = run(ai00::test::scalar_table(), m, x, T, 0, C);
          for (int64_t tt = 0; tt < T; ++tt) {  // scalar against the exact sum
            for (int64_t c = 0; c < C; ++c) {
              double exact = 0.0, mag = 0.0;
              for (int64_t d = 0; d < D; ++d) {
                const double p = x[static_cast<size_t>(tt * (D + 3) + d)] *
                                 m.value[static_cast<size_t>(d * C + c)];
                exact += p, mag += std::fabs(p);
              }
              REQUIRE(std::fabs(want[static_cast<size_t>(tt * C + c)] - exact) <=
                      1e-6 * mag + 1e-30);
            }
          }
          for (const KernelTable* k : ai00::test::simd_tables()) {
            INFO(k->name);
            const std::vector<float> got = run(*k, m, x, T, 0, C);
            if (has_fma(*k)) {
              REQUIRE(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
            } else {
              REQUIRE(ai00::test::first_mismatch(got.data(), want.data(),
                                                 static_cast<int64_t>(got.size()), 1e-5,
                                                 1e-5 * static_cast<double>(D)) == -1);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("matmul_t: the same bits in any column range and for any T; nothing outside written",
          "[cpu_kernels][matmul_t][per_isa]") {
  std::mt19937 rng(9);
  const int64_t D = 64, C = 200, T = 11;
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const TMatrix m = make_matrix(t, D, C, 5, rng);
    std::vector<float> x(static_cast<size_t>(T * (D + 3)));
    for (float& v : x) v = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
    for (const KernelTable* k : ai00::test::runnable_tables()) {
      INFO(k->name << " " << ai00::internal::dtype_name(t));
      const std::vector<float> whole = run(*k, m, x, T, 0, C);
      for (auto [c0, c1] : {std::pair<int64_t, int64_t>{0, 64},
                            {64, 128},
                            {3, 17},
                            {190, 200},
                            {128, 200},
                            {17, 18}}) {
        const std::vector<float> part = run(*k, m, x, T, c0, c1);
        for (int64_t tt = 0; tt < T; ++tt) {
          for (int64_t c = 0; c < C; ++c) {
            const float got = part[static_cast<size_t>(tt * C + c)];
            if (c < c0 || c >= c1) {
              REQUIRE(got == -7.0f);
            } else {
              REQUIRE(std::memcmp(&got, &whole[static_cast<size_t>(tt * C + c)], 4) == 0);
            }
          }
        }
      }
      // Token t alone (T = 1 from its row) gives the row of the T-token call.
      for (int64_t tt : {int64_t{0}, int64_t{5}, T - 1}) {
        const std::vector<float> xt(x.begin() + tt * (D + 3), x.begin() + (tt + 1) * (D + 3));
        const std::vector<float> one = run(*k, m, xt, 1, 0, C);
        REQUIRE(std::memcmp(one.data(), whole.data() + tt * C, C * sizeof(float)) == 0);
      }
      // T = 0 and an empty range write nothing.
      for (float v : run(*k, m, x, 0, 0, C)) REQUIRE(v == -7.0f);
      for (float v : run(*k, m, x, T, 40, 40)) REQUIRE(v == -7.0f);
    }
  }
}
