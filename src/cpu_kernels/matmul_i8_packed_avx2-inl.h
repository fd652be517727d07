// The int8 path on row-interleaved weights (kernels.h "pack_q8") on 256-bit registers: the avx2
// table (vpmaddubsw + vpmaddwd) and the avx2_vnni table (VEX vpdpbusd, chosen by __AVXVNNI__).
// Never compiled alone; included after matmul_i8-inl.h (Q8Layout, i8_typed for the plain rows)
// inside a per-ISA namespace.
//
// The layout is the one matmul_i8_packed-inl.h reads with 16-lane registers (16 rows per group,
// 64 bytes per 4 columns, row i's 4 bytes at 4 i). A ymm holds half of it: 8 rows x 4 columns,
// so this kernel works in halves of groups (rows 0-7 and 8-15; their scales, mins and high-bit
// words are the matching halves too) and the layout is the AVX-512 tables' but for the order of
// Q5's high bits (by row here: pack_q8_portable; kernels.h "pack_q8").
//
// The byte dot of 8 rows by 4 columns of one token (the token's 4 bytes broadcast):
//   avx2_vnni: one vpdpbusd per 4 columns, on the stored bytes (Q8_0 stored c + 128, corrected
//     by - 128 * sum(q) in the int32 start value, as in the 16-lane kernel);
//   avx2: vpmaddubsw saturates its int16 pair sums, so Q8_0's codes are made signed again
//     (xor 0x80) and multiplied as |c| times sign(q, c) (|c| <= 128, |q| <= 127: a pair sum is
//     below 32768), then vpmaddwd by 1 widens to int32. The Q4 / Q5 codes (c <= 15 / 31) add
//     their int16 pair sums over several 4-column steps before one vpmaddwd: a pair sum is at
//     most 2 * 15 * 127 = 3810 for Q4 (8 of them: 30480) and 2 * 31 * 127 = 7874 for Q5 (4 of
//     them: 31496), below 32768, so the int16 sums are exact.
// Then, per block, one conversion, one scale multiply and one FMA per 8 rows and token:
//   acc = fma(dw * d, float(isum), acc), block by block in column order: the 16-lane kernel's
// chain and the scalar reference's terms, so a row's bits do not depend on its half, group,
// row range, T or tile.

// Per-type constants of the packed layout, read by halves.
template <DType kT>
struct Pk8 {
  using Ly = Q8Layout<kT>;  // the plain block (matmul_i8-inl.h)
  static constexpr bool kQ8 = Ly::kSigned;
  static constexpr bool kMin = Ly::kMin;
  static constexpr bool kFive = Ly::kFive;
  static constexpr size_t kGroupBlk = kQ8PackRows * Ly::kBytes;  // one group-block
  static constexpr size_t kQhOff = kMin ? 64 : 32;               // after the scales (and mins)
  static constexpr size_t kCodes = kQhOff + (kFive ? 64 : 0);    // after the high bits
#if defined(__AVXVNNI__)
  // subtracted as offset * sum(q): Q8_0 stored + 128, Q4_0 8, Q5_0 16, the _1 types 0
  static constexpr int kOffset = kQ8 ? 128 : Ly::kOffsetShift > 0 ? 1 << Ly::kOffsetShift : 0;
#else
  // Q8_0 is multiplied as signed codes here: no offset
  static constexpr int kOffset = Ly::kOffsetShift > 0 ? 1 << Ly::kOffsetShift : 0;
  // 4-column steps whose int16 pair sums are added before one vpmaddwd (bounds above)
  static constexpr int kFlush = kFive ? 2 : 4;
#endif
};

