// Result<T>: the return type of parse paths that fail on ordinary bad input (KBNF text, model
// output, conversation JSON). It holds either a value or an ErrorInfo; it never throws unless
// value() is called on an error, which is a programming mistake and throws InternalError.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "base/error.h"

namespace ai00::internal {

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Result(ErrorInfo error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & {
    check();
    return std::get<0>(v_);
  }
  const T& value() const& {
    check();
    return std::get<0>(v_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(v_));
  }
  const ErrorInfo& error() const {
    AI00_CHECK(!ok(), "Result::error() on a value");
    return std::get<1>(v_);
  }

  // Converts an error into the matching exception type (throw_error, error.h), for load paths.
  T value_or_throw() && {
    if (!ok()) throw_error(std::get<1>(v_));
    return std::get<0>(std::move(v_));
  }

 private:
  void check() const {
    if (!ok()) throw InternalError("Result::value() on an error: " + std::get<1>(v_).message);
  }
  std::variant<T, ErrorInfo> v_;
};

inline ErrorInfo make_error(ErrorKind kind, std::string message) {
  return ErrorInfo{kind, std::move(message)};
}

}  // namespace ai00::internal