// The walk shared by the packed int8 kernels (matmul_i8_packed-inl.h on zmm, _avx2-inl.h on ymm
// halves, _neon-inl.h on NEON quarters): the call's packed rows by 16-row groups in register
// tiles, the group and token tails in smaller tiles, the unpacked rest with the plain kernel
// (matmul_i8-inl.h's i8_typed, included before), one instance per weight type. Instantiated in
// each ISA's translation unit inside its namespace, like every -inl.h (docs/model.md "Kernels
// and ISAs").
//
// A kernel describes its tile as a struct:
//   kPerGroup          register parts per 16-row group (1 zmm group, 2 ymm halves, 4 quarters)
//   kParts, kToks      prefill tile: kParts parts (whole groups) x kToks tokens
//   kDecodeParts       decode tile (T == 1): kDecodeParts parts x 1 token
//   template <DType kT, int R, int NT> static void run(p, g0, t0, rb, re): groups
//     [g0, g0 + R / kPerGroup) x tokens [t0, t0 + NT), stores masked to rows [rb, re).
#ifndef AI00_CPU_KERNELS_MATMUL_I8_PACKED_WALK_INL_H
#define AI00_CPU_KERNELS_MATMUL_I8_PACKED_WALK_INL_H

template <class Tile>
struct PackedWalk {
  // Tokens [t, T) of groups from g, fewer than NT: one tile of them all. A pair's chain is the
  // same in any tile (the kernels' numerics), and a tile of 1 token keeps too few chains in
  // flight: a batched step of 9 to 11 rows paid 0.3-0.8 ms per token past the last full tile of
  // 4 at 0.1B Q8_0 (docs/batching.md "Rows that are not a multiple of the tile").
  template <DType kT, int R, int NT>
  static void tail(const MatmulQ8Args& p, int64_t g, int64_t t, int64_t rb, int64_t re) {
    static_assert(NT <= 4, "tails of up to 3 tokens");
    const int64_t left = p.T - t;
    if constexpr (NT > 3) {
      if (left == 3) return Tile::template run<kT, R, 3>(p, g, t, rb, re);
    }
    if constexpr (NT > 2) {
      if (left == 2) return Tile::template run<kT, R, 2>(p, g, t, rb, re);
    }
    for (; t < p.T; ++t) Tile::template run<kT, R, 1>(p, g, t, rb, re);  // 1 left (NT <= 2: or 0)
  }

  // Groups [gb, ge): full tiles of R parts, then the leftover groups one at a time.
  template <DType kT, int R, int NT>
  static void groups(const MatmulQ8Args& p, int64_t gb, int64_t ge, int64_t rb, int64_t re) {
    constexpr int kG = R / Tile::kPerGroup, kOne = Tile::kPerGroup;
    int64_t g = gb;
    for (; g + kG <= ge; g += kG) {
      int64_t t = 0;
      for (; t + NT <= p.T; t += NT) Tile::template run<kT, R, NT>(p, g, t, rb, re);
      tail<kT, R, NT>(p, g, t, rb, re);
    }
    for (; g < ge; ++g) {
      int64_t t = 0;
      for (; t + NT <= p.T; t += NT) Tile::template run<kT, kOne, NT>(p, g, t, rb, re);
      tail<kT, kOne, NT>(p, g, t, rb, re);
    }
  }

  // Rows [row_begin, row_end): the packed ones by groups (partial groups masked at the store),
  // the plain rest with the plain kernel.
  template <DType kT>
  static void typed(const MatmulQ8Args& p) {
    const int64_t pe = std::min(p.row_end, p.packed_rows);
    if (p.row_begin < pe) {
      const int64_t gb = p.row_begin / kQ8PackRows, ge = (pe + kQ8PackRows - 1) / kQ8PackRows;
      if (p.T == 1) {
        groups<kT, Tile::kDecodeParts, 1>(p, gb, ge, p.row_begin, pe);
      } else {
        groups<kT, Tile::kParts, Tile::kToks>(p, gb, ge, p.row_begin, pe);
      }
    }
    if (pe < p.row_end) {
      MatmulQ8Args rest = p;
      rest.row_begin = std::max(p.row_begin, pe);
      i8_typed<kT>(rest);
    }
  }

  static void run(const MatmulQ8Args& p) {
    if (p.T <= 0 || p.row_end <= p.row_begin) return;
    if (p.packed_rows > 0 && p.wtype == DType::Q8_0) return typed<DType::Q8_0>(p);
    if (p.packed_rows > 0 && p.wtype == DType::Q4_0) return typed<DType::Q4_0>(p);
    if (p.packed_rows > 0 && p.wtype == DType::Q4_1) return typed<DType::Q4_1>(p);
    if (p.packed_rows > 0 && p.wtype == DType::Q5_0) return typed<DType::Q5_0>(p);
    if (p.packed_rows > 0 && p.wtype == DType::Q5_1) return typed<DType::Q5_1>(p);
    matmul_q8_impl(p);
  }
};

#endif  // AI00_CPU_KERNELS_MATMUL_I8_PACKED_WALK_INL_H
