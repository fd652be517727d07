/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Generator: one generation turn on one State (prompt, sampling, grammar, stops, deltas).
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_GENERATOR_H
#define AI00_C_GENERATOR_H

#include "base.h"
#include "chat_template.h"
#include "prefix_cache.h"
#include "state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Generator
 * ========================================================================================== */
/* A Generator runs ONE turn on one State: render (chat) or take the prompt (raw), encode,
 * prefill in chunks, then per token: grammar mask, sampler, forward, UTF-8-safe detokenize, stop
 * strings, the format's output parser, deltas. Three equivalent ways to drive it, giving the
 * same tokens and deltas (they may be mixed): push (ai00_generator_run with a callback), pull
 * (ai00_generator_next, one delta at a time) and step (ai00_generator_step with a token budget,
 * for frame loops).
 *
 * Ownership: the caller owns the generator (ai00_generator_free). It BORROWS the State, which
 * must outlive it and must not be used by anything else until the generator is freed; when the
 * turn ends the State holds every token of the prompt and of the reply, ready to save or to
 * continue. It keeps its own references to the model, the template's format and the grammar.
 * Threading: one thread at a time calls a generator; ai00_generator_cancel may be called from
 * any thread. Generators on different States of one model run concurrently, without a lock.
 * After creation, failures inside the turn do not return errors from run/next/step: the turn
 * ends with finish reason AI00_FINISH_ERROR and ai00_generator_last_error says why. */

/* What a delta carries. A turn is a sequence of deltas ending with exactly one FINISH. */
typedef enum ai00_delta_kind {
  AI00_DELTA_TEXT = 0,      /* text: content text */
  AI00_DELTA_REASONING = 1, /* text: thinking trace */
  /* A tool call (by default one whole delta per call): call = its 0-based position in the
   * message, id/name set, text = the complete `arguments` JSON text. valid = 0 marks a call that
   * turned out malformed (its raw text is then content). */
  AI00_DELTA_TOOL_CALL = 2,
  AI00_DELTA_FINISH = 3, /* finish_reason set; nothing follows */
  /* Only with ai00_parse_options.stream_tool_calls (OpenAI-style streaming tool calls), before
   * the TOOL_CALL delta of the same call, which stays the authoritative whole call:
   * TOOL_CALL_START: call, id and name, as soon as the name is parsed or (OpenChatML writes the
   * arguments first) with an empty name when the arguments begin;
   * TOOL_CALL_ARGUMENTS: call and text = the next piece of the arguments JSON text as the output
   * arrives (ai00 v1: one per parameter as it closes). The pieces after the call's last START
   * concatenate to the TOOL_CALL's arguments. A call that turns out malformed after its start
   * ends with a TOOL_CALL delta with valid = 0 and empty text; its position is then reused (by
   * the next call, or by the same call previewed again whole when an ai00 v1 parameter
   * repeats). */
  AI00_DELTA_TOOL_CALL_START = 4,
  AI00_DELTA_TOOL_CALL_ARGUMENTS = 5
} ai00_delta_kind;

/* Why a turn ended (docs/chat-formats.md "Deltas and finish reasons"). */
typedef enum ai00_finish_reason {
  AI00_FINISH_NONE = -1,        /* not finished yet */
  AI00_FINISH_STOP = 0,         /* a stop string, or token 0 */
  AI00_FINISH_LENGTH = 1,       /* max_tokens reached */
  AI00_FINISH_TOOL_CALLS = 2,   /* at least one complete tool call (wins over stop) */
  AI00_FINISH_CANCELLED = 3,    /* ai00_generator_cancel or a callback returned non-zero */
  AI00_FINISH_GRAMMAR_DONE = 4, /* the grammar can take no further byte */
  AI00_FINISH_ERROR = 5         /* ai00_generator_last_error says why */
} ai00_finish_reason;

/* One streamed piece of the reply, flat and tagged. Strings are UTF-8 of whole code points,
 * NOT NUL-terminated, owned by the generator and valid until the next call on it. A caller that
 * receives deltas through ai00_generator_next or ai00_output_parser_next sets struct_size to
 * sizeof(ai00_delta) first: the library writes only that many bytes (fields are only appended),
 * and a size it does not know is AI00_ERR_INVALID_ARGUMENT with the delta kept for the next
 * call. Deltas given to an ai00_delta_callback are whole, with struct_size set. */
typedef struct ai00_delta {
  uint32_t struct_size;
  int32_t kind;          /* an ai00_delta_kind */
  uint32_t call;         /* TOOL_CALL: position of the call in the message */
  int32_t finish_reason; /* FINISH: an ai00_finish_reason; otherwise AI00_FINISH_NONE */
  const char* text;      /* TEXT / REASONING text, TOOL_CALL arguments JSON; "" otherwise */
  size_t text_len;
  const char* id; /* TOOL_CALL: "call_<8 hex>" (library-assigned); "" otherwise */
  size_t id_len;
  const char* name; /* TOOL_CALL: tool name; "" otherwise */
  size_t name_len;
  int32_t valid; /* TOOL_CALL: 0 when the call was malformed; 1 otherwise */
} ai00_delta;

