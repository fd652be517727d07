// ISA choice (docs/model.md "Kernels and ISAs"): forcing by name or through AI00_FORCE_ISA, errors
// for unknown names. (Row sizes of the weight types are tested with src/base,
// tests/base/test_dtype.cpp.)
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "cpu_kernels/kernels.h"

using ai00::internal::cpu::select_kernels;

TEST_CASE("an unknown forced ISA fails with a message", "[cpu_kernels][select]") {
  std::string err;
  CHECK(select_kernels("bogus", &err) == nullptr);
  CHECK(err.find("'bogus'") != std::string::npos);
  CHECK(err.find("scalar") != std::string::npos);  // lists the known names
  CHECK_FALSE(ai00::internal::cpu::isa_supported("bogus"));
  CHECK(select_kernels("bogus", nullptr) == nullptr);  // no message wanted: still no crash
}

TEST_CASE("every compiled ISA can be forced exactly when supported", "[cpu_kernels][select]") {
  size_t n = 0;
  const ai00::internal::cpu::KernelTable* const* all = ai00::internal::cpu::all_kernel_tables(&n);
  REQUIRE(n >= 1);
  CHECK(std::string(all[n - 1]->name) == "scalar");  // best first, scalar last
  for (size_t i = 0; i < n; ++i) {
    std::string err;
    const ai00::internal::cpu::KernelTable* t = select_kernels(all[i]->name, &err);
    INFO(all[i]->name << ": " << err);
    if (ai00::internal::cpu::isa_supported(all[i]->name)) {
      REQUIRE(t == all[i]);
      CHECK(t->matmul != nullptr);
      CHECK(t->dot != nullptr);
    } else {
      CHECK(t == nullptr);
      CHECK(err.find("not supported") != std::string::npos);
    }
  }
}

TEST_CASE("without a forced name the best supported ISA is chosen", "[cpu_kernels][select]") {
  const char* env = std::getenv("AI00_FORCE_ISA");
  if (env != nullptr && env[0] != '\0') return;  // the [forced] case below covers that run
  size_t n = 0;
  const ai00::internal::cpu::KernelTable* const* all = ai00::internal::cpu::all_kernel_tables(&n);
  const ai00::internal::cpu::KernelTable* best = nullptr;
  for (size_t i = 0; i < n && best == nullptr; ++i) {
    if (ai00::internal::cpu::isa_supported(all[i]->name)) best = all[i];
  }
  std::string err;
  CHECK(select_kernels("", &err) == best);
}

TEST_CASE("AI00_FORCE_ISA is honoured and a parameter wins over it", "[cpu_kernels][select]") {
  const char* old = std::getenv("AI00_FORCE_ISA");
  const std::string saved = old != nullptr ? old : "";
  std::string err;
  ::setenv("AI00_FORCE_ISA", "scalar", 1);
  const ai00::internal::cpu::KernelTable* t = select_kernels("", &err);
  REQUIRE(t != nullptr);
  CHECK(std::string(t->name) == "scalar");
  ::setenv("AI00_FORCE_ISA", "bogus", 1);
  CHECK(select_kernels("", &err) == nullptr);
  CHECK(err.find("AI00_FORCE_ISA") != std::string::npos);
  CHECK(select_kernels("scalar", &err) != nullptr);
  if (old != nullptr) {
    ::setenv("AI00_FORCE_ISA", saved.c_str(), 1);
  } else {
    ::unsetenv("AI00_FORCE_ISA");
  }
}

// Run by ctest once per compiled ISA with AI00_FORCE_ISA set (tests/cpu_kernels/CMakeLists.txt),
// and with a bogus name as a WILL_FAIL case.
TEST_CASE("the ISA forced by the environment is active", "[cpu_kernels][select][forced][.]") {
  const char* env = std::getenv("AI00_FORCE_ISA");
  REQUIRE(env != nullptr);
  std::string err;
  const ai00::internal::cpu::KernelTable* t = select_kernels("", &err);
  INFO(err);
  if (std::string(env) != "bogus" && !ai00::internal::cpu::isa_supported(env)) {
    CHECK(t == nullptr);  // compiled but not runnable here: an error, never SIGILL
    return;
  }
  REQUIRE(t != nullptr);
  CHECK(std::string(t->name) == env);
}

// Run by ctest where the CPU is known (the aarch64 cross test under qemu -cpu max / cortex-a53):
// the table chosen from what the CPU reports is AI00_EXPECT_ISA, and AI00_REFUSED_ISA, if set,
// is compiled but refused.
TEST_CASE("the ISA chosen for this CPU is the expected one", "[cpu_kernels][select][expect][.]") {
  const char* want = std::getenv("AI00_EXPECT_ISA");
  REQUIRE(want != nullptr);
  REQUIRE(std::getenv("AI00_FORCE_ISA") == nullptr);
  std::string err;
  const ai00::internal::cpu::KernelTable* t = select_kernels("", &err);
  REQUIRE(t != nullptr);
  CHECK(std::string(t->name) == want);
  if (const char* refused = std::getenv("AI00_REFUSED_ISA")) {
    CHECK(select_kernels(refused, &err) == nullptr);
    CHECK(err.find("not supported") != std::string::npos);
    size_t n = 0;
    const ai00::internal::cpu::KernelTable* const* all = ai00::internal::cpu::all_kernel_tables(&n);
    bool compiled = false;
    for (size_t i = 0; i < n; ++i) compiled = compiled || std::string(all[i]->name) == refused;
    CHECK(compiled);
  }
}
