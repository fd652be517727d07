// Matmul Y[t][r] = sum_c W[r][c] * X[t][c] for every weight type (kernels.h MatmulArgs).
// Never compiled alone; included after simd_load-inl.h and matmul_q-inl.h in a per-ISA namespace.
//
// Structure: a tile of RT weight rows x NT activation rows. Each weight sub-batch is decoded
// once per tile and reused for the NT activation rows; activations are re-read per weight row
// from L1 (prefill's column chunks keep them there). Every (row, token) pair owns one accumulator,
// fed the sub-batches in column order, reduced by one hadd and then the scalar tail, so its result
// is the same whatever tile it ran in: splitting rows across calls or threads, or changing T, never
// changes a bit of the output (the per-ISA tests check this). The RT * NT independent chains
// (decode 4 or 8, prefill 12 or 16) hide the FMA latency.
//
// Prefill (T > 1) adds cache blocking over rows and columns (mm_panel); decode (T = 1) streams
// each row once (mm_rows_decode); on the 16-register x86 tables decode and (float weights) batches
// of up to kPiecesMaxT tokens read the rows in contiguous pieces (mm_rows_decode_pieces,
// mm_pieces_tokens).

// Float weight types: a "block" is one sub-batch; a row may end in < L columns (tail).
template <class A>
struct DecF32 {
  static constexpr int kBlock = static_cast<int>(FB<A>::size);
  static constexpr size_t kBytes = 4 * kBlock;
  static constexpr bool kFloatTail = true;
  struct Head {};
  static Head head(const uint8_t*) { return {}; }
  static FB<A> decode(const Head&, const uint8_t* b, int s) {
    // Intrinsic unaligned loads accept any address (rwkv.cpp files have no padding).
    return FB<A>::load_unaligned(reinterpret_cast<const float*>(b + 4 * s * FB<A>::size));
  }
  static float scalar(const uint8_t* row, int64_t i) {
    float v;
    std::memcpy(&v, row + 4 * i, 4);
    return v;
  }
};

template <class A, bool kBrain>
struct DecHalf {  // F16 (kBrain = false) and BF16 (kBrain = true)
  static constexpr int kBlock = static_cast<int>(FB<A>::size);
  static constexpr size_t kBytes = 2 * kBlock;
  static constexpr bool kFloatTail = true;
  struct Head {};
  static Head head(const uint8_t*) { return {}; }
  static FB<A> decode(const Head&, const uint8_t* b, int s) {
    const uint8_t* p = b + 2 * s * FB<A>::size;
    return kBrain ? load_bf16(p, A{}) : load_f16(p, A{});
  }
  static float scalar(const uint8_t* row, int64_t i) {
    const uint16_t h = read_u16(row + 2 * i);
    return kBrain ? bf16_to_float(h) : half_to_float(h);
  }
};

// Quantized decoders have no tail (cols is a whole number of blocks).
template <class D, class = void>
struct HasFloatTail : std::false_type {};
template <class D>
struct HasFloatTail<D, std::void_t<decltype(D::kFloatTail)>> : std::true_type {};

// f(std::integral_constant<int, 0>{}), ..., f(std::integral_constant<int, N - 1>{}): the
// sub-batch index becomes a constant, so a decoder's offsets, nibble choice and (Q6_K) scale
// index fold away.
template <class F, int... S>
void unroll_seq(F&& f, std::integer_sequence<int, S...>) {
  (f(std::integral_constant<int, S>{}), ...);
}
template <int N, class F>
void unroll(F&& f) {
  unroll_seq(f, std::make_integer_sequence<int, N>{});
}

// One accumulator per (row, token) pair of a tile.
template <class A, int RT, int NT>
struct TileAcc {
  FB<A> v[RT][NT];
  void zero() {
    for (int r = 0; r < RT; ++r) {
      for (int t = 0; t < NT; ++t) v[r][t] = FB<A>(0.0f);
    }
  }
};

// Which blocks of the rows kAhead further down a tile asks for (mm_blocks with kPrefetch): block
// b when b % shares == share. Decode asks for every block ({0, 1}). At T > 1 the full token tiles
// of a panel share the next panel's blocks, block b asked for by token tile b % shares in every
// row tile, so the next panel's weight stream spreads evenly over the arithmetic of this one
// (mm_panel). share < 0: none (the tail tokens).
struct PanelAhead {
  int64_t share = 0, shares = 1;
};

