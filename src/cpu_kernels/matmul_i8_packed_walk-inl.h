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

// T > 1 (batched decode, prefill): the token tiles of a group tile ask for the walk's next
// group tile (the `bytes` after these groups, contiguous) into L2, each full token tile its
// share of the lines, spread over its blocks. At small T a tile's arithmetic does not hide the
// DRAM latency of its group streams: without the hint a batched step of 8 States spent half of
// the kernel's time waiting on weight loads, and with the whole next tile asked for by the first
// token tile it waited on the prefetches instead (docs/batching.md "Where a batched step's time
// goes"). Decode (T = 1): the one token tile asks for the whole next tile, and only inside the
// matrix's packed rows (`next_inside`). Four interleaved streams of one group each are too short
// for the hardware prefetchers at 768 columns (6.9 KB per Q4_0 group): the 0.1B matrices
// streamed at 0.5-0.65 of the read bandwidth, and at 0.8-1.0 with this (Q4_0 3072 x 768 and
// 65536 x 768, bench_kernels, three runs each, the shared 2-core machine under load); into L1
// (prefetcht0) it was no better than none, as on the float path (matmul-inl.h mm_blocks).
// Integer arithmetic: at T > 1 the lines may lie past the matrix (a prefetch never faults).
constexpr int kPkToks = 4;  // the prefill tile's tokens on zmm (PkTile) and ymm (P8Tile)

struct PkAhead {
  uintptr_t first = 0;  // first line of this tile's share, 0 = none
  int64_t lines = 0;    // lines of the share
  // Block b's share of the lines, [l0, l1): [lines * b / nblk, lines * (b + 1) / nblk).
  struct Share {
    int64_t l0 = 0, l1 = 0;
  };
  // The shares of blocks 0, 1, 2, ... in turn, without a division per block: the two 64-bit
  // divisions a block cost 4 % of the avx2 Q8_0 prefill tile's block (llvm-mca, znver3), a
  // tenth of its work outside the byte dots.
  class Blocks {
   public:
    Blocks(int64_t lines, int64_t nblk)
        : q_(nblk > 0 ? lines / nblk : 0), r_(nblk > 0 ? lines % nblk : 0), n_(nblk) {}
    Share next() {
      Share s{l_, l_ + q_};
      r_acc_ += r_;  // (lines * b) % nblk before this add
      if (r_acc_ >= n_ && r_ > 0) r_acc_ -= n_, ++s.l1;
      l_ = s.l1;
      return s;
    }

   private:
    int64_t q_, r_, n_, l_ = 0, r_acc_ = 0;
  };
  Blocks blocks(int64_t nblk) const { return {first == 0 ? 0 : lines, nblk}; }
  // Step k of kSteps of a block asks for its part of the block's share. Q8_0 decode spreads a
  // block's share over its 8 code vectors (step<8>): its share is the largest (34 lines a block
  // for a 4-group tile, twice Q4_0's), and asked for in one burst at the block's start it let the
  // 0.1B Q8_0 decode run 2-11 % slower (seven pairs in alternation: 122-134 tokens/s against
  // 125-143 spread; 1.5B Q8_0 13.5-14.0 against 14.1-14.2).
  // Spreading the other types over their 4 steps, or the T > 1 tiles, measured no better (T = 8:
  // worse), so they keep the burst (step<1>).
  template <int kSteps>
  void step(const Share& s, int k) const {
    const int64_t n = s.l1 - s.l0;
    const int64_t a = s.l0 + n * k / kSteps, e = s.l0 + n * (k + 1) / kSteps;
    for (int64_t l = a; l < e; ++l) {
      __builtin_prefetch(reinterpret_cast<const void*>(first + 64 * static_cast<uintptr_t>(l)), 0,
                         2);  // prefetcht1: into L2
    }
  }
};

inline PkAhead pk_ahead(const MatmulQ8Args& p, uintptr_t next, size_t bytes, int64_t t0, int NT,
                        bool next_inside) {
  PkAhead a;
  int64_t share = -1, shares = 1;  // the full token tiles share the lines; T < 4: the only one
  if (p.T == 1 && next_inside) share = 0;
  if (p.T >= kPkToks && NT == kPkToks) share = t0 / kPkToks, shares = p.T / kPkToks;
  if (p.T > 1 && p.T < kPkToks && t0 == 0) share = 0;
  if (share < 0) return a;
  const uintptr_t begin = next & ~uintptr_t{63};
  const int64_t total = static_cast<int64_t>((next + bytes - begin + 63) / 64);
  const int64_t l0 = total * share / shares, l1 = total * (share + 1) / shares;
  a.first = begin + 64 * static_cast<uintptr_t>(l0);
  a.lines = l1 - l0;
  return a;
}

template <class Tile, class = void>
struct HasDecodePieces : std::false_type {};
template <class Tile>
struct HasDecodePieces<Tile, std::void_t<decltype(Tile::kDecodePieces)>>
    : std::bool_constant<Tile::kDecodePieces> {};

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

  // Decode in pieces (Tile::kDecodePieces): the groups [gb, ge) split into R / kPerGroup
  // contiguous pieces, a tile taking the next group of each, so the weights arrive as that many
  // sequential streams far apart, each asking for its own lines ahead (matmul-inl.h
  // mm_rows_decode_pieces says why). The leftover groups run one at a time.
  template <DType kT, int R>
  static void decode_pieces(const MatmulQ8Args& p, int64_t gb, int64_t ge, int64_t rb, int64_t re) {
    constexpr int kG = R / Tile::kPerGroup;
    const int64_t per = (ge - gb) / kG;
    for (int64_t j = 0; j < per; ++j) Tile::template run<kT, R, 1>(p, gb + j, 0, rb, re, per);
    for (int64_t g = gb + per * kG; g < ge; ++g) {
      Tile::template run<kT, Tile::kPerGroup, 1>(p, g, 0, rb, re);
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
        if constexpr (HasDecodePieces<Tile>::value) {
          decode_pieces<kT, Tile::kDecodeParts>(p, gb, ge, p.row_begin, pe);
        } else {
          groups<kT, Tile::kDecodeParts, 1>(p, gb, ge, p.row_begin, pe);
        }
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
