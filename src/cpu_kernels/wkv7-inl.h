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

// ---- T > 1: the state transposed --------------------------------------------------------
// Row i's sums over j (sa and the readout) are a horizontal sum per row, about 40 % of the row
// kernel's instructions. With the state transposed (St[j][i] = S[i][j]) a vector holds L rows,
// so lane l of row i's accumulator becomes vector l of L (the FMA chain over the columns
// j = cL + l, c ascending, from 0 as in wkv7_rows) and xsimd::hadd's tree becomes vertical adds
// of those vectors: the same operations in the same order, so the same bits as wkv7_rows
// (tests/cpu_kernels: a T-token call equals T calls of one token, bit for bit). For the 16-lane
// tables (AVX-512), whose hadd tree is written out here: `bench_kernels wkv7/avx512/H64xN64/T16`
// 586-613 -> 499-506 us. On AVX2 (8 lanes, 16 registers) the row kernel's sums are a smaller
// share and the same code ran slower (561-589 -> 652 us), so it keeps the row kernel. The two
// transposes cost about a token, so only calls of kWkvColsMinT tokens or more take this path.
#if defined(__AVX512F__)
constexpr int64_t kWkvColsMinT = 4;
constexpr int64_t kWkvColsMaxN = 64;

// xsimd::hadd's tree on 16 lanes (xsimd 8, avx512f: the halves added, then avx's tree) over the
// lane vectors P[0..16): s_l = P_l + P_(l+8), z_l = s_l + s_(l+4), then (z0 + z1) + (z2 + z3).
template <class B, int L>
[[gnu::always_inline]] inline B wkv_lane_tree(B (&P)[L]) {
  static_assert(L == 16, "the tree of 16 lanes");
#pragma GCC unroll 8
  for (int l = 0; l < 8; ++l) P[l] = P[l] + P[l + 8];
#pragma GCC unroll 4
  for (int l = 0; l < 4; ++l) P[l] = P[l] + P[l + 4];
  return (P[0] + P[1]) + (P[2] + P[3]);
}

// One token on rows [i0, i0 + L) of the transposed state St (N x N).
template <class A>
[[gnu::always_inline]] inline void wkv7_cols(float* St, const float* r, const float* w,
                                             const float* k, const float* v, const float* a,
                                             const float* b, float* y, int64_t N, int64_t i0) {
  using B = FB<A>;
  constexpr int L = static_cast<int>(B::size);
  B P[L];
#pragma GCC unroll 16
  for (int l = 0; l < L; ++l) P[l] = B(0.0f);
  for (int64_t c = 0; c < N; c += L) {
#pragma GCC unroll 16
    for (int l = 0; l < L; ++l) {
      P[l] = xsimd::fma(B::load_unaligned(St + (c + l) * N + i0), B(a[c + l]), P[l]);
    }
  }
  const B sa = wkv_lane_tree<B, L>(P);
  const B vi = B::load_unaligned(v + i0);
#pragma GCC unroll 16
  for (int l = 0; l < L; ++l) P[l] = B(0.0f);
  for (int64_t c = 0; c < N; c += L) {
#pragma GCC unroll 16
    for (int l = 0; l < L; ++l) {
      float* col = St + (c + l) * N + i0;
      const B vk = vi * B(k[c + l]);
      const B s = xsimd::fma(B::load_unaligned(col), B(w[c + l]), xsimd::fma(sa, B(b[c + l]), vk));
      s.store_unaligned(col);
      P[l] = xsimd::fma(s, B(r[c + l]), P[l]);
    }
  }
  wkv_lane_tree<B, L>(P).store_unaligned(y + i0);
}

// dst = src^T for one 8 x 8 block (row strides ns, nd): the usual unpack, shuffle and lane swap.
inline void wkv_transpose8(const float* src, int64_t ns, float* dst, int64_t nd) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ns);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(dst + i * nd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(dst + (i + 4) * nd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}

// dst = src^T (N x N, N a multiple of 16 here).
inline void wkv_transpose(const float* src, float* dst, int64_t N) {
  for (int64_t i0 = 0; i0 < N; i0 += 8) {
    for (int64_t j0 = 0; j0 < N; j0 += 8)
      wkv_transpose8(src + i0 * N + j0, N, dst + j0 * N + i0, N);
  }
}

// All T tokens of head h on its transposed state.
template <class A>
void wkv7_head_cols(const Wkv7Args& p, float* S, int64_t h) {
  const int64_t N = p.N, L = FB<A>::size;
  alignas(64) float St[kWkvColsMaxN * kWkvColsMaxN];
  wkv_transpose(S, St, N);
  for (int64_t t = 0; t < p.T; ++t) {
    const int64_t o = t * p.C + h * N;
    for (int64_t i = 0; i < N; i += L) {
      wkv7_cols<A>(St, p.r + o, p.w + o, p.k + o, p.v + o, p.a + o, p.b + o, p.y + o, N, i);
    }
  }
  wkv_transpose(St, S, N);
}
#endif  // __AVX512F__

template <class A>
void wkv7(const Wkv7Args& p) {
  const int64_t N = p.N;
  const bool vec = N % static_cast<int64_t>(FB<A>::size) == 0;
  for (int64_t h = p.head_begin; h < p.head_end; ++h) {
    float* S = p.state + h * N * N;
#if defined(__AVX512F__)  // the transposed path (above)
    if (vec && p.T >= kWkvColsMinT && N <= kWkvColsMaxN) {
      wkv7_head_cols<A>(p, S, h);
      continue;
    }
#endif
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
