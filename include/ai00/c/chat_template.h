/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Chat template: a chat format by name, its render options and configuration, rendering.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_CHAT_TEMPLATE_H
#define AI00_C_CHAT_TEMPLATE_H

#include "base.h"
#include "state.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_CHAT_TEMPLATE_H */
