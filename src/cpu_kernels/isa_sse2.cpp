// Kernel table for SSE2, the x86-64 baseline (no F16C: f16 weights are widened lane by lane).
// The -inl.h kernels are instantiated here inside
// namespace ai00::internal::cpu::sse2 { namespace { } }
// so none of their symbols can merge with another ISA's copy (docs/model.md "Kernels and ISAs").
#include <emmintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <xsimd/xsimd.hpp>

#include "base/dtype.h"
#include "cpu_kernels/isa_tables.h"

namespace ai00::internal::cpu::sse2 {
namespace {

using Arch = xsimd::sse2;

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

constexpr KernelTable kTable = make_table<Arch>("sse2");

}  // namespace

const KernelTable& kernel_table() { return kTable; }

}  // namespace ai00::internal::cpu::sse2
