// Matmul for every weight type on every runnable ISA (docs/model.md "Kernels and ISAs").
//
// The weights are built by a small quantizer in this file: random integer codes and scales are
// packed into blocks following docs/weight-files.md "Element types" (and ggml's quantize_row_q6_K
// packing), and the exact weight values are computed from the codes, not from the bytes. So
//   * the scalar table against a plain double dot of those values pins the block layouts, and
//   * every other ISA is compared with scalar (tolerance relative to sum |w x|), and
//   * every table gives bit-identical rows whether the rows are computed in one call or split.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/half.h"
#include "kernel_test_util.h"

namespace {

using ai00::internal::cpu::KernelTable;
using ai00::internal::DType;

const char* wtype_name(DType t) { return ai00::internal::dtype_name(t); }

// A weight matrix: packed bytes (starting one byte past an aligned address, as in a .bin file
// without padding) plus the exact value of every weight.
struct Matrix {
  DType type;
  int64_t rows, cols;
  size_t row_bytes;
  std::vector<uint8_t> store;
  std::vector<double> value;  // [rows][cols]
  const uint8_t* data() const { return store.data() + 1; }
};

void put_u16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }

// Draws an f16 scale in [lo, hi) and returns its exact value.
float f16_scale(uint8_t* p, std::mt19937& rng, float lo, float hi) {
  const uint16_t h = ai00::internal::f32_to_f16(std::uniform_real_distribution<float>(lo, hi)(rng));
  put_u16(p, h);
  return ai00::internal::f16_to_f32(h);
}

// One 32-weight block of Q4_0/Q4_1/Q5_0/Q5_1/Q8_0 from random codes.
void quantize_q32(DType t, uint8_t* b, double* val, std::mt19937& rng) {
  const bool has_min = t == DType::Q4_1 || t == DType::Q5_1;
  const float d = f16_scale(b, rng, 0.001f, 0.1f);
  const float m = has_min ? f16_scale(b + 2, rng, -0.5f, 0.5f) : 0.0f;
  const int bits = (t == DType::Q8_0) ? 8 : (t == DType::Q5_0 || t == DType::Q5_1) ? 5 : 4;
  std::uniform_int_distribution<int> code(0, (1 << bits) - 1);
  int q[32];
  for (int& v : q) v = code(rng);
  if (t == DType::Q8_0) {
    for (int e = 0; e < 32; ++e) {
      b[2 + e] = static_cast<uint8_t>(q[e]);  // two's complement int8
      val[e] = double(d) * static_cast<int8_t>(static_cast<uint8_t>(q[e]));
    }
    return;
  }
  const size_t qs = bits == 5 ? (has_min ? 8 : 6) : (has_min ? 4 : 2);
  uint32_t qh = 0;
  for (int e = 0; e < 16; ++e) {
    b[qs + e] = static_cast<uint8_t>((q[e] & 15) | ((q[e + 16] & 15) << 4));
  }
  for (int e = 0; e < 32; ++e) qh |= static_cast<uint32_t>((q[e] >> 4) & 1) << e;
  if (bits == 5) std::memcpy(b + (has_min ? 4 : 2), &qh, 4);
  const int offset = has_min ? 0 : (bits == 5 ? 16 : 8);
  for (int e = 0; e < 32; ++e) {
    val[e] = has_min ? double(float(d * float(q[e])) + m) : double(d) * (q[e] - offset);
  }
}

