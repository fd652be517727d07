// The plain int8 dot's peak (no VNNI): chains of vpmaddubsw + vpmaddwd (by 1) + vpaddd, the three
// instructions the avx2 and avx512 tables run per 4 byte columns, on ymm or zmm. Shared by
// bench_kernels and bench_speed_table.
//
// Written in assembly because the compiler removes the multiply from the C++ form: with two
// constant byte vectors GCC computed pmaddwd(pmaddubsw(u, s), 1) once before the loop and timed
// only the vpaddd and its stack traffic, and with the bytes taken from each chain's accumulator
// it spilled 12 accumulators to the stack; on the Zen 3 host those read 181-187 and 115-135
// GOP/s, this loop 172-189. Eight accumulators (ymm0-7 / zmm0-7) each add one product per round;
// four byte vectors feed the multiplies, so no two in flight wait on each other.
#pragma once

#if defined(__x86_64__)

namespace ai00::bench {

// Arithmetic operations of one round: 8 products of 32 (ymm) or 64 (zmm) byte pairs, each a
// multiply and an add.
constexpr double kInt8PeakOpsYmm = 8 * 32 * 2, kInt8PeakOpsZmm = 8 * 64 * 2;

#define AI00_I8_STEP(W, acc, x, t)                                                      \
  "vpmaddubsw %%" W "12, %%" W x ", %%" W t "\n\tvpmaddwd %%" W "13, %%" W t ", %%" W t \
  "\n\tvpaddd %%" W t ", %%" W acc ", %%" W acc "\n\t"
// Q8_0's step on the avx2 table (matmul_i8_packed_avx2-inl.h p8_block_q8): its signed codes
// need a vpsignb of the activation bytes before each vpmaddubsw, a fourth instruction per 32
// products. Not a peak: the most that step's instruction mix allows, stated beside the peak.
#define AI00_I8_SIGN_STEP(W, acc, x, t)                                                \
  "vpsignb %%" W x ", %%" W "12, %%" W t "\n\tvpmaddubsw %%" W t ", %%" W x ", %%" W t \
  "\n\tvpmaddwd %%" W "13, %%" W t ", %%" W t "\n\tvpaddd %%" W t ", %%" W acc ", %%" W acc "\n\t"

// clang-format off
#define AI00_I8_ROUND(W)                                                   \
  AI00_I8_STEP(W, "0", "8", "14") AI00_I8_STEP(W, "1", "9", "15")         \
  AI00_I8_STEP(W, "2", "10", "14") AI00_I8_STEP(W, "3", "11", "15")       \
  AI00_I8_STEP(W, "4", "8", "14") AI00_I8_STEP(W, "5", "9", "15")         \
  AI00_I8_STEP(W, "6", "10", "14") AI00_I8_STEP(W, "7", "11", "15")
#define AI00_I8_SIGN_ROUND(W)                                                       \
  AI00_I8_SIGN_STEP(W, "0", "8", "14") AI00_I8_SIGN_STEP(W, "1", "9", "15")         \
  AI00_I8_SIGN_STEP(W, "2", "10", "14") AI00_I8_SIGN_STEP(W, "3", "11", "15")       \
  AI00_I8_SIGN_STEP(W, "4", "8", "14") AI00_I8_SIGN_STEP(W, "5", "9", "15")         \
  AI00_I8_SIGN_STEP(W, "6", "10", "14") AI00_I8_SIGN_STEP(W, "7", "11", "15")
// clang-format on

// ymm8-11: the unsigned bytes (1, 2, 3, 4), ymm12: the signed bytes (-1), ymm13: 1 in every
// int16 lane (vpmaddwd), ymm0-7: the accumulators.
#define AI00_I8_SETUP_YMM                                                                      \
  "vpcmpeqb %%ymm12, %%ymm12, %%ymm12\n\tvpabsb %%ymm12, %%ymm13\n\t"                          \
  "vpsrlw $8, %%ymm13, %%ymm13\n\tvpabsb %%ymm12, %%ymm8\n\tvpaddb %%ymm8, %%ymm8, %%ymm9\n\t" \
  "vpaddb %%ymm8, %%ymm9, %%ymm10\n\tvpaddb %%ymm9, %%ymm9, %%ymm11\n\t"                       \
  "vpxor %%xmm0, %%xmm0, %%xmm0\n\tvmovdqa %%ymm0, %%ymm1\n\tvmovdqa %%ymm0, %%ymm2\n\t"       \
  "vmovdqa %%ymm0, %%ymm3\n\tvmovdqa %%ymm0, %%ymm4\n\tvmovdqa %%ymm0, %%ymm5\n\t"             \
  "vmovdqa %%ymm0, %%ymm6\n\tvmovdqa %%ymm0, %%ymm7\n\t"
#define AI00_I8_CLOBBERS                                                                         \
  "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
      "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

// `rounds` rounds on ymm registers (AVX2); with `sign`, of Q8_0's step instead.
inline void int8_peak_ymm(long rounds, bool sign = false) {
  if (rounds <= 0) return;
  if (sign) {
    asm volatile(AI00_I8_SETUP_YMM
                 "1:\n\t" AI00_I8_SIGN_ROUND("ymm") "dec %0\n\tjnz 1b\n\tvzeroupper"
                 : "+r"(rounds)
                 :
                 : AI00_I8_CLOBBERS);
  } else {
    asm volatile(AI00_I8_SETUP_YMM "1:\n\t" AI00_I8_ROUND("ymm") "dec %0\n\tjnz 1b\n\tvzeroupper"
                 : "+r"(rounds)
                 :
                 : AI00_I8_CLOBBERS);
  }
}

// The same on zmm registers (AVX-512BW; the caller checks the CPU has it).
inline void int8_peak_zmm(long rounds) {
  if (rounds <= 0) return;
  asm volatile(
      "vpternlogd $0xff, %%zmm12, %%zmm12, %%zmm12\n\t"
      "vpabsb %%zmm12, %%zmm13\n\t"
      "vpsrlw $8, %%zmm13, %%zmm13\n\t"
      "vpabsb %%zmm12, %%zmm8\n\t"
      "vpaddb %%zmm8, %%zmm8, %%zmm9\n\t"
      "vpaddb %%zmm8, %%zmm9, %%zmm10\n\t"
      "vpaddb %%zmm9, %%zmm9, %%zmm11\n\t"
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\tvmovdqa64 %%zmm0, %%zmm1\n\tvmovdqa64 %%zmm0, %%zmm2\n\t"
      "vmovdqa64 %%zmm0, %%zmm3\n\tvmovdqa64 %%zmm0, %%zmm4\n\tvmovdqa64 %%zmm0, %%zmm5\n\t"
      "vmovdqa64 %%zmm0, %%zmm6\n\tvmovdqa64 %%zmm0, %%zmm7\n\t"
      "1:\n\t" AI00_I8_ROUND("zmm") "dec %0\n\tjnz 1b\n\tvzeroupper"
      : "+r"(rounds)
      :
      : AI00_I8_CLOBBERS);
}

#undef AI00_I8_CLOBBERS
#undef AI00_I8_SETUP_YMM
#undef AI00_I8_SIGN_ROUND
#undef AI00_I8_SIGN_STEP
#undef AI00_I8_ROUND
#undef AI00_I8_STEP

}  // namespace ai00::bench

#endif
