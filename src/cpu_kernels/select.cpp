// Chooses the kernel table once, at model load (docs/model.md "Kernels and ISAs"). Detection uses
// __builtin_cpu_supports on x86, which also checks that the OS saves the wider registers
// (never xsimd's detector, docs/model.md "Kernels and ISAs"); NEON is baseline on aarch64, its
// dot product extension is read from the kernel's HWCAP bits (getauxval, Linux).
#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#include <cstdlib>
#include <cstring>

#include "cpu_kernels/isa_tables.h"

namespace ai00::internal::cpu {
namespace {

// Best first; only the ISAs compiled into this binary (CMake defines AI00_KERNELS_HAVE_<ISA>).
const KernelTable* const* tables(size_t* count) {
  static const KernelTable* const list[] = {
#if defined(AI00_KERNELS_HAVE_AVX512_BF16)
    &avx512_bf16::kernel_table(),
#endif
#if defined(AI00_KERNELS_HAVE_AVX512_VNNI)
    &avx512_vnni::kernel_table(),
#endif
#if defined(AI00_KERNELS_HAVE_AVX512)
    &avx512::kernel_table(),
#endif
#if defined(AI00_KERNELS_HAVE_AVX2_VNNI)
    &avx2_vnni::kernel_table(),
#endif
#if defined(AI00_KERNELS_HAVE_AVX2)
    &avx2::kernel_table(),
#endif
#if defined(AI00_KERNELS_HAVE_SSE2)
    &sse2::kernel_table(),
#endif
#if defined(AI00_KERNELS_HAVE_NEON64_DOTPROD)
    &neon64_dotprod::kernel_table(),
#endif
#if defined(AI00_KERNELS_HAVE_NEON64)
    &neon64::kernel_table(),
#endif
    &scalar::kernel_table(),
  };
  *count = sizeof(list) / sizeof(list[0]);
  return list;
}

const KernelTable* find_table(const std::string& name) {
  size_t n = 0;
  const KernelTable* const* list = tables(&n);
  for (size_t i = 0; i < n; ++i) {
    if (name == list[i]->name) return list[i];
  }
  return nullptr;
}

// Whether the CPU and OS can run code built for `name` (independent of what was compiled).
bool cpu_runs(const std::string& name) {
  if (name == "scalar") return true;
#if defined(__x86_64__) || defined(_M_X64)
  if (name == "sse2") return true;  // the x86-64 baseline
#if defined(__clang__) && __clang_major__ < 15
  // clang 14 (the `fuzz` preset) has no "f16c" in __builtin_cpu_supports: CPUID.1:ECX bit 29.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  // Nor "avxvnni": CPUID.(EAX=7,ECX=1):EAX bit 4 (the OS's AVX state is checked through avx2).
  const bool avx_vnni = __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4)) != 0;
#else
  const bool f16c = __builtin_cpu_supports("f16c");
  const bool avx_vnni = __builtin_cpu_supports("avxvnni");
#endif
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
  if (name == "avx2") return avx2;
  // The avx512 objects are built with -mavx512f/cd/dq/bw -mf16c -mfma.
  // AVX-VNNI (VEX vpdpbusd) on top of avx2.
  if (name == "avx2_vnni") return avx2 && avx_vnni;
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512bw");
  if (name == "avx512") return avx512;
  // avx512_vnni adds -mavx512vnni -mavx512vl; avx512_bf16 builds on it and adds -mavx512bf16.
  const bool vnni =
      avx512 && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  if (name == "avx512_vnni") return vnni;
  if (name == "avx512_bf16") return vnni && __builtin_cpu_supports("avx512bf16");
#elif defined(__aarch64__)
  if (name == "neon64") return true;  // baseline on aarch64
#if defined(__linux__)
  // sdot, udot (armv8.2-a+dotprod): the kernel's HWCAP_ASIMDDP bit.
  if (name == "neon64_dotprod") return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
#endif
#endif
  return false;
}

std::string known_names() {
  size_t n = 0;
  const KernelTable* const* list = tables(&n);
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (!out.empty()) out += ", ";
    out += list[i]->name;
  }
  return out;
}

}  // namespace

const KernelTable* const* all_kernel_tables(size_t* count) { return tables(count); }

bool isa_supported(const std::string& name) {
  return find_table(name) != nullptr && cpu_runs(name);
}

const KernelTable* select_kernels(const std::string& forced, std::string* error) {
  std::string name = forced;
  std::string source = "forced ISA";
  if (name.empty()) {
    // The environment is read here too, so every caller honours it.
    const char* env = std::getenv("AI00_FORCE_ISA");
    if (env != nullptr && env[0] != '\0') {
      name = env;
      source = "AI00_FORCE_ISA";
    }
  }
  if (!name.empty()) {
    const KernelTable* t = find_table(name);
    if (t == nullptr) {
      if (error != nullptr) {
        *error = source + " '" + name +
                 "' is not a kernel ISA of this build (known: " + known_names() + ")";
      }
      return nullptr;
    }
    if (!cpu_runs(name)) {
      if (error != nullptr) {
        *error = source + " '" + name + "' is not supported by this CPU or OS";
      }
      return nullptr;
    }
    return t;
  }
  size_t n = 0;
  const KernelTable* const* list = tables(&n);
  for (size_t i = 0; i < n; ++i) {
    if (cpu_runs(list[i]->name)) return list[i];
  }
  return &scalar::kernel_table();  // unreachable: scalar always runs
}

}  // namespace ai00::internal::cpu