// One Q6_K super-block: ql[128] | qh[64] | scales[16] | d, packed as ggml's quantize_row_q6_K.
void quantize_q6_k(uint8_t* b, double* val, std::mt19937& rng) {
  std::uniform_int_distribution<int> code(0, 63), scale(-128, 127);
  int q[256];
  for (int& v : q) v = code(rng);
  int8_t sc[16];
  for (int8_t& s : sc) s = static_cast<int8_t>(scale(rng));
  const float d = f16_scale(b + 208, rng, 0.0001f, 0.01f);
  uint8_t *ql = b, *qh = b + 128;
  for (int j = 0; j < 256; j += 128) {
    for (int l = 0; l < 32; ++l) {
      const int* L = q + j + l;
      ql[l] = static_cast<uint8_t>((L[0] & 15) | ((L[64] & 15) << 4));
      ql[l + 32] = static_cast<uint8_t>((L[32] & 15) | ((L[96] & 15) << 4));
      qh[l] = static_cast<uint8_t>((L[0] >> 4) | ((L[32] >> 4) << 2) | ((L[64] >> 4) << 4) |
                                   ((L[96] >> 4) << 6));
    }
    ql += 64;
    qh += 32;
  }
  std::memcpy(b + 192, sc, 16);
  for (int e = 0; e < 256; ++e) val[e] = double(d * float(sc[e / 16])) * (q[e] - 32);
}

Matrix make_matrix(DType t, int64_t rows, int64_t cols, std::mt19937& rng) {
  Matrix m{t, rows, cols, ai00::internal::dtype_row_bytes_or_zero(t, cols), {}, {}};
  REQUIRE(m.row_bytes > 0);
  m.store.assign(1 + m.row_bytes * rows, 0);
  m.value.assign(static_cast<size_t>(rows * cols), 0.0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* row = m.store.data() + 1 + r * m.row_bytes;
    double* val = m.value.data() + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      const float f = dist(rng);
      if (t == DType::F32) {
        std::memcpy(row + 4 * c, &f, 4);
        val[c] = f;
      } else if (t == DType::F16) {
        put_u16(row + 2 * c, ai00::internal::f32_to_f16(f));
        val[c] = ai00::internal::f16_to_f32(ai00::internal::f32_to_f16(f));
      } else if (t == DType::BF16) {
        put_u16(row + 2 * c, ai00::internal::f32_to_bf16(f));
        val[c] = ai00::internal::bf16_to_f32(ai00::internal::f32_to_bf16(f));
      }
    }
    if (t == DType::Q6_K) {
      for (int64_t b = 0; b < cols / 256; ++b) quantize_q6_k(row + b * 210, val + b * 256, rng);
    } else if (t != DType::F32 && t != DType::F16 && t != DType::BF16) {
      const size_t bytes = m.row_bytes / static_cast<size_t>(cols / 32);
      for (int64_t b = 0; b < cols / 32; ++b) quantize_q32(t, row + b * bytes, val + b * 32, rng);
    }
  }
  return m;
}

struct Acts {
  int64_t T, stride;
  std::vector<float> x;  // [T][stride]
};

Acts make_acts(int64_t T, int64_t cols, std::mt19937& rng) {
  Acts a{T, cols + 3, {}};
  a.x.resize(static_cast<size_t>(T * a.stride));
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (float& v : a.x) v = dist(rng);
  return a;
}

constexpr float kUnwritten = -777.0f;

// Y for rows [r0, r1) by one call; the output has stride rows + 5, pre-filled with kUnwritten.
void run(const KernelTable& k, const Matrix& m, const Acts& a, std::vector<float>& y, int64_t r0,
         int64_t r1) {
  ai00::internal::cpu::MatmulArgs p;
  p.w = m.data();
  p.wtype = m.type;
  p.w_row_bytes = m.row_bytes;
  p.cols = m.cols;
  p.x = a.x.data();
  p.x_stride = a.stride;
  p.y = y.data();
  p.y_stride = m.rows + 5;
  p.T = a.T;
  p.row_begin = r0;
  p.row_end = r1;
  k.matmul(p);
}

std::vector<float> fresh_y(const Matrix& m, const Acts& a) {
  return std::vector<float>(static_cast<size_t>(a.T * (m.rows + 5)), kUnwritten);
}

