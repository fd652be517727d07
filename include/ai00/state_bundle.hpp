// ai00 C++ API — State bundles (header-only RAII over ai00.h "State bundles").
//
// Many named States in one buffer or file ("a whole village"), each with its model fingerprint
// and checksums; load all of them or one by name. Errors: ai00::Error naming the entry index,
// its name and the byte offset (AI00_ERR_MODEL_FILE: truncated, corrupt, duplicated name;
// AI00_ERR_MISMATCH: a State of another model; AI00_ERR_IO: the path).
// Ownership: a StateBundle is unique (movable); States loaded from it are independent.
// Threading: an opened bundle is immutable: any number of threads may load from it.
//
//   ai00::save_state_bundle_file({{"smith", &smith}, {"baker", &baker}}, "village.bundle");
//   ai00::StateBundle village = ai00::StateBundle::open_file("village.bundle");
//   ai00::State smith = village.load(model, village.find("smith"));
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/error.hpp"
#include "ai00/state.hpp"

namespace ai00 {
inline namespace api {

using BundleEntries = std::vector<std::pair<std::string, const State*>>;

namespace detail {
struct BundleArgs {
  explicit BundleArgs(const BundleEntries& entries) {
    for (const auto& e : entries) {
      states.push_back(e.second ? e.second->get() : nullptr);
      names.push_back(e.first.data());
      lens.push_back(e.first.size());
    }
  }
  std::vector<const ai00_state*> states;
  std::vector<const char*> names;
  std::vector<size_t> lens;
};
}  // namespace detail

inline std::vector<uint8_t> save_state_bundle(const BundleEntries& entries) {
  detail::BundleArgs a(entries);
  size_t n = 0;
  ai00_status s = ai00_state_bundle_save(&n, nullptr, 0, a.states.data(), a.names.data(),
                                         a.lens.data(), entries.size());
  if (s != AI00_ERR_BUFFER_TOO_SMALL) detail::check(s);
  std::vector<uint8_t> bytes(n);
  detail::check(ai00_state_bundle_save(&n, bytes.data(), bytes.size(), a.states.data(),
                                       a.names.data(), a.lens.data(), entries.size()));
  return bytes;
}

inline void save_state_bundle_file(const BundleEntries& entries, const std::string& path) {
  detail::BundleArgs a(entries);
  detail::check(ai00_state_bundle_save_file(a.states.data(), a.names.data(), a.lens.data(),
                                            entries.size(), path.data(), path.size()));
}

class StateBundle {
 public:
  static StateBundle open(const std::vector<uint8_t>& bytes) {
    ai00_state_bundle* b = nullptr;
    detail::check(ai00_state_bundle_open(&b, bytes.data(), bytes.size()));
    return StateBundle(b);
  }
  static StateBundle open_file(const std::string& path) {
    ai00_state_bundle* b = nullptr;
    detail::check(ai00_state_bundle_open_file(&b, path.data(), path.size()));
    return StateBundle(b);
  }

  size_t size() const {
    size_t n = 0;
    detail::check(ai00_state_bundle_count(&n, get()));
    return n;
  }
  std::string name(size_t index) const {
    const char* s = nullptr;
    size_t n = 0;
    detail::check(ai00_state_bundle_name(&s, &n, get(), index));
    return std::string(s, n);
  }
  // The index of the entry named `name` (ai00::Error when there is none).
  size_t find(const std::string& name) const {
    size_t i = 0;
    detail::check(ai00_state_bundle_find(&i, get(), name.data(), name.size()));
    return i;
  }
  State load(const Model& model, size_t index) const {
    ai00_state* s = nullptr;
    detail::check(ai00_state_bundle_load(&s, get(), model.get(), index));
    return State::adopt(model, s);
  }

  ai00_state_bundle* get() const noexcept { return handle_.get(); }

 private:
  explicit StateBundle(ai00_state_bundle* owned) : handle_(owned) {}
  struct Free {
    void operator()(ai00_state_bundle* b) const noexcept { ai00_state_bundle_free(b); }
  };
  std::unique_ptr<ai00_state_bundle, Free> handle_;
};

}  // namespace api
}  // namespace ai00
