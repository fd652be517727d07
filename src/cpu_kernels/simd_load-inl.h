// Per-ISA load primitives used by the kernel templates: widen stored weights (f16, bf16, bytes)
// into one register of A's lane count. Never compiled alone, no include guard and no includes:
// each isa_<name>.cpp includes xsimd and the intrinsic headers first, then this file inside
// namespace ai00::internal::cpu::<isa> { namespace { ... } }, so every definition is internal to
// one ISA object (docs/model.md "Kernels and ISAs").
//
// The generic versions (any ISA without an overload below) fill a small stack array; the
// overloads for sse2, avx2, avx512 and neon64 use the native widening instructions. Every load
// reads exactly the bytes of its lanes, never past them (weights end where a mapping may end).

template <class A>
using FB = xsimd::batch<float, A>;
template <class A>
using IB = xsimd::batch<int32_t, A>;

inline uint16_t read_u16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

inline uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Exact binary16 -> float: the 15 magnitude bits shifted into a float's exponent/mantissa
// field and scaled by 2^112 re-bias the exponent and normalise subnormals in one exact multiply.
inline float half_to_float(uint16_t h) {
#if defined(__F16C__)
  return _cvtsh_ss(h);
#else
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu;
  uint32_t u;
  if (em >= 0x7c00u) {
    u = sign | 0x7f800000u | ((em & 0x3ffu) << 13);  // inf, NaN
  } else {
    const uint32_t v = em << 13;
    float f;
    std::memcpy(&f, &v, 4);
    f *= 0x1p112f;
    std::memcpy(&u, &f, 4);
    u |= sign;
  }
  float out;
  std::memcpy(&out, &u, 4);
  return out;
#endif
}

inline float bf16_to_float(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

template <class A>
FB<A> load_f16(const uint8_t* p, A) {
  alignas(64) float tmp[FB<A>::size];
  for (std::size_t i = 0; i < FB<A>::size; ++i) tmp[i] = half_to_float(read_u16(p + 2 * i));
  return FB<A>::load_aligned(tmp);
}

template <class A>
FB<A> load_bf16(const uint8_t* p, A) {
  alignas(64) float tmp[FB<A>::size];
  for (std::size_t i = 0; i < FB<A>::size; ++i) tmp[i] = bf16_to_float(read_u16(p + 2 * i));
  return FB<A>::load_aligned(tmp);
}

// Lane i = p[i] zero-extended (load_u8) or sign-extended (load_i8) to int32.
template <class A>
IB<A> load_u8(const uint8_t* p, A) {
  alignas(64) int32_t tmp[IB<A>::size];
  for (std::size_t i = 0; i < IB<A>::size; ++i) tmp[i] = p[i];
  return IB<A>::load_aligned(tmp);
}

template <class A>
IB<A> load_i8(const uint8_t* p, A) {
  alignas(64) int32_t tmp[IB<A>::size];
  for (std::size_t i = 0; i < IB<A>::size; ++i) tmp[i] = static_cast<int8_t>(p[i]);
  return IB<A>::load_aligned(tmp);
}

#if defined(__SSE2__) && !defined(__AVX2__)
// SSE2 (4 lanes): interleave with zero to widen; bf16 lands directly in the high half.
// f16 without F16C: half_to_float's exact shift-and-scale on 4 lanes, inf/NaN patched in.
inline FB<xsimd::sse2> load_f16(const uint8_t* p, xsimd::sse2) {
  const __m128i u =
      _mm_unpacklo_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), _mm_setzero_si128());
  const __m128i sign = _mm_slli_epi32(_mm_and_si128(u, _mm_set1_epi32(0x8000)), 16);
  const __m128i em = _mm_and_si128(u, _mm_set1_epi32(0x7fff));
  const __m128 mag = _mm_mul_ps(_mm_castsi128_ps(_mm_slli_epi32(em, 13)), _mm_set1_ps(0x1p112f));
  const __m128i infnan = _mm_cmpgt_epi32(em, _mm_set1_epi32(0x7bff));
  const __m128i bits =
      _mm_or_si128(_mm_castps_si128(mag), _mm_and_si128(infnan, _mm_set1_epi32(0x7f800000)));
  return FB<xsimd::sse2>(_mm_castsi128_ps(_mm_or_si128(bits, sign)));
}
inline FB<xsimd::sse2> load_bf16(const uint8_t* p, xsimd::sse2) {
  const __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return FB<xsimd::sse2>(_mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), h)));
}
inline IB<xsimd::sse2> load_u8(const uint8_t* p, xsimd::sse2) {
  const __m128i z = _mm_setzero_si128();
  const __m128i b = _mm_cvtsi32_si128(static_cast<int>(read_u32(p)));
  return IB<xsimd::sse2>(_mm_unpacklo_epi16(_mm_unpacklo_epi8(b, z), z));
}
inline IB<xsimd::sse2> load_i8(const uint8_t* p, xsimd::sse2) {
  const __m128i z = _mm_setzero_si128();
  const __m128i b = _mm_cvtsi32_si128(static_cast<int>(read_u32(p)));
  // Each byte ends up in the top byte of its 32-bit lane; the arithmetic shift sign-extends.
  return IB<xsimd::sse2>(_mm_srai_epi32(_mm_unpacklo_epi16(z, _mm_unpacklo_epi8(z, b)), 24));
}
#endif

