/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * State (one sequence: evaluation, save and restore) and the sampler settings it draws tokens with.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_STATE_H
#define AI00_C_STATE_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * State
 * ========================================================================================== */
/* A State is one sequence of one model: the recurrent state (fixed size whatever the context
 * length: 2.3 MiB for a 0.1B model) plus the sampler state (seed, RNG, penalty table) so a saved,
 * restored or cloned State continues exactly as the original would. It records which model it
 * belongs to; using it with another model is AI00_ERR_MISMATCH. One thread at a time; different
 * States of one model may be used concurrently. The caller owns it: ai00_state_free. */

/* A fresh State (all zeros, sampler seed 0) for `model`. */
AI00_API ai00_status ai00_state_new(ai00_state** out_state, const ai00_model* model);

/* An independent copy of `state` (branching a dialogue, retries). Costs one State of memory. */
AI00_API ai00_status ai00_state_clone(ai00_state** out_state, const ai00_state* state);

/* Back to the fresh state: zeros, empty penalty table, RNG restarted from the current seed. */
AI00_API ai00_status ai00_state_reset(ai00_state* state);

/* Destroys a State. NULL is accepted. */
AI00_API ai00_status ai00_state_free(ai00_state* state);

/* Message of the last failed call on `state`; "" if none; NULL gives "". */
AI00_API const char* ai00_state_last_error(const ai00_state* state);

/* Sets the sampler seed and restarts the RNG from it (the penalty table is kept). Same model,
 * prompt, parameters and seed give the same tokens, for any thread count. */
AI00_API ai00_status ai00_state_set_seed(ai00_state* state, uint64_t seed);

/* Runs `n_tokens` tokens through the model, advancing `state` (prefill or one decode step).
 * `logits` receives the V = n_vocab logits after the last token; pass NULL to skip them (pure
 * prefill, cheaper). With a non-NULL `logits` and capacity < n_vocab the call writes n_vocab to
 * *out_count (if out_count is not NULL), returns AI00_ERR_BUFFER_TOO_SMALL and leaves the State
 * untouched. Errors: AI00_ERR_INVALID_ARGUMENT (no tokens, an id >= n_vocab: the message names
 * the id and position), AI00_ERR_MISMATCH (state of another model). On error the State is
 * unchanged. */
AI00_API ai00_status ai00_state_eval(size_t* out_count, float* logits, size_t capacity,
                                     const ai00_model* model, ai00_state* state,
                                     const uint32_t* tokens, size_t n_tokens);

/* As ai00_state_eval, but `logits` (required) receives n_tokens rows of n_vocab logits, row i
 * after token i (scoring a text, perplexity). The needed count is n_tokens * n_vocab; a smaller
 * capacity is AI00_ERR_BUFFER_TOO_SMALL with the count in *out_count and the State untouched. */
AI00_API ai00_status ai00_state_eval_all(size_t* out_count, float* logits, size_t capacity,
                                         const ai00_model* model, ai00_state* state,
                                         const uint32_t* tokens, size_t n_tokens);

/* ---- Save and restore ----------------------------------------------------------------------
 * The serialized form is little-endian and self-checking: one record (magic "AI00STAT",
 * version, model fingerprint, shape, checksum, the fp32 recurrent state, then the sampler
 * section: seed, RNG, penalties, its own checksum). Loading checks each part and fails
 * with AI00_ERR_MODEL_FILE (corrupt or truncated: the message names the byte offset) or
 * AI00_ERR_MISMATCH (another model). */

/* Serializes `state` into the caller's buffer. Two-call idiom: with buffer NULL or capacity
 * too small, writes the size to *out_size and returns AI00_ERR_BUFFER_TOO_SMALL. */
AI00_API ai00_status ai00_state_save(size_t* out_size, void* buffer, size_t capacity,
                                     const ai00_state* state);

/* A new State of `model` from bytes written by ai00_state_save. */
AI00_API ai00_status ai00_state_load(ai00_state** out_state, const ai00_model* model,
                                     const void* data, size_t size);

/* Writes ai00_state_save's bytes to the file `path` (created or truncated). AI00_ERR_IO names
 * the path when it cannot be written. */
AI00_API ai00_status ai00_state_save_file(const ai00_state* state, const char* path,
                                          size_t path_len);

/* A new State of `model` from a file written by ai00_state_save_file. */
AI00_API ai00_status ai00_state_load_file(ai00_state** out_state, const ai00_model* model,
                                          const char* path, size_t path_len);

