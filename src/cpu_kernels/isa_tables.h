// The per-ISA kernel tables, one accessor per ISA translation unit (isa_<name>.cpp). Internal to
// src/cpu_kernels: select.cpp lists them, everything else goes through select_kernels().
// Each accessor returns a reference to a constant table with static storage duration; calling
// one is safe on any CPU (only calling through the table requires isa_supported()).
#pragma once

#include "cpu_kernels/kernels.h"

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
}  // namespace ai00::internal::cpu
