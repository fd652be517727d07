// The int8 path (kernels.h BlockQ8, MatmulQ8Args; docs/dot-products.md "Integer and BF16 dot
// products"): activations quantized per 32-block, weights' integer codes dotted with them in
// integers, one float multiply-add per block. Never compiled alone; included after
// simd_load-inl.h (read_u16, half_to_float) inside a per-ISA namespace.
//
// The byte dot product is chosen by the TU's flags:
//   __AVX512VNNI__ + __AVX512VL__   vpdpbusd on 256 bits (the avx512_vnni table)
//   __AVXVNNI__                     vpdpbusd, VEX encoding (the avx2_vnni table)
//   __AVX2__                        vpmaddubsw + vpmaddwd (avx2, avx512)
//   __ARM_FEATURE_DOTPROD           sdot (the neon64_dotprod table, -march=armv8.2-a+dotprod)
//   otherwise                       portable integer loops the compiler vectorises (sse2,
//                                   neon64)
// All take unsigned weight codes times signed activations: Q8_0's signed codes go through
// |c| and sign(q, c), which is exact (|-128| = 128 as an unsigned byte; |q| <= 127), and the
// pmaddubsw pair sums stay below 2 * 128 * 127 < 32768, so no saturation is ever reached.
//
// Per (row, token) pair: one 8-lane int32 dot per block, converted to float and multiplied by
// dw * d into an 8-lane accumulator (plus m * s for the _1 types in a scalar accumulator),
// reduced at the end in a fixed order. The order does not depend on the tile a pair runs in,
// so row ranges, T = 1 and T > 1 give the same bits.

// Shared by every table (bits identical on every ISA): kernels.h "quantize_q8".
inline void quantize_q8_impl(const float* x, BlockQ8* y, int64_t n) {
  for (int64_t b = 0; b < n / quant::kQBlock; ++b) {
    const float* xb = x + b * quant::kQBlock;
    float amax = 0.0f;
    for (int e = 0; e < quant::kQBlock; ++e) amax = std::max(amax, std::fabs(xb[e]));
    const float id = amax > 0.0f ? 127.0f / amax : 0.0f;
    BlockQ8& o = y[b];
    int32_t sum = 0;
    for (int j = 0; j < 8; ++j) {
      int32_t ps = 0;
      for (int k = 0; k < 4; ++k) {
        const auto q = static_cast<int32_t>(std::nearbyint(xb[4 * j + k] * id));
        o.q[4 * j + k] = static_cast<int8_t>(q);
        ps += q;
      }
      o.psum[j] = ps;
      sum += ps;
    }
    o.d = amax / 127.0f;
    o.s = o.d * static_cast<float>(sum);
    o.sum = sum;
  }
}

#if defined(__aarch64__)
// kernels.h quantize_q8 in NEON (the neon64 and neon64_dotprod tables), with the bits of
// quantize_q8_impl, which GCC compiles to scalar code with a branch per element on aarch64: max
// |x| is exact in any order; x * (127 / amax) is the same one rounded multiply; fcvtns rounds to
// nearest even like nearbyint in the default rounding mode; |q| <= 127, so the saturating narrows
// keep it exactly. Each 4-lane vector is one group of psum (4 consecutive codes).
inline void quantize_q8_neon(const float* x, BlockQ8* y, int64_t n) {
  for (int64_t b = 0; b < n / quant::kQBlock; ++b) {
    const float* xb = x + b * quant::kQBlock;
    float32x4_t v[8];
    for (int k = 0; k < 8; ++k) v[k] = vld1q_f32(xb + 4 * k);
    float32x4_t m = vabsq_f32(v[0]);
    for (int k = 1; k < 8; ++k) m = vmaxq_f32(m, vabsq_f32(v[k]));
    const float amax = vmaxvq_f32(m);
    const float id = amax > 0.0f ? 127.0f / amax : 0.0f;
    BlockQ8& o = y[b];
    int32x4_t q[8];
    int32_t sum = 0;
    for (int k = 0; k < 8; ++k) {
      q[k] = vcvtnq_s32_f32(vmulq_n_f32(v[k], id));
      o.psum[k] = vaddvq_s32(q[k]);
      sum += o.psum[k];
    }
    for (int h = 0; h < 2; ++h) {
      const int16x8_t a = vcombine_s16(vqmovn_s32(q[4 * h]), vqmovn_s32(q[4 * h + 1]));
      const int16x8_t c = vcombine_s16(vqmovn_s32(q[4 * h + 2]), vqmovn_s32(q[4 * h + 3]));
      vst1q_s8(o.q + 16 * h, vcombine_s8(vqmovn_s16(a), vqmovn_s16(c)));
    }
    o.d = amax / 127.0f;
    o.s = o.d * static_cast<float>(sum);
    o.sum = sum;
  }
}
#endif

