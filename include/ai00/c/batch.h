/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Batch: many generators on one model advanced together, with a frame budget.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_BATCH_H
#define AI00_C_BATCH_H

#include "base.h"
#include "generator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Batch: many generators on one model, one pass over the weights per step
 * ========================================================================================== */
/* A batch advances many generators of ONE model together (docs/batching.md): each step samples
 * a token for every decoding member (grammar masks and samplers run in parallel on the model's
 * threads) and runs ONE forward over all of them, the members still prefilling their prompt
 * fed a chunk in the same pass (continuous batching). N decoding States then cost little more
 * than one while decode is bound by memory bandwidth. Every member produces exactly the tokens,
 * deltas and State it would produce stepped alone (bitwise), whoever joins, leaves or is
 * cancelled meanwhile.
 *
 * Ownership: the caller owns the batch (ai00_batch_free). The batch BORROWS its generators: a
 * generator must be removed (ai00_batch_remove) or the batch freed before the generator is
 * freed (ai00_generator_free of a member removes it from its batch first, as a safety net).
 * While a generator is in a batch, ai00_generator_run/next/step on it fail with
 * AI00_ERR_INVALID_ARGUMENT; its other accessors (message, tokens, finish reason, cancel) work.
 * A finished member stays in the batch, skipped, until removed.
 * Threading: one thread at a time calls a batch (new members, steps, queries), and its members
 * are not called meanwhile except ai00_generator_cancel, which may be called from any thread:
 * that member finishes CANCELLED at the next step, the others continue.
 * Errors: per handle, ai00_batch_last_error. */

/* Settings of a batch. Fill with ai00_batch_params_default(); fields are only appended. */
typedef struct ai00_batch_params {
  uint32_t struct_size;
  /* Rows (tokens of all members) per forward pass; more go through in several passes. Bounds
   * scratch memory (about (20 C + F) * 4 bytes per row: 73 KiB for a 0.1B model). 0 = 128. */
  uint32_t pass_rows;
} ai00_batch_params;

AI00_API ai00_status ai00_batch_params_default(ai00_batch_params* out_params);

/* Budgets of one ai00_batch_step. Fill with ai00_batch_step_params_default(). */
typedef struct ai00_batch_step_params {
  uint32_t struct_size;
  /* Tokens sampled per member at most in this call (0 counts as 1); default 1. Prompt tokens
   * of a prefilling member do not count. */
  uint32_t max_tokens;
  /* Wall-clock budget of the call in microseconds; 0 = none (default). See ai00_batch_step. */
  uint64_t time_budget_us;
  /* 1: the first step of a call advances every active member (one row each) even when they do
   * not all fit time_budget_us — throughput before the budget, as a server wants; 0 (default):
   * only the members that fit, those advanced least recently first (a frame loop). Appended
   * after time_budget_us: a caller's 16-byte struct (struct_size 16) reads as 0. */
  int32_t whole_batch;
} ai00_batch_step_params;

AI00_API ai00_status ai00_batch_step_params_default(ai00_batch_step_params* out_params);

/* What happened to a member. */
typedef enum ai00_batch_event_kind {
  AI00_BATCH_EVENT_DELTA = 0,    /* `delta` holds the member's next delta */
  AI00_BATCH_EVENT_FINISHED = 1, /* the member finished: finish_reason */
  AI00_BATCH_EVENT_ERROR = 2     /* the member finished with AI00_FINISH_ERROR: error says why */
} ai00_batch_event_kind;

/* One event of a step. Per member, in order: its deltas (exactly the ones ai00_generator_step
 * would give, the last being FINISH), then one FINISHED or ERROR event. Strings are owned by the
 * batch and valid until the next call on it. */
typedef struct ai00_batch_event {
  uint32_t struct_size;
  ai00_generator* generator; /* the member (borrowed) */
  int32_t kind;              /* an ai00_batch_event_kind */
  int32_t finish_reason;     /* FINISHED / ERROR: an ai00_finish_reason; else AI00_FINISH_NONE */
  ai00_delta delta;          /* DELTA only (struct_size set); zeroed otherwise */
  const char* error;         /* ERROR: the message (NUL-terminated); "" otherwise */
  size_t error_len;
} ai00_batch_event;

