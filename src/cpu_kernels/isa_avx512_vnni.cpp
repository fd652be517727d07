// Kernel table "avx512_vnni": AVX-512 VNNI (vpdpbusd; Ice Lake, Zen 4 and later) on top of the
// avx512 table; built with the avx512 flags plus -mavx512vnni -mavx512vl. Only the entries that
// need the extra instruction are compiled here (from matmul_i8-inl.h and matmul_i8_packed-inl.h,
// whose row-interleaved layout only this table and its heirs read); every other entry is the avx512
// table's. Everything sits inside namespace ai00::internal::cpu::avx512_vnni { namespace { } } so
// no symbol can merge with another ISA's copy (docs/model.md "Kernels and ISAs").
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>
#include <xsimd/xsimd.hpp>

#include "base/dtype.h"
#include "cpu_kernels/isa_tables.h"

namespace ai00::internal::cpu::avx512_vnni {
namespace {

// clang-format off
#include "cpu_kernels/simd_load-inl.h"
#include "cpu_kernels/matmul_i8-inl.h"
#include "cpu_kernels/matmul_i8_packed_walk-inl.h"
#include "cpu_kernels/matmul_i8_packed-inl.h"
// clang-format on

}  // namespace

AI00_BASELINE_CODE_BEGIN
const KernelTable& kernel_table() {
  static const KernelTable table = [] {
    KernelTable t = avx512::kernel_table();
    t.name = "avx512_vnni";
    t.quantize_q8 = &quantize_q8_avx512;
    t.matmul_q8 = &matmul_q8_packed_impl;
    t.pack_q8 = &pack_q8_masked;
    t.unpack_q8 = &unpack_q8_rows_masked;
    return t;
  }();
  return table;
}
AI00_BASELINE_CODE_END

}  // namespace ai00::internal::cpu::avx512_vnni
