// Tests of src/base/error.{h,cpp}: AI00_CHECK, the one ErrorInfo -> exception mapping
// (throw_error, Result::value_or_throw) and the one exception -> ErrorInfo mapping.
#include <catch2/catch.hpp>
#include <new>
#include <stdexcept>
#include <string>

#include "base/error.h"
#include "base/result.h"

using namespace ai00::internal;

namespace {

// The ErrorInfo that current_exception_info() gives for `f`'s exception.
template <typename F>
ErrorInfo info_of(F f) {
  try {
    f();
  } catch (...) {
    return current_exception_info();
  }
  FAIL("no throw");
  return {};
}

template <typename E>
void check_throws_as(ErrorKind kind) {
  try {
    throw_error(kind, "what and where");
  } catch (const E& e) {
    CHECK(e.kind() == kind);
    CHECK(std::string(e.what()) == "what and where");
    return;
  }
}

}  // namespace

TEST_CASE("AI00_CHECK throws InternalError with file and line", "[base][error]") {
  try {
    AI00_CHECK(1 + 1 == 3, "arithmetic");
    FAIL("no throw");
  } catch (const InternalError& e) {
    std::string m = e.what();
    CHECK(m.find("test_error.cpp:") != std::string::npos);
    CHECK(m.find("arithmetic") != std::string::npos);
    CHECK(e.kind() == ErrorKind::internal);
  }
}

TEST_CASE("throw_error throws the subclass of each kind", "[base][error]") {
  check_throws_as<InvalidArgument>(ErrorKind::invalid_argument);
  check_throws_as<IoError>(ErrorKind::io);
  check_throws_as<ModelFileError>(ErrorKind::model_file);
  check_throws_as<FormatError>(ErrorKind::format);
  check_throws_as<GrammarError>(ErrorKind::grammar);
  check_throws_as<MismatchError>(ErrorKind::mismatch);
  check_throws_as<UnsupportedError>(ErrorKind::unsupported);
  check_throws_as<InternalError>(ErrorKind::internal);
  check_throws_as<Error>(ErrorKind::cancelled);
  // Result::value_or_throw goes through the same mapping.
  Result<int> bad = make_error(ErrorKind::grammar, "1:2: expected ';'");
  CHECK_THROWS_AS(std::move(bad).value_or_throw(), GrammarError);
}

TEST_CASE("current_exception_info maps every exception to a kind and a message", "[base][error]") {
  ErrorInfo e = info_of([] { throw FormatError("/messages/0: bad role"); });
  CHECK(e.kind == ErrorKind::format);
  CHECK(e.message == "/messages/0: bad role");
  e = info_of([] { throw std::bad_alloc(); });
  CHECK(e.kind == ErrorKind::out_of_memory);
  CHECK(e.message == "out of memory");
  e = info_of([] { throw std::runtime_error("boom"); });
  CHECK(e.kind == ErrorKind::internal);
  CHECK(e.message == "unexpected exception: boom");
  e = info_of([] { throw 42; });
  CHECK(e.kind == ErrorKind::internal);
  CHECK(e.message == "unexpected non-standard exception");
}
