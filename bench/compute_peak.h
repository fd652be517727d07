// The compute peaks of the kernel table in use, measured on this machine now: the limits that
// bench_speed_table's prefill ratios and bench_batch's speed-up ceilings divide by. Also the
// multiply-adds a token costs (block_macs, head_macs), which bench_prefix_cache's floor uses.
//
//  * fp32 FMA: 12 independent vfmadd chains per thread (zmm for the avx512 tables, ymm for the
//    avx2 ones);
//  * bf16 dot: 12 independent vdpbf16ps chains (the avx512_bf16 table only; BF16 weights on other
//    tables run through fp32 FMA and are compared with its peak);
//  * int8 dot: the int8 dot of the table: 12 vpdpbusd chains on zmm (avx512_vnni, avx512_bf16) or
//    ymm (avx2_vnni); 8 chains of vpmaddubsw + vpmaddwd + vpaddd on zmm (avx512) or ymm (avx2),
//    in assembly (int8_peak.h);
//  * on the avx2 table also Q8_0's own step (with vpsignb): not a peak, the most that step's
//    instruction mix allows.
// A probe the table has no instruction for keeps fn == nullptr and what == "n/a".
// AI00_FORCE_ISA is honoured (the table is the one a model load would choose).
#pragma once

#include <functional>
#include <string>

#include "base/dtype.h"

namespace ai00::internal {
class Model;
}

namespace ai00::bench {

// Wall seconds of f(thread index) run on `threads` threads at once.
double run_threads(int threads, const std::function<void(int)>& f);

constexpr long kPeakIters = 20'000'000;  // loop iterations of a full probe (each thread)

struct Peak {
  const char* what = "n/a";
  double g[3] = {0, 0, 0};  // G(FL)OP/s with 1 and 2 threads (index = threads)
  void (*fn)(long) = nullptr;
  double ops = 0;  // arithmetic operations per loop iteration of fn (all its chains)
};

// G(FL)OP/s of `p` run on `threads` threads at once, best of 3 runs of `iters` iterations.
double peak_gops(const Peak& p, int threads, long iters = kPeakIters);

struct TablePeaks {
  std::string isa;  // the kernel table's name
  Peak fma, bf16, i8;
  Peak q8_step;  // avx2 only: Q8_0's step with vpsignb (a bound, not a peak)
};

// Every probe of the table a model load chooses here, on 1 and 2 threads.
TablePeaks measure_table_peaks();

// The peak a matrix product of weights `type` runs against: fp32 FMA for F32 and F16 (and BF16
// without a bf16 dot, or any type with fp32 activations), the bf16 dot for BF16, the int8 dot for
// the quantized types.
const Peak& peak_for(const TablePeaks& peaks, internal::DType type, bool fp32_activations);

// The name of the kernel table a model load chooses here (AI00_FORCE_ISA honoured).
std::string kernel_isa();

// Multiply-adds per token in the blocks (every matrix of every layer): the prefill work.
double block_macs(const internal::Model& m);
// Multiply-adds of the head (vocab x C) for one token's logits.
double head_macs(const internal::Model& m);

}  // namespace ai00::bench