// Adds blocks [b0, b1) of rows r0.. and tokens t0.. to `out`: each decoded weight sub-batch
// feeds NT FMAs, into RT * NT independent chains. With kPrefetch, each block also prefetches
// the same block of the row kAhead rows further down: in decode RT, the next tile; at T > 1
// one panel (mm_panel). Rows of quantized weights are short (2.3 KB at 4096 Q4_0 columns) and
// RT of them interleaved defeat the hardware stream prefetchers (Q4_0 decode went from 3.5 to
// 12.8 GB/s on Zen 4; F16 gains too). A prefetch past the matrix end never faults. The prefetch
// goes to L2 (prefetcht1): into L1 (prefetcht0) each one holds an L1 miss buffer for the whole DRAM
// latency, and with RT rows in flight those run out; rows of 768 columns (every matrix of a 0.1B
// model but the FFN value) then streamed at 0.4-0.7 of the read bandwidth, and at 0.8-1.0 with
// prefetcht1 (F16, F32, BF16 and the bf16 dot, 3072 x 768, 1 thread, Zen 4; docs/decode-speed.md
// "Where a decode token's time goes").
//
// kAheadBytes > 0 (decode in pieces, mm_rows_decode_pieces): the tile's rows are r0, r0 + rstep,
// ..., and each asks for its own line kAheadBytes further along the row, once per 64-byte line,
// into L1 instead.
template <class A, class D, int RT, int NT, bool kPrefetch = false, int kAhead = RT,
          int kAheadBytes = 0>
[[gnu::always_inline]] inline void mm_blocks(const MatmulArgs& p, int64_t r0, int64_t t0,
                                             int64_t b0, int64_t b1, TileAcc<A, RT, NT>& out,
                                             PanelAhead ahead = {}, int64_t rstep = 1) {
  using B = FB<A>;
  constexpr int L = static_cast<int>(B::size);
  constexpr int kSub = D::kBlock / L;
  // A local copy the compiler keeps in registers, vector by vector: as one struct copy GCC
  // moved it with `rep movsq` (384 bytes in, 384 out), 4-7 % of a chunked F32 product.
  TileAcc<A, RT, NT> acc;
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) {
      acc.v[r][t] = B::load_aligned(reinterpret_cast<const float*>(&out.v[r][t]));
    }
  }
  const uint8_t* w[RT];
  const float* x[NT];
  for (int r = 0; r < RT; ++r) w[r] = p.w + static_cast<size_t>(r0 + r * rstep) * p.w_row_bytes;
  for (int t = 0; t < NT; ++t) x[t] = p.x + (t0 + t) * p.x_stride;
  // Row by row inside a block: only one row's block scales are live at a time (with all RT
  // rows' scales hoisted, 16-register ISAs spill). Activation loads repeat per row from L1.
  // The first block >= b0 this tile asks for, then every `shares`-th (a counter: no division).
  int64_t ask =
      b0 + ((ahead.share - b0 % ahead.shares) % ahead.shares + ahead.shares) % ahead.shares;
  for (int64_t b = b0; b < b1; ++b) {
    const int64_t c0 = b * D::kBlock;
    const bool asks = kPrefetch && b == ask;
    if (asks) ask += ahead.shares;
    // Pieces: the block that reaches a new 64-byte line of the row asks, once per line (the
    // quantized blocks of the exact path are 18 to 34 bytes: a line may start inside one).
    const uint64_t at = static_cast<uint64_t>(b) * D::kBytes % 64;
    const bool line = kAheadBytes > 0 && (at == 0 || at + D::kBytes > 64);
    for (int r = 0; r < RT; ++r) {
      const uint8_t* blk = w[r] + b * D::kBytes;
      if (line) {  // past the matrix end too: a prefetch never faults
        __builtin_prefetch(
            reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(blk) + kAheadBytes), 0, 3);
      }
      if (asks) {  // integer arithmetic: the address may lie past the matrix
        __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(blk) +
                                                         kAhead * p.w_row_bytes),
                           0,
                           2);  // into L2 (prefetcht1), not L1: mm_blocks says why
      }
      const typename D::Head h = D::head(blk);
      unroll<kSub>([&](auto sub) {
        constexpr int s = decltype(sub)::value;
        const B wv = D::decode(h, blk, s);
        for (int t = 0; t < NT; ++t) {
          acc.v[r][t] = xsimd::fma(wv, B::load_unaligned(x[t] + c0 + s * L), acc.v[r][t]);
        }
      });
    }
  }
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) acc.v[r][t].store_aligned(reinterpret_cast<float*>(&out.v[r][t]));
  }
}

