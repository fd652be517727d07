// LayerNorm / GroupNorm (kernels.h NormArgs): per group, mean then the biased variance of the
// centred values (two passes, docs/model.md "Numerics"), then (x - mean) * rstd * weight + bias.
// Never compiled alone; included after elementwise-inl.h in a per-ISA namespace.

// Sum of f(x[i]) over [0, n) with one vector accumulator and a scalar tail.
template <class A, class F>
float sum_map(const float* x, int64_t n, F f) {
  using B = FB<A>;
  constexpr int64_t L = B::size;
  B acc(0.0f);
  int64_t i = 0;
  for (; i + L <= n; i += L) acc += f(B::load_unaligned(x + i));
  float s = xsimd::hadd(acc);
  for (; i < n; ++i) s += f(x[i]);
  return s;
}

template <class A>
void norm_group(const float* x, float* y, const float* weight, const float* bias, int64_t n,
                float eps) {
  using B = FB<A>;
  constexpr int64_t L = B::size;
  const float mean = sum_map<A>(x, n, [](auto v) { return v; }) / static_cast<float>(n);
  const float var = sum_map<A>(x, n,
                               [mean](auto v) {
                                 const auto c = v - decltype(v)(mean);
                                 return c * c;
                               }) /
                    static_cast<float>(n);
  const float rstd = 1.0f / std::sqrt(var + eps);
  const B mb(mean), rb(rstd);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const B c = (B::load_unaligned(x + i) - mb) * rb;
    xsimd::fma(c, B::load_unaligned(weight + i), B::load_unaligned(bias + i))
        .store_unaligned(y + i);
  }
  for (; i < n; ++i) y[i] = (x[i] - mean) * rstd * weight[i] + bias[i];
}

template <class A>
void norm(const NormArgs& p) {
  const int64_t g = (p.group_size > 0 && p.group_size < p.n) ? p.group_size : p.n;
  if (g <= 0) return;
  for (int64_t row = 0; row < p.rows; ++row) {
    const float* x = p.x + row * p.n;
    float* y = p.y + row * p.n;
    // A last partial group (n not a multiple of group_size) is normalised on its own.
    for (int64_t c = 0; c < p.n; c += g) {
      norm_group<A>(x + c, y + c, p.weight + c, p.bias + c, std::min(g, p.n - c), p.eps);
    }
  }
}
