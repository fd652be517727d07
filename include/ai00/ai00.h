/* ai00 — the C ABI.
 *
 * This header is the whole binary interface of libai00: opaque handles, ai00_status return
 * codes, versioned parameter structs and callbacks with user_data. No C++ type crosses it, so
 * one build of the library serves every compiler and language (docs/layers.md "The hourglass").
 * It compiles as C99 and as C++; the C++ wrappers in ai00/ai00.hpp are built only on it.
 *
 * Rules that hold for every function declared here (docs/abi.md):
 *  - It returns an ai00_status: 0 is success, negative values are errors (never renumbered).
 *    The only exceptions are ai00_status_string() and the *_last_error() accessors, which
 *    return text and cannot fail.
 *  - Outputs go through pointer parameters placed first. On failure outputs are left unchanged,
 *    except that AI00_ERR_BUFFER_TOO_SMALL writes the needed size.
 *  - A NULL handle or a NULL required pointer gives AI00_ERR_INVALID_ARGUMENT with a message
 *    naming the parameter. Destroy functions accept NULL and return AI00_OK.
 *  - No exception, abort, assert or print ever crosses this boundary; the library is silent.
 *  - Strings are UTF-8 with an explicit byte length; a length of AI00_NUL_TERMINATED
 *    ((size_t)-1) means "up to the first NUL". No function depends on the locale.
 *  - Output text is always valid UTF-8 made of whole code points.
 *  - Every failure stores a message (what and where: the file path, line:column, JSON pointer)
 *    in the calling thread's slot (ai00_last_error) and, when the call has a handle, in that
 *    handle's slot (ai00_model_last_error, ...). Messages are owned by the library.
 *
 * Threading (rule 10): an ai00_model is immutable and may be used by any number of threads at
 * once; an ai00_grammar and an ai00_tokenizer likewise. An ai00_state, ai00_chat_template
 * render result, ai00_output_parser and ai00_generator belong to one thread at a time
 * (different ones may run concurrently, there is no global lock). ai00_generator_cancel may be
 * called from any thread. The library starts no thread of its own beyond the model's n_threads - 1
 * workers, which block when idle.
 */
#ifndef AI00_AI00_H
#define AI00_AI00_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every exported function carries AI00_API: default visibility on ELF/Mach-O (everything else
 * in libai00 is hidden), dllexport while building the DLL and dllimport for its users. Define
 * AI00_STATIC when linking the static library on Windows. */
#if defined(_WIN32) && !defined(AI00_STATIC)
#if defined(AI00_BUILDING_LIBRARY)
#define AI00_API __declspec(dllexport)
#else
#define AI00_API __declspec(dllimport)
#endif
#else
#define AI00_API __attribute__((visibility("default")))
#endif

/* ============================================================================================
 * Versions
 * ========================================================================================== */

/* Version of this header: major * 10000 + minor * 100 + patch. */
#define AI00_VERSION_MAJOR 0
#define AI00_VERSION_MINOR 1
#define AI00_VERSION_PATCH 0
#define AI00_VERSION_NUMBER \
  (AI00_VERSION_MAJOR * 10000 + AI00_VERSION_MINOR * 100 + AI00_VERSION_PATCH)

/* Version of the binary interface: bumped only by an incompatible change (a removed function or
 * a changed struct layout), equal to the SOVERSION of libai00. A changed signature gets a new
 * name (`..._v2`) instead, so this stays 0 for as long as possible. */
#define AI00_ABI_VERSION 0

/* Pass as a string length to mean "NUL-terminated". */
#define AI00_NUL_TERMINATED ((size_t)-1)

/* ============================================================================================
 * Status codes
 * ========================================================================================== */

/* 0 is success; every error is negative. Values are never renumbered; new ones are appended. */
typedef enum ai00_status {
  /* Success. */
  AI00_OK = 0,
  /* A NULL handle or pointer, a bad struct_size, an out-of-range value (the message names the
   * parameter or field and its value), or a token id outside the vocabulary. */
  AI00_ERR_INVALID_ARGUMENT = -1,
  /* The operating system refused to open, read or write a file; the message has the path. */
  AI00_ERR_IO = -2,
  /* A weight, state or vocabulary file is malformed (the message names the file and the byte
   * offset or tensor), or a serialized State is corrupt. */
  AI00_ERR_MODEL_FILE = -3,
  /* A conversation, tool list or chat-format input is malformed (the message has the JSON
   * pointer of the offending field). */
  AI00_ERR_FORMAT = -4,
  /* A grammar or JSON Schema is malformed or unsupported (the message has line:column or the
   * JSON pointer). */
  AI00_ERR_GRAMMAR = -5,
  /* Objects that do not belong together, e.g. a State serialized for another model. */
  AI00_ERR_MISMATCH = -6,
  /* Valid input the library does not handle (an image part, a tensor type, an ISA this CPU
   * cannot run). */
  AI00_ERR_UNSUPPORTED = -7,
  /* The operation was cancelled (ai00_generator_cancel or a callback returning non-zero). */
  AI00_ERR_CANCELLED = -8,
  /* A caller buffer is too small (or NULL); the needed size was written to the size output. */
  AI00_ERR_BUFFER_TOO_SMALL = -9,
  /* An allocation failed. */
  AI00_ERR_OUT_OF_MEMORY = -10,
  /* A bug in ai00 (a broken invariant); the message says where. Please report it. */
  AI00_ERR_INTERNAL = -99
} ai00_status;

/* The library's version as AI00_VERSION_NUMBER encodes it; compare with the header's to detect
 * a header/library skew. Any thread. */
AI00_API ai00_status ai00_version_number(uint32_t* out_version);

/* The library's AI00_ABI_VERSION. Any thread. */
AI00_API ai00_status ai00_abi_version(uint32_t* out_abi_version);

