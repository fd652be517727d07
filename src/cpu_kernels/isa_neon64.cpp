// Kernel table for NEON on aarch64 (baseline there: no flags). Built only when
// CMAKE_SYSTEM_PROCESSOR is aarch64.
// The -inl.h kernels are instantiated here inside
// namespace ai00::internal::cpu::neon64 { namespace { } }
// so none of their symbols can merge with another ISA's copy (docs/model.md "Kernels and ISAs").
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

namespace ai00::internal::cpu::neon64 {
namespace {

using Arch = xsimd::neon64;

// Order matters (each file uses the ones before it), so clang-format must not sort these.
// clang-format off
#include "cpu_kernels/simd_load-inl.h"
#include "cpu_kernels/matmul_q-inl.h"
#include "cpu_kernels/matmul-inl.h"
#include "cpu_kernels/matmul_t-inl.h"
#include "cpu_kernels/matmul_i8-inl.h"
#include "cpu_kernels/elementwise-inl.h"
#include "cpu_kernels/norm-inl.h"
#include "cpu_kernels/wkv7-inl.h"
#include "cpu_kernels/table-inl.h"
// clang-format on

// The int8 path's activations are quantized with NEON (matmul_i8-inl.h quantize_q8_neon).
constexpr KernelTable neon64_table() {
  KernelTable t = make_table<Arch>("neon64");
  t.quantize_q8 = &quantize_q8_neon;
  return t;
}

constexpr KernelTable kTable = neon64_table();

}  // namespace

const KernelTable& kernel_table() { return kTable; }

}  // namespace ai00::internal::cpu::neon64
