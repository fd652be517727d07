/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Prefix-state cache: States after prompt prefixes, shared by generators and threads.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_PREFIX_CACHE_H
#define AI00_C_PREFIX_CACHE_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Prefix-state cache
 * ========================================================================================== */
/* States after token prefixes (system prompt, persona, finished turns), kept so that a new
 * conversation starting with the same tokens copies the State instead of running them again
 * (docs/prefix-cache.md). Key: the model fingerprint and the token prefix; lookup finds the
 * longest stored prefix of a prompt, verified token by token. Each entry also keeps the logits
 * of its last token, so a prompt that is entirely cached samples at once. Bounded in bytes:
 * inserting evicts the least recently used entries. One cache may serve several models.
 *
 * Validity: prompt tokens are relative to the State's content, so a generator uses the cache
 * only when its State is pristine: new (ai00_state_new) or reset (ai00_state_reset), with no
 * eval, load or generation since (a clone of a pristine State is pristine). A hit copies the
 * recurrent floats only: the State's sampler state (seed, RNG, penalties) stays the caller's.
 *
 * Ownership and threads: the caller owns the cache (ai00_prefix_cache_free, after every
 * generator using it is freed). Any number of threads and generators may use one cache at once;
 * every function below is thread-safe. */
typedef struct ai00_prefix_cache ai00_prefix_cache;

/* Cache options. Fill with ai00_prefix_cache_params_default(); fields are only appended. */
typedef struct ai00_prefix_cache_params {
  uint32_t struct_size;
  /* Bound of the entries' bytes (each: the State floats, 4 bytes each or 2 with compress_bf16,
   * plus 4 * n_vocab for the logits, 4 per prefix token and 256). Default 256 MiB. */
  uint64_t max_bytes;
  /* Non-zero: store States as bf16 (half the bytes); a hit is then within bf16 rounding of the
   * full prefill (max |logit diff| 3.2e-3 on the random fixture model, docs/prefix-cache.md
   * "Compression") instead of bit-identical. The stored logits stay exact. Default 0. */
  int32_t compress_bf16;
} ai00_prefix_cache_params;

AI00_API ai00_status ai00_prefix_cache_params_default(ai00_prefix_cache_params* out_params);

/* A new, empty cache; `params` may be NULL for the defaults. */
AI00_API ai00_status ai00_prefix_cache_new(ai00_prefix_cache** out_cache,
                                           const ai00_prefix_cache_params* params);

/* Destroys a cache. NULL is accepted. Not while a generator using it is alive. */
AI00_API ai00_status ai00_prefix_cache_free(ai00_prefix_cache* cache);

/* Message of the last failed call on `cache`; "" if none; NULL gives "". Shared between
 * threads: prefer ai00_last_error() when several threads use the cache. */
AI00_API const char* ai00_prefix_cache_last_error(const ai00_prefix_cache* cache);

/* Counters since the cache was made. Fill struct_size (the library writes the fields that
 * fit). */
typedef struct ai00_prefix_cache_stats {
  uint32_t struct_size;
  uint32_t reserved;
  uint64_t hits;       /* lookups that found a prefix */
  uint64_t misses;     /* lookups that found none */
  uint64_t hit_tokens; /* prompt tokens the hits skipped */
  uint64_t inserts;    /* entries stored */
  uint64_t evictions;  /* entries dropped to stay within max_bytes */
  uint64_t entries;    /* entries now */
  uint64_t bytes;      /* their bytes now */
  uint64_t max_bytes;  /* the bound */
  /* Appended: memory set aside for later entries (ai00_prefix_cache_reserve, and an evicted
   * entry's memory on its way to the insert that takes it), counted against max_bytes. */
  uint64_t spare_bytes;
} ai00_prefix_cache_stats;

AI00_API ai00_status ai00_prefix_cache_stats_get(ai00_prefix_cache_stats* out_stats,
                                                 const ai00_prefix_cache* cache);

/* Drops every entry and the memory set aside (the counters other than entries, bytes and
 * spare_bytes are kept). */
AI00_API ai00_status ai00_prefix_cache_clear(ai00_prefix_cache* cache);

/* Sets memory aside now for `entries` more entries of `model` (allocated and written, so its
 * pages are in), for an application that must not wait on fresh pages later: a game's frame
 * loop, where a generator's store of a State would otherwise fault in its megabytes mid-frame
 * (about 1 ms per 2.4 MB State on a small VM, five times the copy; docs/prefix-cache.md
 * "Memory"). Later inserts of the same model and compression take this memory first; the
 * memory of evicted entries is reused the same way without a reserve. The memory set aside
 * counts against max_bytes (stats: spare_bytes), so fewer entries are set aside when the bound
 * is reached; inserting frees spares of another shape before it evicts entries. 0 entries is a
 * no-op. *out_reserved (may be NULL) receives how many were set aside. */
AI00_API ai00_status ai00_prefix_cache_reserve(size_t* out_reserved, ai00_prefix_cache* cache,
                                               const ai00_model* model, size_t entries);

/* Warms the cache: runs `tokens` from the zero state (continuing from the longest cached prefix
 * of them) and stores the State after the last one. *out_evaluated (may be NULL) receives the
 * tokens that ran through the model (0 when all were cached). Errors: AI00_ERR_INVALID_ARGUMENT
 * (no tokens, an id >= n_vocab: the message names it and its position). */
AI00_API ai00_status ai00_prefix_cache_warm(size_t* out_evaluated, ai00_prefix_cache* cache,
                                            const ai00_model* model, const uint32_t* tokens,
                                            size_t n_tokens);

/* ai00_prefix_cache_warm on the model's encoding of `text` (e.g. a persona's rendered system
 * prompt, exactly as the chat template renders it). AI00_ERR_UNSUPPORTED without tokenizer. */
AI00_API ai00_status ai00_prefix_cache_warm_text(size_t* out_evaluated, ai00_prefix_cache* cache,
                                                 const ai00_model* model, const char* text,
                                                 size_t text_len);

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_PREFIX_CACHE_H */