/* What this build can do on this CPU, as one JSON object, before anything is loaded:
 * {"isa": the kernel ISA a load without forced_isa would choose (AI00_FORCE_ISA honoured; null
 * when that variable names an ISA this CPU cannot run), "isa_compiled": [names built in, best
 * first], "isa_supported": [those this CPU and OS can run], "int8_dot": true when that ISA has a
 * native byte dot product (AVX-VNNI, AVX-512 VNNI; every ISA has a portable int8 path),
 * "bf16_dot": true when it has a native BF16 dot product, "hardware_threads": the OS's count
 * (0 if unknown), "weight_types": [tensor types ai00_model_load reads], "convert_weight_types":
 * [ai00_weight_type names ai00_model_convert writes], "file_formats": [containers loaded],
 * "chat_formats": [names for ai00_chat_template_new], "grammar": [grammar inputs: "kbnf",
 * "json_schema", "tools"]}; keys may be added later. Versions have ai00_version_number and
 * ai00_abi_version, limits (max_threads, ...) ai00_limits_get. Two-call idiom into the caller's
 * buffer (no NUL written): with `json` NULL or capacity too small the size goes to *out_len and
 * the call returns AI00_ERR_BUFFER_TOO_SMALL. Any thread. */
AI00_API ai00_status ai00_capabilities_json(size_t* out_len, char* json, size_t capacity);

/* Static, NUL-terminated English text for a status; never NULL, never freed by the caller.
 * An unknown value gives "unknown status". Any thread. */
AI00_API const char* ai00_status_string(ai00_status status);

/* The message of the last failed call made by the calling thread, NUL-terminated UTF-8; "" if
 * none failed yet. Owned by the library, valid until the calling thread's next ai00_* call that
 * fails. A successful call does not clear it. Never NULL. */
AI00_API const char* ai00_last_error(void);

/* ============================================================================================
 * Opaque handles
 * ========================================================================================== */

/* Weights, configuration, tokenizer and kernels of one model. Immutable and shareable. */
typedef struct ai00_model ai00_model;
/* One sequence: the recurrent state plus the sampler state (seed, RNG, penalties). */
typedef struct ai00_state ai00_state;
/* A chat format ("ai00-v1", "ai00-v0", "goose", "openchatml") and its last rendered prompt. */
typedef struct ai00_chat_template ai00_chat_template;
/* A compiled grammar bound to one model's vocabulary. Immutable and shareable. */
typedef struct ai00_grammar ai00_grammar;
/* One generation turn on one State (declared with its functions below). */
typedef struct ai00_generator ai00_generator;
/* Many generators of one model advanced together, one pass over the weights per step. */
typedef struct ai00_batch ai00_batch;

/* ============================================================================================
 * Model
 * ========================================================================================== */

/* Load options. Fill with ai00_model_params_default() first; fields are only ever appended. */
typedef struct ai00_model_params {
  uint32_t struct_size; /* sizeof(ai00_model_params) of the caller's header */
  /* Threads of the model's own pool; 1 (the default) runs everything on the calling thread.
   * Results do not depend on it. Must be >= 1. */
  int32_t n_threads;
  /* NUL-terminated ISA name to force ("scalar", "sse2", "avx2", "avx512", "neon64") or NULL to
   * choose the best one the CPU supports. Forcing an ISA the CPU lacks is
   * AI00_ERR_UNSUPPORTED, never a crash. */
  const char* forced_isa;
  /* NUL-terminated path of an RWKV World vocabulary (rwkv_vocab_v20230424.txt) to attach when
   * the weight file carries none, or NULL. */
  const char* vocab_path;
  /* Appended in 0.2 (a smaller struct_size loads without progress): */
  /* Load progress, or NULL (the default). An ai00_progress_callback (declared below with the
   * conversion API) called on the loading thread with `done` of `total` bytes of tensor data:
   * (0, total) once the file is parsed, after each tensor or 16 MiB chunk is read, and
   * (total, total) exactly once when the model is complete, as the last call; `done` never
   * decreases, so done/total is a fraction from 0 to 1 that ends at exactly 1 on success. With
   * a callback the load reads every tensor's pages once (the disk time is spent in the load,
   * where it is shown, instead of in the first eval). Returning non-zero cancels: the load
   * returns AI00_ERR_CANCELLED, frees everything it made and leaves *out_model unchanged. A
   * file that fails to parse fails before the first call. Must not throw or longjmp. */
  int32_t (*progress)(uint64_t done, uint64_t total, void* user_data);
  void* progress_user_data; /* passed to progress */
} ai00_model_params;

/* Fills *out_params with the defaults (struct_size set, n_threads 1, no forced ISA, no
 * vocabulary path, no progress). Set struct_size = sizeof(ai00_model_params) (or zero the
 * struct) first: a struct_size equal to the size an older header published (24, without the
 * progress fields) is kept and only that much is written (docs/abi.md "Versioned structs"). */
AI00_API ai00_status ai00_model_params_default(ai00_model_params* out_params);

/* ---- Limits ----------------------------------------------------------------------------------
 * One set of resource limits for every parser, compiler and loader of the library. Each is
 * checked before the work it bounds; exceeding one fails that call with the status of its input
 * (AI00_ERR_GRAMMAR for a grammar, AI00_ERR_FORMAT for a conversation, AI00_ERR_MODEL_FILE or
 * AI00_ERR_IO for a file, AI00_ERR_INVALID_ARGUMENT for a parameter) and a message naming the
 * limit, its value and where: "...: group nesting exceeds the limit max_nesting_depth = 256".
 * The limits are process-wide: ai00_limits_set affects calls that start afterwards, on every
 * thread. Fields are only ever appended; zero is never a valid value. */
typedef struct ai00_limits {
  uint32_t struct_size;        /* sizeof(ai00_limits) of the caller's header */
  uint32_t max_nesting_depth;  /* KBNF groups, regex groups and classes, JSON arrays/objects
                                * (conversations, tools, schemas), pickle MARKs: 256; at most
                                * 1000 (the parsers recurse once per level) */
  uint32_t max_threads;        /* ai00_model_params.n_threads: 1024 */
  uint32_t reserved;           /* 0 */
  uint64_t max_grammar_states; /* DFA states of all the automata of one grammar: 50,000 */
  uint64_t max_nfa_states;     /* NFA states of one grammar terminal: 200,000 */
  uint64_t max_input_bytes;    /* one text input (KBNF, JSON document, pickle): 64 MiB */
  uint64_t max_file_bytes;     /* one file the library opens (weights, State, vocab): 1 TiB */
  uint64_t max_string_bytes;   /* one KBNF literal, regex or #substrs text: 1 MiB */
  uint64_t max_tokens;         /* tokens of one prompt or generation (max_tokens): 16 Mi */
} ai00_limits;