// hadd of every accumulator of a tile into sums[r * NT + t]: 8 or more at once through
// reduce16 (reduce-inl.h) on AVX-512, the same bits, else one by one.
template <class A, int RT, int NT>
[[gnu::always_inline]] inline void tile_sums(const TileAcc<A, RT, NT>& acc, float* sums) {
#if defined(__AVX512F__)
  if constexpr (FB<A>::size == 16 && RT * NT >= 8 && RT * NT <= 16) {
    __m512 v[16];
    for (int i = 0; i < 16; ++i) v[i] = _mm512_setzero_ps();
    for (int r = 0; r < RT; ++r) {
      for (int t = 0; t < NT; ++t) v[r * NT + t] = acc.v[r][t];
    }
    alignas(64) float lanes[16];
    reduce16(v, lanes);
    for (int i = 0; i < RT * NT; ++i) sums[i] = lanes[4 * (i % 4) + i / 4];
    return;
  }
#endif
  for (int r = 0; r < RT; ++r) {
    for (int t = 0; t < NT; ++t) sums[r * NT + t] = xsimd::hadd(acc.v[r][t]);
  }
}

// The reduction of each pair's accumulator, the float types' last < L columns, and the store.
template <class A, class D, int RT, int NT>
[[gnu::always_inline]] inline void mm_finish(const MatmulArgs& p, int64_t r0, int64_t t0,
                                             const TileAcc<A, RT, NT>& acc, int64_t rstep = 1) {
  const int64_t c = p.cols / D::kBlock * D::kBlock;
  float sums[RT * NT];
  tile_sums<A, RT, NT>(acc, sums);
  for (int r = 0; r < RT; ++r) {
    const int64_t row = r0 + r * rstep;
    const uint8_t* w = p.w + static_cast<size_t>(row) * p.w_row_bytes;
    for (int t = 0; t < NT; ++t) {
      const float* x = p.x + (t0 + t) * p.x_stride;
      float sum = sums[r * NT + t];
      if constexpr (HasFloatTail<D>::value) {
        for (int64_t i = c; i < p.cols; ++i) sum += D::scalar(w, i) * x[i];
      }
      p.y[(t0 + t) * p.y_stride + row] = sum;
    }
  }
}

// Decode (T = 1): each tile of RT rows runs over the whole row.
template <class A, class D, int RT>
void mm_rows_decode(const MatmulArgs& p, int64_t rb, int64_t re) {
  const int64_t nblk = p.cols / D::kBlock;
  int64_t r = rb;
  for (; r + RT <= re; r += RT) {
    TileAcc<A, RT, 1> acc;
    acc.zero();
    mm_blocks<A, D, RT, 1, true>(p, r, 0, 0, nblk, acc);
    mm_finish<A, D, RT, 1>(p, r, 0, acc);
  }
  for (; r < re; ++r) {
    TileAcc<A, 1, 1> acc;
    acc.zero();
    mm_blocks<A, D, 1, 1>(p, r, 0, 0, nblk, acc);
    mm_finish<A, D, 1, 1>(p, r, 0, acc);
  }
}

// Decode in pieces (the 16-register x86 tables): the rows [rb, re) split into RT contiguous
// pieces, and a tile takes the next row of each, so the weights arrive as RT sequential streams
// far apart, each asking for its own line 256 bytes ahead into L1. On the AVX2-only Zen 3 a small
// program (1 thread, F32 rows of 768 columns) read tiles of 4 adjacent rows that ask for the next
// tile at 9.5-12.8 GB/s and 4 pieces at 15.9-21.5, with or without the FMAs; the 0.1B F16 decode
// went from 30 to 42-56 tokens/s (docs/decode-speed.md "Decode in pieces"). A row's chain is the
// same in any tile, so no bit changes. The last (re - rb) % RT rows run as mm_rows_decode's.
template <class A, class D, int RT>
void mm_rows_decode_pieces(const MatmulArgs& p, int64_t rb, int64_t re) {
  const int64_t nblk = p.cols / D::kBlock;
  const int64_t per = (re - rb) / RT;
  for (int64_t j = 0; j < per; ++j) {
    TileAcc<A, RT, 1> acc;
    acc.zero();
    mm_blocks<A, D, RT, 1, false, RT, 256>(p, rb + j, 0, 0, nblk, acc, {}, per);
    mm_finish<A, D, RT, 1>(p, rb + j, 0, acc, per);
  }
  mm_rows_decode<A, D, RT>(p, rb + per * RT, re);
}