/* A new State from an ai00 `.state` file (a state-tuned initial state: safetensors with
 * blocks.{l}.att.time_state). Errors as for ai00_state_load, plus AI00_ERR_IO. */
AI00_API ai00_status ai00_state_load_initial(ai00_state** out_state, const ai00_model* model,
                                             const char* path, size_t path_len);

/* ============================================================================================
 * Sampler
 * ========================================================================================== */

/* Sampling methods (docs/generation.md "Sampling"). */
typedef enum ai00_sampler_method {
  AI00_SAMPLER_NUCLEUS = 0,     /* top_k, top_p, min_p, then temperature (ai00's default) */
  AI00_SAMPLER_TYPICAL = 1,     /* cut at cumulative typical_tau by distance from the entropy */
  AI00_SAMPLER_MIROSTAT_V2 = 2, /* target surprise mirostat_tau; no penalties, no top_k */
  AI00_SAMPLER_GREEDY = 3       /* argmax after penalties, mask and bias */
} ai00_sampler_method;

/* The recommended Goose (RWKV7-G1) presets of seed 001. */
typedef enum ai00_sampler_preset {
  AI00_PRESET_CHAT = 0,       /* T 1.0, top_p 0.3, presence 0.5, frequency 0.5, decay 0.996 */
  AI00_PRESET_MATH = 1,       /* T 0.3, top_p 0.3, no penalties, decay 0.996 */
  AI00_PRESET_CREATIVE = 2,   /* T 0.6, top_p 0.7, presence 1.5, frequency 0.1, decay 0.99 */
  AI00_PRESET_AI00_SERVER = 3 /* top_p 0.5, T 1, presence 0.3, frequency 0.3, half-life 200 */
} ai00_sampler_preset;

/* Added to one token's logit before the softmax; -INFINITY bans the token. */
typedef struct ai00_logit_bias {
  uint32_t token;
  float bias;
} ai00_logit_bias;

/* Sampler settings. Fill with ai00_sampler_params_default() or _preset(); fields are only
 * appended. Ranges are checked on use (AI00_ERR_INVALID_ARGUMENT naming the field). */
typedef struct ai00_sampler_params {
  uint32_t struct_size;
  int32_t method;           /* an ai00_sampler_method */
  float temperature;        /* [0, 1000]; 0 = argmax. Acts after the cut */
  uint32_t top_k;           /* 0 = no limit */
  float top_p;              /* [0, 1] */
  float min_p;              /* [0, 1]; 0 = off */
  float typical_tau;        /* [0, 1], typical only */
  float mirostat_tau;       /* (0, 100] bits, mirostat only */
  float mirostat_rate;      /* (0, 1], mirostat only */
  float presence_penalty;   /* [-10, 10] charged at a token's first appearance */
  float frequency_penalty;  /* [-10, 10] added at each later appearance */
  float penalty_decay;      /* [0, 1] per generated token */
  float repetition_penalty; /* [0.01, 100]; 1 = off */
  int32_t ban_eos;          /* non-zero: never draw token 0 (end of text) */
  /* Borrowed for the duration of the call that receives the params (copied by generators). */
  const ai00_logit_bias* logit_bias;
  size_t n_logit_bias;
} ai00_sampler_params;

/* The library default (the Goose "chat" preset). */
AI00_API ai00_status ai00_sampler_params_default(ai00_sampler_params* out_params);

/* One of the ai00_sampler_preset values; an unknown preset is AI00_ERR_INVALID_ARGUMENT. */
AI00_API ai00_status ai00_sampler_params_preset(ai00_sampler_params* out_params, int32_t preset);

/* Draws one token from `logits` (n_logits = n_vocab floats, e.g. from ai00_state_eval) with
 * the State's RNG and penalty table, and updates them (a manual decode loop; generators do this
 * for you, with grammars and stop strings). `params` may be NULL for the defaults. Errors:
 * AI00_ERR_INVALID_ARGUMENT for bad parameters (naming the field), for n_logits other than the
 * model's n_vocab (both counts in the message) or when no token can be drawn; the State is
 * unchanged then. */
AI00_API ai00_status ai00_state_sample(uint32_t* out_token, ai00_state* state,
                                       const ai00_sampler_params* params, const float* logits,
                                       size_t n_logits);

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_STATE_H */
