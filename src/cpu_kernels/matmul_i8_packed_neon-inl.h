// The int8 path on row-interleaved weights (kernels.h "pack_q8") with the aarch64 dot product
// extension: the neon64_dotprod table (-march=armv8.2-a+dotprod). Never compiled alone; included
// after matmul_i8-inl.h (Q8Layout, i8_typed for the plain rows) inside a per-ISA namespace.
//
// The layout is the one matmul_i8_packed-inl.h reads with 16-lane registers (16 rows per group,
// 64 bytes per 4 columns, row i's 4 bytes at 4 i). A 128-bit register holds a quarter of it: 4
// rows x 4 columns, so this kernel works in quarters of groups (rows 4j..4j+3; their scales,
// mins and high-bit words are the matching quarters too) and the layout is the AVX-512 tables'
// but for the order of Q5's high bits (by row here: pack_q8_portable; kernels.h "pack_q8").
// sdot with a lane operand (vdotq_laneq_s32) multiplies the 4 rows by 4 columns of one token,
// the token's 4 bytes taken from the activation register in place (no broadcast).
// Codes are signed bytes for sdot: Q8_0's stored c + 128 go back to c with one xor (no offset),
// the Q4/Q5 codes (0..31) are used as they are (offset 8 or 16 times sum(q) starts the sum).
// Then per block: acc = fma(dw * d, float(isum), acc) in column order, the other packed kernels'
// chain, so a row's bits do not depend on its quarter, group, row range, T or tile.

template <DType kT>
struct PkN {
  using Ly = Q8Layout<kT>;  // the plain block (matmul_i8-inl.h)
  static constexpr bool kQ8 = Ly::kSigned;
  static constexpr bool kMin = Ly::kMin;
  static constexpr bool kFive = Ly::kFive;
  static constexpr size_t kGroupBlk = kQ8PackRows * Ly::kBytes;  // one group-block
  static constexpr size_t kQhOff = kMin ? 64 : 32;               // after the scales (and mins)
  static constexpr size_t kCodes = kQhOff + (kFive ? 64 : 0);    // after the high bits
  static constexpr int kOffset = Ly::kOffsetShift > 0 ? 1 << Ly::kOffsetShift : 0;
};

// f(0), f(1), f(2), f(3) as compile-time constants (sdot's lane and the Q5 bits depend on them).
template <class F>
inline void pn_unroll4(F&& f) {
  f(std::integral_constant<int, 0>{});
  f(std::integral_constant<int, 1>{});
  f(std::integral_constant<int, 2>{});
  f(std::integral_constant<int, 3>{});
}

// Q5: bit 4 of the codes of 4 columns whose high bit is set in the 4 rows' words h: byte j of
// row i's lane takes bit 8 * kByte + 4 * kNib + j of its word.
template <int kByte, int kNib>
inline int8x16_t pn_q5_high(int8x16_t codes, uint8x16_t h) {
  const uint32_t base[4] = {0x01010101u * kByte, 0x04040404u + 0x01010101u * kByte,
                            0x08080808u + 0x01010101u * kByte, 0x0c0c0c0cu + 0x01010101u * kByte};
  const uint8x16_t idx = vreinterpretq_u8_u32(vld1q_u32(base));
  const uint8x16_t bits = vreinterpretq_u8_u32(vdupq_n_u32(kNib == 0 ? 0x08040201u : 0x80402010u));
  const uint8x16_t set = vtstq_u8(vqtbl1q_u8(h, idx), bits);
  return vorrq_s8(codes, vreinterpretq_s8_u8(vandq_u8(set, vdupq_n_u8(16))));
}

inline const int8_t* pn_codes(const uint8_t* p) { return reinterpret_cast<const int8_t*>(p); }

// The int32 block sums of quarters [0, RQ) x tokens [0, NT) for block `off` of the groups w[].
template <DType kT, int RQ, int NT>
inline void pn_block(const uint8_t* const* w, size_t off, const int8x16_t (&xq)[NT][2],
                     int32x4_t (&is)[RQ][NT]) {
  using P = PkN<kT>;
  if constexpr (P::kQ8) {
    for (int half = 0; half < 2; ++half) {  // columns 16 half + 4 k .. + 3
      pn_unroll4([&](auto kc) {
        constexpr int k = decltype(kc)::value;
        for (int r = 0; r < RQ; ++r) {
          const uint8_t* src = w[r / 4] + off + P::kCodes + 64 * (4 * half + k) + 16 * (r % 4);
          const int8x16_t c = veorq_s8(vld1q_s8(pn_codes(src)), vdupq_n_s8(-128));
          for (int t = 0; t < NT; ++t) is[r][t] = vdotq_laneq_s32(is[r][t], c, xq[t][half], k);
        }
      });
    }
  } else {
    uint8x16_t h[RQ];
    if constexpr (P::kFive) {
      for (int r = 0; r < RQ; ++r) h[r] = vld1q_u8(w[r / 4] + off + P::kQhOff + 16 * (r % 4));
    }
    pn_unroll4([&](auto kc) {
      constexpr int k = decltype(kc)::value;
      for (int r = 0; r < RQ; ++r) {
        const uint8x16_t v = vld1q_u8(w[r / 4] + off + P::kCodes + 64 * k + 16 * (r % 4));
        int8x16_t lo = vreinterpretq_s8_u8(vandq_u8(v, vdupq_n_u8(15)));
        int8x16_t hi = vreinterpretq_s8_u8(vshrq_n_u8(v, 4));
        if constexpr (P::kFive) {  // columns 4k.. (bits 4k..) and 16 + 4k.. (bits 16 + 4k..)
          lo = pn_q5_high<k / 2, k % 2>(lo, h[r]);
          hi = pn_q5_high<2 + k / 2, k % 2>(hi, h[r]);
        }
        for (int t = 0; t < NT; ++t) {
          is[r][t] = vdotq_laneq_s32(is[r][t], lo, xq[t][0], k);
          is[r][t] = vdotq_laneq_s32(is[r][t], hi, xq[t][1], k);
        }
      }
    });
  }
}

