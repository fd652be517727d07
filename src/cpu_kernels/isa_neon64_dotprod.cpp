// Kernel table "neon64_dotprod": the aarch64 dot product extension (sdot; Cortex-A55/A76,
// Neoverse, Apple M1 and later) on top of the neon64 table; built with -march=armv8.2-a+dotprod,
// chosen when getauxval(AT_HWCAP) has HWCAP_ASIMDDP (select.cpp).
// Only the int8 entries are compiled here (from matmul_i8-inl.h, whose plain kernel uses sdot
// under __ARM_FEATURE_DOTPROD, and matmul_i8_packed_neon-inl.h, on the layout of
// pack_q8_portable); every other entry is the neon64 table's. Everything sits inside namespace
// ai00::internal::cpu::neon64_dotprod { namespace { } } so no symbol can merge with another ISA's
// copy (docs/model.md "Kernels and ISAs").
#include <arm_neon.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <xsimd/xsimd.hpp>

#include "base/dtype.h"
#include "cpu_kernels/isa_tables.h"

namespace ai00::internal::cpu::neon64_dotprod {
namespace {

// clang-format off
#include "cpu_kernels/simd_load-inl.h"
#include "cpu_kernels/matmul_i8-inl.h"
#include "cpu_kernels/matmul_i8_packed_walk-inl.h"
#include "cpu_kernels/matmul_i8_packed_neon-inl.h"
// clang-format on

}  // namespace

AI00_BASELINE_CODE_BEGIN
const KernelTable& kernel_table() {
  static const KernelTable table = [] {
    KernelTable t = neon64::kernel_table();
    t.name = "neon64_dotprod";
    t.quantize_q8 = &quantize_q8_neon;
    t.matmul_q8 = &matmul_q8_packed_neon_impl;
    t.pack_q8 = &pack_q8_portable;
    t.unpack_q8 = &unpack_q8_rows;
    return t;
  }();
  return table;
}
AI00_BASELINE_CODE_END

}  // namespace ai00::internal::cpu::neon64_dotprod
