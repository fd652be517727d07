// Process-wide limits of the C ABI (ai00.h "Limits"): a view of base/limits.h.
#include "abi_internal.h"
#include "base/limits.h"

namespace {

void to_c(const ai00::internal::Limits& l, ai00_limits* out) {
  out->max_nesting_depth = l.max_nesting_depth;
  out->max_threads = l.max_threads;
  out->reserved = 0;
  out->max_grammar_states = l.max_grammar_states;
  out->max_nfa_states = l.max_nfa_states;
  out->max_input_bytes = l.max_input_bytes;
  out->max_file_bytes = l.max_file_bytes;
  out->max_string_bytes = l.max_string_bytes;
  out->max_tokens = l.max_tokens;
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_limits_default(ai00_limits* out_limits) {
  try {
    ai00::internal::abi::require(out_limits, "ai00_limits_default", "out_limits");
    *out_limits = ai00_limits{};
    out_limits->struct_size = sizeof(ai00_limits);
    to_c(ai00::internal::Limits{}, out_limits);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_limits_get(ai00_limits* out_limits) {
  try {
    ai00::internal::abi::require(out_limits, "ai00_limits_get", "out_limits");
    ai00::internal::abi::check_struct_size(out_limits->struct_size, sizeof(ai00_limits),
                                           sizeof(ai00_limits), "ai00_limits_get", "ai00_limits");
    to_c(ai00::internal::limits(), out_limits);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_limits_set(const ai00_limits* limits) {
  try {
    ai00::internal::abi::require(limits, "ai00_limits_set", "limits");
    ai00::internal::abi::check_struct_size(limits->struct_size, sizeof(ai00_limits),
                                           sizeof(ai00_limits), "ai00_limits_set", "ai00_limits");
    ai00::internal::Limits l;
    l.max_nesting_depth = limits->max_nesting_depth;
    l.max_threads = limits->max_threads;
    l.max_grammar_states = limits->max_grammar_states;
    l.max_nfa_states = limits->max_nfa_states;
    l.max_input_bytes = limits->max_input_bytes;
    l.max_file_bytes = limits->max_file_bytes;
    l.max_string_bytes = limits->max_string_bytes;
    l.max_tokens = limits->max_tokens;
    ai00::internal::set_limits(l);  // InvalidArgument naming a zero field; nothing changes then
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

}  // extern "C"