// Checks every output of y against the exact double dot; |diff| <= rtol * sum |w x|.
void check_against_values(const std::vector<float>& y, const Matrix& m, const Acts& a,
                          double rtol) {
  for (int64_t t = 0; t < a.T; ++t) {
    for (int64_t r = 0; r < m.rows; ++r) {
      double dot = 0.0, scale = 0.0;
      for (int64_t c = 0; c < m.cols; ++c) {
        const double p = m.value[r * m.cols + c] * a.x[t * a.stride + c];
        dot += p;
        scale += std::fabs(p);
      }
      const float got = y[t * (m.rows + 5) + r];
      INFO("t = " << t << ", row = " << r << ": got " << got << ", want " << dot);
      REQUIRE(std::fabs(got - dot) <= rtol * scale + 1e-30);
    }
    for (int64_t r = m.rows; r < m.rows + 5; ++r) REQUIRE(y[t * (m.rows + 5) + r] == kUnwritten);
  }
}

const DType kAllTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q4_0, DType::Q4_1,
                           DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::Q6_K};

// Widths past 1024 columns cross the prefill's column chunks (matmul-inl.h kChunkCols).
std::vector<int64_t> cols_for(DType t) {
  if (t == DType::Q6_K) return {256, 512, 2304};
  if (t == DType::F32 || t == DType::F16 || t == DType::BF16) {
    return {1, 7, 16, 31, 32, 33, 47, 64, 100, 512, 2100};
  }
  return {32, 96, 512, 2080};
}

}  // namespace

TEST_CASE("scalar matmul equals an independent dequantize-then-dot", "[cpu_kernels][matmul]") {
  std::mt19937 rng(2024);
  for (DType t : kAllTypes) {
    for (int64_t cols : cols_for(t)) {
      for (int64_t T : {1, 3}) {
        const Matrix m = make_matrix(t, 13, cols, rng);
        const Acts a = make_acts(T, cols, rng);
        std::vector<float> y = fresh_y(m, a);
        run(ai00::test::scalar_table(), m, a, y, 0, m.rows);
        INFO(wtype_name(t) << ", cols = " << cols << ", T = " << T);
        check_against_values(y, m, a, 1e-6);
      }
    }
  }
}

TEST_CASE("matmul matches scalar on every ISA for every weight type",
          "[cpu_kernels][matmul][per_isa]") {
  std::mt19937 rng(2025);
  for (const KernelTable* k : ai00::test::simd_tables()) {
    for (DType t : kAllTypes) {
      for (int64_t cols : cols_for(t)) {
        for (int64_t T : {1, 3, 7}) {
          const Matrix m = make_matrix(t, 13, cols, rng);
          const Acts a = make_acts(T, cols, rng);
          std::vector<float> y = fresh_y(m, a);
          run(*k, m, a, y, 0, m.rows);
          INFO(k->name << ", " << wtype_name(t) << ", cols = " << cols << ", T = " << T);
          // fp32 accumulation over at most 2304 products: far below 2e-5 of sum |w x|.
          check_against_values(y, m, a, 2e-5);
        }
      }
    }
  }
}