// a * b + c with one rounding where the ISA fuses, two where it cannot, never depending on what
// the compiler contracts in a given tile shape (which would break the same-bits promise).
inline float i8_fma(float a, float b, float c) {
#if defined(__FMA__) || defined(__FP_FAST_FMAF)
  return std::fma(a, b, c);
#else
  return a * b + c;  // no fused multiply-add in this ISA, so nothing to contract
#endif
}

// Per-type facts: block bytes, where the nibbles / high bits / min live, the code offset.
template <DType kT>
struct Q8Layout {
  static constexpr bool kSigned = kT == DType::Q8_0;  // codes are int8
  static constexpr bool kMin = kT == DType::Q4_1 || kT == DType::Q5_1;
  static constexpr bool kFive = kT == DType::Q5_0 || kT == DType::Q5_1;
  static constexpr int kOffsetShift = kT == DType::Q4_0 ? 3 : kT == DType::Q5_0 ? 4 : -1;
  static constexpr size_t kBytes = kT == DType::Q4_0   ? quant::kQ4_0Bytes
                                   : kT == DType::Q4_1 ? quant::kQ4_1Bytes
                                   : kT == DType::Q5_0 ? quant::kQ5_0Bytes
                                   : kT == DType::Q5_1 ? quant::kQ5_1Bytes
                                                       : quant::kQ8_0Bytes;
  static constexpr size_t kQh = kMin ? 4 : 2;                      // Q5 high bits
  static constexpr size_t kQs = (kMin ? 4 : 2) + (kFive ? 4 : 0);  // codes
};

#if defined(__AVX2__)
// ---- x86: 8 int32 lanes per block ------------------------------------------------------------

inline __m256i i8_dot(__m256i acc, __m256i u, __m256i s) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(acc, u, s);
#elif defined(__AVXVNNI__)
  return _mm256_dpbusd_avx_epi32(acc, u, s);
#else
  const __m256i p16 = _mm256_maddubs_epi16(u, s);
  return _mm256_add_epi32(acc, _mm256_madd_epi16(p16, _mm256_set1_epi16(1)));
#endif
}

// Byte e = 0xff where bit e of the 32-bit word is set, else 0.
inline __m256i i8_bits_to_bytes(uint32_t bits) {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  return _mm256_movm_epi8(bits);
#else
  const __m256i shuf = _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101,
                                         0x0000000000000000);
  __m256i bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)), shuf);
  bytes = _mm256_or_si256(bytes, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe));
  return _mm256_cmpeq_epi8(bytes, _mm256_set1_epi64x(-1));
#endif
}

// The 32 codes of one weight block, in weight order (unsigned, or signed for Q8_0).
template <DType kT>
inline __m256i i8_codes(const uint8_t* blk) {
  using Ly = Q8Layout<kT>;
  if constexpr (Ly::kSigned) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 2));
  } else {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + Ly::kQs));
    const __m128i m = _mm_set1_epi8(15);
    const __m256i c = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), m), _mm_and_si128(v, m));
    if constexpr (Ly::kFive) {
      const __m256i hi =
          _mm256_and_si256(i8_bits_to_bytes(read_u32(blk + Ly::kQh)), _mm256_set1_epi8(16));
      return _mm256_or_si256(c, hi);
    } else {
      return c;
    }
  }
}

inline float i8_hsum(__m256 v) {
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_movehdup_ps(s2)));
}

