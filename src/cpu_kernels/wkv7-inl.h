// WKV-7 recurrence (kernels.h Wkv7Args, docs/model.md "WKV-7"), vectorised along the key
// index j of each state row. Row i needs only its own old values for sa[i], so one row is
// read, updated and read out before the next: S[i] stays in L1 between the two passes.
// Never compiled alone; included after elementwise-inl.h in a per-ISA namespace.

// One token of one head when N is a multiple of the lane count.
template <class A>
void wkv7_token(float* S, const float* r, const float* w, const float* k, const float* v,
                const float* a, const float* b, float* y, int64_t N) {
  using B = FB<A>;
  constexpr int64_t L = B::size;
  for (int64_t i = 0; i < N; ++i) {
    float* Si = S + i * N;
    B sa_acc(0.0f);
    for (int64_t j = 0; j < N; j += L) {
      sa_acc = xsimd::fma(B::load_unaligned(Si + j), B::load_unaligned(a + j), sa_acc);
    }
    const B sa(xsimd::hadd(sa_acc)), vi(v[i]);
    B y_acc(0.0f);
    for (int64_t j = 0; j < N; j += L) {
      // S*w + sa*b + v*k
      const B vk = vi * B::load_unaligned(k + j);
      const B s = xsimd::fma(B::load_unaligned(Si + j), B::load_unaligned(w + j),
                             xsimd::fma(sa, B::load_unaligned(b + j), vk));
      s.store_unaligned(Si + j);
      y_acc = xsimd::fma(s, B::load_unaligned(r + j), y_acc);
    }
    y[i] = xsimd::hadd(y_acc);
  }
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