// Q5: sets bit 4 of the codes of 4 columns whose high bit is set in the 8 rows' words: byte j
// of row i's lane takes bit 8 * kByte + 4 * kNib + j of its word. `h4` is the words shifted left
// by 4 in 16-bit lanes, so a low nibble's bits sit at 4..7 of their own byte: one shuffle, one
// and, one min (a set bit is >= 16, so min(., 16) is 16 or 0), one or.
template <int kByte, int kNib>
inline __m256i p8_q5_high(__m256i codes, __m256i h, __m256i h4) {
  const __m256i idx = _mm256_add_epi8(_mm256_set_epi32(0x0c0c0c0c, 0x08080808, 0x04040404, 0,
                                                       0x0c0c0c0c, 0x08080808, 0x04040404, 0),
                                      _mm256_set1_epi8(kByte));
  const __m256i bits = _mm256_set1_epi32(static_cast<int>(0x80402010u));
  const __m256i b = _mm256_and_si256(_mm256_shuffle_epi8(kNib == 0 ? h4 : h, idx), bits);
  return _mm256_or_si256(codes, _mm256_min_epu8(b, _mm256_set1_epi8(16)));
}

// f(0), f(1), f(2), f(3) as compile-time constants (the Q5 shuffle constants depend on them).
template <class F>
inline void p8_unroll4(F&& f) {
  f(std::integral_constant<int, 0>{});
  f(std::integral_constant<int, 1>{});
  f(std::integral_constant<int, 2>{});
  f(std::integral_constant<int, 3>{});
}

// acc + the dot of 8 rows' 4 unsigned bytes (u) with the broadcast activation bytes (s).
inline __m256i p8_dot(__m256i acc, __m256i u, __m256i s) {
#if defined(__AVXVNNI__)
  return _mm256_dpbusd_avx_epi32(acc, u, s);
#else
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
#endif
}

// The int32 block sums of halves [0, RH) x tokens [0, NT) for block `off` of the groups w[].
template <DType kT, int RH, int NT>
inline void p8_block_q8(const uint8_t* const* w, size_t off, const uint8_t* const* q,
                        __m256i (&is)[RH][NT]) {
  using P = Pk8<kT>;
  for (int k = 0; k < 8; ++k) {
    __m256i u[RH];
    for (int h = 0; h < RH; ++h) {
      u[h] = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(w[h / 2] + off + P::kCodes + 64 * k + 32 * (h % 2)));
    }
#if !defined(__AVXVNNI__)
    __m256i c[RH];
    for (int h = 0; h < RH; ++h) {
      c[h] = _mm256_xor_si256(u[h], _mm256_set1_epi8(static_cast<char>(0x80)));  // signed codes
      u[h] = _mm256_sign_epi8(c[h], c[h]);  // |c| (-128 stays 0x80 = 128)
    }
#endif
    for (int t = 0; t < NT; ++t) {
      const __m256i xk = _mm256_set1_epi32(static_cast<int>(read_u32(q[t] + 4 * k)));
      for (int h = 0; h < RH; ++h) {
#if defined(__AVXVNNI__)
        is[h][t] = p8_dot(is[h][t], u[h], xk);
#else
        is[h][t] = p8_dot(is[h][t], u[h], _mm256_sign_epi8(xk, c[h]));
#endif
      }
    }
  }
}

template <DType kT, int RH, int NT>
inline void p8_block_q45(const uint8_t* const* w, size_t off, const uint8_t* const* q,
                         __m256i (&is)[RH][NT]) {
  using P = Pk8<kT>;
  const __m256i m4 = _mm256_set1_epi8(15);
  __m256i h[RH], h4[RH];
  if constexpr (P::kFive) {
    for (int r = 0; r < RH; ++r) {
      h[r] = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(w[r / 2] + off + P::kQhOff + 32 * (r % 2)));
      h4[r] = _mm256_slli_epi16(h[r], 4);
    }
  }
#if !defined(__AVXVNNI__)
  __m256i p16[RH][NT];
  for (int r = 0; r < RH; ++r) {
    for (int t = 0; t < NT; ++t) p16[r][t] = _mm256_setzero_si256();
  }
