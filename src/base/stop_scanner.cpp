// StopScanner (stop_scanner.h).
#include "base/stop_scanner.h"

#include <algorithm>

namespace ai00::internal {

StopScanner::StopScanner(std::vector<std::string> stops) {
  for (size_t i = 0; i < stops.size(); ++i) {
    if (stops[i].empty()) continue;
    stops_.push_back(std::move(stops[i]));
    index_.push_back(i);
  }
}

std::string StopScanner::feed(std::string_view piece) {
  if (stopped_) return {};
  held_.append(piece.data(), piece.size());
  // Earliest full match; at equal positions the first listed stop wins (same cut either way).
  size_t best = std::string::npos;
  for (size_t i = 0; i < stops_.size(); ++i) {
    size_t pos = held_.find(stops_[i]);
    if (pos < best) {
      best = pos;
      matched_ = index_[i];
    }
  }
  if (best != std::string::npos) {
    stopped_ = true;
    std::string out = held_.substr(0, best);
    held_.clear();
    return out;
  }
  // Longest suffix of held_ that is a proper prefix of some stop: it may still become a match.
  size_t keep = 0;
  for (const std::string& s : stops_) {
    size_t max_len = std::min(s.size() - 1, held_.size());
    for (size_t len = max_len; len > keep; --len) {
      if (held_.compare(held_.size() - len, len, s, 0, len) == 0) {
        keep = len;
        break;
      }
    }
  }
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StopScanner::flush() {
  std::string out;
  out.swap(held_);
  if (stopped_) out.clear();
  return out;
}

}  // namespace ai00::internal