// Writes one quantized block (kernels.h BlockQ8) from its codes q, its 8 sums of 4 codes ps and
// its max |x|: the scale, the total and scale x total as the scalar version computes them.
inline void i8_store_block(BlockQ8& o, __m256i q, __m256i ps, float amax) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o.q), q);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o.psum), ps);
  const __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(ps), _mm256_extracti128_si256(ps, 1));
  const __m128i s2 = _mm_add_epi32(s4, _mm_unpackhi_epi64(s4, s4));
  const int32_t sum = _mm_cvtsi128_si32(s2) + _mm_extract_epi32(s2, 1);
  o.d = amax / 127.0f;
  o.s = o.d * static_cast<float>(sum);
  o.sum = sum;
}

// kernels.h quantize_q8 on 256 bits, with the bits of quantize_q8_impl (which, run scalar, cost
// 5 % of a Q4_0 prefill on the avx2 table): max |x| is exact in any order; x * (127 / amax) is
// the same one rounded multiply; vcvtps2dq rounds to nearest even like nearbyint in the default
// rounding mode; |q| <= 127, so the saturating packs keep it exactly. The packs interleave the
// 128-bit lanes (dword k of lane h holds x[8k + 4h ..]), which one vpermd puts back in order;
// psum is vpmaddubsw of ones with the codes, then vpmaddwd of ones (4 consecutive codes).
inline void quantize_q8_avx2(const float* x, BlockQ8* y, int64_t n) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int64_t b = 0; b < n / quant::kQBlock; ++b) {
    const float* xb = x + b * quant::kQBlock;
    __m256 v[4];
    for (int k = 0; k < 4; ++k) v[k] = _mm256_loadu_ps(xb + 8 * k);
    const __m256 m =
        _mm256_max_ps(_mm256_max_ps(_mm256_and_ps(v[0], abs_mask), _mm256_and_ps(v[1], abs_mask)),
                      _mm256_max_ps(_mm256_and_ps(v[2], abs_mask), _mm256_and_ps(v[3], abs_mask)));
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    const float amax = _mm_cvtss_f32(_mm_max_ss(m4, _mm_movehdup_ps(m4)));
    const float id = amax > 0.0f ? 127.0f / amax : 0.0f;
    const __m256 vid = _mm256_set1_ps(id);
    __m256i i[4];
    for (int k = 0; k < 4; ++k) i[k] = _mm256_cvtps_epi32(_mm256_mul_ps(v[k], vid));
    const __m256i w =
        _mm256_packs_epi16(_mm256_packs_epi32(i[0], i[1]), _mm256_packs_epi32(i[2], i[3]));
    const __m256i q = _mm256_permutevar8x32_epi32(w, order);
    const __m256i ps =
        _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), q), _mm256_set1_epi16(1));
    i8_store_block(y[b], q, ps, amax);
  }
}

#if defined(__AVX512BW__)
// AVX-512: two blocks per 512-bit register (block b in the low 256 bits, b + 1 in the high;
// an odd last block is paired with zero codes, zero activations and a zero scale), so the dot,
// the conversion and the FMA run once per two blocks.
inline __m512i i8_dot512(__m512i acc, __m512i u, __m512i s) {
#if defined(__AVX512VNNI__)
  return _mm512_dpbusd_epi32(acc, u, s);
#else
  const __m512i p16 = _mm512_maddubs_epi16(u, s);
  return _mm512_add_epi32(acc, _mm512_madd_epi16(p16, _mm512_set1_epi16(1)));
#endif
}
inline __m512i i8_pair(__m256i lo, __m256i hi) {
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}
inline __m512 i8_pair_ps(float lo, float hi) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_set1_ps(lo)), _mm256_set1_ps(hi), 1);
}
// The f16 scales at blk and blk + stride as [d0 x 8 | d1 x 8] (one conversion, one permute).
inline __m512 i8_pair_f16(const uint8_t* blk, size_t stride, bool two) {
  const int h0 = read_u16(blk), h1 = two ? read_u16(blk + stride) : 0;
  const __m128 f = _mm_cvtph_ps(_mm_cvtsi32_si128(h0 | (h1 << 16)));
  const __m512i idx = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
  return _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(f));
}
// The codes of two blocks (the second zero when absent) in weight order, one register.
template <DType kT>
inline __m512i i8_codes2(const uint8_t* blk, bool two) {
  using Ly = Q8Layout<kT>;
  if constexpr (Ly::kSigned || Ly::kFive) {
    return i8_pair(i8_codes<kT>(blk),
                   two ? i8_codes<kT>(blk + Ly::kBytes) : _mm256_setzero_si256());
  } else {  // Q4: 128-bit lanes [q0, q0 >> 4, q1, q1 >> 4], masked to nibbles
    const __m128i q0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + Ly::kQs));
    const __m128i q1 =
        two ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + Ly::kBytes + Ly::kQs))
            : _mm_setzero_si128();
    const __m512i v = i8_pair(_mm256_broadcastsi128_si256(q0), _mm256_broadcastsi128_si256(q1));
    const __m512i both = _mm512_mask_blend_epi64(0xCC, v, _mm512_srli_epi16(v, 4));
    return _mm512_and_si512(both, _mm512_set1_epi8(15));
  }
}