// Groups [g0, g0 + RQ / 4) x tokens [t0, t0 + NT), all blocks (RQ quarters: 4 per group).
template <DType kT, int RQ, int NT>
void pn_tile(const MatmulQ8Args& p, int64_t g0, int64_t t0, int64_t rb, int64_t re) {
  using P = PkN<kT>;
  static_assert(RQ % 4 == 0, "whole groups");
  const int64_t nblk = p.cols / quant::kQBlock;
  const size_t gbytes = kQ8PackRows * p.w_row_bytes;
  const uint8_t* w[RQ / 4];
  for (int g = 0; g < RQ / 4; ++g) w[g] = p.w + static_cast<size_t>(g0 + g) * gbytes;
  const BlockQ8* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  float32x4_t acc[RQ][NT], accm[RQ][NT];
  for (int r = 0; r < RQ; ++r) {
    for (int t = 0; t < NT; ++t) acc[r][t] = accm[r][t] = vdupq_n_f32(0.0f);
  }
  for (int64_t b = 0; b < nblk; ++b) {
    int32x4_t is[RQ][NT];
    int8x16_t xq[NT][2];
    for (int t = 0; t < NT; ++t) {
      xq[t][0] = vld1q_s8(x[t][b].q);
      xq[t][1] = vld1q_s8(x[t][b].q + 16);
      const int32x4_t init = vdupq_n_s32(-x[t][b].sum * P::kOffset);
      for (int r = 0; r < RQ; ++r) is[r][t] = init;
    }
    const size_t off = static_cast<size_t>(b) * P::kGroupBlk;
    pn_block<kT, RQ, NT>(w, off, xq, is);
    for (int r = 0; r < RQ; ++r) {
      const uint8_t* gb = w[r / 4] + off + 8 * (r % 4);
      const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(gb)));
      for (int t = 0; t < NT; ++t) {
        const float32x4_t scale = vmulq_n_f32(dw, x[t][b].d);
        acc[r][t] = vfmaq_f32(acc[r][t], scale, vcvtq_f32_s32(is[r][t]));
      }
      if constexpr (P::kMin) {  // + m * s, in its own chain (kernels.h: the _1 types' min)
        const float32x4_t m = vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(gb + 32)));
        for (int t = 0; t < NT; ++t) {
          accm[r][t] = vfmaq_f32(accm[r][t], m, vdupq_n_f32(x[t][b].s));
        }
      }
    }
  }
  for (int r = 0; r < RQ; ++r) {
    const int64_t row0 = g0 * kQ8PackRows + 4 * r;
    for (int t = 0; t < NT; ++t) {
      const float32x4_t y = P::kMin ? vaddq_f32(acc[r][t], accm[r][t]) : acc[r][t];
      float* out = p.y + (t0 + t) * p.y_stride + row0;
      if (row0 >= rb && row0 + 4 <= re) {
        vst1q_f32(out, y);
      } else {  // a partial group: only the call's rows
        float tmp[4];
        vst1q_f32(tmp, y);
        for (int i = 0; i < 4; ++i) {
          if (row0 + i >= rb && row0 + i < re) out[i] = tmp[i];
        }
      }
    }
  }
}

// Register tiles (32 q registers): prefill 1 group (4 quarters) x 3 tokens: 12 int32 and 12
// float accumulators; decode 2 groups (8 quarters) x 1 token.
constexpr int kPnQuarters = 4, kPnToks = 3, kPnDecodeQuarters = 8;

struct PnTile {
  static constexpr int kPerGroup = 4, kParts = kPnQuarters, kToks = kPnToks,
                       kDecodeParts = kPnDecodeQuarters;
  template <DType kT, int R, int NT>
  static void run(const MatmulQ8Args& p, int64_t g0, int64_t t0, int64_t rb, int64_t re) {
    pn_tile<kT, R, NT>(p, g0, t0, rb, re);
  }
};

// kernels.h matmul_q8 on the packed layout (matmul_i8_packed_walk-inl.h: the walk over groups).
inline void matmul_q8_packed_neon_impl(const MatmulQ8Args& p) { PackedWalk<PnTile>::run(p); }
