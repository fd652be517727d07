// Tests of src/base/utf8.{h,cpp}: validation, complete-prefix length, U+FFFD replacement, code
// point encoding and decoding, and the streaming Holdback.
// Expected replacements were produced with Python's bytes.decode("utf-8", "replace"), which
// follows the same maximal-subpart rule.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "base/utf8.h"

using namespace ai00::internal;

namespace {
const std::string R(utf8::kReplacement);
}

TEST_CASE("utf8 validity follows Unicode table 3-7", "[core][utf8]") {
  CHECK(utf8::is_valid(""));
  CHECK(utf8::is_valid("plain ascii"));
  CHECK(utf8::is_valid("\xE4\xBD\xA0\xE5\xA5\xBD"));  // 你好
  CHECK(utf8::is_valid("\xF0\x9F\x98\x80"));          // U+1F600
  CHECK(utf8::is_valid("\xF4\x8F\xBF\xBF"));          // U+10FFFF
  CHECK_FALSE(utf8::is_valid("\xF4\x90\x80\x80"));    // above U+10FFFF
  CHECK_FALSE(utf8::is_valid("\xC0\xAF"));            // overlong '/'
  CHECK_FALSE(utf8::is_valid("\xE0\x80\x80"));        // overlong NUL
  CHECK_FALSE(utf8::is_valid("\xED\xA0\x80"));        // surrogate U+D800
  CHECK_FALSE(utf8::is_valid("\xFF"));
  CHECK_FALSE(utf8::is_valid("\xE4\xBD"));  // truncated
  CHECK(utf8::valid_prefix_len("ab\x80"
                               "cd") == 2);
  CHECK(utf8::valid_prefix_len("abcdefghijk\xE4\xBD") == 11);
}

TEST_CASE("utf8 complete_prefix_len holds back only completable tails", "[core][utf8]") {
  CHECK(utf8::complete_prefix_len("") == 0);
  CHECK(utf8::complete_prefix_len("abc") == 3);
  CHECK(utf8::complete_prefix_len("a\xE4") == 1);
  CHECK(utf8::complete_prefix_len("a\xE4\xBD") == 1);
  CHECK(utf8::complete_prefix_len("a\xE4\xBD\xA0") == 4);
  CHECK(utf8::complete_prefix_len("\xF0\x9F\x98") == 0);
  CHECK(utf8::complete_prefix_len("\xF0\x9F\x98\x80") == 4);
  CHECK(utf8::complete_prefix_len("a\xFF") == 2);      // never valid: not held
  CHECK(utf8::complete_prefix_len("a\x80\x80") == 3);  // stray continuations: not held
  CHECK(utf8::complete_prefix_len("a\xED\xA0") == 3);  // would be a surrogate: not held
  CHECK(utf8::complete_prefix_len("a\xE0\x80") == 3);  // overlong: not held
  CHECK(utf8::complete_prefix_len("a\xF4\x90") == 3);  // above U+10FFFF: not held
  CHECK(utf8::complete_prefix_len("a\xC1") == 2);      // C0/C1 leads are never valid
}

TEST_CASE("utf8 sanitize replaces each maximal ill-formed subpart once", "[core][utf8]") {
  CHECK(utf8::sanitize("abc") == "abc");
  CHECK(utf8::sanitize("\xE4\xBD") == R);
  CHECK(utf8::sanitize("\xE4\xBD\xA0") == "\xE4\xBD\xA0");
  CHECK(utf8::sanitize("\xFF") == R);
  CHECK(utf8::sanitize("\xC0\xAF") == R + R);
  CHECK(utf8::sanitize("\xED\xA0\x80") == R + R + R);
  CHECK(utf8::sanitize("\xF0\x9F\x98") == R);
  CHECK(utf8::sanitize("\xF4\x90\x80\x80") == R + R + R + R);
  CHECK(utf8::sanitize("a\x80"
                       "b") == "a" + R + "b");
  CHECK(utf8::sanitize("\xE0\x80\x80") == R + R + R);
  CHECK(utf8::sanitize("\xF0\x9F\x98\x80\xE4") == "\xF0\x9F\x98\x80" + R);
  CHECK(utf8::sanitize("\xE4\xBD\xE4\xBD\xA0") == R + "\xE4\xBD\xA0");
  CHECK(utf8::sanitize("\xF8\x88\x80\x80\x80") == R + R + R + R + R);
  CHECK(utf8::sanitize(std::string("a\0b", 3)) == std::string("a\0b", 3));
}

TEST_CASE("utf8 append_sanitized_complete is split-invariant on random bytes", "[core][utf8]") {
  std::mt19937 rng(1234);
  const char* pieces[] = {"a",    "\xE4", "\xBD", "\xA0", "\xF0", "\x9F", "\x98", "\x80",
                          "\xFF", "\xC2", "\xED", "\xA0", "\xF4", "\x8F", "\xBF", "\xE0"};
  for (int iter = 0; iter < 2000; ++iter) {
    std::string s;
    const int n = static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) s += pieces[rng() % 16];
    const std::string whole = utf8::sanitize(s);
    REQUIRE(utf8::is_valid(whole));
    for (size_t split = 0; split <= s.size(); ++split) {
      std::string out, pending = s.substr(0, split);
      const size_t used = utf8::append_sanitized_complete(pending, out);
      REQUIRE(utf8::is_valid(out));
      REQUIRE(used == utf8::complete_prefix_len(pending));
      std::string rest = pending.substr(used) + s.substr(split);
      utf8::append_sanitized(rest, out);
      REQUIRE(out == whole);
    }
  }
}

TEST_CASE("utf8 code point encode and decode", "[core][utf8]") {
  std::string out;
  CHECK(utf8::append_code_point(0x41, out));
  CHECK(utf8::append_code_point(0x80, out));
  CHECK(utf8::append_code_point(0x4F60, out));
  CHECK(utf8::append_code_point(0x1F600, out));
  CHECK_FALSE(utf8::append_code_point(0x110000, out));
  CHECK(out == "A\xC2\x80\xE4\xBD\xA0\xF0\x9F\x98\x80");
  uint32_t cp = 0;
  CHECK(utf8::decode_one(out, &cp) == 1);
  CHECK(cp == 0x41);
  CHECK(utf8::decode_one(std::string_view(out).substr(3), &cp) == 3);
  CHECK(cp == 0x4F60);
  CHECK(utf8::decode_one(std::string_view(out).substr(6), &cp) == 4);
  CHECK(cp == 0x1F600);
  CHECK(utf8::decode_one("\xE4\xBD", &cp) == 0);
  CHECK(utf8::decode_one("", &cp) == 0);
  CHECK(utf8::decode_one("\xc0\xaf", nullptr) == 0);          // overlong
  CHECK(utf8::decode_one("\xed\xa0\x80", nullptr) == 0);      // a surrogate
  CHECK(utf8::decode_one("\xf4\x90\x80\x80", nullptr) == 0);  // above U+10FFFF
  CHECK(utf8::encoded_length(0x7F) == 1);
  CHECK(utf8::encoded_length(0x80) == 2);
  CHECK(utf8::encoded_length(0xFFFF) == 3);
  CHECK(utf8::encoded_length(0x10FFFF) == 4);
  CHECK(utf8::encoded_length(0x110000) == 0);
}

TEST_CASE("utf8 holdback passes whole code points only", "[utf8][stream]") {
  const std::string emoji = "\xF0\x9F\x98\x80";  // 😀 split over three "tokens"
  utf8::Holdback u;
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