// Rows [r0, r0 + RT) x tokens [t0, t0 + NT), all blocks.
template <DType kT, int RT, int NT>
void i8_tile(const MatmulQ8Args& p, int64_t r0, int64_t t0) {
  using Ly = Q8Layout<kT>;
  const int64_t nblk = p.cols / quant::kQBlock;
  __m512 acc[RT][NT];
  float accm[RT][NT];
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) {
      acc[r][t] = _mm512_setzero_ps();
      accm[r][t] = 0.0f;
    }
  }
  const uint8_t* w[RT];
  for (int r = 0; r < RT; ++r) w[r] = p.w + static_cast<size_t>(r0 + r) * p.w_row_bytes;
  const BlockQ8* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  for (int64_t b = 0; b < nblk; b += 2) {
    const bool two = b + 1 < nblk;
    __m512i xq[NT], init[NT];
    __m512 dx[NT];
    for (int t = 0; t < NT; ++t) {
      const BlockQ8& x0 = x[t][b];
      const __m256i q0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x0.q));
      const __m256i q1 = two ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[t][b + 1].q))
                             : _mm256_setzero_si256();
      xq[t] = i8_pair(q0, q1);
      if constexpr (Ly::kOffsetShift > 0) {  // - offset * sum(q), lane by lane
        const __m256i p0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x0.psum));
        const __m256i p1 =
            two ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[t][b + 1].psum))
                : _mm256_setzero_si256();
        init[t] = _mm512_sub_epi32(_mm512_setzero_si512(),
                                   _mm512_slli_epi32(i8_pair(p0, p1), Ly::kOffsetShift));
      } else {
        init[t] = _mm512_setzero_si512();
      }
      dx[t] = i8_pair_ps(x0.d, two ? x[t][b + 1].d : 0.0f);
    }
    for (int r = 0; r < RT; ++r) {
      const uint8_t* blk = w[r] + b * Ly::kBytes;
      if constexpr (NT == 1) {  // decode: help the stream prefetchers (matmul-inl.h mm_blocks)
        __builtin_prefetch(
            reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(blk) + RT * p.w_row_bytes));
      }
      const __m512 dw = i8_pair_f16(blk, Ly::kBytes, two);
      const __m512i c = i8_codes2<kT>(blk, two);
      __m512i u = c;
      __mmask64 neg = 0;
      if constexpr (Ly::kSigned) {
        u = _mm512_abs_epi8(c);  // |c| (-128 stays 0x80 = 128)
        neg = _mm512_movepi8_mask(c);
      }
      for (int t = 0; t < NT; ++t) {
        __m512i s = xq[t];
        if constexpr (Ly::kSigned) s = _mm512_mask_sub_epi8(s, neg, _mm512_setzero_si512(), s);
        const __m512i dot = i8_dot512(init[t], u, s);
        acc[r][t] = _mm512_fmadd_ps(_mm512_mul_ps(dw, dx[t]), _mm512_cvtepi32_ps(dot), acc[r][t]);
        if constexpr (Ly::kMin) {
          accm[r][t] = i8_fma(half_to_float(read_u16(blk + 2)), x[t][b].s, accm[r][t]);
          if (two) {
            accm[r][t] =
                i8_fma(half_to_float(read_u16(blk + Ly::kBytes + 2)), x[t][b + 1].s, accm[r][t]);
          }
        }
      }
    }
  }
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) {
      p.y[(t0 + t) * p.y_stride + r0 + r] = _mm512_reduce_add_ps(acc[r][t]) + accm[r][t];
    }
  }
}
#else
// Rows [r0, r0 + RT) x tokens [t0, t0 + NT), all blocks.
template <DType kT, int RT, int NT>
void i8_tile(const MatmulQ8Args& p, int64_t r0, int64_t t0) {
  using Ly = Q8Layout<kT>;
  const int64_t nblk = p.cols / quant::kQBlock;
  __m256 acc[RT][NT];
  float accm[RT][NT];
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) {
      acc[r][t] = _mm256_setzero_ps();
      accm[r][t] = 0.0f;
    }
  }
  const uint8_t* w[RT];
  for (int r = 0; r < RT; ++r) w[r] = p.w + static_cast<size_t>(r0 + r) * p.w_row_bytes;
  const BlockQ8* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  for (int64_t b = 0; b < nblk; ++b) {
    __m256i xq[NT], init[NT];
    float dx[NT];
    for (int t = 0; t < NT; ++t) {
      const BlockQ8& xb = x[t][b];
      xq[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.q));
      if constexpr (Ly::kOffsetShift > 0) {  // - offset * sum(q), lane by lane
        const __m256i ps = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.psum));
        init[t] = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(ps, Ly::kOffsetShift));
      } else {
        init[t] = _mm256_setzero_si256();
      }
      dx[t] = xb.d;
    }
    for (int r = 0; r < RT; ++r) {
      const uint8_t* blk = w[r] + b * Ly::kBytes;
      if constexpr (NT == 1) {  // decode: help the stream prefetchers (matmul-inl.h mm_blocks)
        __builtin_prefetch(
            reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(blk) + RT * p.w_row_bytes));
      }
      const float dw = half_to_float(read_u16(blk));
      const __m256i c = i8_codes<kT>(blk);
      __m256i u = c;
      if constexpr (Ly::kSigned) u = _mm256_sign_epi8(c, c);  // |c| (-128 stays 0x80 = 128)
      for (int t = 0; t < NT; ++t) {
        __m256i s = xq[t];
        if constexpr (Ly::kSigned) s = _mm256_sign_epi8(xq[t], c);
        const __m256i dot = i8_dot(init[t], u, s);
        acc[r][t] = _mm256_fmadd_ps(_mm256_set1_ps(dw * dx[t]), _mm256_cvtepi32_ps(dot), acc[r][t]);
        if constexpr (Ly::kMin)
          accm[r][t] = i8_fma(half_to_float(read_u16(blk + 2)), x[t][b].s, accm[r][t]);
      }
    }
  }
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) {
      p.y[(t0 + t) * p.y_stride + r0 + r] = i8_hsum(acc[r][t]) + accm[r][t];
    }
  }
}

