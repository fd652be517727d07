// kernels.h MatmulTArgs: Y[t][c] = sum_d X[t][d] * W[d][c] over a matrix stored transposed (the
// LoRA up-projections). Never compiled alone; included after simd_load-inl.h in a per-ISA
// namespace.
//
// Outputs are lanes. A tile is NT tokens x CT registers of outputs: for each input d the CT
// weight registers are loaded (widened from F16 or BF16) once and used by the NT tokens, whose
// x[t][d] is broadcast once each, so NT * CT fused multiply-adds cost CT + NT loads and no
// horizontal sum (the row-major product of a 64-wide input spent as much on its reductions as on
// its multiply-adds: docs/dot-products.md "Small products"). Each (token, output) result is the
// chain of its own lane over d ascending from +0.0f, so it has the same bits in any tile, T or
// column range; the columns past the last whole register run through a zero-padded copy of the same
// registers, never a scalar loop, for the same reason.

// One fused multiply-add, x * y + z rounded once. xsimd 8 (Debian's) has no AVX-512 fma and
// computes x * y + z, which is fused only when the compiler contracts it (an -O2 build with the
// sanitizers did not); matmul_t promises the scalar table's std::fma bits, so it asks for the
// instruction. The other tables' xsimd fma is the instruction already (fma3, NEON vfmaq).
template <class A>
[[gnu::always_inline]] inline FB<A> mt_fma(FB<A> x, FB<A> y, FB<A> z) {
#if defined(__AVX512F__)
  if constexpr (FB<A>::size == 16) return FB<A>(_mm512_fmadd_ps(x, y, z));
#endif
  return xsimd::fma(x, y, z);
}

template <class A, DType kT>
[[gnu::always_inline]] inline FB<A> mt_load(const uint8_t* p) {
  if constexpr (kT == DType::F16) {
    return load_f16(p, A{});
  } else if constexpr (kT == DType::BF16) {
    return load_bf16(p, A{});
  } else {
    return FB<A>::load_unaligned(reinterpret_cast<const float*>(p));
  }
}

template <DType kT>
constexpr size_t mt_elem_bytes() {
  return kT == DType::F32 ? 4 : 2;
}

template <DType kT>
inline float mt_scalar(const uint8_t* p) {
  if constexpr (kT == DType::F32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  } else if constexpr (kT == DType::F16) {
    return half_to_float(read_u16(p));
  } else {
    return bf16_to_float(read_u16(p));
  }
}

// Tokens [t0, t0 + NT) x outputs [c, c + CT * L).
template <class A, DType kT, int NT, int CT>
[[gnu::always_inline]] inline void mt_tile(const MatmulTArgs& p, int64_t t0, int64_t c) {
  using B = FB<A>;
  constexpr int64_t L = static_cast<int64_t>(B::size);
  constexpr size_t es = mt_elem_bytes<kT>();
  B acc[NT][CT];
  for (int t = 0; t < NT; ++t) {
    for (int j = 0; j < CT; ++j) acc[t][j] = B(0.0f);
  }
  const float* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  const uint8_t* w = p.w + static_cast<size_t>(c) * es;
  for (int64_t d = 0; d < p.D; ++d, w += p.w_row_bytes) {
    B wv[CT];
    for (int j = 0; j < CT; ++j) wv[j] = mt_load<A, kT>(w + static_cast<size_t>(j * L) * es);
    for (int t = 0; t < NT; ++t) {
      const B xb(x[t][d]);
      for (int j = 0; j < CT; ++j) acc[t][j] = mt_fma<A>(xb, wv[j], acc[t][j]);
    }
  }
  for (int t = 0; t < NT; ++t) {
    float* y = p.y + (t0 + t) * p.y_stride + c;
    for (int j = 0; j < CT; ++j) acc[t][j].store_unaligned(y + j * L);
  }
}

