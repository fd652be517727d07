// find_marker, partial_marker_suffix and StopScanner (stop_scanner.h).
#include "base/stop_scanner.h"

#include <algorithm>

namespace ai00::internal {

std::optional<MarkerHit> find_marker(std::string_view s,
                                     const std::vector<std::string_view>& markers) {
  std::optional<MarkerHit> best;
  for (size_t k = 0; k < markers.size(); ++k) {
    if (markers[k].empty()) continue;
    const size_t p = s.find(markers[k]);
    if (p == std::string_view::npos) continue;
    // Strictly earlier, or at the same start strictly longer: the first listed keeps ties.
    if (!best || p < best->pos ||
        (p == best->pos && markers[k].size() > markers[best->index].size())) {
      best = MarkerHit{p, k};
    }
  }
  return best;
}

size_t partial_marker_suffix(std::string_view s, const std::vector<std::string_view>& markers) {
  size_t longest = 0;
  for (std::string_view m : markers) {
    const size_t max_len = std::min(s.size(), m.empty() ? 0 : m.size() - 1);
    for (size_t len = max_len; len > longest; --len) {
      if (s.substr(s.size() - len) == m.substr(0, len)) {
        longest = len;
        break;
      }
    }
  }
  return longest;
}

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
  // Views are made per call rather than kept, so that copying a scanner cannot leave them
  // pointing into the source's strings.
  const std::vector<std::string_view> views(stops_.begin(), stops_.end());
  if (auto hit = find_marker(held_, views)) {
    stopped_ = true;
    matched_ = index_[hit->index];
    std::string out = held_.substr(0, hit->pos);
    held_.clear();
    return out;
  }
  const size_t keep = partial_marker_suffix(held_, views);
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