/* Fills *out_limits with the documented defaults above (struct_size set). */
AI00_API ai00_status ai00_limits_default(ai00_limits* out_limits);
/* Writes the limits in force into *out_limits (whose struct_size the caller sets). */
AI00_API ai00_status ai00_limits_get(ai00_limits* out_limits);
/* Replaces the process-wide limits. A zero field, or max_nesting_depth above 1000, is
 * AI00_ERR_INVALID_ARGUMENT naming it, and nothing changes. */
AI00_API ai00_status ai00_limits_set(const ai00_limits* limits);

/* Loads a model from `path` (GGUF, safetensors/.st, rwkv.cpp .bin or PyTorch .pth); `params`
 * may be NULL for the defaults. On success *out_model owns the model; free it with
 * ai00_model_free once no State, Grammar or Generator made from it is in use.
 * Errors: AI00_ERR_IO (cannot open; the message has the path), AI00_ERR_MODEL_FILE (malformed
 * file), AI00_ERR_UNSUPPORTED (tensor type or forced ISA), AI00_ERR_INVALID_ARGUMENT. */
AI00_API ai00_status ai00_model_load(ai00_model** out_model, const char* path, size_t path_len,
                                     const ai00_model_params* params);

/* Destroys a model. NULL is accepted. Destroying a model while another thread uses it is
 * forbidden. */
AI00_API ai00_status ai00_model_free(ai00_model* model);

/* Message of the last failed call on `model`, NUL-terminated; "" if none. Valid until the next
 * failing call on that model. Because a model is shared between threads, prefer
 * ai00_last_error() when several threads use it. NULL gives "". */
AI00_API const char* ai00_model_last_error(const ai00_model* model);

/* Shape of a loaded model. Fill struct_size (or call with a zeroed struct whose struct_size is
 * sizeof(ai00_model_info)); the library writes the fields that fit. */
typedef struct ai00_model_info {
  uint32_t struct_size;
  uint32_t n_layer;   /* L: blocks */
  uint32_t n_embd;    /* C: residual width */
  uint32_t n_head;    /* H: heads (C / head_size) */
  uint32_t head_size; /* N: 64 in every released model */
  uint32_t n_vocab;   /* V: rows of the output head = length of a logits vector */
  uint32_t n_tokens;  /* ids the tokenizer knows (0 when the model has no tokenizer) */
  uint32_t n_threads; /* the pool size chosen at load */
  /* Bytes of one State's recurrent part, the memory per sequence whatever its length:
   * L * C * (N + 2) fp32 values (per layer the two token-shift vectors of C floats and the
   * H * N * N WKV matrices), 4 bytes each; the same number as "state_bytes" of
   * ai00_model_info_json. A saved State (ai00_state_save) adds a 64-byte header, 8 bytes and
   * its sampler section (seed, RNG, penalty table): 72 bytes fresh, plus 12 per token in the
   * penalty table. */
  uint64_t state_bytes;
} ai00_model_info;

/* Writes the shape of `model` into *out_info (whose struct_size the caller sets). */
AI00_API ai00_status ai00_model_get_info(ai00_model_info* out_info, const ai00_model* model);

/* Static NUL-terminated name of the kernel ISA chosen at load ("avx2", ...). Any thread. */
AI00_API ai00_status ai00_model_isa_name(const char** out_name, const ai00_model* model);

/* The model described as one JSON object (what `ai00 info` prints): {"path", "format",
 * "n_embd", "n_layer", "n_head", "head_size", "ffn_size", "vocab_size", "lora_ranks": {"w",
 * "a", "v", "g"}, "dtypes": {dtype name: tensor count}, "weight_bytes", "isa", "state_floats",
 * "state_bytes", "tokenizer_vocab" (null without a tokenizer)}; keys may be added later. Two-call
 * idiom into the caller's buffer (no NUL written): with `json` NULL or capacity too small the
 * size goes to *out_len and the call returns AI00_ERR_BUFFER_TOO_SMALL. Any thread. */
AI00_API ai00_status ai00_model_info_json(size_t* out_len, char* json, size_t capacity,
                                          const ai00_model* model);

/* ---- Converting weight files ---------------------------------------------------------------
 * Any file ai00_model_load reads (GGUF, safetensors/.st, rwkv.cpp .bin, .pth) rewritten as GGUF
 * (llama.cpp's `rwkv7` tensor names and metadata, the vocabulary when the model has one) or as
 * an ai00 safetensors .st, in one weight type (docs/weight-files.md "Writing weight files"). */

/* Weight types of a converted file (the large matrices; small vectors stay F32 in a GGUF). */
typedef enum ai00_weight_type {
  AI00_WEIGHT_F32 = 0,
  AI00_WEIGHT_F16 = 1,
  AI00_WEIGHT_BF16 = 2,
  AI00_WEIGHT_Q8_0 = 3,
  AI00_WEIGHT_Q4_0 = 4,
  AI00_WEIGHT_Q4_1 = 5,
  AI00_WEIGHT_Q5_0 = 6,
  AI00_WEIGHT_Q5_1 = 7
} ai00_weight_type;

/* Container of a converted file. */
typedef enum ai00_file_format {
  AI00_FILE_GGUF = 0,
  AI00_FILE_SAFETENSORS = 1 /* F32, F16 and BF16 only */
} ai00_file_format;

/* Progress of a long call: `done` of `total` units (bytes of tensor data). Return 0 to go on,
 * non-zero to stop (the call then returns AI00_ERR_CANCELLED and writes nothing). Called on the
 * calling thread. Must not throw or longjmp across the library. */
/* ai00_model_params.progress has this type too. */
typedef int32_t (*ai00_progress_callback)(uint64_t done, uint64_t total, void* user_data);

/* Conversion options. Fill with ai00_convert_params_default() first; fields are only appended. */
typedef struct ai00_convert_params {
  uint32_t struct_size;   /* sizeof(ai00_convert_params) of the caller's header */
  int32_t weight_type;    /* an ai00_weight_type; default AI00_WEIGHT_F16 */
  int32_t file_format;    /* an ai00_file_format; default AI00_FILE_GGUF */
  int32_t overwrite;      /* non-zero: replace an existing output file; default 0 (refuse) */
  const char* vocab_path; /* NUL-terminated vocabulary for a source without one, or NULL */
  ai00_progress_callback progress; /* or NULL */
  void* user_data;                 /* passed to progress */
} ai00_convert_params;