#endif

// Register tiles: 32 vector registers (AVX-512 TUs) hold 4 x 4 accumulators, 16 hold 2 x 2.
#if defined(__AVX512F__)
constexpr int kI8Rows = 4, kI8Toks = 4, kI8DecodeRows = 8;
#else
constexpr int kI8Rows = 2, kI8Toks = 2, kI8DecodeRows = 4;
#endif

#elif defined(__ARM_FEATURE_DOTPROD)
// ---- aarch64 + dotprod (neon64_dotprod): sdot, 4 int32 lanes per 16 byte pairs ---------------
// Codes and activations both signed bytes: Q8_0's codes as stored, the Q4/Q5 codes (0..31) as
// they are, so no sign trick is needed; the offset of the _0 types is the int32 start value.

// Bit 4 set in byte e of `c` where bit `first + e` of qh is set (e = 0..15).
inline uint8x16_t i8_fifth_bits(uint8x16_t c, uint32_t qh, int first) {
  const uint8x16_t h = vreinterpretq_u8_u32(vdupq_n_u32(qh));
  const uint8x16_t idx = vcombine_u8(vdup_n_u8(static_cast<uint8_t>(first / 8)),
                                     vdup_n_u8(static_cast<uint8_t>(first / 8 + 1)));
  const uint8x16_t bits = vreinterpretq_u8_u64(vdupq_n_u64(0x8040201008040201ull));
  const uint8x16_t set = vtstq_u8(vqtbl1q_u8(h, idx), bits);
  return vorrq_u8(c, vandq_u8(set, vdupq_n_u8(16)));
}

