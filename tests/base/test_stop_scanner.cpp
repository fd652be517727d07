// StopScanner: stop strings across arbitrary splits are cut and never emitted.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "base/stop_scanner.h"

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

TEST_CASE("stop scanner without stops passes everything; empty stops ignored",
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
