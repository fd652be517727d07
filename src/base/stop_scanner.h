// StopScanner: stop strings matched on decoded text across token boundaries
// (docs/chat-formats.md "Stop strings").
//
// Text arrives in arbitrary pieces (one token's worth of whole code points at a time). feed()
// returns everything that is certainly not part of a stop string: the text before the earliest
// full match (then stopped() becomes true and the rest is dropped), or the text before the
// longest suffix that could still begin a stop string (held back until the next piece decides).
// A stop string is never part of the output; the concatenation of every returned piece and
// flush() is the input cut before the first stop string, however the input was split.
//
// Cost: each feed scans the held suffix plus the new piece against every stop string, so the work
// per byte is bounded by (number of stops) x (longest stop).
// Threading: a plain value, one stream, one thread at a time. Never throws except bad_alloc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ai00::internal {

class StopScanner {
 public:
  // Empty strings are ignored; duplicates are harmless.
  explicit StopScanner(std::vector<std::string> stops);

  // The safe text of held + piece (see above). After stopped(), returns "" and ignores input.
  std::string feed(std::string_view piece);
  // Releases the held suffix (a partial match that never completed) as text.
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