// The 32 codes of one weight block in weight order: columns 0..15 in c[0], 16..31 in c[1].
template <DType kT>
inline void i8_codes_sdot(const uint8_t* blk, int8x16_t* c) {
  using Ly = Q8Layout<kT>;
  if constexpr (Ly::kSigned) {
    c[0] = vld1q_s8(reinterpret_cast<const int8_t*>(blk + 2));
    c[1] = vld1q_s8(reinterpret_cast<const int8_t*>(blk + 18));
  } else {
    const uint8x16_t v = vld1q_u8(blk + Ly::kQs);
    uint8x16_t lo = vandq_u8(v, vdupq_n_u8(15)), hi = vshrq_n_u8(v, 4);
    if constexpr (Ly::kFive) {
      const uint32_t qh = read_u32(blk + Ly::kQh);
      lo = i8_fifth_bits(lo, qh, 0);
      hi = i8_fifth_bits(hi, qh, 16);
    }
    c[0] = vreinterpretq_s8_u8(lo);
    c[1] = vreinterpretq_s8_u8(hi);
  }
}

// Rows [r0, r0 + RT) x tokens [t0, t0 + NT), all blocks: per pair a 4-lane float accumulator
// (the block's 4 lane sums converted, times dw * d), reduced at the end in a fixed order.
template <DType kT, int RT, int NT>
void i8_tile(const MatmulQ8Args& p, int64_t r0, int64_t t0) {
  using Ly = Q8Layout<kT>;
  const int64_t nblk = p.cols / quant::kQBlock;
  float32x4_t acc[RT][NT];
  float accm[RT][NT];
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) {
      acc[r][t] = vdupq_n_f32(0.0f);
      accm[r][t] = 0.0f;
    }
  }
  for (int64_t b = 0; b < nblk; ++b) {
    int8x16_t xq[NT][2];
    int32x4_t init[NT];
    for (int t = 0; t < NT; ++t) {
      const BlockQ8& xb = p.x[(t0 + t) * p.x_stride + b];
      xq[t][0] = vld1q_s8(xb.q);
      xq[t][1] = vld1q_s8(xb.q + 16);
      init[t] = vdupq_n_s32(0);
      if constexpr (Ly::kOffsetShift > 0) {  // - offset * sum(q), in lane 0
        init[t] = vsetq_lane_s32(-xb.sum * (1 << Ly::kOffsetShift), init[t], 0);
      }
    }
    for (int r = 0; r < RT; ++r) {
      const uint8_t* blk = p.w + static_cast<size_t>(r0 + r) * p.w_row_bytes + b * Ly::kBytes;
      const float dw = half_to_float(read_u16(blk));
      int8x16_t c[2];
      i8_codes_sdot<kT>(blk, c);
      for (int t = 0; t < NT; ++t) {
        const BlockQ8& xb = p.x[(t0 + t) * p.x_stride + b];
        const int32x4_t dot = vdotq_s32(vdotq_s32(init[t], c[0], xq[t][0]), c[1], xq[t][1]);
        acc[r][t] = vfmaq_f32(acc[r][t], vcvtq_f32_s32(dot), vdupq_n_f32(dw * xb.d));
        if constexpr (Ly::kMin)
          accm[r][t] = i8_fma(half_to_float(read_u16(blk + 2)), xb.s, accm[r][t]);
      }
    }
  }
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) {
      p.y[(t0 + t) * p.y_stride + r0 + r] = vaddvq_f32(acc[r][t]) + accm[r][t];
    }
  }
}

// 32 vector registers: 4 x 2 float accumulators, 4 rows per decode tile.
constexpr int kI8Rows = 4, kI8Toks = 2, kI8DecodeRows = 4;
#else
// ---- portable: integer loops ----------------------------------------------------------------

