// Shared helpers of the fuzz targets (tests/fuzz/README.md): the fixture folder, small limits
// so one input stays cheap, and a byte reader for structured inputs. Each target defines
// LLVMFuzzerTestOneInput; built with clang -fsanitize=fuzzer it is a libFuzzer binary, built
// with replay_main.cpp it replays a corpus folder as a regression test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/limits.h"

namespace ai00_fuzz {

inline std::string shared_dir() {
  if (const char* env = std::getenv("AI00_SHARED_DIR"); env && *env) return env;
  return AI00_FUZZ_SHARED_DIR;
}

// Limits small enough that every input finishes quickly, large enough for the seeds.
inline void small_limits() {
  static const bool done = [] {
    ai00::internal::Limits l;
    l.max_grammar_states = 4000;
    l.max_nfa_states = 20000;
    l.max_nesting_depth = 64;
    l.max_input_bytes = 1 << 20;
    l.max_string_bytes = 1 << 14;
    l.max_threads = 4;
    l.max_tokens = 4096;
    ai00::internal::set_limits(l);
    return true;
  }();
  (void)done;
}

// Consumes an input front to back: small integers first, the rest as text.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint8_t u8() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  uint32_t u32() {
    return u8() | uint32_t(u8()) << 8 | uint32_t(u8()) << 16 | uint32_t(u8()) << 24;
  }
  std::string_view take(size_t k) {
    k = k < n_ ? k : n_;
    std::string_view s(reinterpret_cast<const char*>(p_), k);
    p_ += k, n_ -= k;
    return s;
  }
  std::string_view rest() { return take(n_); }
  size_t size() const { return n_; }

 private:
  const uint8_t* p_;
  size_t n_;
};

}  // namespace ai00_fuzz