/* Fills *out_params with the defaults (struct_size set, F16, GGUF, no overwrite). */
AI00_API ai00_status ai00_convert_params_default(ai00_convert_params* out_params);

/* Converts the weight file `path_in` into `path_out`. The output is written to a temporary file
 * beside it and renamed into place when complete, so `path_out` never holds a partial file.
 * Errors: AI00_ERR_IO (input unreadable; output exists and overwrite is 0; output directory not
 * writable; the message has the path), AI00_ERR_MODEL_FILE (malformed input),
 * AI00_ERR_UNSUPPORTED (a quantized type into safetensors), AI00_ERR_INVALID_ARGUMENT (unknown
 * weight_type or file_format), AI00_ERR_CANCELLED (the progress callback returned non-zero). */
AI00_API ai00_status ai00_model_convert(const char* path_in, size_t path_in_len,
                                        const char* path_out, size_t path_out_len,
                                        const ai00_convert_params* params);

/* ---- Tokenizer (through the model) ---------------------------------------------------------
 * The RWKV World tokenizer: greedy longest match over bytes; any byte string encodes; id 0 is
 * "end of text" and never produced by encoding. Both calls follow the two-call size idiom:
 * with a NULL buffer or a too-small capacity they write the needed count to *out_count /
 * *out_len and return AI00_ERR_BUFFER_TOO_SMALL; the buffer is caller-owned. Any thread.
 * Without a tokenizer (no vocabulary found at load) both give AI00_ERR_UNSUPPORTED. */

/* Encodes `text` (text_len bytes) into token ids. More ids than the max_tokens limit is
 * AI00_ERR_INVALID_ARGUMENT naming the limit (ai00_tokenizer_encode likewise). */
AI00_API ai00_status ai00_model_tokenize(size_t* out_count, uint32_t* tokens, size_t capacity,
                                         const ai00_model* model, const char* text,
                                         size_t text_len);

/* Decodes ids into valid UTF-8 (ill-formed bytes become U+FFFD), stopping at id 0. No NUL is
 * written. An id outside the vocabulary is AI00_ERR_INVALID_ARGUMENT naming it. */
AI00_API ai00_status ai00_model_detokenize(size_t* out_len, char* text, size_t capacity,
                                           const ai00_model* model, const uint32_t* tokens,
                                           size_t n_tokens);

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

/* ============================================================================================
 * Chat template
 * ========================================================================================== */
/* A chat format by name plus the last prompt it rendered. Conversations and tools cross as JSON
 * text in the seed 004 message model (role, contents | content, reasoning, tool_calls,
 * tool_call_id, name), see docs/chat-formats.md "Message model". Rendering keeps its result in the
 * handle, so one handle is used by one thread at a time; make one per thread (cheap). */

/* Thinking effort asked of the model (seed 001 tiers). */
typedef enum ai00_thinking {
  AI00_THINKING_OFF = 0,
  AI00_THINKING_ON = 1,
  AI00_THINKING_A_BIT = 2,
  AI00_THINKING_A_LOT = 3
} ai00_thinking;

/* Render options. Fill with ai00_render_options_default(); fields are only appended. */
typedef struct ai00_render_options {
  uint32_t struct_size;
  int32_t add_generation_prompt; /* non-zero (default): end with the assistant prefix */
  int32_t thinking;              /* an ai00_thinking; default OFF */
  /* JSON array of tools ({name, description?, parameters}) or NULL; borrowed for the call. */
  const char* tools_json;
  size_t tools_json_len;
  /* Speaker name of the generated turn (OpenChatML name=, Goose/v0 display name) or NULL. */
  const char* assistant_name;
  size_t assistant_name_len;
  /* Appended in 0.2 (a smaller struct_size leaves them at their defaults): */
  /* Non-zero: OpenChatML <|reflect|> / <|introspect|> flags in the system message (seed 002
   * "Thought Structure"; <|reason|> follows `thinking`). Other formats refuse them with
   * AI00_ERR_UNSUPPORTED. Default 0. */
  int32_t reflect;
  int32_t introspect;
  /* 1: feed token 0 before the prompt (seed 001 "Token 0 Prefix"), 0: do not, -1 (default): the
   * template's setting (Goose: [prompts.goose] prepend_token0, else off). */
  int32_t prepend_token0;
} ai00_render_options;

AI00_API ai00_status ai00_render_options_default(ai00_render_options* out_options);

/* A template for the format `name` ("ai00-v1", "ai00-v0", "goose", "openchatml"); an unknown
 * name is AI00_ERR_INVALID_ARGUMENT listing the known ones. */
AI00_API ai00_status ai00_chat_template_new(ai00_chat_template** out_template, const char* name,
                                            size_t name_len);

/* A template configured by TOML text (docs/chat-formats.md "Configuration"): role names,
 * prefixes, thinking prefixes and default stop sequences of ai00 v1 ([prompts]), Goose thinking
 * tiers and token-0 prefix ([prompts.goose]), OpenChatML flags ([prompts.openchatml]), ai00 v0
 * labels ([prompts.ai00_v0]) and sampling presets ([presets.NAME]). Absent keys keep the
 * specs' defaults. Errors: AI00_ERR_FORMAT "config:LINE:COLUMN: ..." for TOML syntax, unknown
 * keys, wrong types and values out of range; AI00_ERR_INVALID_ARGUMENT for an unknown name. */
AI00_API ai00_status ai00_chat_template_new_with_config(ai00_chat_template** out_template,
                                                        const char* name, size_t name_len,
                                                        const char* config_toml, size_t config_len);

/* The sampling preset `name` of the template's configuration ("math", "chat", "creative" as in
 * seed 001 unless the configuration changes them, or any [presets.NAME] it adds): the library
 * defaults with temperature, top_p, top_k and the penalties of the preset. An unknown name is
 * AI00_ERR_INVALID_ARGUMENT listing the known ones. */
