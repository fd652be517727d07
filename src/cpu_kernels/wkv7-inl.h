// WKV-7 recurrence (kernels.h Wkv7Args, docs/model.md "WKV-7"), vectorised along the key
// index j of each state row. Row i needs only its own old values for sa[i], so a row is read,
// updated and read out before the rows after it: S[i] stays in L1 between the two passes.
// Never compiled alone; included after elementwise-inl.h in a per-ISA namespace.

// Rows [i0, i0 + RB) of one token of one head (N a multiple of the lane count). Each row's
// work is the same chain of operations as on its own (sa over j ascending, then the update and
// the readout), so its bits do not depend on RB; RB rows side by side give the core RB
// independent chains where one row's are serial (its sa needs a full sum before its update can
// start), and share the loads of w, b, k and r.
template <class A, int RB>
[[gnu::always_inline]] inline void wkv7_rows(float* S, const float* r, const float* w,
                                             const float* k, const float* v, const float* a,
                                             const float* b, float* y, int64_t N, int64_t i0) {
  using B = FB<A>;
  constexpr int64_t L = B::size;
  B sa_acc[RB];
#pragma GCC unroll 8
  for (int q = 0; q < RB; ++q) sa_acc[q] = B(0.0f);
  for (int64_t j = 0; j < N; j += L) {
    const B aj = B::load_unaligned(a + j);
#pragma GCC unroll 8
    for (int q = 0; q < RB; ++q) {
      sa_acc[q] = xsimd::fma(B::load_unaligned(S + (i0 + q) * N + j), aj, sa_acc[q]);
    }
  }
  B sa[RB], vi[RB], y_acc[RB];
#pragma GCC unroll 8
  for (int q = 0; q < RB; ++q) {
    sa[q] = B(xsimd::hadd(sa_acc[q]));
    vi[q] = B(v[i0 + q]);
    y_acc[q] = B(0.0f);
  }
  for (int64_t j = 0; j < N; j += L) {
    const B wj = B::load_unaligned(w + j), bj = B::load_unaligned(b + j);
    const B kj = B::load_unaligned(k + j), rj = B::load_unaligned(r + j);
#pragma GCC unroll 8
    for (int q = 0; q < RB; ++q) {
      float* Si = S + (i0 + q) * N;
      // S*w + sa*b + v*k
      const B vk = vi[q] * kj;
      const B s = xsimd::fma(B::load_unaligned(Si + j), wj, xsimd::fma(sa[q], bj, vk));
      s.store_unaligned(Si + j);
      y_acc[q] = xsimd::fma(s, rj, y_acc[q]);
    }
  }
#pragma GCC unroll 8
  for (int q = 0; q < RB; ++q) y[i0 + q] = xsimd::hadd(y_acc[q]);
}

// One token of one head when N is a multiple of the lane count (every table has 4 lanes or
// more, so N is a multiple of kWkvRows): kWkvRows rows at a time.
constexpr int kWkvRows = 4;
template <class A>
void wkv7_token(float* S, const float* r, const float* w, const float* k, const float* v,
                const float* a, const float* b, float* y, int64_t N) {
  static_assert(FB<A>::size % kWkvRows == 0, "rows come in whole groups");
  for (int64_t i = 0; i < N; i += kWkvRows) wkv7_rows<A, kWkvRows>(S, r, w, k, v, a, b, y, N, i);
}

// Any N (a head narrower than, or not a multiple of, the lane count): plain loops.
inline void wkv7_token_any(float* S, const float* r, const float* w, const float* k, const float* v,
                           const float* a, const float* b, float* y, int64_t N) {
  for (int64_t i = 0; i < N; ++i) {
    float* Si = S + i * N;
    float sa = 0.0f;
    for (int64_t j = 0; j < N; ++j) sa += Si[j] * a[j];
    float yi = 0.0f;
    for (int64_t j = 0; j < N; ++j) {
      Si[j] = Si[j] * w[j] + sa * b[j] + v[i] * k[j];
      yi += Si[j] * r[j];
    }
    y[i] = yi;
  }
}

template <class A>
void wkv7(const Wkv7Args& p) {
  const int64_t N = p.N;
  const bool vec = N % static_cast<int64_t>(FB<A>::size) == 0;
  for (int64_t h = p.head_begin; h < p.head_end; ++h) {
    float* S = p.state + h * N * N;
    for (int64_t t = 0; t < p.T; ++t) {
      const int64_t o = t * p.C + h * N;
      if (vec) {
        wkv7_token<A>(S, p.r + o, p.w + o, p.k + o, p.v + o, p.a + o, p.b + o, p.y + o, N);
      } else {
        wkv7_token_any(S, p.r + o, p.w + o, p.k + o, p.v + o, p.a + o, p.b + o, p.y + o, N);
      }
    }
  }
}
