// ai00 C++ API — errors. Header-only, built only on the C ABI (ai00.h); see ai00.hpp.
//
// Every wrapper call checks the ai00_status of the C function it calls and throws ai00::Error
// on the caller's side of the boundary, carrying the status and the library's message (the
// calling thread's ai00_last_error(): what and where — path, line:column, JSON pointer).
// Exceptions never travel through the library: C++ callbacks are wrapped so an exception thrown
// by user code is caught before returning into C and rethrown after the C call returns.
//
// Namespace: the public types live in ai00::api, an inline namespace, so users write
// ai00::Model, ai00::Error, ... while their mangled names never collide with ai00's internal
// (src/) types of the same short names in programs that link both.
#pragma once

#include <stdexcept>
#include <string>

#include "ai00/ai00.h"

namespace ai00 {
inline namespace api {

// A failed library call. status() is the ai00_status; what() the library's message.
class Error : public std::runtime_error {
 public:
  Error(ai00_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  ai00_status status() const noexcept { return status_; }

 private:
  ai00_status status_;
};

namespace detail {
// Throws Error for any status other than AI00_OK, with the thread's last message.
inline void check(ai00_status status) {
  if (status == AI00_OK) return;
  const char* message = ai00_last_error();
  throw Error(status, (message != nullptr && message[0] != '\0') ? std::string(message)
                                                                 : ai00_status_string(status));
}
}  // namespace detail

// The version of the library actually loaded (AI00_VERSION_NUMBER is the header's).
inline uint32_t library_version() {
  uint32_t v = 0;
  detail::check(ai00_version_number(&v));
  return v;
}

}  // namespace api
}  // namespace ai00
