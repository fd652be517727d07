// The int8 path on row-interleaved weights (kernels.h "pack_q8", docs/dot-products.md "Integer and
// BF16 dot products"): AVX-512 VNNI only. Never compiled alone; included after
// matmul_i8-inl.h (i8_typed for the plain rows) inside a per-ISA namespace.
//
// Why: on the plain layout a vpdpbusd covers two blocks of one (row, token) pair and each of
// its 16 lanes still needs a conversion, a scale multiply and an FMA, so the float work costs as
// much as the integer work (about 20 % of the vpdpbusd peak in prefill). Here the 16 lanes of a
// register are 16 rows: 8 vpdpbusd (4 columns each, the activation's 4 bytes broadcast) form
// the 16 exact block sums of one token, then one conversion, one multiply and one FMA serve all
// 16 rows. A tile of RG groups x NT tokens reuses each weight load NT times and each broadcast
// RG times. Each tile prefetches the next one into L2 (pk_ahead says why).
//
// Numerics per (row, token): isum = sum_e c[e] q[e] - offset * sum(q) exactly in int32, then
// acc = fma(dw * d, float(isum), acc) block by block in column order: the same chain whatever
// tile, group or T the pair runs in (and the scalar reference's terms, summed in fp32).

// kernels.h quantize_q8 in AVX-512 VNNI, with the bits of the shared scalar version
// (quantize_q8_impl), which ran scalar and cost about 6 % of a Q8_0 prefill, on the calling
// thread before the rows are split: max |x| is exact in any order; x * (127 / amax) is the same
// one rounded multiply; vcvtps2dq rounds to nearest even like nearbyint in the default rounding
// mode; |q| <= 127, so vpmovdb keeps it exactly; psum is one vpdpbusd of ones with the codes.
inline void quantize_q8_avx512(const float* x, BlockQ8* y, int64_t n) {
  const __m512 abs_mask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  const __m256i ones = _mm256_set1_epi8(1);
  for (int64_t b = 0; b < n / quant::kQBlock; ++b) {
    const float* xb = x + b * quant::kQBlock;
    const __m512 x0 = _mm512_loadu_ps(xb), x1 = _mm512_loadu_ps(xb + 16);
    const float amax = _mm512_reduce_max_ps(
        _mm512_max_ps(_mm512_and_ps(x0, abs_mask), _mm512_and_ps(x1, abs_mask)));
    const float id = amax > 0.0f ? 127.0f / amax : 0.0f;
    const __m512 vid = _mm512_set1_ps(id);
    const __m128i q0 = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(x0, vid)));
    const __m128i q1 = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(x1, vid)));
    const __m256i q = _mm256_inserti128_si256(_mm256_castsi128_si256(q0), q1, 1);
    const __m256i ps = _mm256_dpbusd_epi32(_mm256_setzero_si256(), ones, q);
    i8_store_block(y[b], q, ps, amax);
  }
}

// Per-type constants of the packed layout.
template <DType kT>
struct Q8Pack {
  using Ly = Q8Layout<kT>;  // the plain block (matmul_i8-inl.h)
  static constexpr bool kQ8 = Ly::kSigned;
  static constexpr bool kMin = Ly::kMin;
  static constexpr bool kFive = Ly::kFive;
  static constexpr size_t kBlk = Ly::kBytes;                   // per row
  static constexpr size_t kGroupBlk = kQ8PackRows * kBlk;      // 544, 288, 320, 352 or 384
  static constexpr size_t kQhOff = kMin ? 64 : 32;             // after the scales (and mins)
  static constexpr size_t kCodes = kQhOff + (kFive ? 64 : 0);  // after the high bits
  // subtracted as offset * sum(q): 128 (Q8_0 stored + 128), 8 (Q4_0), 16 (Q5_0), 0 (_1 types)
  static constexpr int kOffset = kQ8 ? 128 : Ly::kOffsetShift > 0 ? 1 << Ly::kOffsetShift : 0;
};

// Q5: adds 16 to the codes of the k-th code vector's bytes whose bit is set in the 64-bit mask
// at p (kernels.h "pack_q8": the high bits by code vector), one masked add.
inline __m512i q5_high(__m512i codes, const uint8_t* p) {
  uint64_t bits;
  std::memcpy(&bits, p, 8);
  return _mm512_mask_add_epi8(codes, _cvtu64_mask64(bits), codes, _mm512_set1_epi8(16));
}

// f(0), f(1), f(2), f(3) as compile-time constants.
template <class F>
inline void pk_unroll4(F&& f) {
  f(std::integral_constant<int, 0>{});
  f(std::integral_constant<int, 1>{});
  f(std::integral_constant<int, 2>{});
  f(std::integral_constant<int, 3>{});
}

// Store mask of group g for the call's rows [rb, re).
inline __mmask16 pk_mask(int64_t g, int64_t rb, int64_t re) {
  const int64_t lo = std::max<int64_t>(rb - 16 * g, 0), hi = std::min<int64_t>(re - 16 * g, 16);
  const uint32_t below_hi = hi >= 16 ? 0xffffu : ((1u << hi) - 1u);
  const uint32_t below_lo = (1u << lo) - 1u;
  return static_cast<__mmask16>(below_hi & ~below_lo);
}