#endif
  p8_unroll4([&](auto kc) {
    constexpr int k = decltype(kc)::value;
    __m256i lo[RH], hi[RH];
    for (int r = 0; r < RH; ++r) {
      const __m256i v = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(w[r / 2] + off + P::kCodes + 64 * k + 32 * (r % 2)));
      lo[r] = _mm256_and_si256(v, m4);
      hi[r] = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
      if constexpr (P::kFive) {  // columns 4k.. (bits 4k..) and 16 + 4k.. (bits 16 + 4k..)
        lo[r] = p8_q5_high<k / 2, k % 2>(lo[r], h[r], h4[r]);
        hi[r] = p8_q5_high<2 + k / 2, k % 2>(hi[r], h[r], h4[r]);
      }
    }
    for (int t = 0; t < NT; ++t) {
      const __m256i xl = _mm256_set1_epi32(static_cast<int>(read_u32(q[t] + 4 * k)));
      const __m256i xh = _mm256_set1_epi32(static_cast<int>(read_u32(q[t] + 16 + 4 * k)));
      for (int r = 0; r < RH; ++r) {
#if defined(__AVXVNNI__)
        is[r][t] = _mm256_dpbusd_avx_epi32(_mm256_dpbusd_avx_epi32(is[r][t], lo[r], xl), hi[r], xh);
#else
        p16[r][t] = _mm256_add_epi16(p16[r][t], _mm256_add_epi16(_mm256_maddubs_epi16(lo[r], xl),
                                                                 _mm256_maddubs_epi16(hi[r], xh)));
        if constexpr ((k + 1) % P::kFlush == 0) {  // widen before the int16 sums could overflow
          is[r][t] = _mm256_add_epi32(is[r][t], _mm256_madd_epi16(p16[r][t], _mm256_set1_epi16(1)));
          p16[r][t] = _mm256_setzero_si256();
        }
#endif
      }
    }
  });
}

#if !defined(__AVXVNNI__)
// Q4 prefill tiles on the avx2 table: the same int16 sums as p8_block_q45, but the 4-column
// steps in a loop the compiler keeps rolled, each step's low then high nibbles of the tile's
// halves in turn. Unrolled (p8_block_q45, which Q5 keeps for its per-step shuffle constants),
// GCC started the next steps' loads and nibble splits early and, 16 registers holding the 8
// int16 sums, moved sums through the stack every step: llvm-mca (znver3) gave a 2-half x
// 4-token block 91 cycles, this form 75-76 (5 of the 8 sums still spilled, once per step).
// bench_kernels gemm/avx2/Q4_x/i8pk, best of 8 alternating runs on the Zen 3 host, share of
// the int8 peak: Q4_0 2048 x 2048 T128 0.741 -> 0.793, 3072 x 768 T64 0.734 -> 0.816; Q4_1
// 0.665 -> 0.735, 0.697 -> 0.799 (medians +5 to +14 %). Decode (1 token) keeps p8_block_q45.
template <DType kT, int RH, int NT>
inline void p8_block_q4(const uint8_t* const* w, size_t off, const uint8_t* const* q,
                        __m256i (&is)[RH][NT]) {
  using P = Pk8<kT>;
  const __m256i m4 = _mm256_set1_epi8(15);
  __m256i p16[RH][NT];
  for (int r = 0; r < RH; ++r) {
    for (int t = 0; t < NT; ++t) p16[r][t] = _mm256_setzero_si256();
  }
#pragma GCC unroll 1
  for (int k = 0; k < 4; ++k) {
#pragma GCC unroll 2
    for (int nib = 0; nib < 2; ++nib) {  // columns 4k.. (low nibbles), then 16 + 4k.. (high)
      __m256i c[RH];
      for (int r = 0; r < RH; ++r) {
        const __m256i v = _mm256_loadu_si256(
            reinterpret_cast<const __m256i*>(w[r / 2] + off + P::kCodes + 64 * k + 32 * (r % 2)));
        c[r] = _mm256_and_si256(nib == 0 ? v : _mm256_srli_epi16(v, 4), m4);
      }
      for (int t = 0; t < NT; ++t) {
        const __m256i xk = _mm256_set1_epi32(static_cast<int>(read_u32(q[t] + 16 * nib + 4 * k)));
        for (int r = 0; r < RH; ++r) {
          p16[r][t] = _mm256_add_epi16(p16[r][t], _mm256_maddubs_epi16(c[r], xk));
        }
      }
    }
  }
  for (int r = 0; r < RH; ++r) {  // 8 pair sums of at most 3810 each: exact in int16 (above)
    for (int t = 0; t < NT; ++t) {
      is[r][t] = _mm256_add_epi32(is[r][t], _mm256_madd_epi16(p16[r][t], _mm256_set1_epi16(1)));
    }
  }
}
#endif