#if defined(__AVX2__) && !defined(__AVX512F__)
// BF16 on the avx2 table, tokens [t0, t0 + NT) x outputs [c, c + 8 CT): one 32-byte load holds
// 16 outputs' weights, and a bf16 is the top half of its float, so the odd outputs are the load
// with the low halves cleared and the even ones the load shifted left by 16: two in-lane
// operations per 16 weights, where load_bf16 widened 8 with a lane-crossing vpmovzxwd and a
// shift (bench_kernels lora_up/avx2/BF16/64x64/T1 ran at 0.27 of the FMA peak against F16's
// 0.50). The even and odd accumulators are interleaved back once, at the store; each output is
// still its own chain over d, so the bits are load_bf16's. Same benchmark, medians of three in
// alternation: T1 0.28 -> 0.52, T2 0.53 -> 0.70, T8 0.61 -> 0.71, T3 0.63 -> 0.60 (noise).
// In decode the LoRA weights come from memory and the 0.1B BF16 token's 2 % in matmul_t did
// not move; the gain is the batched steps' and prefill's.
template <int NT, int CT>
[[gnu::always_inline]] inline void mt_tile_bf16_pairs(const MatmulTArgs& p, int64_t t0, int64_t c) {
  static_assert(CT % 2 == 0, "whole pairs of registers");
  constexpr int P = CT / 2;
  __m256 ev[NT][P], od[NT][P];
  for (int t = 0; t < NT; ++t) {
    for (int j = 0; j < P; ++j) ev[t][j] = od[t][j] = _mm256_setzero_ps();
  }
  const float* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  const __m256i high = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
  const uint8_t* w = p.w + static_cast<size_t>(c) * 2;
  for (int64_t d = 0; d < p.D; ++d, w += p.w_row_bytes) {
    __m256 xb[NT];
    for (int t = 0; t < NT; ++t) xb[t] = _mm256_set1_ps(x[t][d]);
    for (int j = 0; j < P; ++j) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32 * j));
      const __m256 e = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
      const __m256 o = _mm256_castsi256_ps(_mm256_and_si256(v, high));
      for (int t = 0; t < NT; ++t) {
        ev[t][j] = _mm256_fmadd_ps(xb[t], e, ev[t][j]);
        od[t][j] = _mm256_fmadd_ps(xb[t], o, od[t][j]);
      }
    }
  }
  for (int t = 0; t < NT; ++t) {
    float* y = p.y + (t0 + t) * p.y_stride + c;
    for (int j = 0; j < P; ++j) {
      const __m256 lo = _mm256_unpacklo_ps(ev[t][j], od[t][j]);  // outputs 0-3 | 8-11
      const __m256 hi = _mm256_unpackhi_ps(ev[t][j], od[t][j]);  // 4-7 | 12-15
      _mm256_storeu_ps(y + 16 * j, _mm256_permute2f128_ps(lo, hi, 0x20));
      _mm256_storeu_ps(y + 16 * j + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
    }
  }
}
#endif

// Tokens [t0, t0 + NT) x the last n < L outputs from c, through a zero-padded register.
template <class A, DType kT, int NT>
void mt_tail(const MatmulTArgs& p, int64_t t0, int64_t c, int64_t n) {
  using B = FB<A>;
  constexpr size_t es = mt_elem_bytes<kT>();
  alignas(64) float wbuf[B::size] = {};
  B acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = B(0.0f);
  const uint8_t* w = p.w + static_cast<size_t>(c) * es;
  for (int64_t d = 0; d < p.D; ++d, w += p.w_row_bytes) {
    for (int64_t i = 0; i < n; ++i) wbuf[i] = mt_scalar<kT>(w + static_cast<size_t>(i) * es);
    const B wv = B::load_aligned(wbuf);
    for (int t = 0; t < NT; ++t) acc[t] = mt_fma<A>(B(p.x[(t0 + t) * p.x_stride + d]), wv, acc[t]);
  }
  alignas(64) float out[B::size];
  for (int t = 0; t < NT; ++t) {
    acc[t].store_aligned(out);
    std::memcpy(p.y + (t0 + t) * p.y_stride + c, out, static_cast<size_t>(n) * sizeof(float));
  }
}

