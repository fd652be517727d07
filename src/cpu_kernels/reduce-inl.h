// Horizontal sums of 512-bit float accumulators (AVX-512 only) by one fixed tree, the one of
// xsimd's hadd on 512 bits: s_i = v_i + v_(i+8), z_i = s_i + s_(i+4), (z0 + z1) + (z2 + z3).
// Never compiled alone; included inside the avx512 table's namespace before matmul-inl.h, which
// must give a (row, token) output the same bits in every tile: a tile of 8 to 16 accumulators
// is reduced here, smaller ones by hadd, and both take this tree. (The BF16 dot kernel tried it
// too: no gain measured at 2048 columns, so it keeps _mm512_reduce_add_ps.)
#if defined(__AVX512F__)
// The sums of 16 vectors at once: 45 shuffles and adds instead of about 110 one by one (the
// reduction was a tenth of a 768-column tile and a third of a 64-column one, the LoRA
// up-projections). Vector i's sum lands at lane 4 (i % 4) + i / 4 of out.
[[gnu::always_inline]] inline void reduce16(const __m512* v, float* out) {
  __m512 p[8], q[4];
  for (int j = 0; j < 8; ++j) {  // blocks: s0-3, s4-7 of v[2j], then of v[2j+1]
    p[j] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  }
  for (int k = 0; k < 4; ++k) {  // block b: z0-3 of v[4k + b]
    q[k] = _mm512_add_ps(_mm512_shuffle_f32x4(p[2 * k], p[2 * k + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(p[2 * k], p[2 * k + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  }
  const __m512 r0 = _mm512_add_ps(_mm512_shuffle_ps(q[0], q[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                  _mm512_shuffle_ps(q[0], q[1], _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512 r1 = _mm512_add_ps(_mm512_shuffle_ps(q[2], q[3], _MM_SHUFFLE(2, 0, 2, 0)),
                                  _mm512_shuffle_ps(q[2], q[3], _MM_SHUFFLE(3, 1, 3, 1)));
  _mm512_storeu_ps(out, _mm512_add_ps(_mm512_shuffle_ps(r0, r1, _MM_SHUFFLE(2, 0, 2, 0)),
                                      _mm512_shuffle_ps(r0, r1, _MM_SHUFFLE(3, 1, 3, 1))));
}

#endif
