// Internal error types of ai00 and the one place where failures change form (docs/layers.md,
// "Errors and status mapping").
//
// Three kinds of failure, none of which aborts or prints:
//  * parse paths (KBNF, chat-format parsers, JSON) return ai00::internal::Result<T> (result.h);
//  * load and IO failures throw a subclass of ai00::internal::Error, caught only in bindings/c and
//  tools;
//  * broken invariants use AI00_CHECK, which is always on and throws InternalError with file:line.
// Every message says what and where: file and byte offset, tensor name and shape, grammar
// line:column, JSON pointer.
//
// Conversions, each written once: ErrorInfo (a Result's error) -> exception is throw_error();
// exception -> ErrorInfo is current_exception_info(); ErrorKind -> ai00_status is status_of() in
// bindings/c (the only place that knows the C ABI's numbers).
#pragma once

#include <stdexcept>
#include <string>

namespace ai00::internal {

// Stable categories; bindings/c maps each one to an ai00_status value.
enum class ErrorKind {
  invalid_argument,  // a caller passed a bad value (null, out of range, wrong size)
  io,                // the operating system refused (open, read, mmap)
  model_file,        // a weight, state or vocabulary file is malformed or unsupported
  format,            // a conversation, tool list or chat-format input is malformed
  grammar,           // a KBNF grammar or JSON Schema is malformed or unsupported
  mismatch,          // e.g. a serialized State that belongs to another model
  unsupported,       // valid input the library does not handle (an image part, a Q6_K tensor, ...)
  cancelled,         // a generation was cancelled
  out_of_memory,     // std::bad_alloc (only ever produced by current_exception_info)
  internal,          // a broken invariant: a bug in ai00
};

// What went wrong, as a value: the error of a Result (result.h) and of a caught exception.
struct ErrorInfo {
  ErrorKind kind = ErrorKind::internal;
  std::string message;  // says what and where (line:column, JSON pointer, byte offset)
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

struct IoError : Error {
  explicit IoError(const std::string& m) : Error(ErrorKind::io, m) {}
};
struct ModelFileError : Error {
  explicit ModelFileError(const std::string& m) : Error(ErrorKind::model_file, m) {}
};
struct FormatError : Error {
  explicit FormatError(const std::string& m) : Error(ErrorKind::format, m) {}
};
struct GrammarError : Error {
  explicit GrammarError(const std::string& m) : Error(ErrorKind::grammar, m) {}
};
struct InvalidArgument : Error {
  explicit InvalidArgument(const std::string& m) : Error(ErrorKind::invalid_argument, m) {}
};
struct MismatchError : Error {
  explicit MismatchError(const std::string& m) : Error(ErrorKind::mismatch, m) {}
};
struct UnsupportedError : Error {
  explicit UnsupportedError(const std::string& m) : Error(ErrorKind::unsupported, m) {}
};
struct InternalError : Error {
  explicit InternalError(const std::string& m) : Error(ErrorKind::internal, m) {}
};

// Throws the Error subclass matching `kind` (IoError for io, GrammarError for grammar, ...; a
// plain Error for kinds without a subclass), so callers can catch by type or by kind().
[[noreturn]] void throw_error(ErrorKind kind, const std::string& message);
[[noreturn]] inline void throw_error(const ErrorInfo& error) {
  throw_error(error.kind, error.message);
}

// The exception being handled, as an ErrorInfo; call only inside a catch block. An Error keeps
// its kind and message; std::bad_alloc is out_of_memory; any other exception is internal, with
// "unexpected exception: " and its what(). May itself throw std::bad_alloc.
ErrorInfo current_exception_info();

namespace detail {
[[noreturn]] void throw_check_failed(const char* file, int line, const char* cond,
                                     const std::string& message);
}  // namespace detail

}  // namespace ai00::internal
// Always-on invariant check: throws ai00::internal::InternalError("file:line: check `cond` failed:
// msg").
#define AI00_CHECK(cond, msg)                                                                    \
  do {                                                                                           \
    if (!(cond)) ::ai00::internal::detail::throw_check_failed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

// Debug-only invariant check for hot paths.
#ifndef NDEBUG
#define AI00_DCHECK(cond, msg) AI00_CHECK(cond, msg)
#else
#define AI00_DCHECK(cond, msg) \
  do {                         \
  } while (0)
#endif