// Output registers of a tile of NT tokens. AVX-512: 4 (64 outputs, one head). 16 registers of
// 8 lanes (avx2): enough independent chains to cover the FMA latency (4 cycles, 2 a cycle: 8
// chains), as long as the NT * CT accumulators, a widened weight and a broadcast fit. One token
// takes the head's whole row of 64 outputs (8 chains instead of 2, the block read straight
// through), two tokens 4 registers, three 4 for F32 but 2 for F16 and BF16 (their widening
// temporaries spilled with 12 accumulators: F16 T3 0.56 -> 0.41). bench_kernels
// lora_up/avx2/*/64x64, share of the FMA peak, medians of three in alternation, 2 registers
// -> these: T1 F32 0.26 -> 0.46, F16 0.22 -> 0.50, BF16 0.21 -> 0.27 (its widening bounded
// it: mt_tile_bf16_pairs); T2 0.39 -> 0.58, 0.44 -> 0.67, 0.38 -> 0.49; T3 F32 0.58 -> 0.78.
// The 0.1B Q4_0 decode spent 7 % of its time in matmul_t instead of 12 % (perf), `ai00
// generate` of 500 tokens on 1 thread 6.85 -> 6.26 s (medians of five in alternation). Other
// tables: 2.
template <class A, DType kT, int NT>
constexpr int mt_regs() {
  constexpr size_t L = FB<A>::size;
  if constexpr (L >= 16) return 4;
  if constexpr (L != 8) return 2;
  if constexpr (NT == 1) return 8;
  if constexpr (NT == 2 || (NT == 3 && kT == DType::F32)) return 4;
  return 2;
}

// Tokens [t0, t0 + NT) over the call's outputs: CT registers at a time, then one, then the tail.
template <class A, DType kT, int NT>
void mt_tokens(const MatmulTArgs& p, int64_t t0) {
  constexpr int64_t L = static_cast<int64_t>(FB<A>::size);
  constexpr int CT = mt_regs<A, kT, NT>();
  int64_t c = p.col_begin;
#if defined(__AVX2__) && !defined(__AVX512F__)
  if constexpr (kT == DType::BF16 && L == 8 && CT % 2 == 0) {
    for (; c + CT * L <= p.col_end; c += CT * L) mt_tile_bf16_pairs<NT, CT>(p, t0, c);
  }
#endif
  for (; c + CT * L <= p.col_end; c += CT * L) mt_tile<A, kT, NT, CT>(p, t0, c);
  for (; c + L <= p.col_end; c += L) mt_tile<A, kT, NT, 1>(p, t0, c);
  if (c < p.col_end) mt_tail<A, kT, NT>(p, t0, c, p.col_end - c);
}

template <class A, DType kT>
void matmul_t_typed(const MatmulTArgs& p) {
  constexpr int NT = 4;
  int64_t t = 0;
  for (; t + NT <= p.T; t += NT) mt_tokens<A, kT, NT>(p, t);
  switch (p.T - t) {
    case 3:
      mt_tokens<A, kT, 3>(p, t);
      break;
    case 2:
      mt_tokens<A, kT, 2>(p, t);
      break;
    case 1:
      mt_tokens<A, kT, 1>(p, t);
      break;
    default:
      break;
  }
}

template <class A>
void matmul_t(const MatmulTArgs& p) {
  if (p.T <= 0 || p.col_end <= p.col_begin) return;
  switch (p.wtype) {
    case DType::F32:
      matmul_t_typed<A, DType::F32>(p);
      break;
    case DType::F16:
      matmul_t_typed<A, DType::F16>(p);
      break;
    case DType::BF16:
      matmul_t_typed<A, DType::BF16>(p);
      break;
    default:
      break;  // matmul_t_supports: the caller never passes another type
  }
}