AI00_API ai00_status ai00_chat_template_sampler_preset(ai00_sampler_params* out_params,
                                                       const ai00_chat_template* tmpl,
                                                       const char* name, size_t name_len);

/* Destroys a template. NULL is accepted. */
AI00_API ai00_status ai00_chat_template_free(ai00_chat_template* tmpl);

/* Message of the last failed call on `tmpl`; "" if none; NULL gives "". */
AI00_API const char* ai00_chat_template_last_error(const ai00_chat_template* tmpl);

/* Renders a conversation (JSON array of messages) into a prompt. *out_prompt points to
 * *out_len bytes of UTF-8 (followed by a NUL not counted), owned by the template and valid until
 * the next render or ai00_chat_template_free. Errors: AI00_ERR_FORMAT (malformed JSON or
 * content the format cannot carry, with the JSON pointer), AI00_ERR_UNSUPPORTED (an image,
 * tools in a format without a tool syntax). `options` may be NULL for the defaults. */
AI00_API ai00_status ai00_chat_template_render(const char** out_prompt, size_t* out_len,
                                               ai00_chat_template* tmpl,
                                               const char* conversation_json,
                                               size_t conversation_len,
                                               const ai00_render_options* options);

/* A fill-in-the-middle prompt (seed 002 "Fill-in-the-Middle Tasks"):
 * "<|fim_prefix|>PREFIX<|fim_middle|><|fim_suffix|>SUFFIX"; the model writes the middle. Owned
 * by the template like a rendered prompt. AI00_ERR_UNSUPPORTED for formats without FIM;
 * AI00_ERR_FORMAT when a text holds a marker ("prefix: ..." / "suffix: ..."). */
AI00_API ai00_status ai00_chat_template_render_fim(const char** out_prompt, size_t* out_len,
                                                   ai00_chat_template* tmpl, const char* prefix,
                                                   size_t prefix_len, const char* suffix,
                                                   size_t suffix_len);

/* A multi-file sequence (seed 002 "Multi-File Sequences"): the files joined by
 * "\n<|file_separator|>\n", starting with "<|file_separator|>\n" when leading_separator is
 * non-zero. file_lens[i] may be AI00_NUL_TERMINATED. Errors as ai00_chat_template_render_fim
 * ("files/N: ..."). */
AI00_API ai00_status ai00_chat_template_render_files(const char** out_prompt, size_t* out_len,
                                                     ai00_chat_template* tmpl,
                                                     const char* const* files,
                                                     const size_t* file_lens, size_t n_files,
                                                     int32_t leading_separator);

/* A whole rendered conversation read back into a JSON array of seed 004 messages (OpenChatML,
 * seed 002 "Parsing and Generation": roles checked, names kept, assistant turns parsed into
 * text, reasoning and tool calls, tool outputs into value parts). Owned by the template, valid
 * until its next call. AI00_ERR_FORMAT names the byte offset; AI00_ERR_UNSUPPORTED for formats
 * without a transcript parser. */
AI00_API ai00_status ai00_chat_template_parse_transcript(const char** out_json, size_t* out_len,
                                                         ai00_chat_template* tmpl, const char* text,
                                                         size_t text_len);

/* The number of stop strings of the last render (the format's own, e.g. "\n\n" for Goose). */
AI00_API ai00_status ai00_chat_template_stop_count(size_t* out_count,
                                                   const ai00_chat_template* tmpl);

/* Stop string `index` of the last render; valid like the prompt. Index past the end is
 * AI00_ERR_INVALID_ARGUMENT. */
AI00_API ai00_status ai00_chat_template_stop(const char** out_text, size_t* out_len,
                                             const ai00_chat_template* tmpl, size_t index);

/* The last render described as an indented JSON object: {"prompt", "stop_sequences",
 * "stop_on_token0", "prepend_token0", "constraints": {"tool_syntax", "tool_trigger",
 * "thinking_open_in_prompt", "think_open_marker", "think_close_marker",
 * "thinking_open_completion", "tools"}}: the hints a constrained decoder needs. Owned by the
 * template, NUL-terminated, valid until its next render. Before any render it is
 * AI00_ERR_INVALID_ARGUMENT. */
AI00_API ai00_status ai00_chat_template_last_render_json(const char** out_json, size_t* out_len,
                                                         ai00_chat_template* tmpl);

/* ============================================================================================
 * Grammar
 * ========================================================================================== */
/* A grammar compiled against one model's vocabulary, for constrained decoding. Immutable: any
 * number of threads and generators may share it. It keeps what it needs of the model's
 * vocabulary alive by itself. */

/* Compiles KBNF text (docs/grammar.md; start rule `start`). Errors: AI00_ERR_GRAMMAR with
 * "line L, column C: ..." for syntax errors, undefined rules and oversize automata;
 * AI00_ERR_UNSUPPORTED when the model has no tokenizer. */
AI00_API ai00_status ai00_grammar_compile(ai00_grammar** out_grammar, const ai00_model* model,
                                          const char* kbnf, size_t kbnf_len);

/* Compiles a JSON Schema (JSON text) into a grammar accepting one JSON document valid under it,
 * as a validator reads it (docs/grammar.md "JSON Schema") but without whitespace before or after
 * the value, so a generated value ends where the value ends.
 * AI00_ERR_GRAMMAR names the JSON pointer of an unsupported keyword or malformed schema. */
AI00_API ai00_status ai00_grammar_from_json_schema(ai00_grammar** out_grammar,
                                                   const ai00_model* model, const char* schema_json,
                                                   size_t schema_len);

/* ai00_grammar_from_json_schema with conversion options (ai00_schema_options, declared below;
 * NULL = the defaults: JSON Schema semantics, any JSON whitespace). For generation a caller may
 * want the canonical or compact layout and strict properties. Errors as above, and
 * AI00_ERR_INVALID_ARGUMENT for bad options. */
struct ai00_schema_options;
AI00_API ai00_status ai00_grammar_from_json_schema_with_options(
    ai00_grammar** out_grammar, const ai00_model* model, const char* schema_json, size_t schema_len,
    const struct ai00_schema_options* options);

/* Destroys a grammar. NULL is accepted; generators using it keep their own reference. */
AI00_API ai00_status ai00_grammar_free(ai00_grammar* grammar);

