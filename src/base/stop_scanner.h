// Searching text for a set of strings: the one implementation behind stop strings (raw and chat
// generation) and the chat formats' markers (docs/chat-formats.md "Stop strings").
//
// Tie rule, used everywhere: the match that STARTS EARLIEST wins; among matches starting at the
// same byte the LONGEST wins; among equal strings the first listed wins. (So "<tool_call>" beats
// "<tool" at the same offset, and the cut — always at the match start — is the same whichever
// of the tied strings is reported.) Empty strings never match.
//
// StopScanner applies this to text that arrives in arbitrary pieces (one token's worth of whole
// code points at a time). feed() returns everything that is certainly not part of a stop string:
// the text before the earliest full match (then stopped() becomes true and the rest is dropped),
// or the text before the longest suffix that could still begin a stop string (held back until
// the next piece decides). A stop string is never part of the output; the concatenation of every
// returned piece and flush() is the input cut before the first stop string, however the input
// was split. matched_index() reports the winner among the matches visible when the scan stopped.
//
// Cost: each feed scans the held suffix plus the new piece against every string, so the work per
// byte is bounded by (number of strings) x (longest string).
// Threading: plain values and pure functions; one scanner per stream, one thread at a time.
// Nothing throws except std::bad_alloc.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ai00::internal {

struct MarkerHit {
  size_t pos = 0;    // byte offset of the match in the searched text
  size_t index = 0;  // which string of the list matched
};

// The winning match of any of `markers` in `s` under the tie rule above; nullopt if none occurs.
std::optional<MarkerHit> find_marker(std::string_view s,
                                     const std::vector<std::string_view>& markers);

// Length of the longest suffix of `s` that is a proper prefix of one of `markers` (a whole
// marker is not a partial one): the bytes to hold back because they may still begin a match.
size_t partial_marker_suffix(std::string_view s, const std::vector<std::string_view>& markers);

class StopScanner {
 public:
  // Empty strings are ignored; duplicates are harmless.
  explicit StopScanner(std::vector<std::string> stops);

  // The safe text of held + piece (see above). After stopped(), returns "" and ignores input.
  std::string feed(std::string_view piece);
  // Releases the held suffix (a partial match that never completed) as text; "" once stopped.
  std::string flush();

  bool stopped() const { return stopped_; }
  // Index into the constructor's list of the stop string that matched (valid when stopped()).
  size_t matched_index() const { return matched_; }
  size_t held_bytes() const { return held_.size(); }

 private:
  std::vector<std::string> stops_;
  std::vector<size_t> index_;  // stops_[i] came from the constructor's list at index_[i]
  std::string held_;
  size_t matched_ = 0;
  bool stopped_ = false;
};

}  // namespace ai00::internal