// Prefill geometry: a panel of kPanelRows weight rows is swept by tiles of NT tokens, one
// column chunk at a time, so the NT x kChunkCols activation slice stays in L1 while every row
// tile of the panel reuses it, and the panel's weights stay in L2. The accumulators of the whole
// panel live on the stack between chunks; the FMA order of each (row, token) pair is unchanged.
constexpr int64_t kPanelRows = 16;
constexpr int64_t kChunkCols = 1024;

// A row tile of a panel: RT rows x NT tokens over blocks [b0, b1), with its share of the next
// panel's same blocks asked for into L2 (none when ahead.share < 0).
template <class A, class D, int RT, int NT>
[[gnu::always_inline]] inline void mm_panel_tile(const MatmulArgs& p, int64_t r, int64_t t0,
                                                 int64_t b0, int64_t b1, PanelAhead ahead,
                                                 TileAcc<A, RT, NT>& acc) {
  constexpr int kPanel = RT * static_cast<int>(kPanelRows / RT);
  if (ahead.share >= 0) {
    mm_blocks<A, D, RT, NT, true, kPanel>(p, r, t0, b0, b1, acc, ahead);
  } else {
    mm_blocks<A, D, RT, NT>(p, r, t0, b0, b1, acc);
  }
}

// Tokens [t0, t0 + NT) for the rows [pr, pe) of one panel (pe - pr <= kPanelRows). The row
// tiles ask for their share (`ahead`) of the blocks of the rows one panel further down into L2, as
// decode does one tile ahead (mm_blocks): at small T (batched decode of a few States) a panel's
// rows otherwise arrive at DRAM latency, RT interleaved streams the hardware prefetchers do not
// keep ahead of, and the arithmetic waits (docs/batching.md "Where a batched step's time goes").
template <class A, class D, int RT, int NT>
void mm_panel(const MatmulArgs& p, int64_t pr, int64_t pe, int64_t t0, PanelAhead ahead) {
  const int64_t nblk = p.cols / D::kBlock;
  const int64_t chunk = std::max<int64_t>(1, kChunkCols / D::kBlock);
  // One chunk (every matrix of a 0.1B model but W_fv): each tile's accumulators stay in
  // registers from zero to the store. With the panel's accumulator arrays on the stack (below),
  // copying them in and out and an out-of-line reduction cost as much as the FMAs of a
  // 64-column LoRA up-projection (0.19 of the FMA peak; 0.38 this way, 64 x 768: 0.72 to 0.81).
  if (nblk <= chunk) {
    int64_t r = pr;
    for (; r + RT <= pe; r += RT) {
      TileAcc<A, RT, NT> acc;
      acc.zero();
      mm_panel_tile<A, D, RT, NT>(p, r, t0, 0, nblk, ahead, acc);
      mm_finish<A, D, RT, NT>(p, r, t0, acc);
    }
    for (; r < pe; ++r) {
      TileAcc<A, 1, NT> acc;
      acc.zero();
      mm_blocks<A, D, 1, NT>(p, r, t0, 0, nblk, acc);
      mm_finish<A, D, 1, NT>(p, r, t0, acc);
    }
    return;
  }
  constexpr int64_t kTiles = kPanelRows / RT;
  TileAcc<A, RT, NT> acc[kTiles];
  TileAcc<A, 1, NT> rest[RT];  // rows past the last whole tile
  const int64_t ntile = (pe - pr) / RT, nrest = (pe - pr) - ntile * RT;
  for (int64_t i = 0; i < ntile; ++i) acc[i].zero();
  for (int64_t i = 0; i < nrest; ++i) rest[i].zero();
  for (int64_t b0 = 0; b0 < nblk; b0 += chunk) {
    const int64_t b1 = std::min(nblk, b0 + chunk);
    for (int64_t i = 0; i < ntile; ++i) {
      mm_panel_tile<A, D, RT, NT>(p, pr + i * RT, t0, b0, b1, ahead, acc[i]);
    }
    for (int64_t i = 0; i < nrest; ++i) {
      mm_blocks<A, D, 1, NT>(p, pr + ntile * RT + i, t0, b0, b1, rest[i]);
    }
  }
  for (int64_t i = 0; i < ntile; ++i) mm_finish<A, D, RT, NT>(p, pr + i * RT, t0, acc[i]);
  for (int64_t i = 0; i < nrest; ++i) mm_finish<A, D, 1, NT>(p, pr + ntile * RT + i, t0, rest[i]);
}