/* Message of the last failed call on `grammar`; "" if none; NULL gives "". */
AI00_API const char* ai00_grammar_last_error(const ai00_grammar* grammar);

/* *out_accepted = 1 if `text` is a complete sentence of the grammar, else 0. For checks and
 * tests; any thread. */
AI00_API ai00_status ai00_grammar_accepts(int32_t* out_accepted, const ai00_grammar* grammar,
                                          const char* text, size_t text_len);

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
} ai00_prefix_cache_stats;

AI00_API ai00_status ai00_prefix_cache_stats_get(ai00_prefix_cache_stats* out_stats,
                                                 const ai00_prefix_cache* cache);

/* Drops every entry (the counters other than entries and bytes are kept). */
AI00_API ai00_status ai00_prefix_cache_clear(ai00_prefix_cache* cache);

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

/* ============================================================================================
 * Option scoring
 * ========================================================================================== */
/* How likely a State is to continue with each of K candidates (dialogue choices, intents,
 * routing). Score = natural-log probability of the candidate's tokens, from log_softmax of the
 * model's raw fp32 logits: no sampler setting (temperature, penalties, bias) and no grammar
 * applies. The State is not changed: the candidates run as one batch on copies of it. */

/* Where the first candidate token's probabilities come from. Fill with
 * ai00_score_params_default(); fields are only appended. Give exactly one of: */
typedef struct ai00_score_params {
  uint32_t struct_size;
  /* Tokens fed (to a copy of the State) before the candidates, e.g. the player's line. */
  const uint32_t* context;
  size_t n_context;
  /* Or the n_vocab logits of the State's last consumed token (ai00_state_eval's output). */
  const float* logits;
  size_t n_logits;
} ai00_score_params;

AI00_API ai00_status ai00_score_params_default(ai00_score_params* out_params);

/* One candidate's score. */
typedef struct ai00_option_score {
  double total_logprob; /* log P(candidate | State, context) */
  double mean_logprob;  /* total_logprob / n_tokens */
  uint64_t n_tokens;
} ai00_option_score;

/* Scores `n_candidates` token sequences (candidates[k] has n_tokens[k] ids) into
 * out_scores[0 .. n_candidates). capacity < n_candidates is AI00_ERR_BUFFER_TOO_SMALL. Errors:
 * AI00_ERR_INVALID_ARGUMENT (no candidates, an empty candidate, an id >= n_vocab, both or
 * neither of context and logits, n_logits != n_vocab; the message names the candidate and
 * position), AI00_ERR_MISMATCH (a State of another model). Same threading as ai00_state_eval. */
AI00_API ai00_status ai00_state_score_options(ai00_option_score* out_scores, size_t capacity,
                                              const ai00_model* model, const ai00_state* state,
                                              const uint32_t* const* candidates,
                                              const size_t* n_tokens, size_t n_candidates,
                                              const ai00_score_params* params);

/* As ai00_state_score_options with texts, each encoded alone by the model's tokenizer (a
 * candidate that starts a new word usually starts with a space). text_lens may be NULL for
 * NUL-terminated texts. AI00_ERR_UNSUPPORTED without tokenizer. */
AI00_API ai00_status ai00_state_score_texts(ai00_option_score* out_scores, size_t capacity,
                                            const ai00_model* model, const ai00_state* state,
                                            const char* const* texts, const size_t* text_lens,
                                            size_t n_candidates, const ai00_score_params* params);

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
   * the message boundaries that fall on token boundaries (docs/prefix-cache.md). The cache must
   * outlive the generator. */
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
 * (one token per decoding member, at least one prompt token per prefilling member), so every
 * call makes progress; a later step starts only if predicted (from the measured cost of the
 * earlier steps, per row) to fit, prefill chunks shrinking so it does; the prediction is an
 * estimate, so the call can overrun by a misprediction, never by a step known not to fit.
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

/* ============================================================================================
 * Tokenizer
 * ========================================================================================== */
/* The RWKV World tokenizer as its own handle: loaded from a vocabulary file (no model needed)
 * or shared with a model. Immutable: any number of threads may use one at once. The caller
 * owns it (ai00_tokenizer_free); one taken from a model stays valid after ai00_model_free. */
typedef struct ai00_tokenizer ai00_tokenizer;

/* Loads an RWKV World vocabulary (rwkv_vocab_v20230424.txt format). Errors: AI00_ERR_IO (the
 * message has the path), AI00_ERR_MODEL_FILE (malformed line: path and line number). */
AI00_API ai00_status ai00_tokenizer_load(ai00_tokenizer** out_tokenizer, const char* path,
                                         size_t path_len);

/* The tokenizer of `model` (its GGUF vocabulary, the vocab_path given at load, a vocabulary
 * beside the weight file, or byte-level for a 256-token model). AI00_ERR_UNSUPPORTED when the
 * model has none. */
AI00_API ai00_status ai00_tokenizer_from_model(ai00_tokenizer** out_tokenizer,
                                               const ai00_model* model);

/* Destroys a tokenizer. NULL is accepted. */
AI00_API ai00_status ai00_tokenizer_free(ai00_tokenizer* tokenizer);

/* Message of the last failed call on `tokenizer`; "" if none; NULL gives "". */
AI00_API const char* ai00_tokenizer_last_error(const ai00_tokenizer* tokenizer);

/* The number of ids it knows (id 0, end of text, included). */
AI00_API ai00_status ai00_tokenizer_vocab_size(uint32_t* out_size, const ai00_tokenizer* tokenizer);

/* Encodes any bytes (not only UTF-8) into ids, greedy longest match; two-call idiom as
 * ai00_model_tokenize. */
AI00_API ai00_status ai00_tokenizer_encode(size_t* out_count, uint32_t* tokens, size_t capacity,
                                           const ai00_tokenizer* tokenizer, const char* text,
                                           size_t text_len);

/* Decodes ids into the exact bytes they stand for (which may be invalid UTF-8: encode then
 * decode gives back any input), stopping at id 0; two-call idiom as ai00_model_detokenize. An
 * id outside the vocabulary is AI00_ERR_INVALID_ARGUMENT naming the id and its position. */
