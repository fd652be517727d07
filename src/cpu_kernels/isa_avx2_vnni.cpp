// Kernel table "avx2_vnni": AVX-VNNI (VEX vpdpbusd; Alder Lake and later) on top of the avx2 table;
// built with the avx2 flags plus -mavxvnni. Only the entries that need the extra instruction are
// compiled here (from matmul_i8-inl.h and matmul_i8_packed_avx2-inl.h, on the layout of
// pack_q8_portable, the avx2 table's); every other entry is the avx2 table's. Everything sits
// inside namespace ai00::internal::cpu::avx2_vnni { namespace { } } so no symbol can merge with
// another ISA's copy (docs/model.md "Kernels and ISAs").
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

namespace ai00::internal::cpu::avx2_vnni {
namespace {

// clang-format off
#include "cpu_kernels/simd_load-inl.h"
#include "cpu_kernels/matmul_i8-inl.h"
#include "cpu_kernels/matmul_i8_packed_walk-inl.h"
#include "cpu_kernels/matmul_i8_packed_avx2-inl.h"
// clang-format on

}  // namespace

AI00_BASELINE_CODE_BEGIN
const KernelTable& kernel_table() {
  static const KernelTable table = [] {
    KernelTable t = avx2::kernel_table();
    t.name = "avx2_vnni";
    t.quantize_q8 = &quantize_q8_avx2;
    t.matmul_q8 = &matmul_q8_packed8_impl;
    t.pack_q8 = &pack_q8_portable;
    t.unpack_q8 = &unpack_q8_rows;
    return t;
  }();
  return table;
}
AI00_BASELINE_CODE_END

}  // namespace ai00::internal::cpu::avx2_vnni
