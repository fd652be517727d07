// Kernel table for AVX-512 F/CD/DQ/BW + F16C + FMA (Skylake-X, Zen 4 and later).
// The -inl.h kernels are instantiated here inside namespace ai00::internal::cpu::avx512 { namespace
// { } } so none of their symbols can merge with another ISA's copy (docs/model.md "Kernels and
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

namespace ai00::internal::cpu::avx512 {
namespace {

using Arch = xsimd::avx512bw;

// Order matters (each file uses the ones before it), so clang-format must not sort these.
// clang-format off
#include "cpu_kernels/simd_load-inl.h"
#include "cpu_kernels/matmul_q-inl.h"
#include "cpu_kernels/reduce-inl.h"
#include "cpu_kernels/matmul-inl.h"
#include "cpu_kernels/matmul_t-inl.h"
#include "cpu_kernels/matmul_i8-inl.h"
#include "cpu_kernels/elementwise-inl.h"
#include "cpu_kernels/norm-inl.h"
#include "cpu_kernels/wkv7-inl.h"
#include "cpu_kernels/table-inl.h"
// clang-format on

// Activations for the int8 path are quantized on 256 bits (a block is 32 floats).
constexpr KernelTable avx512_table() {
  KernelTable t = make_table<Arch>("avx512");
  t.quantize_q8 = &quantize_q8_avx2;
  return t;
}

constexpr KernelTable kTable = avx512_table();

}  // namespace

const KernelTable& kernel_table() { return kTable; }

}  // namespace ai00::internal::cpu::avx512
