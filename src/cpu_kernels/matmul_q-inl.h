// Weight decoders of the quantized types for the matmul driver (matmul-inl.h): each turns one
// block into registers of A's lane count, sub-batch by sub-batch, so a quantized matrix is never
// expanded in memory. Layouts: quant_layout.h (docs/weight-files.md "Element types", ggml's
// dequantize_row_q6_K). Never compiled alone; included after simd_load-inl.h inside a per-ISA
// namespace.
//
// Decoder interface (also implemented by the float decoders of matmul-inl.h):
//   kBlock  weights per block (a multiple of the lane count), kBytes bytes per block,
//   Head head(blk)                  per-block scalars (scales, high bits), read once per block,
//   FB decode(head, blk, s)         weights [s*L, s*L + L) of the block as floats.
// Sub-batches never straddle a 16-weight group, since L <= 16 divides 16.

// 1 << e for e = 0..31: lane masks that pick each weight's fifth bit out of a Q5 block's qh.
alignas(64) constexpr int32_t kQ5BitMask[32] = {
    1,        2,        4,        8,         16,        32,        64,         128,
    256,      512,      1024,     2048,      4096,      8192,      16384,      32768,
    65536,    131072,   262144,   524288,    1048576,   2097152,   4194304,    8388608,
    16777216, 33554432, 67108864, 134217728, 268435456, 536870912, 1073741824, INT32_MIN};

// q(e) for e in [e0, e0 + L): low nibbles of qs[0..16) are weights 0..15, high nibbles 16..31.
template <class A>
IB<A> q4_nibbles(const uint8_t* qs, int e0) {
  const IB<A> b = load_u8(qs + (e0 & 15), A{});
  return e0 < 16 ? (b & IB<A>(15)) : (b >> 4);
}

// Q4_0 (w = d*(q - 8)) and Q4_1 (w = d*q + m) share w = q*d + m with m = -8d for Q4_0.
template <class A, bool kHasMin>
struct DecQ4 {
  static constexpr int kBlock = quant::kQBlock;
  static constexpr size_t kBytes = kHasMin ? quant::kQ4_1Bytes : quant::kQ4_0Bytes;
  static constexpr size_t kQs = kHasMin ? 4 : 2;
  struct Head {
    FB<A> d, m;
  };
  static Head head(const uint8_t* b) {
    const float d = half_to_float(read_u16(b));
    return {FB<A>(d), FB<A>(kHasMin ? half_to_float(read_u16(b + 2)) : -8.0f * d)};
  }
  static FB<A> decode(const Head& h, const uint8_t* b, int s) {
    const IB<A> q = q4_nibbles<A>(b + kQs, s * static_cast<int>(FB<A>::size));
    return xsimd::fma(xsimd::batch_cast<float>(q), h.d, h.m);
  }
};

// Q5_0 (w = d*(q5 - 16)) and Q5_1 (w = d*q5 + m), q5 = q(e) | bit_e(qh) << 4.
template <class A, bool kHasMin>
struct DecQ5 {
  static constexpr int kBlock = quant::kQBlock;
  static constexpr size_t kBytes = kHasMin ? quant::kQ5_1Bytes : quant::kQ5_0Bytes;
  static constexpr size_t kQh = kHasMin ? 4 : 2;
  struct Head {
    FB<A> d, m;
    IB<A> qh;
  };
  static Head head(const uint8_t* b) {
    const float d = half_to_float(read_u16(b));
    const float m = kHasMin ? half_to_float(read_u16(b + 2)) : -16.0f * d;
    return {FB<A>(d), FB<A>(m), IB<A>(static_cast<int32_t>(read_u32(b + kQh)))};
  }
  static FB<A> decode(const Head& h, const uint8_t* b, int s) {
    const int e0 = s * static_cast<int>(FB<A>::size);
    // t = qh & (1 << e) per lane; t | -t has its sign bit set exactly when t != 0, so the
    // arithmetic shift gives all ones or zero (no compare/select: xsimd 8.1's avx512bw integer
    // select does not compile unoptimised).
    const IB<A> t = h.qh & IB<A>::load_aligned(kQ5BitMask + e0);
    const IB<A> q = q4_nibbles<A>(b + kQh + 4, e0) | (((t | -t) >> 31) & IB<A>(16));
    return xsimd::fma(xsimd::batch_cast<float>(q), h.d, h.m);
  }
};

// Q8_0: w = d * qs[e].
template <class A>
struct DecQ8_0 {
  static constexpr int kBlock = quant::kQBlock;
  static constexpr size_t kBytes = quant::kQ8_0Bytes;
  struct Head {
    FB<A> d;
  };
  static Head head(const uint8_t* b) { return {FB<A>(half_to_float(read_u16(b)))}; }
  static FB<A> decode(const Head& h, const uint8_t* b, int s) {
    const IB<A> q = load_i8(b + 2 + s * FB<A>::size, A{});
    return xsimd::batch_cast<float>(q) * h.d;
  }
};

// Q6_K (256 weights): weight e = n*128 + j*32 + l is d * scales[n*8 + l/16 + 2j] * (q6 - 32)
// (quant_layout.h). A sub-batch has one (n, j) and one 16-weight scale group.
template <class A>
struct DecQ6_K {
  static constexpr int kBlock = quant::kKBlock;
  static constexpr size_t kBytes = quant::kQ6_KBytes;
  struct Head {
    float d;
  };
  static Head head(const uint8_t* b) { return {half_to_float(read_u16(b + quant::kQ6_KD))}; }
  static FB<A> decode(const Head& h, const uint8_t* b, int s) {
    const int e0 = s * static_cast<int>(FB<A>::size);
    const int n = e0 >> 7, j = (e0 >> 5) & 3, l = e0 & 31;
    const IB<A> ql = load_u8(b + quant::kQ6_KQl + 64 * n + 32 * (j & 1) + l, A{});
    const IB<A> qh = load_u8(b + quant::kQ6_KQh + 32 * n + l, A{});
    const IB<A> lo = j < 2 ? (ql & IB<A>(15)) : (ql >> 4);
    const IB<A> hi = ((qh >> (2 * j)) & IB<A>(3)) << 4;
    const int8_t sc = static_cast<int8_t>(b[quant::kQ6_KScales + 8 * n + l / 16 + 2 * j]);
    // (d * sc) first, as ggml does, then times the integer.
    return xsimd::batch_cast<float>((lo | hi) - IB<A>(32)) * FB<A>(h.d * static_cast<float>(sc));
  }
};
