// LayerNorm/GroupNorm and WKV-7 on every runnable ISA against the scalar table (docs/model.md
// "Kernels and ISAs"), plus the head-range split invariance the core's thread split relies on.
#include <catch2/catch.hpp>
#include <cstring>

#include "kernel_test_util.h"

namespace {

using ai00::internal::cpu::KernelTable;
using ai00::test::Buffer;

void run_norm(const KernelTable& t, const Buffer& x, Buffer& y, const Buffer& w, const Buffer& b,
              int64_t rows, int64_t n, int64_t group) {
  ai00::internal::cpu::NormArgs a;
  a.x = x.data();
  a.y = y.data();
  a.weight = w.data();
  a.bias = b.data();
  a.rows = rows;
  a.n = n;
  a.group_size = group;
  a.eps = 64e-5f;
  t.norm(a);
}

}  // namespace

TEST_CASE("norm matches scalar on every ISA", "[cpu_kernels][norm][per_isa]") {
  const KernelTable& ref = ai00::test::scalar_table();
  std::mt19937 rng(5);
  struct Shape {
    int64_t n, group;
  };
  std::vector<Shape> shapes;
  for (int64_t n = 1; n <= 33; ++n) shapes.push_back({n, 0});
  for (Shape s : {Shape{64, 64}, Shape{768, 64}, Shape{4096, 0}, Shape{4097, 0}, Shape{33, 10},
                  Shape{48, 16}, Shape{40, 8}})
    shapes.push_back(s);
  for (const KernelTable* t : ai00::test::simd_tables()) {
    for (Shape s : shapes) {
      for (int64_t off = 0; off < 4; ++off) {
        const int64_t rows = 3, total = rows * s.n;
        // An offset mean makes the two-pass variance matter.
        Buffer x(total, off, rng, 5.0f, 9.0f), w(s.n, (off + 1) % 4, rng),
            b(s.n, (off + 2) % 4, rng);
        Buffer got(total, (off + 3) % 4, rng), want(total, 0, rng);
        run_norm(*t, x, got, w, b, rows, s.n, s.group);
        run_norm(ref, x, want, w, b, rows, s.n, s.group);
        INFO(t->name << ", n = " << s.n << ", group = " << s.group << ", offset = " << off);
        CHECK(ai00::test::first_mismatch(got.data(), want.data(), total, 2e-5, 2e-5) < 0);
        CHECK(got.guards_intact());
        // In place (y == x) gives the same result.
        Buffer inplace(total, off, rng);
        std::memcpy(inplace.data(), x.data(), sizeof(float) * static_cast<size_t>(total));
        run_norm(*t, inplace, inplace, w, b, rows, s.n, s.group);
        CHECK(ai00::test::first_mismatch(inplace.data(), got.data(), total, 0.0, 0.0) < 0);
      }
    }
  }
}

TEST_CASE("norm of a constant row is the bias", "[cpu_kernels][norm][per_isa]") {
  std::mt19937 rng(6);
  for (const KernelTable* t : ai00::test::runnable_tables()) {
    Buffer x(40, 0, rng), w(40, 1, rng), b(40, 2, rng), y(40, 3, rng);
    for (int i = 0; i < 40; ++i) x.data()[i] = 3.25f;
    run_norm(*t, x, y, w, b, 1, 40, 0);
    INFO(t->name);
    CHECK(ai00::test::first_mismatch(y.data(), b.data(), 40, 0.0, 1e-6) < 0);
  }
}

namespace {

struct WkvCase {
  int64_t H, N, T;
  std::vector<float> state, r, w, k, v, a, b, y;
};

WkvCase make_wkv(int64_t H, int64_t N, int64_t T, std::mt19937& rng) {
  WkvCase c{H, N, T, {}, {}, {}, {}, {}, {}, {}, {}};
  std::uniform_real_distribution<float> sym(-1.0f, 1.0f), decay(0.55f, 1.0f);
  auto fill = [&](std::vector<float>& v, size_t n, std::uniform_real_distribution<float>& d) {
    v.resize(n);
    for (float& f : v) f = d(rng);
  };
  const size_t tc = static_cast<size_t>(T * H * N);
  fill(c.state, static_cast<size_t>(H * N * N), sym);
  fill(c.r, tc, sym);
  fill(c.w, tc, decay);
  fill(c.k, tc, sym);
  fill(c.v, tc, sym);
  fill(c.a, tc, sym);
  fill(c.b, tc, sym);
  c.y.assign(tc, 0.0f);
  return c;
}

void run_wkv(const KernelTable& t, WkvCase& c, int64_t h0, int64_t h1) {
  ai00::internal::cpu::Wkv7Args a;
  a.state = c.state.data();
  a.r = c.r.data();
  a.w = c.w.data();
  a.k = c.k.data();
  a.v = c.v.data();
  a.a = c.a.data();
  a.b = c.b.data();
  a.y = c.y.data();
  a.T = c.T;
  a.C = c.H * c.N;
  a.N = c.N;
  a.head_begin = h0;
  a.head_end = h1;
  t.wkv7(a);
}

}  // namespace

