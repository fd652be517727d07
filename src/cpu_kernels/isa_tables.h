// The per-ISA kernel tables, one accessor per ISA translation unit (isa_<name>.cpp). Internal to
// src/cpu_kernels: select.cpp lists them, everything else goes through select_kernels().
// Each accessor returns a reference to a constant table with static storage duration; calling
// one is safe on any CPU (only calling through the table requires isa_supported()); derived
// tables keep that promise with AI00_BASELINE_CODE_BEGIN/END.
#pragma once

#include "cpu_kernels/kernels.h"

// A table derived at run time from another (copy, then replace entries) is built by code of the
// translation unit it lives in, which is compiled with that ISA's flags: left alone, g++ copies
// the struct with AVX-512 or AVX registers and select.cpp's list of tables dies with SIGILL (or
// under valgrind) on a CPU without them. Wrap such an accessor in these two macros so its code
// uses baseline x86-64 instructions only.
#if defined(__GNUC__) && (defined(__x86_64__) || defined(_M_X64))
#define AI00_BASELINE_CODE_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"no-avx\")")
#define AI00_BASELINE_CODE_END _Pragma("GCC pop_options")
#elif defined(__GNUC__) && !defined(__clang__) && defined(__aarch64__)
// aarch64 (neon64_dotprod, built for armv8.2-a): the plain armv8-a baseline.
#define AI00_BASELINE_CODE_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"arch=armv8-a\")")
#define AI00_BASELINE_CODE_END _Pragma("GCC pop_options")
#else
#define AI00_BASELINE_CODE_BEGIN
#define AI00_BASELINE_CODE_END
#endif

namespace ai00::internal::cpu {
namespace scalar {
const KernelTable& kernel_table();
}
namespace sse2 {
const KernelTable& kernel_table();
}
namespace avx2 {
const KernelTable& kernel_table();
}
namespace avx512 {
const KernelTable& kernel_table();
}
namespace avx2_vnni {
const KernelTable& kernel_table();
}
namespace avx512_vnni {
const KernelTable& kernel_table();
}
namespace avx512_bf16 {
const KernelTable& kernel_table();
}
namespace neon64 {
const KernelTable& kernel_table();
}
namespace neon64_dotprod {
const KernelTable& kernel_table();
}
}  // namespace ai00::internal::cpu
