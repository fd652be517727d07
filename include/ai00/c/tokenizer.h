/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Tokenizer: a World tokenizer without a model.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_TOKENIZER_H
#define AI00_C_TOKENIZER_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_TOKENIZER_H */
