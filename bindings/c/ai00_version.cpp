// Version and status queries of the C ABI.
#include "abi_internal.h"

extern "C" {

AI00_API ai00_status ai00_version_number(uint32_t* out_version) {
  try {
    ai00::internal::abi::require(out_version, "ai00_version_number", "out_version");
    *out_version = AI00_VERSION_NUMBER;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_abi_version(uint32_t* out_abi_version) {
  try {
    ai00::internal::abi::require(out_abi_version, "ai00_abi_version", "out_abi_version");
    *out_abi_version = AI00_ABI_VERSION;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API const char* ai00_status_string(ai00_status status) {
  switch (status) {
    case AI00_OK:
      return "ok";
    case AI00_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case AI00_ERR_IO:
      return "input/output error";
    case AI00_ERR_MODEL_FILE:
      return "malformed model, state or vocabulary file";
    case AI00_ERR_FORMAT:
      return "malformed conversation or chat-format input";
    case AI00_ERR_GRAMMAR:
      return "malformed or unsupported grammar";
    case AI00_ERR_MISMATCH:
      return "object belongs to another model";
    case AI00_ERR_UNSUPPORTED:
      return "unsupported input";
    case AI00_ERR_CANCELLED:
      return "cancelled";
    case AI00_ERR_BUFFER_TOO_SMALL:
      return "buffer too small";
    case AI00_ERR_OUT_OF_MEMORY:
      return "out of memory";
    case AI00_ERR_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}

}  // extern "C"
