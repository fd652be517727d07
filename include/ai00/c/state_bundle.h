/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * State bundles: many named States of one model in one buffer or file.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_STATE_BUNDLE_H
#define AI00_C_STATE_BUNDLE_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * State bundles
 * ========================================================================================== */
/* Many named States in one buffer or file (a whole village): a header (magic "AI00BNDL",
 * version, count, checksum) and per entry a caller-given UTF-8 name (unique, 1..4096 bytes), the
 * model fingerprint, the ai00_state_save bytes and a checksum (layout in docs/prefix-cache.md
 * "State bundles"). Opening checks every entry; errors name the entry index, its name and the
 * byte offset: AI00_ERR_MODEL_FILE (truncated, corrupt, duplicated name), AI00_ERR_MISMATCH
 * (loading a State of another model), AI00_ERR_IO (the path). */
typedef struct ai00_state_bundle ai00_state_bundle;

/* Serializes `count` States with their names (name_lens may be NULL for NUL-terminated names)
 * into the caller's buffer; two-call idiom as ai00_state_save. An empty, invalid or duplicated
 * name is AI00_ERR_INVALID_ARGUMENT naming its index. */
AI00_API ai00_status ai00_state_bundle_save(size_t* out_size, void* buffer, size_t capacity,
                                            const ai00_state* const* states,
                                            const char* const* names, const size_t* name_lens,
                                            size_t count);

/* The same bytes written to `path` (through a temporary file renamed into place). */
AI00_API ai00_status ai00_state_bundle_save_file(const ai00_state* const* states,
                                                 const char* const* names, const size_t* name_lens,
                                                 size_t count, const char* path, size_t path_len);

/* Opens a bundle from bytes (copied) or a file, checking every entry. The caller owns it
 * (ai00_state_bundle_free); immutable afterwards: any number of threads may read it. */
AI00_API ai00_status ai00_state_bundle_open(ai00_state_bundle** out_bundle, const void* data,
                                            size_t size);
AI00_API ai00_status ai00_state_bundle_open_file(ai00_state_bundle** out_bundle, const char* path,
                                                 size_t path_len);

/* Destroys a bundle (States loaded from it stay valid). NULL is accepted. */
AI00_API ai00_status ai00_state_bundle_free(ai00_state_bundle* bundle);

/* Message of the last failed call on `bundle`; "" if none; NULL gives "". */
AI00_API const char* ai00_state_bundle_last_error(const ai00_state_bundle* bundle);

/* The number of entries. */
AI00_API ai00_status ai00_state_bundle_count(size_t* out_count, const ai00_state_bundle* bundle);

/* Entry `index`'s name, owned by the bundle, NUL-terminated, valid until it is freed. */
AI00_API ai00_status ai00_state_bundle_name(const char** out_name, size_t* out_len,
                                            const ai00_state_bundle* bundle, size_t index);

/* The index of the entry named `name`; none is AI00_ERR_INVALID_ARGUMENT naming it. */
AI00_API ai00_status ai00_state_bundle_find(size_t* out_index, const ai00_state_bundle* bundle,
                                            const char* name, size_t name_len);

/* A new State of `model` from entry `index` (load all: every index in turn). */
AI00_API ai00_status ai00_state_bundle_load(ai00_state** out_state, const ai00_state_bundle* bundle,
                                            const ai00_model* model, size_t index);

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_STATE_BUNDLE_H */