// int16 codes: int16 x int8 products summed into int32 vectorise as pmaddwd (SSE2) / smlal.
template <DType kT>
inline void i8_codes_portable(const uint8_t* blk, int16_t* c) {
  using Ly = Q8Layout<kT>;
  if constexpr (Ly::kSigned) {
    for (int e = 0; e < 32; ++e) c[e] = static_cast<int8_t>(blk[2 + e]);
  } else {
    const uint8_t* qs = blk + Ly::kQs;
    for (int e = 0; e < 16; ++e) {
      c[e] = static_cast<int16_t>(qs[e] & 15);
      c[e + 16] = static_cast<int16_t>(qs[e] >> 4);
    }
    if constexpr (Ly::kFive) {
      const uint32_t qh = read_u32(blk + Ly::kQh);
      for (int e = 0; e < 32; ++e) c[e] = static_cast<int16_t>(c[e] | (((qh >> e) & 1u) << 4));
    }
  }
}

template <DType kT, int RT, int NT>
void i8_tile(const MatmulQ8Args& p, int64_t r0, int64_t t0) {
  using Ly = Q8Layout<kT>;
  const int64_t nblk = p.cols / quant::kQBlock;
  float acc[RT][NT] = {}, accm[RT][NT] = {};
  for (int64_t b = 0; b < nblk; ++b) {
    for (int r = 0; r < RT; ++r) {
      const uint8_t* blk = p.w + static_cast<size_t>(r0 + r) * p.w_row_bytes + b * Ly::kBytes;
      int16_t c[32];
      i8_codes_portable<kT>(blk, c);
      const float dw = half_to_float(read_u16(blk));
      for (int t = 0; t < NT; ++t) {
        const BlockQ8& xb = p.x[(t0 + t) * p.x_stride + b];
        int32_t dot = 0;
        for (int e = 0; e < 32; ++e) dot += static_cast<int32_t>(c[e]) * xb.q[e];
        if constexpr (Ly::kOffsetShift > 0) {
          int32_t sum = 0;
          for (int j = 0; j < 8; ++j) sum += xb.psum[j];
          dot -= sum * (1 << Ly::kOffsetShift);  // sum may be negative: no shift of it
        }
        acc[r][t] = i8_fma(dw * xb.d, static_cast<float>(dot), acc[r][t]);
        if constexpr (Ly::kMin)
          accm[r][t] = i8_fma(half_to_float(read_u16(blk + 2)), xb.s, accm[r][t]);
      }
    }
  }
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) p.y[(t0 + t) * p.y_stride + r0 + r] = acc[r][t] + accm[r][t];
  }
}

constexpr int kI8Rows = 2, kI8Toks = 2, kI8DecodeRows = 2;
#endif

// Rows in whole tiles of RT, tokens in tiles of NT; the rest in 1-row / 1-token tiles (the
// per-pair arithmetic is the same in every tile shape).
template <DType kT, int RT, int NT>
void i8_rows(const MatmulQ8Args& p) {
  int64_t r = p.row_begin;
  for (; r + RT <= p.row_end; r += RT) {
    int64_t t = 0;
    for (; t + NT <= p.T; t += NT) i8_tile<kT, RT, NT>(p, r, t);
    for (; t < p.T; ++t) i8_tile<kT, RT, 1>(p, r, t);
  }
  for (; r < p.row_end; ++r) {
    int64_t t = 0;
    for (; t + NT <= p.T; t += NT) i8_tile<kT, 1, NT>(p, r, t);
    for (; t < p.T; ++t) i8_tile<kT, 1, 1>(p, r, t);
  }
}

template <DType kT>
void i8_typed(const MatmulQ8Args& p) {
  if (p.T == 1) {
    i8_rows<kT, kI8DecodeRows, 1>(p);
  } else {
    i8_rows<kT, kI8Rows, kI8Toks>(p);
  }
}

inline void matmul_q8_impl(const MatmulQ8Args& p) {
  if (p.T <= 0 || p.row_end <= p.row_begin) return;
  switch (p.wtype) {
    case DType::Q4_0:
      i8_typed<DType::Q4_0>(p);
      break;
    case DType::Q4_1:
      i8_typed<DType::Q4_1>(p);
      break;
    case DType::Q5_0:
      i8_typed<DType::Q5_0>(p);
      break;
    case DType::Q5_1:
      i8_typed<DType::Q5_1>(p);
      break;
    case DType::Q8_0:
      i8_typed<DType::Q8_0>(p);
      break;
    default:
      break;  // not an int8 type (kernels.h matmul_q8_supports)
  }
}
