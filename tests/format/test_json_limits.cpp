// Issue 15 regressions of the JSON reader: nesting bounded by max_nesting_depth (and the largest
// allowed depth fits the stack), documents larger than max_input_bytes refused before parsing,
// and invalid UTF-8 in a conversation located by byte offset.
#include <catch2/catch.hpp>
#include <string>
#include <thread>

#include "base/limits.h"
#include "format/json.h"
#include "format/message.h"

using namespace ai00::internal;
using Catch::Matchers::Contains;

TEST_CASE("JSON nesting and size are bounded by the limits", "[format][limits]") {
  const Limits saved = limits();
  auto deep = [](size_t n) { return std::string(n, '[') + std::string(n, ']'); };
  CHECK(json::parse(deep(256)).ok());
  auto r = json::parse(deep(257));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message,
             Contains("array/object nesting exceeds the limit max_nesting_depth = 256"));
  CHECK_FALSE(json::parse(deep(1000000)).ok());  // refused, not a stack overflow
  Limits l = saved;
  l.max_nesting_depth = kMaxNestingDepthCap;
  l.max_input_bytes = 100;
  set_limits(l);
  auto big = json::parse(std::string(101, ' ') + "1");
  REQUIRE_FALSE(big.ok());
  CHECK_THAT(big.error().message,
             Contains("JSON document: 102 bytes exceeds the limit max_input_bytes = 100"));
  l.max_input_bytes = saved.max_input_bytes;
  set_limits(l);
  std::thread t([&] { CHECK(json::parse(deep(kMaxNestingDepthCap)).ok()); });
  t.join();
  set_limits(saved);
}

TEST_CASE("invalid UTF-8 in a conversation names its byte offset", "[format][limits]") {
  auto r = format::parse_conversation("[{\"role\":\"user\",\"content\":\"abc \xff\"}]");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Contains("invalid UTF-8 at byte offset 31"));
}