AI00_API ai00_status ai00_tokenizer_decode(size_t* out_len, char* bytes, size_t capacity,
                                           const ai00_tokenizer* tokenizer, const uint32_t* tokens,
                                           size_t n_tokens);

/* ============================================================================================
 * Output parser
 * ========================================================================================== */
/* The incremental parser a chat generator runs on the reply, on its own: push model output in
 * chunks of any size (a marker may be split anywhere), take the deltas (the same ai00_delta
 * sequence a generator gives for that text), finish, then read the message. For replies
 * produced elsewhere (a server, a log, another engine). The caller owns it; one thread at a
 * time. It keeps its own reference to the template's format. */
typedef struct ai00_output_parser ai00_output_parser;

/* Parser options. Fill with ai00_parse_options_default(); fields are only appended. */
typedef struct ai00_parse_options {
  uint32_t struct_size;
  /* The ai00_thinking level the prompt was rendered with: the format decides whether the reply
   * starts inside a thinking block. Default OFF. */
  int32_t thinking;
  /* JSON array of the tools the prompt offered (ai00 v1 types parameter values by their
   * schemas), or NULL; borrowed for the call. */
  const char* tools_json;
  size_t tools_json_len;
  /* Tool call ids are "call_<8 hex>" of (id_seed, position). Default 0. */
  uint64_t id_seed;
  /* Appended in 0.2: non-zero = also emit TOOL_CALL_START and TOOL_CALL_ARGUMENTS deltas as
   * each call streams (ai00_delta_kind). Default 0. */
  int32_t stream_tool_calls;
} ai00_parse_options;

AI00_API ai00_status ai00_parse_options_default(ai00_parse_options* out_options);

/* A parser for replies in the format of `tmpl`; `options` may be NULL for the defaults.
 * Errors: AI00_ERR_FORMAT (malformed tools_json: JSON pointer), AI00_ERR_INVALID_ARGUMENT. */
AI00_API ai00_status ai00_output_parser_new(ai00_output_parser** out_parser,
                                            const ai00_chat_template* tmpl,
                                            const ai00_parse_options* options);

/* Destroys a parser. NULL is accepted. */
AI00_API ai00_status ai00_output_parser_free(ai00_output_parser* parser);

/* Message of the last failed call on `parser`; "" if none; NULL gives "". */
AI00_API const char* ai00_output_parser_last_error(const ai00_output_parser* parser);

/* Feeds `len` bytes of output. Deltas that became certain are queued; *out_pending (may be
 * NULL) receives the queue length. After ai00_output_parser_finish it is
 * AI00_ERR_INVALID_ARGUMENT. Malformed output never fails: it stays text, with a warning. */
AI00_API ai00_status ai00_output_parser_push(size_t* out_pending, ai00_output_parser* parser,
                                             const char* bytes, size_t len);

/* Ends the output with `finish_reason` (an ai00_finish_reason; AI00_FINISH_TOOL_CALLS replaces
 * STOP when the message holds a complete call): flushes held-back text and queues the rest, the
 * last delta being FINISH. A second finish is AI00_ERR_INVALID_ARGUMENT. */
AI00_API ai00_status ai00_output_parser_finish(ai00_output_parser* parser, int32_t finish_reason);

/* The number of queued deltas. */
AI00_API ai00_status ai00_output_parser_pending(size_t* out_count,
                                                const ai00_output_parser* parser);

/* Takes the oldest queued delta; its strings are owned by the parser and valid until the next
 * call on it. With no delta queued it is AI00_ERR_INVALID_ARGUMENT. */
AI00_API ai00_status ai00_output_parser_next(ai00_delta* out_delta, ai00_output_parser* parser);

/* The finish reason (AI00_FINISH_NONE before ai00_output_parser_finish). */
AI00_API ai00_status ai00_output_parser_finish_reason(int32_t* out_finish_reason,
                                                      const ai00_output_parser* parser);

/* The parsed message as seed 004 JSON ({role, contents, reasoning?, tool_calls?}), as
 * ai00_generator_message_json. Only after finish (else AI00_ERR_INVALID_ARGUMENT). Owned by the
 * parser, NUL-terminated, valid until it is freed. */
AI00_API ai00_status ai00_output_parser_message_json(const char** out_json, size_t* out_len,
                                                     ai00_output_parser* parser);

/* Warnings of the parse (a malformed call or marker kept as text), known after finish (the
 * count is 0 before). Owned by the parser and valid until it is freed. Index past the end is
 * AI00_ERR_INVALID_ARGUMENT. */
AI00_API ai00_status ai00_output_parser_warning_count(size_t* out_count,
                                                      const ai00_output_parser* parser);
AI00_API ai00_status ai00_output_parser_warning(const char** out_text, size_t* out_len,
                                                const ai00_output_parser* parser, size_t index);

/* Static NUL-terminated name of a finish reason: "stop", "length", "tool_calls", "cancelled",
 * "grammar_done", "error". Anything else is AI00_ERR_INVALID_ARGUMENT. Any thread. */
AI00_API ai00_status ai00_finish_reason_name(const char** out_name, int32_t finish_reason);

/* ============================================================================================
 * Grammars without a model
 * ========================================================================================== */
/* Grammars compiled at byte level (tokenizer NULL) or against a tokenizer's vocabulary, for
 * checking text and for inspecting the KBNF the library builds (docs/grammar.md). They are
 * ai00_grammar handles (free with ai00_grammar_free, immutable, any thread) but a generator
 * accepts only grammars made from its model (ai00_grammar_compile, _from_json_schema);
 * others give AI00_ERR_MISMATCH there. Each keeps its KBNF and the warnings of its
 * construction. */

/* Compile options. Fill with ai00_grammar_params_default(); fields are only appended. */
typedef struct ai00_grammar_params {
  uint32_t struct_size;
  /* The start rule, UTF-8, or NULL for "start". */
  const char* start_rule;
  size_t start_rule_len;
} ai00_grammar_params;

AI00_API ai00_status ai00_grammar_params_default(ai00_grammar_params* out_params);

/* JSON Schema conversion options. Fill with ai00_schema_options_default(); fields only
 * appended. */
