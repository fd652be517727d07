// Small string predicates shared by the weight loaders and the converter (tensor names are
// matched by suffix: ".r_k", ".w1", ".v0", ...). C++17 has no std::string::ends_with.
#pragma once

#include <string_view>

namespace ai00::internal {

// True when `s` ends with `suffix` (an empty suffix always matches).
inline bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace ai00::internal
