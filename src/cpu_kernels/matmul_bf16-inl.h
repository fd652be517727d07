// BF16 weights with vdpbf16ps (kernels.h MatmulBf16Args; docs/dot-products.md "Integer and BF16 dot
// products"). Only for TUs built with -mavx512bf16 (the avx512_bf16 table); included after
// simd_load-inl.h and reduce-inl.h inside that ISA's namespace.
//
// Each 32-column group of a weight row is one 512-bit register of bf16 pairs; per (row, token)
// pair it meets the token's bf16 activations in one vdpbf16ps into a 16-lane accumulator. The
// accumulators of a tile are reduced 16 at a time by reduce16 (the tree of xsimd's hadd, so a
// padded slot changes nothing), then the last cols % 32 columns are added in fp32: the same
// bits in every tile shape, row range and T.

// kernels.h round_bf16: xs[c] = bf16(x[c]), round-to-nearest-even, for the whole groups of 32.
inline void round_bf16_impl(const float* x, uint16_t* xs, int64_t n) {
  for (int64_t c = 0; c + 32 <= n; c += 32) {
    const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + c + 16), _mm512_loadu_ps(x + c));
    _mm512_storeu_si512(xs + c, reinterpret_cast<const __m512i&>(v));
  }
}

// The sums of the RT x NT accumulators (pair (r, t) at sums[r * NT + t]), 16 at a time.
template <int RT, int NT>
[[gnu::always_inline]] inline void bf16_sums(const __m512 (&acc)[RT][NT], float* sums) {
  constexpr int n = RT * NT;
  for (int i0 = 0; i0 < n; i0 += 16) {
    __m512 v[16];
    for (int i = 0; i < 16; ++i) {
      v[i] = i0 + i < n ? acc[(i0 + i) / NT][(i0 + i) % NT] : _mm512_setzero_ps();
    }
    alignas(64) float lanes[16];
    reduce16(v, lanes);
    for (int i = 0; i < 16 && i0 + i < n; ++i) sums[i0 + i] = lanes[4 * (i % 4) + i / 4];
  }
}

// Rows ahead of the T > 1 hint (bf16_tile).
constexpr int64_t kBf16Ahead = 16;

// A tile of RT rows x NT tokens. Decode (NT = 1) asks for the same group of the next tile's rows
// into L2. At T > 1 the row tile's full token tiles share the next rows' hint: token tile
// `share` of `shares` asks for every shares-th group of the rows kBf16Ahead further down, so the
// next rows stream in under the arithmetic of all of this row tile's token tiles (docs/batching.md
// "The weight read under the arithmetic": without it the read and the arithmetic took turns, 0.23
// of the vdpbf16ps peak and 0.25 of the read bandwidth at T = 8). share < 0: no hint.
template <int RT, int NT>
void bf16_tile(const MatmulBf16Args& p, int64_t r0, int64_t t0, int64_t share = -1,
               int64_t shares = 1) {
  const int64_t ng = p.cols / 32;
  __m512 acc[RT][NT];
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) acc[r][t] = _mm512_setzero_ps();
  }
  const uint8_t* w[RT];
  for (int r = 0; r < RT; ++r) w[r] = p.w + static_cast<size_t>(r0 + r) * p.w_row_bytes;
  const uint16_t* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  int64_t ask = share;  // the next group this tile asks for (a counter: no division per group)
  for (int64_t g = 0; g < ng; ++g) {
    const bool asks = share >= 0 && g == ask;
    if (asks) ask += shares;
    __m512bh xv[NT];
    for (int t = 0; t < NT; ++t) {
      const __m512i h = _mm512_loadu_si512(x[t] + 32 * g);
      xv[t] = reinterpret_cast<const __m512bh&>(h);
    }
    for (int r = 0; r < RT; ++r) {
      const uint8_t* blk = w[r] + 64 * g;
      if constexpr (NT == 1) {
        __builtin_prefetch(
            reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(blk) + RT * p.w_row_bytes), 0,
            2);  // into L2 (prefetcht1), not L1: mm_blocks says why
      } else if (asks) {
        __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(blk) +
                                                         kBf16Ahead * p.w_row_bytes),
                           0, 2);
      }
      const __m512i wi = _mm512_loadu_si512(blk);
      const __m512bh wv = reinterpret_cast<const __m512bh&>(wi);
      for (int t = 0; t < NT; ++t) acc[r][t] = _mm512_dpbf16_ps(acc[r][t], wv, xv[t]);
    }
  }
  float sums[RT * NT];
  bf16_sums<RT, NT>(acc, sums);
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) {
      float sum = sums[r * NT + t];
      const float* xf = p.xf + (t0 + t) * p.xf_stride;
      for (int64_t c = ng * 32; c < p.cols; ++c)
        sum += bf16_to_float(read_u16(w[r] + 2 * c)) * xf[c];
      p.y[(t0 + t) * p.y_stride + r0 + r] = sum;
    }
  }
}

