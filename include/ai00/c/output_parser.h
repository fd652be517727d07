/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Output parser: a chat format's parser fed bytes in any chunks, giving deltas and a message.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_OUTPUT_PARSER_H
#define AI00_C_OUTPUT_PARSER_H

#include "base.h"
#include "generator.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_OUTPUT_PARSER_H */