TEST_CASE("wkv7 matches scalar on every ISA", "[cpu_kernels][wkv7][per_isa]") {
  const KernelTable& ref = ai00::test::scalar_table();
  for (const KernelTable* t : ai00::test::simd_tables()) {
    std::mt19937 rng(77);  // the same cases for every ISA, however many tables there are
    for (int64_t N : {64, 32, 16, 8, 4, 12, 5}) {
      for (int64_t T : {1, 3}) {
        WkvCase got = make_wkv(3, N, T, rng);
        WkvCase want = got;
        run_wkv(*t, got, 0, 3);
        run_wkv(ref, want, 0, 3);
        INFO(t->name << ", N = " << N << ", T = " << T);
        // Values are sums of about N terms that grow over the tokens (with a, b in [-1, 1],
        // sa reaches ~sqrt(N) and the state entries several units), and cancel: tolerance
        // 1e-5 relative plus 4e-5 absolute (sse2, without FMA, differed by 2.1e-5 at N = 64).
        CHECK(ai00::test::first_mismatch(got.y.data(), want.y.data(),
                                         static_cast<int64_t>(want.y.size()), 1e-5, 4e-5) < 0);
        CHECK(ai00::test::first_mismatch(got.state.data(), want.state.data(),
                                         static_cast<int64_t>(want.state.size()), 1e-5, 4e-5) < 0);
      }
    }
  }
}

TEST_CASE("wkv7 of T tokens in one call equals T calls of one token, bit for bit",
          "[cpu_kernels][wkv7][per_isa]") {
  // Chunk sizes must not change a result (docs/batching.md): a call of 4 tokens or more may run
  // on the transposed state (wkv7-inl.h), one token never does.
  std::mt19937 rng(79);
  for (const KernelTable* t : ai00::test::runnable_tables()) {
    for (int64_t N : {64, 32, 16, 8, 12}) {
      for (int64_t T : {4, 7, 16}) {
        WkvCase whole = make_wkv(2, N, T, rng);
        WkvCase step = whole;
        run_wkv(*t, whole, 0, 2);
        const int64_t C = 2 * N;
        for (int64_t k = 0; k < T; ++k) {
          WkvCase one{2, N, 1, step.state, {}, {}, {}, {}, {}, {}, {}};
          auto slice = [&](const std::vector<float>& v) {
            return std::vector<float>(v.begin() + k * C, v.begin() + (k + 1) * C);
          };
          one.r = slice(step.r), one.w = slice(step.w), one.k = slice(step.k);
          one.v = slice(step.v), one.a = slice(step.a), one.b = slice(step.b);
          one.y.assign(static_cast<size_t>(C), 0.0f);
          run_wkv(*t, one, 0, 2);
          step.state = one.state;
          std::copy(one.y.begin(), one.y.end(), step.y.begin() + k * C);
        }
        INFO(t->name << ", N = " << N << ", T = " << T);
        CHECK(std::memcmp(whole.y.data(), step.y.data(), whole.y.size() * 4) == 0);
        CHECK(std::memcmp(whole.state.data(), step.state.data(), whole.state.size() * 4) == 0);
      }
    }
  }
}

TEST_CASE("wkv7 head ranges are independent", "[cpu_kernels][wkv7][per_isa]") {
  std::mt19937 rng(78);
  for (const KernelTable* t : ai00::test::runnable_tables()) {
    WkvCase whole = make_wkv(4, 64, 2, rng);
    WkvCase split = whole;
    run_wkv(*t, whole, 0, 4);
    run_wkv(*t, split, 0, 1);
    run_wkv(*t, split, 1, 3);
    run_wkv(*t, split, 3, 4);
    INFO(t->name);
    CHECK(whole.y == split.y);
    CHECK(whole.state == split.state);
  }
}

TEST_CASE("wkv7 follows the recurrence on a hand-checked case", "[cpu_kernels][wkv7][per_isa]") {
  // N = 1: S' = S*w + (S*a)*b + v*k, y = S'*r. S=2, w=0.5, a=-1, b=0.25, v=3, k=4, r=10:
  // S' = 1 - 0.5 + 12 = 12.5, y = 125.
  for (const KernelTable* t : ai00::test::runnable_tables()) {
    float S = 2.0f, r = 10.0f, w = 0.5f, k = 4.0f, v = 3.0f, a = -1.0f, b = 0.25f, y = 0.0f;
    ai00::internal::cpu::Wkv7Args args;
    args.state = &S;
    args.r = &r;
    args.w = &w;
    args.k = &k;
    args.v = &v;
    args.a = &a;
    args.b = &b;
    args.y = &y;
    args.C = 1;
    args.N = 1;
    args.head_end = 1;
    t->wkv7(args);
    INFO(t->name);
    CHECK(S == 12.5f);
    CHECK(y == 125.0f);
  }
}
