// Kernel table for AVX2 + FMA + F16C (Haswell, Zen and later); built with -mavx2 -mfma -mf16c.
// The -inl.h kernels are instantiated here inside namespace ai00::internal::cpu::avx2 { namespace {
// } } so none of their symbols can merge with another ISA's copy (docs/model.md "Kernels and
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

namespace ai00::internal::cpu::avx2 {
namespace {

using Arch = xsimd::fma3<xsimd::avx2>;

// Order matters (each file uses the ones before it), so clang-format must not sort these.
// clang-format off
#include "cpu_kernels/simd_load-inl.h"
#include "cpu_kernels/matmul_q-inl.h"
#include "cpu_kernels/matmul-inl.h"
#include "cpu_kernels/matmul_t-inl.h"
#include "cpu_kernels/matmul_i8-inl.h"
#include "cpu_kernels/matmul_i8_packed_walk-inl.h"
#include "cpu_kernels/matmul_i8_packed_avx2-inl.h"
#include "cpu_kernels/elementwise-inl.h"
#include "cpu_kernels/norm-inl.h"
#include "cpu_kernels/wkv7-inl.h"
#include "cpu_kernels/table-inl.h"
// clang-format on

// The int8 path reads the row-interleaved layout too (vpmaddubsw on halves of a group), and
// quantizes its activations on 256 bits.
constexpr KernelTable avx2_table() {
  KernelTable t = make_table<Arch>("avx2");
  t.quantize_q8 = &quantize_q8_avx2;
  t.matmul_q8 = &matmul_q8_packed8_impl;
  t.pack_q8 = &pack_q8_portable;
  t.unpack_q8 = &unpack_q8_rows;
  return t;
}

constexpr KernelTable kTable = avx2_table();

}  // namespace

const KernelTable& kernel_table() { return kTable; }

}  // namespace ai00::internal::cpu::avx2
