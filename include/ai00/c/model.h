/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Model: load options, limits, loading, shape, converting weight files, tokenizing through a model.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_MODEL_H
#define AI00_C_MODEL_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Model
 * ========================================================================================== */

/* Activations of the matrix products (ai00_model_params.activations; docs/dot-products.md "Integer
 * and BF16 dot products"). Only quantized (Q4_0/Q4_1/Q5_0/Q5_1/Q8_0) and BF16 weights differ; F32
 * and F16 weights always multiply fp32 activations. */
typedef enum ai00_activations {
  /* The default. Quantized weights multiply activations quantized per 32-block to int8 (int8
   * dot products), BF16 weights activations rounded once to bf16 where the kernel table has a
   * BF16 dot (avx512_bf16): logits within about 0.05 of EXACT (measured on random 0.1B/0.4B
   * models), so greedy tokens can differ where the top two logits are closer than that. */
  AI00_ACTIVATIONS_DOT = 0,
  /* fp32 activations everywhere, the weights widened in registers: the logits of the reference
   * computation (up to float rounding), for greedy output identical to it. Slower on quantized
   * and BF16 weights, mostly in prefill (docs/dot-products.md "Integer and BF16 dot products"). */
  AI00_ACTIVATIONS_EXACT = 1
} ai00_activations;

/* Load options. Fill with ai00_model_params_default() first; fields are only ever appended. */
typedef struct ai00_model_params {
  uint32_t struct_size; /* sizeof(ai00_model_params) of the caller's header */
  /* Threads of the model's own pool; 1 (the default) runs everything on the calling thread.
   * Results do not depend on it. Must be >= 1. */
  int32_t n_threads;
  /* NUL-terminated kernel table to force ("scalar", "sse2", "avx2", "avx2_vnni", "avx512",
   * "avx512_vnni", "avx512_bf16", "neon64", "neon64_dotprod"; docs/model.md "Kernels and ISAs")
   * or NULL to choose the best one the CPU supports. Forcing a table the CPU lacks is
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
  /* Appended in 0.4 (a smaller struct_size loads with AI00_ACTIVATIONS_DOT): */
  /* An ai00_activations, for every evaluation on this model (ai00_state_eval, generators,
   * batches, scoring): AI00_ACTIVATIONS_DOT (the default) or AI00_ACTIVATIONS_EXACT. Another
   * value is AI00_ERR_INVALID_ARGUMENT naming ai00_model_params.activations. ai00_model_info_json
   * reports it as "activations": "dot" or "exact". */
  int32_t activations;
} ai00_model_params;

/* Fills *out_params with the defaults (struct_size set, n_threads 1, no forced ISA, no
 * vocabulary path, no progress, AI00_ACTIVATIONS_DOT). Set struct_size =
 * sizeof(ai00_model_params) (or zero the struct) first: a struct_size equal to a size an older
 * header published (24, without the progress fields; 40, without activations; LP64 sizes) is
 * kept and only that much is written (docs/abi.md "Versioned structs"). */
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
 * "state_bytes", "tokenizer_vocab" (null without a tokenizer), "activations" ("dot" or "exact")};
 * keys may be added later. Two-call idiom into the caller's buffer (no NUL written): with `json`
 * NULL or capacity too small the size goes to *out_len and the call returns
 * AI00_ERR_BUFFER_TOO_SMALL. Any thread. */
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

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_MODEL_H */