/* Push-style callback: return 0 to continue, non-zero to stop the turn (finish CANCELLED).
 * Called on the thread that called run/step. Must not throw or longjmp across the library. */
typedef int32_t (*ai00_delta_callback)(const ai00_delta* delta, void* user_data);

/* How the output is constrained. */
typedef enum ai00_grammar_mode {
  AI00_GRAMMAR_AUTOMATIC = 0,   /* structural when tools or thinking are present (seed 003) */
  AI00_GRAMMAR_NONE = 1,        /* unconstrained */
  AI00_GRAMMAR_STRUCTURAL = 2,  /* the format's thinking / tool-call structure */
  AI00_GRAMMAR_SCHEMA_AWARE = 3 /* plus tool names and argument values by their schemas */
} ai00_grammar_mode;

/* Which tool calls a chat turn's tool grammar allows (OpenAI's tool_choice; seed 003 has only
 * AUTO). Anything but AUTO needs the tool grammar: grammar_mode AUTOMATIC, STRUCTURAL or
 * SCHEMA_AWARE, no `grammar`, a chat turn (docs/generation.md "Grammar choice"). */
typedef enum ai00_tool_choice {
  AI00_TOOL_CHOICE_AUTO = 0,     /* text, or text then calls */
  AI00_TOOL_CHOICE_NONE = 1,     /* the tools are listed in the prompt, no call may be made */
  AI00_TOOL_CHOICE_REQUIRED = 2, /* the reply is the call block (after an optional thinking
                                    block when thinking is on): at least one call */
  AI00_TOOL_CHOICE_NAMED = 3     /* as REQUIRED, every call to the tool `tool_choice_name` */
} ai00_tool_choice;

/* Settings of one turn. Fill with ai00_generate_params_default(); fields are only appended. */
typedef struct ai00_generate_params {
  uint32_t struct_size;
  uint32_t max_tokens;    /* new tokens at most (finish LENGTH); >= 1; default 256 */
  uint32_t prefill_chunk; /* prompt tokens per forward call; cancel is checked between; 64 */
  int32_t set_seed;       /* non-zero: set the State's seed to `seed` before the turn */
  uint64_t seed;          /* else the State's RNG continues where it was (restored = same) */
  int32_t grammar_mode;   /* an ai00_grammar_mode; ignored when `grammar` is set */
  /* A custom grammar for the reply (borrowed for the call; the generator keeps what it needs),
   * or NULL. */
  const ai00_grammar* grammar;
  /* Extra stop strings (NUL-terminated UTF-8), matched on the decoded text across tokens and
   * never emitted; borrowed for the call. */
  const char* const* stop_sequences;
  size_t n_stop_sequences;
  /* Appended in 0.2 (a smaller struct_size leaves it NULL): a prefix-state cache shared with
   * other generators, or NULL. With a pristine State the turn starts from the longest cached
   * prefix of its prompt and stores the State at the end of the prompt and, in a chat turn, at
   * the boundaries after the first and the last 8 messages that fall on token boundaries
   * (docs/prefix-cache.md). The cache must outlive the generator. */
  ai00_prefix_cache* prefix_cache;
  /* Appended in 0.3 (a smaller struct_size leaves them at their defaults). */
  /* Non-zero: a chat turn also sends tool-call previews, AI00_DELTA_TOOL_CALL_START (id and
   * name) and AI00_DELTA_TOOL_CALL_ARGUMENTS (pieces of the arguments JSON that concatenate to
   * the whole call's), before the whole call (ai00_parse_options.stream_tool_calls). Default 0. */
  int32_t stream_tool_calls;
  int32_t tool_choice; /* an ai00_tool_choice; default AI00_TOOL_CHOICE_AUTO */
  /* AI00_TOOL_CHOICE_NAMED: the tool's name (UTF-8, borrowed for the call; with
   * tool_choice_name_len bytes or AI00_NUL_TERMINATED). A name not among the turn's tools is
   * AI00_ERR_INVALID_ARGUMENT naming it. Ignored for the other choices. */
  const char* tool_choice_name;
  size_t tool_choice_name_len;
  /* Default 1; 0: at most one call per reply (OpenAI's parallel_tool_calls = false). */
  int32_t parallel_tool_calls;
} ai00_generate_params;

AI00_API ai00_status ai00_generate_params_default(ai00_generate_params* out_params);

