// Kernel table "avx512_bf16": AVX-512 BF16 (vdpbf16ps; Cooper Lake, Zen 4 and later) on top of the
// avx512_vnni table; built with the avx512 flags plus -mavx512bf16 -mavx512vl. Only the entries
// that need the extra instruction are compiled here (from matmul_bf16-inl.h); every other entry is
// the avx512_vnni table's. Everything sits inside namespace ai00::internal::cpu::avx512_bf16 {
// namespace { } } so no symbol can merge with another ISA's copy (docs/model.md "Kernels and
// ISAs").
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <xsimd/xsimd.hpp>

#include "base/dtype.h"
#include "cpu_kernels/isa_tables.h"

namespace ai00::internal::cpu::avx512_bf16 {
namespace {

// clang-format off
#include "cpu_kernels/simd_load-inl.h"
#include "cpu_kernels/reduce-inl.h"
#include "cpu_kernels/matmul_bf16-inl.h"
// clang-format on

}  // namespace

AI00_BASELINE_CODE_BEGIN
const KernelTable& kernel_table() {
  static const KernelTable table = [] {
    KernelTable t = avx512_vnni::kernel_table();
    t.name = "avx512_bf16";
    t.round_bf16 = &round_bf16_impl;
    t.matmul_bf16 = &matmul_bf16_impl;
    return t;
  }();
  return table;
}
AI00_BASELINE_CODE_END

}  // namespace ai00::internal::cpu::avx512_bf16
