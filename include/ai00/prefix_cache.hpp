// ai00 C++ API — prefix-state cache (header-only RAII over ai00.h "Prefix-state cache").
//
// States after token prefixes (a persona, a system prompt, finished turns), kept so that a new
// conversation starting with the same tokens copies the State instead of prefilling them again.
// Generators use it through GenerateOptions::prefix_cache when their State is pristine (new or
// reset); the State's sampler state always stays the caller's (docs/prefix-cache.md).
// Ownership: shared (copies refer to one cache); the last copy frees it. It must outlive every
// Generator that uses it. Threading: every method, on any number of threads at once.
// Errors: ai00::Error (AI00_ERR_INVALID_ARGUMENT naming a bad token and its position).
//
//   ai00::PrefixCache cache;                       // 256 MiB, fp32 States
//   cache.warm_text(model, persona_prompt);        // optional: before the first NPC speaks
//   cache.reserve(model, 3 * npcs);                 // optional: no fresh pages mid-frame
//   ai00::GenerateOptions o;
//   o.prefix_cache = cache;                         // every NPC's generator shares it
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/error.hpp"
#include "ai00/model.hpp"

namespace ai00 {
inline namespace api {

// ai00_prefix_cache_params with the defaults filled in (256 MiB, no compression).
struct PrefixCacheParams : ai00_prefix_cache_params {
  PrefixCacheParams() : ai00_prefix_cache_params() {
    detail::check(ai00_prefix_cache_params_default(this));
  }
};

class PrefixCache {
 public:
  explicit PrefixCache(const PrefixCacheParams& params = {}) {
    ai00_prefix_cache* c = nullptr;
    detail::check(ai00_prefix_cache_new(&c, &params));
    handle_.reset(c, [](ai00_prefix_cache* p) { ai00_prefix_cache_free(p); });
  }

  // Runs `tokens` from the zero state (after the longest cached prefix of them) and stores the
  // State after them; returns the tokens that ran through the model (0: all were cached).
  size_t warm(const Model& model, const std::vector<uint32_t>& tokens) {
    size_t n = 0;
    detail::check(ai00_prefix_cache_warm(&n, get(), model.get(), tokens.data(), tokens.size()));
    return n;
  }
  // warm() on the model's encoding of `text`.
  size_t warm_text(const Model& model, const std::string& text) {
    size_t n = 0;
    detail::check(ai00_prefix_cache_warm_text(&n, get(), model.get(), text.data(), text.size()));
    return n;
  }
  // Sets memory aside now for `entries` more entries of `model` (its pages faulted in), so that
  // later stores in a frame loop copy into it; counts against max_bytes. Returns how many were
  // set aside (fewer at the bound).
  size_t reserve(const Model& model, size_t entries) {
    size_t n = 0;
    detail::check(ai00_prefix_cache_reserve(&n, get(), model.get(), entries));
    return n;
  }
  // Hits, misses, skipped tokens, inserts, evictions, entries, bytes and spare bytes.
  ai00_prefix_cache_stats stats() const {
    ai00_prefix_cache_stats s{};
    s.struct_size = sizeof s;
    detail::check(ai00_prefix_cache_stats_get(&s, get()));
    return s;
  }
  void clear() { detail::check(ai00_prefix_cache_clear(get())); }

  ai00_prefix_cache* get() const noexcept { return handle_.get(); }

 private:
  std::shared_ptr<ai00_prefix_cache> handle_;
};

}  // namespace api
}  // namespace ai00
