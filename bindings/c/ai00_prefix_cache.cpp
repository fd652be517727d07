// Prefix-state cache handle of the C ABI (ai00.h "Prefix-state cache", docs/prefix-cache.md).
#include <cstddef>
#include <string>

#include "abi_prefix_cache.h"
#include "core/model/model.h"

namespace {

using ai00::internal::abi::require;

ai00::internal::abi::ErrorSlot* slot_of(const ai00_prefix_cache* c) {
  return c ? &c->error : nullptr;
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_prefix_cache_params_default(ai00_prefix_cache_params* out_params) {
  try {
    require(out_params, "ai00_prefix_cache_params_default", "out_params");
    const ai00::internal::PrefixCacheParams d;
    *out_params = ai00_prefix_cache_params{};
    out_params->struct_size = sizeof(ai00_prefix_cache_params);
    out_params->max_bytes = d.max_bytes;
    out_params->compress_bf16 = d.compress_bf16 ? 1 : 0;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_prefix_cache_new(ai00_prefix_cache** out_cache,
                                           const ai00_prefix_cache_params* params) {
  try {
    const char* fn = "ai00_prefix_cache_new";
    require(out_cache, fn, "out_cache");
    ai00::internal::PrefixCacheParams p;
    if (params != nullptr) {
      ai00::internal::abi::check_struct_size(params->struct_size, sizeof(ai00_prefix_cache_params),
                                             sizeof(ai00_prefix_cache_params), fn,
                                             "ai00_prefix_cache_params");
      p.max_bytes = static_cast<size_t>(params->max_bytes);
      p.compress_bf16 = params->compress_bf16 != 0;
    }
    auto c = std::make_unique<ai00_prefix_cache>();
    c->cache = std::make_shared<ai00::internal::PrefixCache>(p);
    *out_cache = c.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_prefix_cache_free(ai00_prefix_cache* cache) {
  delete cache;
  return AI00_OK;
}

AI00_API const char* ai00_prefix_cache_last_error(const ai00_prefix_cache* cache) {
  try {
    return cache ? cache->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_prefix_cache_stats_get(ai00_prefix_cache_stats* out_stats,
                                                 const ai00_prefix_cache* cache) {
  try {
    const char* fn = "ai00_prefix_cache_stats_get";
    require(out_stats, fn, "out_stats");
    require(cache, fn, "cache");
    constexpr size_t kStatsV1Size = offsetof(ai00_prefix_cache_stats, spare_bytes);
    ai00::internal::abi::check_struct_size(out_stats->struct_size, kStatsV1Size,
                                           sizeof(ai00_prefix_cache_stats), fn,
                                           "ai00_prefix_cache_stats");
    const ai00::internal::PrefixCacheStats s = cache->cache->stats();
    out_stats->reserved = 0;
    out_stats->hits = s.hits;
    out_stats->misses = s.misses;
    out_stats->hit_tokens = s.hit_tokens;
    out_stats->inserts = s.inserts;
    out_stats->evictions = s.evictions;
    out_stats->entries = s.entries;
    out_stats->bytes = s.bytes;
    out_stats->max_bytes = s.max_bytes;
    if (out_stats->struct_size >= sizeof(ai00_prefix_cache_stats))
      out_stats->spare_bytes = s.spare_bytes;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(cache));
  }
}

AI00_API ai00_status ai00_prefix_cache_clear(ai00_prefix_cache* cache) {
  try {
    require(cache, "ai00_prefix_cache_clear", "cache");
    cache->cache->clear();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(cache));
  }
}

AI00_API ai00_status ai00_prefix_cache_reserve(size_t* out_reserved, ai00_prefix_cache* cache,
                                               const ai00_model* model, size_t entries) {
  try {
    const char* fn = "ai00_prefix_cache_reserve";
    require(cache, fn, "cache");
    require(model, fn, "model");
    const size_t n = cache->cache->reserve(*model->model, entries);
    if (out_reserved != nullptr) *out_reserved = n;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(cache));
  }
}

AI00_API ai00_status ai00_prefix_cache_warm(size_t* out_evaluated, ai00_prefix_cache* cache,
                                            const ai00_model* model, const uint32_t* tokens,
                                            size_t n_tokens) {
  try {
    const char* fn = "ai00_prefix_cache_warm";
    require(cache, fn, "cache");
    require(model, fn, "model");
    if (n_tokens == 0)
      throw ai00::internal::InvalidArgument(std::string(fn) + ": n_tokens is 0 (nothing to warm)");
    require(tokens, fn, "tokens");
    const size_t n = cache->cache->warm(*model->model, tokens, n_tokens);
    if (out_evaluated != nullptr) *out_evaluated = n;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(cache));
  }
}

AI00_API ai00_status ai00_prefix_cache_warm_text(size_t* out_evaluated, ai00_prefix_cache* cache,
                                                 const ai00_model* model, const char* text,
                                                 size_t text_len) {
  try {
    const char* fn = "ai00_prefix_cache_warm_text";
    require(cache, fn, "cache");
    require(model, fn, "model");
    require(text, fn, "text");
    if (model->model->tokenizer() == nullptr)
      throw ai00::internal::UnsupportedError(std::string(fn) + ": the model has no tokenizer");
    const size_t n = cache->cache->warm_text(
        *model->model, ai00::internal::abi::text_arg(text, text_len, fn, "text"));
    if (out_evaluated != nullptr) *out_evaluated = n;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(cache));
  }
}

}  // extern "C"