// The prefill tile. 4 rows x 4 tokens (16 accumulators) where there are 32 vector registers
// (AVX-512; NEON keeps 3 x 4, untuned). With 16 (AVX2, SSE2): float weights 4 x 3, quantized
// 3 x 4. At 3 x 4 on float weights GCC keeps the 4 tokens' activation vectors in registers
// across the tile's rows, runs out of the 16 and moves every accumulator through the stack (a
// load and a store per FMA: 0.20-0.25 of the FMA peak on Zen 3, `bench_kernels
// gemm/avx2/F32/f32act/2048x2048/T128`); 4 x 3 holds 12 accumulators, 3 activations and one
// weight vector, with nothing spilled (0.43-0.50; F16 0.44-0.67; 4 x 4 0.33-0.36). Quantized
// decoders need registers for their block scales and lose at 4 x 3 (Q8_0 0.37-0.46 -> 0.28-0.34),
// so they keep 3 x 4. Results do not depend on the tile (every pair's chain is the same).
template <class A, class D>
struct PrefillTile {
#if defined(__aarch64__)
  static constexpr bool k16Registers = false;
#else
  static constexpr bool k16Registers = FB<A>::size < 16;
#endif
  static constexpr bool kFloat = HasFloatTail<D>::value;
  static constexpr int kRows = FB<A>::size >= 16 ? 4 : (k16Registers && kFloat ? 4 : 3);
  static constexpr int kTokens = k16Registers && kFloat ? 3 : 4;
};

// The token tiles of a T > 1 product: f(t0, std::integral_constant<int, n>{}, ahead) for each tile
// of n tokens, full tiles of NT sharing the hint `ahead` (mm_panel), the last T % NT tokens as one
// tile, told {0, 1} when it is the only one and {-1, 1} (ask for nothing) otherwise. With 3-token
// tiles a last lone token (a 64-row prefill chunk, a batch of 7 or 10) would run 4 FMA chains on
// its own, at about a third of the tile's rate, so the last 4 tokens run as 2 + 2 instead of 3 + 1.
template <int NT, class F>
[[gnu::always_inline]] inline void token_tiles(int64_t T, F&& f) {
  const bool two_pairs = NT == 3 && T > NT && T % NT == 1;
  const int64_t full = T / NT - (two_pairs ? 1 : 0);
  int64_t t = 0;
  for (; t < full * NT; t += NT) f(t, std::integral_constant<int, NT>{}, PanelAhead{t / NT, full});
  if (two_pairs) {
    f(t, std::integral_constant<int, 2>{}, t == 0 ? PanelAhead{0, 1} : PanelAhead{-1, 1});
    t += 2;
  }
  const PanelAhead tail = t == 0 ? PanelAhead{0, 1} : PanelAhead{-1, 1};
  switch (T - t) {
    case 3:
      f(t, std::integral_constant<int, 3>{}, tail);
      break;
    case 2:
      f(t, std::integral_constant<int, 2>{}, tail);
      break;
    case 1:
      f(t, std::integral_constant<int, 1>{}, tail);
      break;
    default:
      break;
  }
}

// Small batches in pieces (float weights on the 16-register x86 tables, 1 < T <= kPiecesMaxT):
// the rows split into RT contiguous pieces as in decode (mm_rows_decode_pieces), and each tile of
// one row per piece runs every token tile over the whole rows before the next: the first token
// tile reads them from DRAM as RT sequential streams, each asking for its line 256 bytes ahead
// into L1, and the later ones re-read them from L1 or L2. Panels of adjacent rows (mm_panel) stream
// a batched step the way adjacent-row decode did; in pieces the 0.1B F32 step of 4 States on 1
// thread went from 43 to 66 tokens/s and of 8 from 74 to 86, while 16 moved within the noise (F32
// +6 %, F16 -3 %, Q8_0's LoRAs -6 %) and 32 fell (120 to 113): larger batches keep the panels
// (docs/batching.md "Small batches in pieces"). Quantized weights on the fp32 path
// (fp32_activations) keep the panels: their 3 x 4 tile in 3 pieces stepped 8 States of 0.1B Q8_0
// at 23.3 against 29.6 tokens/s (Q4_0 46.0 against 39.4).
constexpr int64_t kPiecesMaxT = 12;