// Groups [g0, g0 + RG) x tokens [t0, t0 + NT), all blocks.
template <DType kT, int RG, int NT>
void pk_tile(const MatmulQ8Args& p, int64_t g0, int64_t t0, int64_t rb, int64_t re) {
  using P = Q8Pack<kT>;
  const int64_t nblk = p.cols / quant::kQBlock;
  const size_t gbytes = kQ8PackRows * p.w_row_bytes;
  const uint8_t* w[RG];
  for (int g = 0; g < RG; ++g) w[g] = p.w + static_cast<size_t>(g0 + g) * gbytes;
  const BlockQ8* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  __m512 acc[RG][NT], accm[RG][NT];
  for (int g = 0; g < RG; ++g) {
    for (int t = 0; t < NT; ++t) acc[g][t] = accm[g][t] = _mm512_setzero_ps();
  }
  const PkAhead ahead = pk_ahead(p, reinterpret_cast<uintptr_t>(w[0]) + RG * gbytes, RG * gbytes,
                                 t0, NT, (g0 + 2 * RG) * kQ8PackRows <= p.packed_rows);
  constexpr bool kSpread = P::kQ8 && NT == 1;  // PkAhead::step says why
  PkAhead::Blocks shares = ahead.blocks(nblk);
  for (int64_t b = 0; b < nblk; ++b) {
    const PkAhead::Share share = shares.next();
    if constexpr (!kSpread) ahead.step<1>(share, 0);
    __m512i is[RG][NT];
    for (int t = 0; t < NT; ++t) {
      const __m512i init = _mm512_set1_epi32(-x[t][b].sum * P::kOffset);
      for (int g = 0; g < RG; ++g) is[g][t] = init;
    }
    const size_t off = static_cast<size_t>(b) * P::kGroupBlk;
    if constexpr (P::kQ8) {
      for (int k = 0; k < 8; ++k) {
        if constexpr (kSpread) ahead.step<8>(share, k);
        __m512i wk[RG];
        for (int g = 0; g < RG; ++g) wk[g] = _mm512_loadu_si512(w[g] + off + P::kCodes + 64 * k);
        for (int t = 0; t < NT; ++t) {
          const __m512i xk = _mm512_set1_epi32(
              static_cast<int>(read_u32(reinterpret_cast<const uint8_t*>(x[t][b].q) + 4 * k)));
          for (int g = 0; g < RG; ++g) is[g][t] = _mm512_dpbusd_epi32(is[g][t], wk[g], xk);
        }
      }
    } else {
      const __m512i m4 = _mm512_set1_epi8(15);
      pk_unroll4([&](auto kc) {
        constexpr int k = decltype(kc)::value;
        __m512i lo[RG], hi[RG];
        for (int g = 0; g < RG; ++g) {
          const __m512i v = _mm512_loadu_si512(w[g] + off + P::kCodes + 64 * k);
          lo[g] = _mm512_and_si512(v, m4);
          hi[g] = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
          if constexpr (P::kFive) {  // columns 4k.. (mask k) and 16 + 4k.. (mask 4 + k)
            lo[g] = q5_high(lo[g], w[g] + off + P::kQhOff + 8 * k);
            hi[g] = q5_high(hi[g], w[g] + off + P::kQhOff + 8 * (4 + k));
          }
        }
        for (int t = 0; t < NT; ++t) {
          const auto* q = reinterpret_cast<const uint8_t*>(x[t][b].q);
          const __m512i xl = _mm512_set1_epi32(static_cast<int>(read_u32(q + 4 * k)));
          const __m512i xh = _mm512_set1_epi32(static_cast<int>(read_u32(q + 16 + 4 * k)));
          for (int g = 0; g < RG; ++g) {
            is[g][t] = _mm512_dpbusd_epi32(is[g][t], lo[g], xl);
            is[g][t] = _mm512_dpbusd_epi32(is[g][t], hi[g], xh);
          }
        }
      });
    }
    for (int g = 0; g < RG; ++g) {
      const __m512 dw =
          _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[g] + off)));
      for (int t = 0; t < NT; ++t) {
        const __m512 scale = _mm512_mul_ps(dw, _mm512_set1_ps(x[t][b].d));
        acc[g][t] = _mm512_fmadd_ps(scale, _mm512_cvtepi32_ps(is[g][t]), acc[g][t]);
      }
      if constexpr (P::kMin) {  // + m * s, in its own chain (kernels.h: the _1 types' min)
        const __m512 m =
            _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[g] + off + 32)));
        for (int t = 0; t < NT; ++t) {
          accm[g][t] = _mm512_fmadd_ps(m, _mm512_set1_ps(x[t][b].s), accm[g][t]);
        }
      }
    }
  }
  for (int g = 0; g < RG; ++g) {
    const __mmask16 m = pk_mask(g0 + g, rb, re);
    for (int t = 0; t < NT; ++t) {
      const __m512 y = P::kMin ? _mm512_add_ps(acc[g][t], accm[g][t]) : acc[g][t];
      _mm512_mask_storeu_ps(p.y + (t0 + t) * p.y_stride + (g0 + g) * kQ8PackRows, m, y);
    }
  }
}

// Register tiles: prefill 2 groups (32 rows) x 4 tokens: 8 int32 + 8 float accumulators, 8
// independent vpdpbusd chains; decode 4 groups (64 rows, the core's row block).
constexpr int kPkGroups = 2, kPkDecodeGroups = 4;

struct PkTile {
  static constexpr int kPerGroup = 1, kParts = kPkGroups, kToks = kPkToks,
                       kDecodeParts = kPkDecodeGroups;
  template <DType kT, int R, int NT>
  static void run(const MatmulQ8Args& p, int64_t g0, int64_t t0, int64_t rb, int64_t re) {
    pk_tile<kT, R, NT>(p, g0, t0, rb, re);
  }
};

// kernels.h matmul_q8 on the packed layout (matmul_i8_packed_walk-inl.h: the walk over groups).
inline void matmul_q8_packed_impl(const MatmulQ8Args& p) { PackedWalk<PkTile>::run(p); }
