// base/stop_scanner: the one tie rule, marker search, and stop strings across arbitrary splits
// (cut, never emitted).
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "base/stop_scanner.h"

using ai00::internal::find_marker;
using ai00::internal::partial_marker_suffix;
using ai00::internal::StopScanner;

namespace {

struct Out {
  std::string text;
  bool stopped = false;
  size_t index = 0;
};

// Feeds `input` cut at the given offsets (sorted, inside the string), then flushes.
Out scan(const std::vector<std::string>& stops, const std::string& input,
         const std::vector<size_t>& cuts) {
  StopScanner s(stops);
  Out o;
  size_t prev = 0;
  for (size_t c : cuts) {
    o.text += s.feed(input.substr(prev, c - prev));
    prev = c;
  }
  o.text += s.feed(input.substr(prev));
  o.text += s.flush();
  o.stopped = s.stopped();
  o.index = s.matched_index();
  return o;
}

}  // namespace

TEST_CASE("stop scanner cuts before the earliest stop at every split", "[generator][stop]") {
  const std::vector<std::string> stops = {"</ai00:assistant>", "\n\n"};
  const std::string input = "Hello <ai00 world</ai00:assist\n\nrest</ai00:assistant>tail";
  const std::string expect = "Hello <ai00 world</ai00:assist";
  REQUIRE(scan(stops, input, {}).text == expect);
  for (size_t i = 0; i <= input.size(); ++i) {
    for (size_t j = i; j <= input.size(); j += 3) {
      Out o = scan(stops, input, {i, j});
      REQUIRE(o.text == expect);
      REQUIRE(o.stopped);
      REQUIRE(o.index == 1);
    }
  }
}

TEST_CASE("stop scanner byte by byte never emits a partial stop early", "[generator][stop]") {
  StopScanner s({"STOP"});
  REQUIRE(s.feed("ab") == "ab");
  REQUIRE(s.feed("S") == "");
  REQUIRE(s.held_bytes() == 1);
  REQUIRE(s.feed("T") == "");
  REQUIRE(s.feed("x") == "STx");  // the partial match broke: released as text
  REQUIRE(s.feed("STO") == "");
  REQUIRE(s.feed("P and more") == "");
  REQUIRE(s.stopped());
  REQUIRE(s.feed("ignored") == "");
  REQUIRE(s.flush() == "");
}

TEST_CASE("stop scanner flush releases an unfinished partial match", "[generator][stop]") {
  StopScanner s({"</end>"});
  REQUIRE(s.feed("text </en") == "text ");
  REQUIRE_FALSE(s.stopped());
  REQUIRE(s.flush() == "</en");
}

TEST_CASE("stop scanner without stops passes everything, empty stops ignored",
          "[generator][stop]") {
  StopScanner s({"", ""});
  REQUIRE(s.feed("abc") == "abc");
  REQUIRE(s.held_bytes() == 0);
  REQUIRE_FALSE(s.stopped());
}

TEST_CASE("stop scanner random splits with overlapping stops", "[generator][stop]") {
  std::mt19937 rng(7);
  const std::vector<std::string> stops = {"aab", "abab"};
  for (int iter = 0; iter < 300; ++iter) {
    std::string input;
    for (int i = 0; i < 20; ++i) input += "ab"[rng() % 2];
    // Reference: cut at the earliest position where any stop begins.
    size_t cut = std::string::npos;
    for (const auto& st : stops) cut = std::min(cut, input.find(st));
    const std::string expect = input.substr(0, cut);
    std::vector<size_t> cuts;
    for (size_t k = 1; k < input.size(); ++k)
      if (rng() % 3 == 0) cuts.push_back(k);
    Out o = scan(stops, input, cuts);
    REQUIRE(o.text == expect);
    REQUIRE(o.stopped == (cut != std::string::npos));
  }
}

TEST_CASE("stop scanner: stop strings are cut and partial ones held", "[generator][stop]") {
  StopScanner s({"</ai00:assistant>", "\n\n"});
  CHECK(s.feed("Hello </ai00:ass") == "Hello ");
  CHECK(s.feed("ist") == "");
  CHECK(s.feed("x") == "</ai00:assistx");
  CHECK(s.feed("end\n") == "end");
  CHECK(s.feed("\nignored") == "");
  CHECK(s.stopped());
  CHECK(s.feed("more") == "");
  StopScanner t({"<|im_end|>"});
  CHECK(t.feed("a<|im") == "a");
  CHECK(t.flush() == "<|im");
}

TEST_CASE("marker search: earliest start, then longest, then first listed", "[format][stop]") {
  const std::vector<std::string_view> ms = {"<think>", "<ai00:", "<ai00:function_calls>"};
  auto hit = find_marker("x<ai00:function_calls>", ms);
  REQUIRE(hit);
  CHECK(hit->pos == 1);
  CHECK(hit->index == 2);  // the longest marker at the earliest position, though listed last
  hit = find_marker("<ai00:x <think>", ms);
  REQUIRE(hit);
  CHECK(hit->pos == 0);  // an earlier start beats a longer marker
  CHECK(hit->index == 1);
  const std::vector<std::string_view> same = {"", "ab", "ab"};
  hit = find_marker("xab", same);
  REQUIRE(hit);
  CHECK(hit->index == 1);  // equal strings: the first listed; the empty string never matches
  CHECK_FALSE(find_marker("nothing", ms));
  CHECK(partial_marker_suffix("abc<ai00:func", ms) == 10);
  CHECK(partial_marker_suffix("abc<th", ms) == 3);
  CHECK(partial_marker_suffix("abc", ms) == 0);
  CHECK(partial_marker_suffix("<think>", ms) == 0);  // a whole marker is not a partial one
}

TEST_CASE("stop scanner reports the tie winner: longest at the same start", "[generator][stop]") {
  StopScanner s({"ab", "", "abc"});
  CHECK(s.feed("x") == "x");
  CHECK(s.feed("abcd") == "");
  REQUIRE(s.stopped());
  CHECK(s.matched_index() == 2);  // index into the constructor's list, empty strings counted
  StopScanner t({"abc", "abc"});
  CHECK(t.feed("_abc") == "_");
  CHECK(t.matched_index() == 0);
}
