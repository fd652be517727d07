// throw_error, current_exception_info and AI00_CHECK's thrower (error.h).
#include "base/error.h"

#include <exception>
#include <new>

namespace ai00::internal {

void throw_error(ErrorKind kind, const std::string& message) {
  switch (kind) {
    case ErrorKind::invalid_argument:
      throw InvalidArgument(message);
    case ErrorKind::io:
      throw IoError(message);
    case ErrorKind::model_file:
      throw ModelFileError(message);
    case ErrorKind::format:
      throw FormatError(message);
    case ErrorKind::grammar:
      throw GrammarError(message);
    case ErrorKind::mismatch:
      throw MismatchError(message);
    case ErrorKind::unsupported:
      throw UnsupportedError(message);
    case ErrorKind::internal:
      throw InternalError(message);
    case ErrorKind::cancelled:
    case ErrorKind::out_of_memory:
      break;
  }
  throw Error(kind, message);
}

ErrorInfo current_exception_info() {
  try {
    throw;
  } catch (const Error& e) {
    return ErrorInfo{e.kind(), e.what()};
  } catch (const std::bad_alloc&) {
    return ErrorInfo{ErrorKind::out_of_memory, "out of memory"};
  } catch (const std::exception& e) {
    return ErrorInfo{ErrorKind::internal, std::string("unexpected exception: ") + e.what()};
  } catch (...) {
    return ErrorInfo{ErrorKind::internal, "unexpected non-standard exception"};
  }
}

}  // namespace ai00::internal

namespace ai00::internal::detail {

void throw_check_failed(const char* file, int line, const char* cond, const std::string& message) {
  std::string text =
      std::string(file) + ":" + std::to_string(line) + ": check `" + cond + "` failed";
  if (!message.empty()) text += ": " + message;
  throw InternalError(text);
}

}  // namespace ai00::internal::detail
