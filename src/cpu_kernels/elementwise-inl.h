// Element-wise kernels and dot (kernels.h KernelTable). Never compiled alone; included after
// simd_load-inl.h in a per-ISA namespace.
//
// Tails (n not a multiple of the lane count) go through the same vector code on a zero-padded
// stack copy, so an element's result never depends on its position or on n.

template <class A, class F>
void map_n(const float* const* in, int n_in, float* y, int64_t n, F f) {
  using B = FB<A>;
  constexpr int64_t L = B::size;
  B v[3];
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int k = 0; k < n_in; ++k) v[k] = B::load_unaligned(in[k] + i);
    f(v).store_unaligned(y + i);
  }
  if (i < n) {
    alignas(64) float tmp[3][L] = {};
    alignas(64) float out[L];
    const int64_t rest = n - i;
    for (int k = 0; k < n_in; ++k) {
      std::memcpy(tmp[k], in[k] + i, static_cast<size_t>(rest) * sizeof(float));
      v[k] = B::load_aligned(tmp[k]);
    }
    f(v).store_aligned(out);
    std::memcpy(y + i, out, static_cast<size_t>(rest) * sizeof(float));
  }
}

template <class A>
FB<A> sigmoid_v(const FB<A>& x) {
  // exp(-x) overflows to +inf for x < -88, and 1 / (1 + inf) = 0 is the right limit.
  return FB<A>(1.0f) / (FB<A>(1.0f) + xsimd::exp(-x));
}

template <class A>
void lerp(const float* x, const float* d, const float* m, float* y, int64_t n) {
  const float* in[3] = {x, d, m};
  map_n<A>(in, 3, y, n, [](const FB<A>* v) { return xsimd::fma(v[1], v[2], v[0]); });
}

template <class A>
void sigmoid(const float* x, float* y, int64_t n) {
  const float* in[1] = {x};
  map_n<A>(in, 1, y, n, [](const FB<A>* v) { return sigmoid_v<A>(v[0]); });
}

template <class A>
void tanh_(const float* x, float* y, int64_t n) {
  const float* in[1] = {x};
  map_n<A>(in, 1, y, n, [](const FB<A>* v) { return xsimd::tanh(v[0]); });
}

template <class A>
void decay(const float* x, float* y, int64_t n) {
  const float* in[1] = {x};
  map_n<A>(in, 1, y, n,
           [](const FB<A>* v) { return xsimd::exp(FB<A>(-0.606531f) * sigmoid_v<A>(v[0])); });
}

template <class A>
void relu_sq(const float* x, float* y, int64_t n) {
  const float* in[1] = {x};
  map_n<A>(in, 1, y, n, [](const FB<A>* v) {
    const FB<A> r = xsimd::max(v[0], FB<A>(0.0f));
    return r * r;
  });
}

template <class A>
void add(const float* a, const float* b, float* y, int64_t n) {
  const float* in[2] = {a, b};
  map_n<A>(in, 2, y, n, [](const FB<A>* v) { return v[0] + v[1]; });
}

template <class A>
void mul(const float* a, const float* b, float* y, int64_t n) {
  const float* in[2] = {a, b};
  map_n<A>(in, 2, y, n, [](const FB<A>* v) { return v[0] * v[1]; });
}

template <class A>
void fma_(const float* a, const float* b, const float* c, float* y, int64_t n) {
  const float* in[3] = {a, b, c};
  map_n<A>(in, 3, y, n, [](const FB<A>* v) { return xsimd::fma(v[1], v[2], v[0]); });
}

// Sum of a[i] * b[i] with two vector accumulators, one hadd, then the scalar tail: a fixed
// order for a given n.
template <class A>
float dot(const float* a, const float* b, int64_t n) {
  using B = FB<A>;
  constexpr int64_t L = B::size;
  B acc0(0.0f), acc1(0.0f);
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    acc0 = xsimd::fma(B::load_unaligned(a + i), B::load_unaligned(b + i), acc0);
    acc1 = xsimd::fma(B::load_unaligned(a + i + L), B::load_unaligned(b + i + L), acc1);
  }
  if (i + L <= n) {
    acc0 = xsimd::fma(B::load_unaligned(a + i), B::load_unaligned(b + i), acc0);
    i += L;
  }
  float s = xsimd::hadd(acc0 + acc1);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}
