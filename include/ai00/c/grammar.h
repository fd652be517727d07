/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Grammar: KBNF / JSON Schema / tool grammars, for a model's vocabulary or without one.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_GRAMMAR_H
#define AI00_C_GRAMMAR_H

#include "base.h"
#include "tokenizer.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#endif /* AI00_C_GRAMMAR_H */
