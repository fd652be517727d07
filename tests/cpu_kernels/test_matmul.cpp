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

using ai00::internal::DType;
using ai00::internal::cpu::KernelTable;

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
        // 4 and 7: tails of 2 + 2 (3-token tiles); up to 12 the 16-register tables read float
        // rows in pieces, 13 and 20 in panels (matmul-inl.h kPiecesMaxT).
        for (int64_t T : {1, 3, 4, 7, 12, 13, 20}) {
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
      for (int64_t T : {1, 3, 4, 7, 12, 13, 20}) {  // pieces up to 12, then panels
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
        const float want = t == DType::F16 ? ai00::internal::f16_to_f32(special[c])
                                           : ai00::internal::bf16_to_f32(special[c]);
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

// ---- int8 path (kernels.h BlockQ8 / MatmulQ8Args) -------------------------------------------

namespace {

using ai00::internal::cpu::BlockQ8;

const DType kI8Types[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0};

// Activations quantized row by row with table k, in rows of x_stride blocks (one spare block).
struct QActs {
  int64_t T, nblk, stride;
  std::vector<BlockQ8> q;
};

QActs quantize_acts(const KernelTable& k, const Acts& a, int64_t cols) {
  QActs out{a.T, cols / 32, cols / 32 + 1, {}};
  out.q.resize(static_cast<size_t>(a.T * out.stride));
  for (int64_t t = 0; t < a.T; ++t)
    k.quantize_q8(a.x.data() + t * a.stride, &out.q[t * out.stride], cols);
  return out;
}

void run_q8(const KernelTable& k, const Matrix& m, const QActs& a, std::vector<float>& y,
            int64_t r0, int64_t r1, const uint8_t* packed = nullptr, int64_t packed_rows = 0) {
  ai00::internal::cpu::MatmulQ8Args p;
  p.w = packed != nullptr ? packed : m.data();
  p.packed_rows = packed_rows;
  p.wtype = m.type;
  p.w_row_bytes = m.row_bytes;
  p.cols = m.cols;
  p.x = a.q.data();
  p.x_stride = a.stride;
  p.y = y.data();
  p.y_stride = m.rows + 5;
  p.T = a.T;
  p.row_begin = r0;
  p.row_end = r1;
  k.matmul_q8(p);
}

// The activations the int8 path actually multiplies: d * q, as fp32-exact doubles.
Acts dequantized(const QActs& q, int64_t cols) {
  Acts out{q.T, cols, {}};
  out.x.resize(static_cast<size_t>(q.T * cols));
  for (int64_t t = 0; t < q.T; ++t) {
    for (int64_t c = 0; c < cols; ++c) {
      const BlockQ8& b = q.q[t * q.stride + c / 32];
      out.x[t * cols + c] = b.d * static_cast<float>(b.q[c % 32]);
    }
  }
  return out;
}

bool same_blocks(const BlockQ8& a, const BlockQ8& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("quantize_q8 follows its definition and gives the same bits on every ISA",
          "[cpu_kernels][matmul_q8][per_isa]") {
  std::mt19937 rng(3001);
  const int64_t cols = 4096;
  Acts a = make_acts(1, cols, rng);
  for (int e = 0; e < 32; ++e) a.x[static_cast<size_t>(32 + e)] = 0.0f;  // an all-zero block
  a.x[64] = -3.0f;                                                       // amax on a negative
  a.x[100] = 1e-30f;                                                     // tiny values
  // Ties: amax 127 makes the scale exactly 1, so x.5 rounds to even (2.5 -> 2, -3.5 -> -4).
  a.x[160] = 127.0f;
  for (int e = 1; e < 32; ++e)
    a.x[static_cast<size_t>(160 + e)] = (e % 2 ? -1.0f : 1.0f) * (e + 0.5f);
  std::vector<BlockQ8> want(static_cast<size_t>(cols / 32));
  ai00::test::scalar_table().quantize_q8(a.x.data(), want.data(), cols);
  for (int64_t b = 0; b < cols / 32; ++b) {
    const BlockQ8& q = want[static_cast<size_t>(b)];
    float amax = 0.0f;
    for (int e = 0; e < 32; ++e) amax = std::max(amax, std::fabs(a.x[b * 32 + e]));
    REQUIRE(q.d == amax / 127.0f);
    int sum = 0;
    for (int e = 0; e < 32; ++e) {
      const float x = a.x[b * 32 + e];
      // |q - x / d| <= 1/2 (+ rounding of 127 / amax), and q within the int8 range used.
      if (amax > 0) REQUIRE(std::fabs(q.q[e] - x * 127.0f / amax) <= 0.5001f);
      REQUIRE(std::abs(static_cast<int>(q.q[e])) <= 127);
      sum += q.q[e];
    }
    for (int j = 0; j < 8; ++j) {
      REQUIRE(q.psum[j] == q.q[4 * j] + q.q[4 * j + 1] + q.q[4 * j + 2] + q.q[4 * j + 3]);
    }
    REQUIRE(q.sum == sum);
    REQUIRE(q.s == q.d * static_cast<float>(sum));
  }
  CHECK(want[1].d == 0.0f);
  CHECK(want[2].q[0] == -127);
  CHECK((want[5].q[2] == 2 && want[5].q[3] == -4 && want[5].q[1] == -2));  // 2.5, -3.5, -1.5
  for (const KernelTable* k : ai00::test::simd_tables()) {
    std::vector<BlockQ8> got(want.size());
    k->quantize_q8(a.x.data(), got.data(), cols);
    INFO(k->name);
    for (size_t b = 0; b < want.size(); ++b) REQUIRE(same_blocks(got[b], want[b]));
  }
}

TEST_CASE("scalar matmul_q8 equals the exact dot with the quantized activations",
          "[cpu_kernels][matmul_q8]") {
  std::mt19937 rng(3002);
  const KernelTable& s = ai00::test::scalar_table();
  for (DType t : kI8Types) {
    for (int64_t cols : {32, 96, 2080}) {
      for (int64_t T : {1, 3}) {
        const Matrix m = make_matrix(t, 13, cols, rng);
        const QActs q = quantize_acts(s, make_acts(T, cols, rng), cols);
        std::vector<float> y = fresh_y(m, Acts{T, 0, {}});
        run_q8(s, m, q, y, 0, m.rows);
        INFO(wtype_name(t) << ", cols = " << cols << ", T = " << T);
        // Per-block float terms (one rounding each) summed in double.
        check_against_values(y, m, dequantized(q, cols), 1e-6);
      }
    }
  }
}

TEST_CASE("matmul_q8 matches scalar on every ISA, bit-identical across row splits and T",
          "[cpu_kernels][matmul_q8][per_isa]") {
  std::mt19937 rng(3003);
  const KernelTable& s = ai00::test::scalar_table();
  for (const KernelTable* k : ai00::test::runnable_tables()) {
    for (DType t : kI8Types) {
      for (int64_t cols : {32, 96, 512, 2080}) {
        for (int64_t T : {1, 2, 5, 9}) {
          const Matrix m = make_matrix(t, 37, cols, rng);
          const Acts a = make_acts(T, cols, rng);
          const QActs q = quantize_acts(*k, a, cols);
          std::vector<float> got = fresh_y(m, a), want = fresh_y(m, a), split = fresh_y(m, a);
          run_q8(*k, m, q, got, 0, m.rows);
          run_q8(s, m, q, want, 0, m.rows);
          INFO(k->name << ", " << wtype_name(t) << ", cols = " << cols << ", T = " << T);
          const Acts deq = dequantized(q, cols);
          // Same integers; only the fp32 summation of the per-block terms differs. The _1 types
          // add d*q*x and m*x separately, which can cancel (|w x| small while both are large).
          const bool has_min = t == DType::Q4_1 || t == DType::Q5_1;
          check_against_values(got, m, deq, has_min ? 1e-5 : 2e-6);
          for (auto [r0, r1] : {std::pair<int64_t, int64_t>{0, 5}, {5, 6}, {6, 23}, {23, 37}}) {
            run_q8(*k, m, q, split, r0, r1);
          }
          CHECK(got == split);
          // The last token alone (decode) gives the bits it had inside the T-row call.
          QActs last{1, q.nblk, q.stride, {}};
          last.q.assign(q.q.end() - q.stride, q.q.end());
          std::vector<float> single = fresh_y(m, Acts{1, 0, {}});
          run_q8(*k, m, last, single, 0, m.rows);
          CHECK(std::equal(single.begin(), single.end(), got.end() - (m.rows + 5)));
        }
      }
    }
  }
}

TEST_CASE("matmul_q8 on pack_q8's row-interleaved layout matches scalar, same bits in any split",
          "[cpu_kernels][matmul_q8][per_isa]") {
  std::mt19937 rng(3006);
  for (const KernelTable* k : ai00::test::runnable_tables()) {
    if (k->pack_q8 == nullptr) continue;
    for (DType t : kI8Types) {
      // 80 rows: 5 groups, two decode pieces of 2 and one group left over
      for (int64_t rows : {37, 64, 7, 80}) {
        for (int64_t cols : {32, 96, 512, 2080}) {
          const Matrix m = make_matrix(t, rows, cols, rng);
          std::vector<uint8_t> packed(m.store.size() + 128);  // one byte past a 64-byte boundary
          uint8_t* pw = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) + 1;
          const int64_t np = k->pack_q8(t, m.data(), pw, rows, cols);
          INFO(k->name << ", " << wtype_name(t) << ", rows = " << rows << ", cols = " << cols);
          const bool has_min = t == DType::Q4_1 || t == DType::Q5_1;
          REQUIRE(np == rows / 16 * 16);
          const size_t nbytes = m.row_bytes * static_cast<size_t>(rows);
          // In place gives the same bytes; the rows past the groups are left as they were.
          std::vector<uint8_t> inplace(m.data(), m.data() + nbytes);
          CHECK(k->pack_q8(t, inplace.data(), inplace.data(), rows, cols) == np);
          CHECK(std::memcmp(inplace.data(), pw, nbytes) == 0);
          CHECK(std::memcmp(pw + np * m.row_bytes, m.data() + np * m.row_bytes,
                            nbytes - np * m.row_bytes) == 0);
          for (int64_t T : {1, 2, 5, 9}) {
            const Acts a = make_acts(T, cols, rng);
            const QActs q = quantize_acts(*k, a, cols);
            std::vector<float> got = fresh_y(m, a), split = fresh_y(m, a);
            run_q8(*k, m, q, got, 0, rows, pw, np);
            INFO("T = " << T);
            check_against_values(got, m, dequantized(q, cols), has_min ? 1e-5 : 2e-6);
            for (auto [r0, r1] : {std::pair<int64_t, int64_t>{0, 5},
                                  {5, 6},
                                  {6, 17},
                                  {17, 32},
                                  {32, 33},
                                  {33, rows}}) {
              if (r0 < std::min(r1, rows)) run_q8(*k, m, q, split, r0, std::min(r1, rows), pw, np);
            }
            CHECK(got == split);
            const QActs last{1, q.nblk, q.stride,
                             std::vector<BlockQ8>(q.q.end() - q.stride, q.q.end())};
            std::vector<float> single = fresh_y(m, Acts{1, 0, {}});
            run_q8(*k, m, last, single, 0, rows, pw, np);
            CHECK(std::equal(single.begin(), single.end(), got.end() - (rows + 5)));
          }
        }
      }
    }
  }
}

TEST_CASE("matmul_q8 integer sums stay exact at the largest codes and activations",
          "[cpu_kernels][matmul_q8][per_isa]") {
  // Every code at its extreme (Q8_0 -128 and 127, Q4 15, Q5 31) times activations of +-127:
  // the largest pair sums the byte dot products can meet (vpmaddubsw saturates int16 pair sums,
  // and the packed avx2 kernel adds several before widening). Plain and packed layouts.
  std::mt19937 rng(3008);
  const KernelTable& s = ai00::test::scalar_table();
  for (const KernelTable* k : ai00::test::runnable_tables()) {
    for (DType t : kI8Types) {
      const bool has_min = t == DType::Q4_1 || t == DType::Q5_1;
      const bool five = t == DType::Q5_0 || t == DType::Q5_1;
      const size_t qs = (has_min ? 4 : 2) + (five ? 4 : 0), bytes = t == DType::Q8_0 ? 32 : 16;
      Matrix m = make_matrix(t, 37, 512, rng);
      const size_t blk = m.row_bytes / 16;
      for (int64_t r = 0; r < m.rows; ++r) {
        for (int64_t b = 0; b < 16; ++b) {
          uint8_t* p = m.store.data() + 1 + r * m.row_bytes + b * blk;
          const uint8_t code = t == DType::Q8_0 ? (r % 3 == 0 ? 0x7f : 0x80) : 0xff;
          std::memset(p + qs, code, bytes);
          if (five) std::memset(p + qs - 4, 0xff, 4);
        }
      }
      // 5 tokens: a full prefill tile of 4 (the packed kernels' widest int16 sums) and a tail.
      Acts a = make_acts(5, 512, rng);
      for (int64_t c = 0; c < 512; ++c) {
        a.x[static_cast<size_t>(c)] = 1.0f;                                 // q = 127
        a.x[static_cast<size_t>(a.stride + c)] = -1.0f;                     // q = -127
        a.x[static_cast<size_t>(2 * a.stride + c)] = c % 2 ? 1.0f : -1.0f;  // alternating
        a.x[static_cast<size_t>(3 * a.stride + c)] = c % 2 ? -1.0f : 1.0f;
        a.x[static_cast<size_t>(4 * a.stride + c)] = 1.0f;
      }
      const QActs q = quantize_acts(*k, a, 512);
      std::vector<float> want = fresh_y(m, a), got = fresh_y(m, a);
      run_q8(s, m, q, want, 0, m.rows);
      run_q8(*k, m, q, got, 0, m.rows);
      INFO(k->name << ", " << wtype_name(t));
      CHECK(ai00::test::first_mismatch(got.data(), want.data(), static_cast<int64_t>(got.size()),
                                       1e-6, 1e-6) == -1);
      if (k->pack_q8 != nullptr) {
        std::vector<uint8_t> packed(m.data(), m.data() + m.row_bytes * m.rows);
        const int64_t np = k->pack_q8(t, packed.data(), packed.data(), m.rows, 512);
        std::vector<float> pk = fresh_y(m, a);
        run_q8(*k, m, q, pk, 0, m.rows, packed.data(), np);
        CHECK(ai00::test::first_mismatch(pk.data(), want.data(), static_cast<int64_t>(pk.size()),
                                         1e-6, 1e-6) == -1);
      }
    }
  }
}

TEST_CASE("unpack_q8 gives back the bytes pack_q8 rearranged, for any row range",
          "[cpu_kernels][matmul_q8][per_isa]") {
  std::mt19937 rng(3007);
  for (const KernelTable* k : ai00::test::runnable_tables()) {
    if (k->pack_q8 == nullptr) continue;
    REQUIRE(k->unpack_q8 != nullptr);
    for (DType t : kI8Types) {
      for (int64_t rows : {37, 16}) {
        for (int64_t cols : {32, 512}) {
          const Matrix m = make_matrix(t, rows, cols, rng);
          std::vector<uint8_t> packed(m.data(), m.data() + m.row_bytes * rows);
          const int64_t np = k->pack_q8(t, packed.data(), packed.data(), rows, cols);
          INFO(k->name << ", " << wtype_name(t) << ", rows = " << rows << ", cols = " << cols);
          REQUIRE(np == rows / 16 * 16);
          for (auto [r0, r1] : {std::pair<int64_t, int64_t>{0, np}, {5, 16}, {3, np}, {15, 16}}) {
            std::vector<uint8_t> plain(m.row_bytes * static_cast<size_t>(r1 - r0));
            k->unpack_q8(t, packed.data(), cols, r0, r1, plain.data());
            INFO("rows " << r0 << " to " << r1);
            CHECK(std::memcmp(plain.data(), m.data() + m.row_bytes * r0, plain.size()) == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("the int8 path stays close to fp32 activations", "[cpu_kernels][matmul_q8]") {
  // Per-block int8 activations add at most d/2 = amax/254 error per element: the result stays
  // within 1% of sum |w x| for random data (docs/dot-products.md "Integer and BF16 dot products").
  std::mt19937 rng(3004);
  const KernelTable& s = ai00::test::scalar_table();
  for (DType t : kI8Types) {
    const Matrix m = make_matrix(t, 16, 2048, rng);
    const Acts a = make_acts(2, 2048, rng);
    const QActs q = quantize_acts(s, a, 2048);
    std::vector<float> y = fresh_y(m, a);
    run_q8(s, m, q, y, 0, m.rows);
    INFO(wtype_name(t));
    check_against_values(y, m, a, 1.0 / 254.0);
  }
}

// ---- BF16 dot path (kernels.h MatmulBf16Args) ------------------------------------------------

TEST_CASE("matmul_bf16 matches the product with bf16-rounded activations where the ISA has it",
          "[cpu_kernels][matmul_bf16][per_isa]") {
  std::mt19937 rng(3005);
  int tested = 0;
  for (const KernelTable* k : ai00::test::runnable_tables()) {
    if (k->matmul_bf16 == nullptr) {
      CHECK(k->round_bf16 == nullptr);
      continue;
    }
    ++tested;
    for (int64_t cols : {1, 31, 32, 33, 100, 512, 768, 2100}) {
      for (int64_t T : {1, 3, 4, 6, 9}) {
        const Matrix m = make_matrix(DType::BF16, 37, cols, rng);
        const Acts a = make_acts(T, cols, rng);
        const int64_t xs_stride = cols + 7, whole = cols / 32 * 32;
        std::vector<uint16_t> xs(static_cast<size_t>(T * xs_stride), 0);
        Acts rounded = a;  // what the kernel multiplies: whole groups in bf16, the tail in fp32
        for (int64_t tt = 0; tt < T; ++tt) {
          k->round_bf16(a.x.data() + tt * a.stride, xs.data() + tt * xs_stride, cols);
          for (int64_t c = 0; c < whole; ++c) {
            float& v = rounded.x[static_cast<size_t>(tt * a.stride + c)];
            const uint16_t want = ai00::internal::f32_to_bf16(v);
            INFO(k->name << ": round_bf16 of " << v << " at column " << c);
            REQUIRE(xs[static_cast<size_t>(tt * xs_stride + c)] == want);
            v = ai00::internal::bf16_to_f32(want);
          }
        }
        auto run_bf16 = [&](std::vector<float>& y, int64_t r0, int64_t r1, int64_t t0, int64_t nt) {
          ai00::internal::cpu::MatmulBf16Args p;
          p.w = m.data();
          p.w_row_bytes = m.row_bytes;
          p.cols = cols;
          p.x = xs.data() + t0 * xs_stride;
          p.x_stride = xs_stride;
          p.xf = a.x.data() + t0 * a.stride;
          p.xf_stride = a.stride;
          p.y = y.data() + t0 * (m.rows + 5);
          p.y_stride = m.rows + 5;
          p.T = nt;
          p.row_begin = r0;
          p.row_end = r1;
          k->matmul_bf16(p);
        };
        std::vector<float> got = fresh_y(m, a), split = fresh_y(m, a);
        run_bf16(got, 0, m.rows, 0, T);
        INFO(k->name << ", cols = " << cols << ", T = " << T);
        // Exact products of the rounded activations, summed in fp32 (error ~2^-24 per add).
        check_against_values(got, m, rounded, 4e-6);
        // Against fp32 activations: rounding moves each activation by at most 2^-8 of itself.
        check_against_values(got, m, a, 1.0 / 256.0);
        for (auto [r0, r1] : {std::pair<int64_t, int64_t>{0, 5}, {5, 6}, {6, 23}, {23, 37}}) {
          run_bf16(split, r0, r1, 0, T);
        }
        CHECK(got == split);
        std::vector<float> single = fresh_y(m, a);
        run_bf16(single, 0, m.rows, T - 1, 1);
        CHECK(std::equal(single.end() - (m.rows + 5), single.end(), got.end() - (m.rows + 5)));
      }
    }
  }
  if (ai00::internal::cpu::isa_supported("avx512_bf16")) CHECK(tested >= 1);
}

// The packed walk's prefetch shares (matmul_i8_packed_walk-inl.h), instantiated here the way each
// ISA's translation unit does, inside a namespace of its own. PackedWalk needs the plain kernel's
// entry points to compile; the test never runs it.
namespace ai00::internal::cpu::walk_test {
template <DType kT>
void i8_typed(const MatmulQ8Args&) {}
inline void matmul_q8_impl(const MatmulQ8Args&) {}
#include "cpu_kernels/matmul_i8_packed_walk-inl.h"
}  // namespace ai00::internal::cpu::walk_test

TEST_CASE("PkAhead::Blocks gives each block lines * b / nblk to lines * (b + 1) / nblk",
          "[cpu_kernels]") {
  using ai00::internal::cpu::walk_test::PkAhead;
  for (int64_t lines = 0; lines < 300; lines += 7) {
    for (int64_t nblk = 1; nblk < 130; ++nblk) {
      PkAhead a;
      a.first = 64, a.lines = lines;
      PkAhead::Blocks blocks = a.blocks(nblk);
      for (int64_t b = 0; b < nblk; ++b) {
        const PkAhead::Share s = blocks.next();
        INFO("lines " << lines << ", nblk " << nblk << ", block " << b);
        REQUIRE(s.l0 == lines * b / nblk);
        REQUIRE(s.l1 == lines * (b + 1) / nblk);
      }
    }
  }
  PkAhead none;  // no share (first == 0): every block's share is empty
  none.lines = 5;
  PkAhead::Blocks blocks = none.blocks(4);
  for (int b = 0; b < 4; ++b) {
    const PkAhead::Share s = blocks.next();
    CHECK(s.l0 == s.l1);
  }
}
