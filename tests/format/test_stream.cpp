// Tests of src/format/stream.{h,cpp}: call ids. The UTF-8 holdback and the stop-string and
// marker search it uses are tested with src/base (tests/base/test_utf8.cpp, test_stop_scanner.cpp).
#include <catch2/catch.hpp>

#include "format/stream.h"

using namespace ai00::internal::format;

TEST_CASE("stream: tool call ids", "[format][stream]") {
  const std::string a = tool_call_id(42, 0);
  CHECK(a.size() == 13);
  CHECK(a.rfind("call_", 0) == 0);
  CHECK(a.find_first_not_of("0123456789abcdef", 5) == std::string::npos);
  CHECK(tool_call_id(42, 0) == a);  // deterministic
  CHECK(tool_call_id(42, 1) != a);
  CHECK(tool_call_id(43, 0) != a);
}