/* A chat turn: `tmpl` renders the conversation (JSON array of messages; tools and thinking in
 * `render`, which may be NULL) and parses the reply into text, reasoning and tool calls.
 * `sampler` and `params` may be NULL for the defaults. No forward runs here (the prefill
 * belongs to the first run/next/step). Errors: AI00_ERR_FORMAT / AI00_ERR_UNSUPPORTED (the
 * conversation cannot be rendered: JSON pointer), AI00_ERR_GRAMMAR, AI00_ERR_MISMATCH (State of
 * another model), AI00_ERR_INVALID_ARGUMENT (parameters, naming the field). */
AI00_API ai00_status ai00_generator_new_chat(ai00_generator** out_generator,
                                             const ai00_model* model, ai00_state* state,
                                             const ai00_chat_template* tmpl,
                                             const char* conversation_json, size_t conversation_len,
                                             const ai00_render_options* render,
                                             const ai00_sampler_params* sampler,
                                             const ai00_generate_params* params);

/* A raw-text turn: the prompt is fed as is; the reply is TEXT deltas only. An empty prompt is
 * AI00_ERR_INVALID_ARGUMENT. Other errors as for ai00_generator_new_chat. */
AI00_API ai00_status ai00_generator_new_raw(ai00_generator** out_generator, const ai00_model* model,
                                            ai00_state* state, const char* prompt,
                                            size_t prompt_len, const ai00_sampler_params* sampler,
                                            const ai00_generate_params* params);

/* Destroys a generator (the State stays valid and holds the tokens consumed so far). NULL is
 * accepted. Never while another thread is inside run/next/step of it. */
AI00_API ai00_status ai00_generator_free(ai00_generator* gen);

/* Message of the last failed call on `gen`, or why the turn ended with AI00_FINISH_ERROR; ""
 * if none; NULL gives "". */
AI00_API const char* ai00_generator_last_error(const ai00_generator* gen);

/* Push: runs the turn to its end, calling `callback` (may be NULL) for every delta, the last
 * being FINISH. *out_finish_reason (may be NULL) receives the ai00_finish_reason. */
AI00_API ai00_status ai00_generator_run(int32_t* out_finish_reason, ai00_generator* gen,
                                        ai00_delta_callback callback, void* user_data);

/* Pull: the next delta: a queued one (see ai00_generator_pending) if any, else generating as
 * many tokens as it takes. After the FINISH delta every further call returns it again. */
AI00_API ai00_status ai00_generator_next(ai00_delta* out_delta, ai00_generator* gen);

/* Step: bounded work for a frame loop: samples at most `max_tokens` tokens (0 counts as 1), or
 * runs prefill chunks while the prompt is not consumed. The deltas produced go to `callback`, or
 * when it is NULL they are queued for ai00_generator_next. *out_finished (may be NULL) is 1 once
 * the turn has ended. */
AI00_API ai00_status ai00_generator_step(int32_t* out_finished, ai00_generator* gen,
                                         uint32_t max_tokens, ai00_delta_callback callback,
                                         void* user_data);

/* The number of deltas queued by ai00_generator_step with a NULL callback and not yet taken by
 * ai00_generator_next. A frame loop calls step, then next exactly that many times, so it never
 * generates beyond the step's budget. */
AI00_API ai00_status ai00_generator_pending(size_t* out_count, const ai00_generator* gen);

/* Requests the turn to stop before the next token or prefill chunk (finish CANCELLED). Any
 * thread, any time while `gen` is alive; at most one more token is produced. */
AI00_API ai00_status ai00_generator_cancel(ai00_generator* gen);

/* The finish reason (AI00_FINISH_NONE while running). */
AI00_API ai00_status ai00_generator_finish_reason(int32_t* out_finish_reason,
                                                  const ai00_generator* gen);

/* The reply accumulated so far as one seed 004 message in JSON ({role, contents, reasoning?,
 * tool_calls?}); final once finished. Owned by the generator, NUL-terminated, valid until the
 * next call on it. */
AI00_API ai00_status ai00_generator_message_json(const char** out_json, size_t* out_len,
                                                 ai00_generator* gen);

/* The number of warnings of this turn: grammar building (a lenient schema) and the output
 * parser (a malformed tool call or marker kept as text). The library never prints them. */
AI00_API ai00_status ai00_generator_warning_count(size_t* out_count, const ai00_generator* gen);

/* Warning `index` (< the count), UTF-8, owned by the generator and valid until it is freed. */
AI00_API ai00_status ai00_generator_warning(const char** out_text, size_t* out_len,
                                            const ai00_generator* gen, size_t index);

/* The token ids sampled this turn (a final token 0 included); owned by the generator and valid
 * until the next call on it. */
AI00_API ai00_status ai00_generator_tokens(const uint32_t** out_tokens, size_t* out_count,
                                           const ai00_generator* gen);

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_GENERATOR_H */
