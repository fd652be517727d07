// Tests of src/format/stream.{h,cpp}: UTF-8 holdback and call ids (the stop-string and marker
// search it uses is tested with src/base, tests/base/test_stop_scanner.cpp).
#include <catch2/catch.hpp>

#include "format/stream.h"

using namespace ai00::internal::format;

TEST_CASE("stream: UTF-8 holdback passes whole code points only", "[format][stream]") {
  const std::string emoji = "\xF0\x9F\x98\x80";  // 😀 split over three "tokens"
  Utf8Holdback u;
  CHECK(u.feed("a\xF0\x9F") == "a");
  CHECK(u.feed("\x98") == "");
  CHECK(u.feed("\x80!") == emoji + "!");
  CHECK(u.flush() == "");
  // Bytes that can never complete become U+FFFD, one per maximal invalid subsequence.
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(u.feed("\xFF") == fffd);
  CHECK(u.feed("\xE2\x82x") == fffd + "x");
  CHECK(u.feed("\xC0\xAF") == fffd + fffd);             // overlong
  CHECK(u.feed("\xED\xA0\x80") == fffd + fffd + fffd);  // a surrogate
  CHECK(u.feed("\xE2\x82") == "");
  CHECK(u.flush() == fffd);  // an incomplete tail at the end
}

TEST_CASE("stream: tool call ids", "[format][stream]") {
  const std::string a = tool_call_id(42, 0);
  CHECK(a.size() == 13);
  CHECK(a.rfind("call_", 0) == 0);
  CHECK(a.find_first_not_of("0123456789abcdef", 5) == std::string::npos);
  CHECK(tool_call_id(42, 0) == a);  // deterministic
  CHECK(tool_call_id(42, 1) != a);
  CHECK(tool_call_id(43, 0) != a);
}