// Store mask of the 8 rows from row0 for the call's rows [rb, re).
inline __m256i p8_mask(int64_t row0, int64_t rb, int64_t re) {
  const __m256i r = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(row0)),
                                     _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i ge = _mm256_cmpgt_epi32(r, _mm256_set1_epi32(static_cast<int>(rb - 1)));
  const __m256i lt = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(re)), r);
  return _mm256_and_si256(ge, lt);
}

// Groups g0, g0 + gstep, ... (RH / 2 of them) x tokens [t0, t0 + NT), all blocks (RH halves: 2
// per group). gstep > 1 only in decode (PackedWalk::decode_pieces): each group then asks for its
// own stream kPieceAhead bytes ahead instead of the next tile's groups.
constexpr size_t kPieceAhead = 256;
template <DType kT, int RH, int NT>
void p8_tile(const MatmulQ8Args& p, int64_t g0, int64_t t0, int64_t rb, int64_t re,
             int64_t gstep = 1) {
  using P = Pk8<kT>;
  static_assert(RH % 2 == 0, "whole groups");
  const int64_t nblk = p.cols / quant::kQBlock;
  const size_t gbytes = kQ8PackRows * p.w_row_bytes;
  const uint8_t* w[RH / 2];
  for (int g = 0; g < RH / 2; ++g) w[g] = p.w + static_cast<size_t>(g0 + g * gstep) * gbytes;
  const BlockQ8* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  __m256 acc[RH][NT], accm[RH][NT];
  for (int h = 0; h < RH; ++h) {
    for (int t = 0; t < NT; ++t) acc[h][t] = accm[h][t] = _mm256_setzero_ps();
  }
  const PkAhead ahead =
      pk_ahead(p, reinterpret_cast<uintptr_t>(w[0]) + (RH / 2) * gbytes, (RH / 2) * gbytes, t0, NT,
               (g0 + RH) * kQ8PackRows <= p.packed_rows);
  PkAhead::Blocks shares = ahead.blocks(nblk);
  for (int64_t b = 0; b < nblk; ++b) {
    __m256i is[RH][NT];
    const uint8_t* q[NT];
    for (int t = 0; t < NT; ++t) {
      q[t] = reinterpret_cast<const uint8_t*>(x[t][b].q);
      const __m256i init = _mm256_set1_epi32(-x[t][b].sum * P::kOffset);
      for (int h = 0; h < RH; ++h) is[h][t] = init;
    }
    const size_t off = static_cast<size_t>(b) * P::kGroupBlk;
    // Decode: block b of the next tile's groups (see kP8DecodeHalves). T > 1: this token
    // tile's share of the next group tile, into L2 (pk_ahead).
    if (p.T > 1) {
      ahead.step<1>(shares.next(), 0);
    } else if (gstep > 1) {
      for (int g = 0; g < RH / 2; ++g) {
        const uintptr_t a = reinterpret_cast<uintptr_t>(w[g] + off) + kPieceAhead;
        // A fixed count of lines, one more than a block spans, unrolled (a prefetch never
        // faults, past the end too). With the loop from a's own line (9 or 10 trips for a Q8_0
        // block, by alignment) a Q8_0 decode with its weights in L3 took 0.149-0.184 ms where it
        // takes 0.113-0.139 (docs/decode-speed.md "Decode in pieces"); from DRAM no change shows.
#pragma GCC unroll 16
        for (size_t l = 0; l < P::kGroupBlk + 64; l += 64) {
          __builtin_prefetch(reinterpret_cast<const void*>(a + l));
        }
      }
    } else {
      for (int g = 0; g < RH / 2; ++g) {
        const uint8_t* next = w[g] + (RH / 2) * gbytes + off;
        for (size_t l = 0; l < P::kGroupBlk; l += 64) {
          __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(next) + l));
        }
      }
    }
    if constexpr (P::kQ8) {
      p8_block_q8<kT, RH, NT>(w, off, q, is);
#if !defined(__AVXVNNI__)
    } else if constexpr (!P::kFive && NT > 1) {
      p8_block_q4<kT, RH, NT>(w, off, q, is);
#endif
    } else {
      p8_block_q45<kT, RH, NT>(w, off, q, is);
    }
    for (int h = 0; h < RH; ++h) {
      const uint8_t* gb = w[h / 2] + off + 16 * (h % 2);
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(gb)));
      for (int t = 0; t < NT; ++t) {
        const __m256 scale = _mm256_mul_ps(dw, _mm256_set1_ps(x[t][b].d));
        acc[h][t] = _mm256_fmadd_ps(scale, _mm256_cvtepi32_ps(is[h][t]), acc[h][t]);
      }
      if constexpr (P::kMin) {  // + m * s, in its own chain (kernels.h: the _1 types' min)
        const __m256 m =
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(gb + 32)));
        for (int t = 0; t < NT; ++t) {
          accm[h][t] = _mm256_fmadd_ps(m, _mm256_set1_ps(x[t][b].s), accm[h][t]);
        }
      }
    }
  }
  for (int h = 0; h < RH; ++h) {
    const int64_t row0 = (g0 + (h / 2) * gstep) * kQ8PackRows + 8 * (h % 2);
    const bool whole = row0 >= rb && row0 + 8 <= re;
    const __m256i mask = p8_mask(row0, rb, re);
    for (int t = 0; t < NT; ++t) {
      const __m256 y = P::kMin ? _mm256_add_ps(acc[h][t], accm[h][t]) : acc[h][t];
      float* out = p.y + (t0 + t) * p.y_stride + row0;
      if (whole) {
        _mm256_storeu_ps(out, y);
      } else {
        _mm256_maskstore_ps(out, mask, y);
      }
    }
  }
}