/* Return 0 to continue; non-zero cancels the event's generator (it finishes CANCELLED at the
 * next step; its events of this step are still delivered). Called on the stepping thread. Must
 * not throw or longjmp across the library. */
typedef int32_t (*ai00_batch_event_callback)(const ai00_batch_event* event, void* user_data);

/* What one ai00_batch_step did. The caller sets struct_size; fields are only appended. */
typedef struct ai00_batch_step_result {
  uint32_t struct_size;
  uint32_t steps;          /* batched forwards run (0: no member was active) */
  uint64_t tokens_sampled; /* over all members */
  uint64_t prompt_tokens;  /* prompt tokens prefilled over all members */
  int32_t time_limited;    /* 1: stopped because the next step was predicted not to fit */
  uint32_t unfinished;     /* members not finished after the call */
} ai00_batch_step_result;

/* A new, empty batch on `model` (params may be NULL for the defaults). Errors:
 * AI00_ERR_INVALID_ARGUMENT (NULL, struct_size). */
AI00_API ai00_status ai00_batch_new(ai00_batch** out_batch, const ai00_model* model,
                                    const ai00_batch_params* params);

/* Destroys a batch; its generators stay valid and may be stepped again. NULL is accepted. */
AI00_API ai00_status ai00_batch_free(ai00_batch* batch);

/* Message of the last failed call on `batch`; "" if none; NULL gives "". */
AI00_API const char* ai00_batch_last_error(const ai00_batch* batch);

/* Adds a generator (between steps). Errors: AI00_ERR_MISMATCH (a generator of another model),
 * AI00_ERR_INVALID_ARGUMENT (NULL; the generator is in this or another batch; a member already
 * runs on its State). */
AI00_API ai00_status ai00_batch_add(ai00_batch* batch, ai00_generator* generator);

/* Removes a member (between steps); it may then be stepped alone and continues exactly. Its
 * events not yet taken from the queue are dropped. AI00_ERR_INVALID_ARGUMENT if not a member. */
AI00_API ai00_status ai00_batch_remove(ai00_batch* batch, ai00_generator* generator);

/* The number of members (finished ones included). */
AI00_API ai00_status ai00_batch_size(size_t* out_size, const ai00_batch* batch);

/* Advances the batch: repeats batched steps while a member is active (not finished; if
 * decoding, fewer than max_tokens sampled in this call; a prefilling member always) and, with a
 * time budget, while the next step is predicted to end within time_budget_us of the call's
 * start. Guarantees: the first step always runs when a member is active, even past the budget
 * (at least one member, one token or prompt token), so every call makes progress; every step is
 * planned to fit, from the measured cost of the earlier steps (per row, with a margin for the
 * recent overruns), prefill chunks shrinking so it does; when one row per member does not fit,
 * the first step advances only the members that fit, those advanced least recently first
 * (every active member with params.whole_batch = 1), and the call returns (time_limited);
 * before the batch has measured a step, a budget makes its first step one row per member. The
 * prediction is an estimate, so the call can overrun by a misprediction (or by one member's row
 * when even that does not fit), never by a step known not to fit.
 * An empty batch, or one whose members all finished, is a no-op. params may be NULL (max_tokens
 * 1, no time budget). Events go to `callback` in order, or when it is NULL are queued for
 * ai00_batch_next_event (the queue is cleared at the start of each step). out_result (may be
 * NULL; struct_size set by the caller) receives the summary. Member failures are ERROR events,
 * not a status. */
AI00_API ai00_status ai00_batch_step(ai00_batch_step_result* out_result, ai00_batch* batch,
                                     const ai00_batch_step_params* params,
                                     ai00_batch_event_callback callback, void* user_data);

/* The number of queued events (ai00_batch_step with a NULL callback) not yet taken. */
AI00_API ai00_status ai00_batch_pending(size_t* out_count, const ai00_batch* batch);

/* Takes the next queued event: *out_has_event = 1 and *out_event filled (its struct_size set by
 * the caller first; the library writes only that many bytes), or *out_has_event = 0 when the
 * queue is empty. The event's strings are valid until the next call on the batch. */
AI00_API ai00_status ai00_batch_next_event(int32_t* out_has_event, ai00_batch_event* out_event,
                                           ai00_batch* batch);

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_BATCH_H */