// Rows of at most this many bytes (1,024 columns) decode 16 to a tile, longer rows 8. Short rows
// interleaved 8 at a time read slower than a plain stream: the 0.1B head (65536 x 768) at
// 0.63-0.74 of the read bandwidth where 4096 x 4096 reads at 1.07-1.25 (bench_kernels, Zen 4, 1
// thread); 16 to a tile it reads at 0.84-0.99, and the 0.1B BF16 model decodes 6 % faster on 1
// thread (four pairs in alternation, 66.0 -> 70.2 tokens/s; 0.4B, rows of 1,024, unchanged
// within the noise). Rows of 2,048 columns and more read at 0.76-0.90 instead of 1.07-1.29
// 16 to a tile, and a longer prefetch distance alone (24-48 KB ahead) did not help the head.
constexpr int64_t kBf16ShortRowBytes = 2048;

// Prefill tile RT x NT: each weight register meets NT tokens, each activation register RT rows
// (accumulators + activations + one weight register fit the 32 zmm registers).
inline void matmul_bf16_impl(const MatmulBf16Args& p) {
  if (p.T <= 0 || p.row_end <= p.row_begin) return;
  constexpr int RT = 4, NT = 4, kDecodeRows = 8, kShortDecodeRows = 16;
  int64_t r = p.row_begin;
  if (p.T == 1) {
    if (p.w_row_bytes <= kBf16ShortRowBytes) {
      for (; r + kShortDecodeRows <= p.row_end; r += kShortDecodeRows)
        bf16_tile<kShortDecodeRows, 1>(p, r, 0);
    }
    for (; r + kDecodeRows <= p.row_end; r += kDecodeRows) bf16_tile<kDecodeRows, 1>(p, r, 0);
    for (; r < p.row_end; ++r) bf16_tile<1, 1>(p, r, 0);
    return;
  }
  const int64_t full = p.T / NT;  // full token tiles: they share the next rows' hint
  for (; r + RT <= p.row_end; r += RT) {
    int64_t t = 0;
    for (; t + NT <= p.T; t += NT) bf16_tile<RT, NT>(p, r, t, t / NT, full);
    // The last T - t < 4 tokens after full tiles as one tile: a tile of one token keeps too few
    // chains in flight on rows already in cache (a batched step of 11 States, 0.1B BF16, 1
    // thread: 8 % faster). With T < 4 they stay one token a tile, each streaming its rows with
    // the decode hint: a 2-token tile with either hint stepped 8-10 % slower at T = 2.
    if (t > 0 && p.T - t == 3) {
      bf16_tile<RT, 3>(p, r, t);
    } else if (t > 0 && p.T - t == 2) {
      bf16_tile<RT, 2>(p, r, t);
    } else {
      for (; t < p.T; ++t) bf16_tile<RT, 1>(p, r, t);
    }
  }
  for (; r < p.row_end; ++r) {
    int64_t t = 0;
    for (; t + NT <= p.T; t += NT) bf16_tile<1, NT>(p, r, t);
    for (; t < p.T; ++t) bf16_tile<1, 1>(p, r, t);
  }
}