#if defined(__AVX2__) && defined(__F16C__) && !defined(__AVX512F__)
using Avx2Arch = xsimd::fma3<xsimd::avx2>;
inline FB<Avx2Arch> load_f16(const uint8_t* p, Avx2Arch) {
  return FB<Avx2Arch>(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}
inline FB<Avx2Arch> load_bf16(const uint8_t* p, Avx2Arch) {
  const __m256i u = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return FB<Avx2Arch>(_mm256_castsi256_ps(_mm256_slli_epi32(u, 16)));
}
inline IB<Avx2Arch> load_u8(const uint8_t* p, Avx2Arch) {
  return IB<Avx2Arch>(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}
inline IB<Avx2Arch> load_i8(const uint8_t* p, Avx2Arch) {
  return IB<Avx2Arch>(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}
#endif

#if defined(__AVX512BW__) && defined(__F16C__)
inline FB<xsimd::avx512bw> load_f16(const uint8_t* p, xsimd::avx512bw) {
  return FB<xsimd::avx512bw>(
      _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
}
inline FB<xsimd::avx512bw> load_bf16(const uint8_t* p, xsimd::avx512bw) {
  const __m512i u = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  return FB<xsimd::avx512bw>(_mm512_castsi512_ps(_mm512_slli_epi32(u, 16)));
}
inline IB<xsimd::avx512bw> load_u8(const uint8_t* p, xsimd::avx512bw) {
  return IB<xsimd::avx512bw>(
      _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}
inline IB<xsimd::avx512bw> load_i8(const uint8_t* p, xsimd::avx512bw) {
  return IB<xsimd::avx512bw>(
      _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}
#endif

#if defined(__aarch64__)
// NEON (4 lanes): 4 bytes are read through a 32-bit scalar so no load reads past its lanes.
inline FB<xsimd::neon64> load_f16(const uint8_t* p, xsimd::neon64) {
  uint16_t h[4];
  std::memcpy(h, p, 8);
  return FB<xsimd::neon64>(vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h))));
}
inline FB<xsimd::neon64> load_bf16(const uint8_t* p, xsimd::neon64) {
  uint16_t h[4];
  std::memcpy(h, p, 8);
  return FB<xsimd::neon64>(vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(h), 16)));
}
inline IB<xsimd::neon64> load_u8(const uint8_t* p, xsimd::neon64) {
  const uint8x8_t b = vreinterpret_u8_u32(vdup_n_u32(read_u32(p)));
  return IB<xsimd::neon64>(vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(vmovl_u8(b)))));
}
inline IB<xsimd::neon64> load_i8(const uint8_t* p, xsimd::neon64) {
  const int8x8_t b = vreinterpret_s8_u32(vdup_n_u32(read_u32(p)));
  return IB<xsimd::neon64>(vmovl_s16(vget_low_s16(vmovl_s8(b))));
}
#endif