template <class A, class D, int RT, int NT>
void mm_pieces_tokens(const MatmulArgs& p, int64_t rb, int64_t re) {
  const int64_t nblk = p.cols / D::kBlock;
  const int64_t per = (re - rb) / RT;
  for (int64_t j = 0; j < per; ++j) {
    token_tiles<NT>(p.T, [&](int64_t t0, auto nt, PanelAhead) {
      constexpr int n = decltype(nt)::value;
      TileAcc<A, RT, n> acc;
      acc.zero();
      if (t0 == 0) {
        mm_blocks<A, D, RT, n, false, RT, 256>(p, rb + j, t0, 0, nblk, acc, {}, per);
      } else {
        mm_blocks<A, D, RT, n>(p, rb + j, t0, 0, nblk, acc, {}, per);
      }
      mm_finish<A, D, RT, n>(p, rb + j, t0, acc, per);
    });
  }
  // The last (re - rb) % RT rows: a panel of fewer rows than a tile runs them one at a time.
  token_tiles<NT>(p.T, [&](int64_t t0, auto nt, PanelAhead) {
    mm_panel<A, D, RT, decltype(nt)::value>(p, rb + per * RT, re, t0, {-1, 1});
  });
}

template <class A, class D>
void matmul_typed(const MatmulArgs& p) {
  if (p.T == 1) {
    // 8 rows (8 FMA chains) where 32 registers hold their accumulators and block scales;
    // with 16 registers, 4 rows: more would spill the per-row scales every block.
    if constexpr (PrefillTile<A, D>::k16Registers) {
      mm_rows_decode_pieces<A, D, 4>(p, p.row_begin, p.row_end);
    } else {
      mm_rows_decode<A, D, (FB<A>::size >= 16 ? 8 : 4)>(p, p.row_begin, p.row_end);
    }
    return;
  }
  constexpr int RT = PrefillTile<A, D>::kRows, NT = PrefillTile<A, D>::kTokens;
  if constexpr (PrefillTile<A, D>::k16Registers && PrefillTile<A, D>::kFloat) {
    if (p.T <= kPiecesMaxT) {
      mm_pieces_tokens<A, D, RT, NT>(p, p.row_begin, p.row_end);
      return;
    }
  }
  constexpr int64_t kPanel = RT * (kPanelRows / RT);  // whole tiles only
  for (int64_t pr = p.row_begin; pr < p.row_end; pr += kPanel) {
    const int64_t pe = std::min(pr + kPanel, p.row_end);
    token_tiles<NT>(p.T, [&](int64_t t0, auto nt, PanelAhead ahead) {
      mm_panel<A, D, RT, decltype(nt)::value>(p, pr, pe, t0, ahead);
    });
  }
}

template <class A>
void matmul(const MatmulArgs& p) {
  if (p.T <= 0 || p.row_end <= p.row_begin) return;
  switch (p.wtype) {
    case DType::F32:
      matmul_typed<A, DecF32<A>>(p);
      break;
    case DType::F16:
      matmul_typed<A, DecHalf<A, false>>(p);
      break;
    case DType::BF16:
      matmul_typed<A, DecHalf<A, true>>(p);
      break;
    case DType::Q4_0:
      matmul_typed<A, DecQ4<A, false>>(p);
      break;
    case DType::Q4_1:
      matmul_typed<A, DecQ4<A, true>>(p);
      break;
    case DType::Q5_0:
      matmul_typed<A, DecQ5<A, false>>(p);
      break;
    case DType::Q5_1:
      matmul_typed<A, DecQ5<A, true>>(p);
      break;
    case DType::Q8_0:
      matmul_typed<A, DecQ8_0<A>>(p);
      break;
    case DType::Q6_K:
      matmul_typed<A, DecQ6_K<A>>(p);
      break;
  }
}