// Register tiles (16 ymm): prefill 1 group (2 halves) x 4 tokens: 8 int32 (and for Q4/Q5 8
// int16) sums and 8 float accumulators, some spilled; it measured the same as 2 x 3 for Q4_0 and
// Q8_0 and 5 to 7 % faster for Q5_0, and 4 halves x 2 tokens 5 to 10 % slower (T = 128, shared
// machine). Decode 2 groups (4 halves) x 1 token, prefetching block b of the next 2 groups
// while it multiplies block b of these: with 768 columns (a 16-row group is 7 KB of Q4_0) the
// hardware prefetchers do not ramp up within a group, and the packed Q4_0 matvec ran at 0.7x the
// plain one without it, 1.1x with it; 4096 x 4096 Q4_0 1.1 to 1.8x faster with it, Q8_0 about
// 10 % slower (CPU-time rates, shared machine, interleaved runs). The tokens are pk_ahead's
// kPkToks: its shares of the next group tile are counted in full tiles of that many tokens.
constexpr int kP8Halves = 2, kP8Toks = kPkToks, kP8DecodeHalves = 4;

struct P8Tile {
  static constexpr int kPerGroup = 2, kParts = kP8Halves, kToks = kP8Toks,
                       kDecodeParts = kP8DecodeHalves;
  static constexpr bool kDecodePieces = true;  // PackedWalk::decode_pieces
  template <DType kT, int R, int NT>
  static void run(const MatmulQ8Args& p, int64_t g0, int64_t t0, int64_t rb, int64_t re,
                  int64_t gstep = 1) {
    p8_tile<kT, R, NT>(p, g0, t0, rb, re, gstep);
  }
};

// kernels.h matmul_q8 on the packed layout (matmul_i8_packed_walk-inl.h: the walk over groups).
inline void matmul_q8_packed8_impl(const MatmulQ8Args& p) { PackedWalk<P8Tile>::run(p); }
