// BF16 weights with vdpbf16ps (kernels.h MatmulBf16Args; docs/model.md "Integer and BF16 dot
// products"). Only for TUs built with -mavx512bf16 (the avx512_bf16 table); included after
// simd_load-inl.h inside that ISA's namespace.
//
// Each 32-column group of a weight row is one 512-bit register of bf16 pairs; per (row, token)
// pair it meets the token's hi and lo halves in two vdpbf16ps into one 16-lane accumulator,
// reduced at the end in a fixed order, then the last cols % 32 columns in fp32: the same bits
// in every tile shape, row range and T.

// kernels.h split_bf16: hi = bf16(x), lo = bf16(x - hi), both round-to-nearest-even.
inline void split_bf16_impl(const float* x, uint16_t* xs, int64_t n) {
  for (int64_t g = 0; g < n / 32; ++g) {
    for (int h = 0; h < 2; ++h) {
      const __m512 v = _mm512_loadu_ps(x + 32 * g + 16 * h);
      const __m256bh hi = _mm512_cvtneps_pbh(v);
      const __m512 hf = _mm512_castsi512_ps(
          _mm512_slli_epi32(_mm512_cvtepu16_epi32(reinterpret_cast<const __m256i&>(hi)), 16));
      const __m256bh lo = _mm512_cvtneps_pbh(_mm512_sub_ps(v, hf));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(xs + 64 * g + 16 * h),
                          reinterpret_cast<const __m256i&>(hi));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(xs + 64 * g + 32 + 16 * h),
                          reinterpret_cast<const __m256i&>(lo));
    }
  }
}

template <int RT, int NT>
void bf16_tile(const MatmulBf16Args& p, int64_t r0, int64_t t0) {
  const int64_t ng = p.cols / 32;
  __m512 acc[RT][NT];
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) acc[r][t] = _mm512_setzero_ps();
  }
  const uint8_t* w[RT];
  for (int r = 0; r < RT; ++r) w[r] = p.w + static_cast<size_t>(r0 + r) * p.w_row_bytes;
  const uint16_t* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  for (int64_t g = 0; g < ng; ++g) {
    __m512bh xh[NT], xl[NT];
    for (int t = 0; t < NT; ++t) {
      const __m512i h = _mm512_loadu_si512(x[t] + 64 * g);
      const __m512i l = _mm512_loadu_si512(x[t] + 64 * g + 32);
      xh[t] = reinterpret_cast<const __m512bh&>(h);
      xl[t] = reinterpret_cast<const __m512bh&>(l);
    }
    for (int r = 0; r < RT; ++r) {
      const uint8_t* blk = w[r] + 64 * g;
      if constexpr (NT == 1) {
        __builtin_prefetch(
            reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(blk) + RT * p.w_row_bytes), 0,
            2);  // into L2 (prefetcht1), not L1: mm_blocks says why
      }
      const __m512i wi = _mm512_loadu_si512(blk);
      const __m512bh wv = reinterpret_cast<const __m512bh&>(wi);
      for (int t = 0; t < NT; ++t) {
        acc[r][t] = _mm512_dpbf16_ps(acc[r][t], wv, xh[t]);
        acc[r][t] = _mm512_dpbf16_ps(acc[r][t], wv, xl[t]);
      }
    }
  }
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) {
      float sum = _mm512_reduce_add_ps(acc[r][t]);
      const float* xf = p.xf + (t0 + t) * p.xf_stride;
      for (int64_t c = ng * 32; c < p.cols; ++c)
        sum += bf16_to_float(read_u16(w[r] + 2 * c)) * xf[c];
      p.y[(t0 + t) * p.y_stride + r0 + r] = sum;
    }
  }
}

inline void matmul_bf16_impl(const MatmulBf16Args& p) {
  if (p.T <= 0 || p.row_end <= p.row_begin) return;
  constexpr int RT = 4, NT = 4, kDecodeRows = 8;
  int64_t r = p.row_begin;
  if (p.T == 1) {
    for (; r + kDecodeRows <= p.row_end; r += kDecodeRows) bf16_tile<kDecodeRows, 1>(p, r, 0);
    for (; r < p.row_end; ++r) bf16_tile<1, 1>(p, r, 0);
    return;
  }
  for (; r + RT <= p.row_end; r += RT) {
    int64_t t = 0;
    for (; t + NT <= p.T; t += NT) bf16_tile<RT, NT>(p, r, t);
    for (; t < p.T; ++t) bf16_tile<RT, 1>(p, r, t);
  }
  for (; r < p.row_end; ++r) {
    int64_t t = 0;
    for (; t + NT <= p.T; t += NT) bf16_tile<1, NT>(p, r, t);
    for (; t < p.T; ++t) bf16_tile<1, 1>(p, r, t);
  }
}