typedef struct ai00_schema_options {
  uint32_t struct_size;
  int32_t lenient;             /* non-zero: unsupported keywords become warnings; default 0 */
  int32_t strict_properties;   /* non-zero: no keys beyond `properties` unless
                                  additionalProperties says so; default 0 (JSON Schema: any) */
  int32_t flexible_whitespace; /* non-zero (default): JSON whitespace wherever JSON allows it,
                                  as validators read it; 0: one canonical layout */
  uint32_t max_whitespace;     /* longest whitespace run with flexible_whitespace, <= 64;
                                  default 0 = unbounded */
  /* Appended field: non-zero with flexible_whitespace 0: the canonical layout without spaces,
   * {"a":1,"b":[1,2]}, instead of {"a": 1, "b": [1, 2]}; default 0. A struct_size that ends
   * before this field is accepted (the field is then 0). */
  int32_t compact;
} ai00_schema_options;

AI00_API ai00_status ai00_schema_options_default(ai00_schema_options* out_options);

/* Where the reply starts relative to a thinking block, for tool-call grammars. */
typedef enum ai00_thinking_start {
  AI00_THINKING_START_OPTIONAL = 0,      /* the reply may open a thinking block first */
  AI00_THINKING_START_FORCED = 1,        /* the prompt opened it as the template renders it: the
                                            reply starts inside it */
  AI00_THINKING_START_FORCED_PARTIAL = 2 /* the prompt wrote the open marker but its last byte
                                            ("<think"): the reply writes that byte first */
} ai00_thinking_start;

/* Tool-call grammar options. Fill with ai00_tool_grammar_params_default(); fields only
 * appended. */
typedef struct ai00_tool_grammar_params {
  uint32_t struct_size;
  int32_t level;          /* AI00_GRAMMAR_STRUCTURAL (default) or AI00_GRAMMAR_SCHEMA_AWARE */
  int32_t thinking_start; /* an ai00_thinking_start; default OPTIONAL */
  int32_t allow_eos_end;  /* non-zero: a text answer may also end at end of text; default 0 */
  const ai00_schema_options* schema; /* argument schemas (schema_aware); NULL = defaults */
} ai00_tool_grammar_params;

AI00_API ai00_status ai00_tool_grammar_params_default(ai00_tool_grammar_params* out_params);

/* Compiles KBNF text. `tokenizer` may be NULL (byte level) and `params` NULL (defaults).
 * Errors: AI00_ERR_GRAMMAR ("line L, column C: ...", undefined rules, a missing start rule). */
AI00_API ai00_status ai00_grammar_new(ai00_grammar** out_grammar, const ai00_tokenizer* tokenizer,
                                      const char* kbnf, size_t kbnf_len,
                                      const ai00_grammar_params* params);

/* Converts a JSON Schema to KBNF (start rule `start`) and compiles it. AI00_ERR_GRAMMAR names
 * the JSON pointer of an unsupported keyword (a warning instead with `lenient`). */
AI00_API ai00_status ai00_grammar_new_from_json_schema(ai00_grammar** out_grammar,
                                                       const ai00_tokenizer* tokenizer,
                                                       const char* schema_json, size_t schema_len,
                                                       const ai00_schema_options* options);

/* The tool-call grammar of the chat format of `tmpl` for the tools in `tools_json` (a JSON
 * array of {name, description?, parameters}, the OpenAI {type, function} wrapper, or
 * {"tools": [...]}): thinking, text and call blocks of that format. Errors: AI00_ERR_FORMAT
 * (malformed tool list: JSON pointer), AI00_ERR_GRAMMAR (an unsupported parameter schema),
 * AI00_ERR_INVALID_ARGUMENT (a format without a tool-call grammar, a bad level). */
AI00_API ai00_status ai00_grammar_new_for_tools(ai00_grammar** out_grammar,
                                                const ai00_tokenizer* tokenizer,
                                                const ai00_chat_template* tmpl,
                                                const char* tools_json, size_t tools_json_len,
                                                const ai00_tool_grammar_params* params);

/* The KBNF text of `grammar` (converted schemas and tool grammars included), owned by the
 * grammar, NUL-terminated, valid until it is freed. */
AI00_API ai00_status ai00_grammar_kbnf(const char** out_kbnf, size_t* out_len,
                                       const ai00_grammar* grammar);

/* Warnings of the construction (lenient schema conversion), owned by the grammar. Index past
 * the end is AI00_ERR_INVALID_ARGUMENT. */
AI00_API ai00_status ai00_grammar_warning_count(size_t* out_count, const ai00_grammar* grammar);
AI00_API ai00_status ai00_grammar_warning(const char** out_text, size_t* out_len,
                                          const ai00_grammar* grammar, size_t index);

/* Why ai00_grammar_check rejected a text. */
typedef enum ai00_check_verdict {
  AI00_CHECK_ACCEPTED = 0, /* a complete sentence (and every token passed, with a vocabulary) */
  AI00_CHECK_BYTES = 1,    /* byte_offset bytes are a valid prefix, the next byte or the end
                              is not accepted */
  AI00_CHECK_TOKEN = 2,    /* token token_index (id token_id, starting at byte_offset) of the
                              greedy tokenization is not in the mask */
  AI00_CHECK_END_TOKEN = 3 /* every token passed but token 0 (end of text) is not allowed */
} ai00_check_verdict;

/* The outcome of a check. Fill struct_size (or zero the struct and set it); the library
 * writes the fields that fit. */
typedef struct ai00_grammar_check_result {
  uint32_t struct_size;
  int32_t verdict;      /* an ai00_check_verdict */
  uint64_t byte_offset; /* BYTES: rejection offset; TOKEN: the token's first byte */
  uint64_t token_index; /* TOKEN: position in the tokenization */
  uint32_t token_id;    /* TOKEN: the rejected id */
} ai00_grammar_check_result;

/* Checks whether `text` is a complete sentence of `grammar`, at byte level; a grammar made with
 * a tokenizer then also replays the greedy tokenization token by token against the masks, and
 * requires token 0 to be allowed at the end (what constrained decoding would need). */
AI00_API ai00_status ai00_grammar_check(ai00_grammar_check_result* out_result,
                                        const ai00_grammar* grammar, const char* text,
                                        size_t text_len);

#ifdef __cplusplus
}
#endif

#endif /* AI00_AI00_H */