TEST_CASE("matmul rows split into ranges (or T = 1) are bit-identical to one call",
          "[cpu_kernels][matmul][per_isa]") {
  std::mt19937 rng(2026);
  for (const KernelTable* k : ai00::test::runnable_tables()) {
    for (DType t : kAllTypes) {
      const int64_t cols = cols_for(t).back();
      for (int64_t T : {1, 3, 7}) {
        const Matrix m = make_matrix(t, 37, cols, rng);
        const Acts a = make_acts(T, cols, rng);
        std::vector<float> whole = fresh_y(m, a), split = fresh_y(m, a), part = fresh_y(m, a);
        run(*k, m, a, whole, 0, m.rows);
        for (auto [r0, r1] : {std::pair<int64_t, int64_t>{0, 5}, {5, 6}, {6, 23}, {23, 37}}) {
          run(*k, m, a, split, r0, r1);
        }
        run(*k, m, a, part, 9, 11);  // a range writes its rows only
        INFO(k->name << ", " << wtype_name(t) << ", T = " << T);
        CHECK(whole == split);
        // Decode (T = 1) of the last token gives the same bits as that token inside prefill.
        Acts last{1, a.stride, {}};
        last.x.assign(a.x.end() - a.stride, a.x.end());
        std::vector<float> single = fresh_y(m, last);
        run(*k, m, last, single, 0, m.rows);
        CHECK(std::equal(single.begin(), single.end(), whole.end() - (m.rows + 5)));
        for (int64_t tt = 0; tt < T; ++tt) {
          for (int64_t r = 0; r < m.rows + 5; ++r) {
            const float v = part[tt * (m.rows + 5) + r];
            if (r >= 9 && r < 11) {
              REQUIRE(v == whole[tt * (m.rows + 5) + r]);
            } else {
              REQUIRE(v == kUnwritten);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("matmul with an empty row range or T = 0 writes nothing",
          "[cpu_kernels][matmul][per_isa]") {
  std::mt19937 rng(2027);
  const Matrix m = make_matrix(DType::Q8_0, 4, 64, rng);
  for (const KernelTable* k : ai00::test::runnable_tables()) {
    Acts a = make_acts(2, 64, rng);
    std::vector<float> y = fresh_y(m, a);
    run(*k, m, a, y, 3, 3);
    a.T = 0;
    run(*k, m, a, y, 0, 4);
    INFO(k->name);
    CHECK(y == fresh_y(m, Acts{2, 0, {}}));
  }
}

TEST_CASE("f16 and bf16 weights decode special values exactly", "[cpu_kernels][matmul][per_isa]") {
  // One row of 40 halves: subnormals, the smallest normal, -0, the largest finite, 1 and -2, then
  // ones; x picks each column alone in turn, so y equals the decoded weight exactly.
  const uint16_t f16[] = {0x0001, 0x03ff, 0x0400, 0x8000, 0x7bff, 0x3c00, 0xc000, 0x8001};
  const uint16_t bf16[] = {0x0001, 0x007f, 0x0080, 0x8000, 0x7f7f, 0x3f80, 0xc000, 0x8001};
  for (DType t : {DType::F16, DType::BF16}) {
    const uint16_t* special = t == DType::F16 ? f16 : bf16;
    std::vector<uint8_t> w(80);
    for (int c = 0; c < 40; ++c) {
      const uint16_t h = c < 8 ? special[c] : (t == DType::F16 ? 0x3c00 : 0x3f80);
      std::memcpy(w.data() + 2 * c, &h, 2);
    }
    for (const KernelTable* k : ai00::test::runnable_tables()) {
      for (int c = 0; c < 8; ++c) {
        std::vector<float> x(40, 0.0f);
        x[c] = 1.0f;
        float y = 0.0f;
        ai00::internal::cpu::MatmulArgs p;
        p.w = w.data();
        p.wtype = t;
        p.w_row_bytes = 80;
        p.cols = 40;
        p.x = x.data();
        p.x_stride = 40;
        p.y = &y;
        p.y_stride = 1;
        p.row_end = 1;
        k->matmul(p);
        const float want =
            t == DType::F16 ? ai00::internal::f16_to_f32(special[c]) : ai00::internal::bf16_to_f32(special[c]);
        INFO(k->name << ", " << wtype_name(t) << ", column " << c);
        CHECK(y == want);
      }
    }
  }
}

TEST_CASE("f16 infinity and NaN weights propagate", "[cpu_kernels][matmul][per_isa]") {
  // Row 0 = (+inf, 0, ...), row 1 = (NaN, 0, ...), x = (1, 0, ...): y = (+inf, NaN).
  uint16_t w16[64] = {};
  w16[0] = 0x7c00;
  w16[32] = 0x7e00;
  std::vector<float> x(32, 0.0f);
  x[0] = 1.0f;
  for (const KernelTable* k : ai00::test::runnable_tables()) {
    float y[2] = {0.0f, 0.0f};
    ai00::internal::cpu::MatmulArgs p;
    p.w = reinterpret_cast<const uint8_t*>(w16);
    p.wtype = DType::F16;
    p.w_row_bytes = 64;
    p.cols = 32;
    p.x = x.data();
    p.x_stride = 32;
    p.y = y;
    p.y_stride = 2;
    p.row_end = 2;
    k->matmul(p);
    INFO(k->name);
    CHECK(y[0] == std::numeric_limits<float>::infinity());
    CHECK(std::isnan(y[1]));
  }
}
