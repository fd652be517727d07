// Last-error bookkeeping of the C ABI: one message per thread, one per handle, and the mapping
// from the exceptions of src/ to ai00_status (docs/abi.md "Status codes").
#include <cstring>
#include <new>
#include <string>

#include "abi_internal.h"

namespace ai00::internal::abi {
namespace {
// The calling thread's last message. A function-local thread_local has no static destructor
// doing work at unload beyond freeing the string (docs/abi.md "Threads").
std::string& thread_message() {
  thread_local std::string message;
  return message;
}
}  // namespace

void ErrorSlot::set(const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  message_ = message;
}

const char* ErrorSlot::get() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return message_.c_str();
}

ai00_status fail(ErrorSlot* slot, ai00_status status, const std::string& message) {
  // Assigning may itself run out of memory; the status is still returned.
  try {
    thread_message() = message;
    if (slot != nullptr) slot->set(message);
  } catch (...) {
  }
  return status;
}

ai00_status status_of(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::invalid_argument:
      return AI00_ERR_INVALID_ARGUMENT;
    case ErrorKind::io:
      return AI00_ERR_IO;
    case ErrorKind::model_file:
      return AI00_ERR_MODEL_FILE;
    case ErrorKind::format:
      return AI00_ERR_FORMAT;
    case ErrorKind::grammar:
      return AI00_ERR_GRAMMAR;
    case ErrorKind::mismatch:
      return AI00_ERR_MISMATCH;
    case ErrorKind::unsupported:
      return AI00_ERR_UNSUPPORTED;
    case ErrorKind::cancelled:
      return AI00_ERR_CANCELLED;
    case ErrorKind::out_of_memory:
      return AI00_ERR_OUT_OF_MEMORY;
    case ErrorKind::internal:
      return AI00_ERR_INTERNAL;
  }
  return AI00_ERR_INTERNAL;
}

ai00_status handle_exception(ErrorSlot* slot) noexcept {
  try {
    const ErrorInfo e = current_exception_info();
    return fail(slot, status_of(e.kind), e.message);
  } catch (...) {  // building the message ran out of memory
    return fail(slot, AI00_ERR_OUT_OF_MEMORY, "out of memory");
  }
}

ai00_status check_capacity(ErrorSlot* slot, size_t* out_len, size_t need, const void* buffer,
                           size_t capacity, const char* function, const char* what) {
  *out_len = need;
  const size_t have = buffer == nullptr ? 0 : capacity;
  if (need <= have) return AI00_OK;
  return fail(slot, AI00_ERR_BUFFER_TOO_SMALL,
              std::string(function) + ": " + what + " needs " + std::to_string(need) +
                  " bytes, capacity is " + std::to_string(have));
}

std::string_view text_arg(const char* p, size_t len, const char* function, const char* what) {
  if (p == nullptr) {
    if (len == 0) return {};
    throw InvalidArgument(std::string(function) + ": " + what + " is NULL");
  }
  if (len == AI00_NUL_TERMINATED) len = std::strlen(p);
  return std::string_view(p, len);
}

void check_struct_size(uint32_t struct_size, size_t min_size, size_t max_size, const char* function,
                       const char* type) {
  if (struct_size < min_size || struct_size > max_size) {
    throw InvalidArgument(
        std::string(function) + ": " + type + ".struct_size = " + std::to_string(struct_size) +
        " is not a known size (expected " + std::to_string(min_size) + ".." +
        std::to_string(max_size) + "); fill the struct with its _default() function");
  }
}

}  // namespace ai00::internal::abi

extern "C" {

AI00_API const char* ai00_last_error(void) {
  try {
    return ai00::internal::abi::thread_message().c_str();
  } catch (...) {
    return "";
  }
}

}  // extern "C"
