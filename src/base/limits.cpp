// Process-wide limits (limits.h): a mutex-guarded value, copied out by every reader.
#include "base/limits.h"

#include <mutex>

namespace ai00::internal {
namespace {
std::mutex& limits_mutex() {
  static std::mutex m;
  return m;
}
Limits& current() {
  static Limits l;
  return l;
}
}  // namespace

Limits limits() {
  std::lock_guard<std::mutex> lock(limits_mutex());
  return current();
}

void set_limits(const Limits& l) {
  auto positive = [](uint64_t v, const char* name) {
    if (v == 0) throw InvalidArgument(std::string("limit ") + name + " must be at least 1, got 0");
  };
  positive(l.max_grammar_states, "max_grammar_states");
  positive(l.max_nfa_states, "max_nfa_states");
  positive(l.max_nesting_depth, "max_nesting_depth");
  positive(l.max_threads, "max_threads");
  positive(l.max_input_bytes, "max_input_bytes");
  positive(l.max_file_bytes, "max_file_bytes");
  positive(l.max_string_bytes, "max_string_bytes");
  positive(l.max_tokens, "max_tokens");
  // Parsers recurse once per nesting level: past this even a large thread stack may overflow.
  if (l.max_nesting_depth > kMaxNestingDepthCap)
    throw InvalidArgument("limit max_nesting_depth must be at most " +
                          std::to_string(kMaxNestingDepthCap) + ", got " +
                          std::to_string(l.max_nesting_depth));
  std::lock_guard<std::mutex> lock(limits_mutex());
  current() = l;
}

std::string limit_message(const std::string& where, const std::string& what, const char* name,
                          uint64_t value) {
  return (where.empty() ? std::string() : where + ": ") + what + " exceeds the limit " + name +
         " = " + std::to_string(value);
}

void throw_limit(ErrorKind kind, const std::string& where, const std::string& what,
                 const char* name, uint64_t value) {
  throw_error(kind, limit_message(where, what, name, value));
}

}  // namespace ai00::internal
