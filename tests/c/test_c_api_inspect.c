/* The C ABI's inspection and model-free services driven from C99 (-Wall -Wextra -pedantic
 * -Werror): model info as JSON, logits for every position, the tokenizer handle, the render
 * hints as JSON, the output parser handle, and grammars without a model (KBNF, JSON Schema,
 * tool calls) with ai00_grammar_check, plus the bad inputs each must refuse with a clear status
 * and message. Fixtures: $AI00_SHARED_DIR or the compiled-in AI00_DEFAULT_SHARED_DIR. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai00/ai00.h"
#include "c_check.h"
#define LAST_ERROR_HAS(text) CHECK(strstr(ai00_last_error(), (text)) != NULL)

static char g_model_path[1024];
static char g_vocab_path[1024];

static const char* kTools =
    "[{\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\", \"properties\": "
    "{\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}]";

static void setup_paths(void) {
  const char* shared = getenv("AI00_SHARED_DIR");
  if (shared == NULL || shared[0] == '\0') shared = AI00_DEFAULT_SHARED_DIR;
  snprintf(g_model_path, sizeof g_model_path, "%s/models/rand-rwkv7-c128-l3-v512-F16.gguf", shared);
  snprintf(g_vocab_path, sizeof g_vocab_path, "%s/tokenizer/rwkv_vocab_v20230424.txt", shared);
}

static void test_model_info_json(const ai00_model* model) {
  size_t len = 0, len2 = 0;
  char small[8];
  char* json;
  CHECK(ai00_model_info_json(&len, NULL, 0, model) == AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(len > 100);
  CHECK(ai00_model_info_json(&len2, small, sizeof small, model) == AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(len2 == len);
  LAST_ERROR_HAS("capacity is 8");
  json = (char*)malloc(len + 1);
  CHECK_OK(ai00_model_info_json(&len2, json, len, model));
  json[len] = '\0';
  CHECK(strstr(json, "\"n_embd\": 128") != NULL);
  CHECK(strstr(json, "\"format\": \"gguf\"") != NULL);
  CHECK(strstr(json, "\"lora_ranks\": {\"w\": ") != NULL);
  CHECK(strstr(json, "\"state_bytes\": 101376") != NULL);
  free(json);
  CHECK(ai00_model_info_json(&len, NULL, 0, NULL) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("model is NULL");
}

static void test_eval_all(const ai00_model* model) {
  const uint32_t tokens[3] = {0, 69, 66};
  float* all = (float*)malloc(3 * 512 * sizeof(float));
  float last[512];
  ai00_state* a = NULL;
  ai00_state* b = NULL;
  size_t n = 0;
  int same = 1, i;
  CHECK_OK(ai00_state_new(&a, model));
  CHECK_OK(ai00_state_new(&b, model));
  /* Too small: the needed count, the State untouched (same logits afterwards). */
  CHECK(ai00_state_eval_all(&n, all, 512, model, a, tokens, 3) == AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(n == 3 * 512);
  LAST_ERROR_HAS("1536 floats");
  CHECK(ai00_state_eval_all(&n, NULL, 0, model, a, tokens, 3) == AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(ai00_state_eval_all(&n, all, 3 * 512, model, a, tokens, 0) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("n_tokens is 0");
  CHECK_OK(ai00_state_eval_all(&n, all, 3 * 512, model, a, tokens, 3));
  CHECK(n == 3 * 512);
  CHECK_OK(ai00_state_eval(&n, last, 512, model, b, tokens, 3));
  for (i = 0; i < 512; ++i)
    if (fabsf(all[2 * 512 + i] - last[i]) > 1e-3f) same = 0;
  CHECK(same);
  /* A token outside the vocabulary names the id and its position. */
  {
    const uint32_t bad[2] = {1, 600};
    CHECK(ai00_state_eval_all(&n, all, 3 * 512, model, a, bad, 2) == AI00_ERR_INVALID_ARGUMENT);
    LAST_ERROR_HAS("600");
  }
  ai00_state_free(a);
  ai00_state_free(b);
  free(all);
}

static void test_tokenizer(const ai00_model* model) {
  ai00_tokenizer* tok = NULL;
  ai00_tokenizer* from_model = NULL;
  uint32_t ids[16];
  uint32_t size = 0;
  char bytes[64];
  size_t n = 0;
  const char* text = "Hello, \xe4\xbd\xa0\xe5\xa5\xbd";
  const char* raw = "caf\xc3\xa9 \xff\xfe\x80";
  const uint32_t bad[2] = {5, 70000};
  CHECK(ai00_tokenizer_load(&tok, "/nonexistent/vocab.txt", AI00_NUL_TERMINATED) == AI00_ERR_IO);
  LAST_ERROR_HAS("/nonexistent/vocab.txt");
  CHECK(tok == NULL);
  CHECK_OK(ai00_tokenizer_load(&tok, g_vocab_path, AI00_NUL_TERMINATED));
  CHECK_OK(ai00_tokenizer_vocab_size(&size, tok));
  CHECK(size > 65000);
  CHECK_OK(ai00_tokenizer_encode(&n, ids, 16, tok, text, strlen(text)));
  CHECK(n == 5 && ids[0] == 33155 && ids[1] == 45 && ids[2] == 33 && ids[3] == 10464 &&
        ids[4] == 11685);
  CHECK(ai00_tokenizer_encode(&n, ids, 2, tok, text, strlen(text)) == AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(n == 5);
  /* Any bytes round-trip exactly, invalid UTF-8 included. */
  CHECK_OK(ai00_tokenizer_encode(&n, ids, 16, tok, raw, strlen(raw)));
  CHECK_OK(ai00_tokenizer_decode(&n, bytes, sizeof bytes, tok, ids, n));
  CHECK(n == strlen(raw) && memcmp(bytes, raw, n) == 0);
  CHECK(ai00_tokenizer_decode(&n, bytes, sizeof bytes, tok, bad, 2) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("token id 70000 at position 1");
  CHECK(strstr(ai00_tokenizer_last_error(tok), "70000") != NULL);
  CHECK(ai00_tokenizer_encode(&n, ids, 16, NULL, "x", 1) == AI00_ERR_INVALID_ARGUMENT);
  /* The model's own tokenizer, usable after the model handle is gone too. */
  CHECK_OK(ai00_tokenizer_from_model(&from_model, model));
  CHECK_OK(ai00_tokenizer_vocab_size(&size, from_model));
  CHECK(size == 512);
  CHECK_OK(ai00_tokenizer_encode(&n, ids, 16, from_model, "hello\n\n", 7));
  CHECK(n == 6 && ids[0] == 105 && ids[5] == 261);
  CHECK(ai00_tokenizer_from_model(&from_model, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK_OK(ai00_tokenizer_free(from_model));
  CHECK_OK(ai00_tokenizer_free(tok));
  CHECK_OK(ai00_tokenizer_free(NULL));
  CHECK(strcmp(ai00_tokenizer_last_error(NULL), "") == 0);
}

static void test_last_render_json(void) {
  ai00_chat_template* t = NULL;
  ai00_render_options o;
  const char* text = NULL;
  size_t len = 0;
  CHECK_OK(ai00_chat_template_new(&t, "ai00-v1", AI00_NUL_TERMINATED));
  CHECK(ai00_chat_template_last_render_json(&text, &len, t) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("not rendered");
  CHECK_OK(ai00_render_options_default(&o));
  o.tools_json = kTools;
  o.tools_json_len = strlen(kTools);
  o.thinking = AI00_THINKING_ON;
  CHECK_OK(ai00_chat_template_render(&text, &len, t, "[{\"role\":\"user\",\"content\":\"Hi\"}]",
                                     AI00_NUL_TERMINATED, &o));
  CHECK_OK(ai00_chat_template_last_render_json(&text, &len, t));
  CHECK(len == strlen(text));
  CHECK(strstr(text, "\"tool_syntax\": \"ai00_v1_xml\"") != NULL);
  CHECK(strstr(text, "\"thinking_open_in_prompt\": true") != NULL);
  CHECK(strstr(text, "get_weather") != NULL);
  CHECK(ai00_chat_template_last_render_json(NULL, &len, t) == AI00_ERR_INVALID_ARGUMENT);
  /* A message without a role is an error naming its pointer, never a user message. */
  CHECK(ai00_chat_template_render(&text, &len, t,
                                  "[{\"role\":\"user\",\"content\":\"Hi\"},{\"content\":\"x\"}]",
                                  AI00_NUL_TERMINATED, NULL) == AI00_ERR_FORMAT);
  CHECK(strstr(ai00_chat_template_last_error(t), "/1/role: missing") != NULL);
  ai00_chat_template_free(t);
}

/* Pushes `text` one byte at a time and collects the deltas. */
static void push_bytewise(ai00_output_parser* p, const char* text, char* reasoning, char* content,
                          int* calls) {
  size_t i, pending = 0;
  ai00_delta d = {sizeof(ai00_delta), 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0};
  for (i = 0; text[i] != '\0'; ++i) {
    CHECK_OK(ai00_output_parser_push(&pending, p, text + i, 1));
    while (pending > 0) {
      CHECK_OK(ai00_output_parser_next(&d, p));
      if (d.kind == AI00_DELTA_REASONING) strncat(reasoning, d.text, d.text_len);
      if (d.kind == AI00_DELTA_TEXT) strncat(content, d.text, d.text_len);
      if (d.kind == AI00_DELTA_TOOL_CALL) ++*calls;
      CHECK_OK(ai00_output_parser_pending(&pending, p));
    }
  }
}

/* [prompts] configuration, presets, render options appended in 0.2, raw prompts, transcripts. */
static void test_template_config(void) {
  static const char kToml[] =
      "[prompts]\nrole_user = \"human\"\n[prompts.goose]\nprepend_token0 = true\n"
      "[presets.math]\ntemperature = 0.25\n";
  static const char kTranscript[] =
      "<|im_start|>user name=Eric\nHi\n<|im_end|>\n<|im_start|>assistant\nHello\n<|im_end|>";
  ai00_chat_template* t = NULL;
  ai00_chat_template* g = NULL;
  ai00_chat_template* o = NULL;
  ai00_sampler_params sp;
  ai00_render_options ro;
  const char* text = NULL;
  const char* files[2];
  size_t lens[2];
  size_t len = 0;
  CHECK_OK(ai00_chat_template_new_with_config(&t, "ai00-v1", AI00_NUL_TERMINATED, kToml,
                                              AI00_NUL_TERMINATED));
  CHECK_OK(ai00_chat_template_render(&text, &len, t, "[{\"role\":\"user\",\"content\":\"Hi\"}]",
                                     AI00_NUL_TERMINATED, NULL));
  CHECK(strncmp(text, "<ai00:human>\nHi\n</ai00:human>", 29) == 0);
  CHECK_OK(ai00_chat_template_sampler_preset(&sp, t, "math", AI00_NUL_TERMINATED));
  CHECK(sp.temperature == 0.25f && sp.top_p == 0.3f && sp.struct_size == sizeof sp);
  CHECK(ai00_chat_template_sampler_preset(&sp, t, "wild", AI00_NUL_TERMINATED) ==
        AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_chat_template_last_error(t), "known: math, chat, creative") != NULL);
  CHECK(ai00_chat_template_new_with_config(&g, "goose", AI00_NUL_TERMINATED,
                                           "[prompts]\nrole_user = 3\n",
                                           AI00_NUL_TERMINATED) == AI00_ERR_FORMAT);
  CHECK(strstr(ai00_last_error(), "config:2:13: prompts.role_user: expected a string") != NULL);
  CHECK(g == NULL);
  /* Goose: the token-0 prefix from the configuration, overridden by the render option. */
  CHECK_OK(ai00_chat_template_new_with_config(&g, "goose", AI00_NUL_TERMINATED, kToml,
                                              AI00_NUL_TERMINATED));
  CHECK_OK(ai00_chat_template_render(&text, &len, g, "[]", AI00_NUL_TERMINATED, NULL));
  CHECK_OK(ai00_chat_template_last_render_json(&text, &len, g));
  CHECK(strstr(text, "\"prepend_token0\": true") != NULL);
  CHECK_OK(ai00_render_options_default(&ro));
  CHECK(ro.prepend_token0 == -1);
  ro.prepend_token0 = 0;
  CHECK_OK(ai00_chat_template_render(&text, &len, g, "[]", AI00_NUL_TERMINATED, &ro));
  CHECK_OK(ai00_chat_template_last_render_json(&text, &len, g));
  CHECK(strstr(text, "\"prepend_token0\": false") != NULL);
  ro.prepend_token0 = 7;
  CHECK(ai00_chat_template_render(&text, &len, g, "[]", AI00_NUL_TERMINATED, &ro) ==
        AI00_ERR_INVALID_ARGUMENT);
  /* A caller built against the 0.1 header (48 bytes) gets the defaults of the new fields. */
  ro.prepend_token0 = 7;
  ro.struct_size = 48;
  CHECK_OK(ai00_chat_template_render(&text, &len, g, "[]", AI00_NUL_TERMINATED, &ro));
  ro.struct_size = sizeof ro;
  ro.prepend_token0 = -1;
  ro.reflect = 1;
  CHECK(ai00_chat_template_render(&text, &len, g, "[]", AI00_NUL_TERMINATED, &ro) ==
        AI00_ERR_UNSUPPORTED);
  CHECK(ai00_chat_template_render_fim(&text, &len, g, "a", 1, "b", 1) == AI00_ERR_UNSUPPORTED);
  /* OpenChatML: flags, FIM, files, transcript. */
  CHECK_OK(ai00_chat_template_new(&o, "openchatml", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_chat_template_render(&text, &len, o, "[]", AI00_NUL_TERMINATED, &ro));
  CHECK(strstr(text, "<|reflect|>") != NULL);
  CHECK_OK(ai00_chat_template_render_fim(&text, &len, o, "ab", 2, "cd", AI00_NUL_TERMINATED));
  CHECK(strcmp(text, "<|fim_prefix|>ab<|fim_middle|><|fim_suffix|>cd") == 0);
  CHECK(ai00_chat_template_render_fim(&text, &len, o, "<|im_end|>", AI00_NUL_TERMINATED, "", 0) ==
        AI00_ERR_FORMAT);
  CHECK(strstr(ai00_chat_template_last_error(o), "prefix: contains") != NULL);
  files[0] = "one";
  files[1] = "two";
  lens[0] = AI00_NUL_TERMINATED;
  lens[1] = 3;
  CHECK_OK(ai00_chat_template_render_files(&text, &len, o, files, lens, 2, 0));
  CHECK(strcmp(text, "one\n<|file_separator|>\ntwo") == 0);
  CHECK_OK(ai00_chat_template_parse_transcript(&text, &len, o, kTranscript, AI00_NUL_TERMINATED));
  CHECK(strstr(text, "\"name\":\"Eric\"") != NULL);
  CHECK(strstr(text, "\"role\":\"assistant\"") != NULL);
  CHECK(ai00_chat_template_parse_transcript(&text, &len, o, "<|im_start|>bot\nx<|im_end|>",
                                            AI00_NUL_TERMINATED) == AI00_ERR_FORMAT);
  CHECK(strstr(ai00_chat_template_last_error(o), "byte 12: unknown role \"bot\"") != NULL);
  ai00_chat_template_free(o);
  ai00_chat_template_free(g);
  ai00_chat_template_free(t);
}

/* Streaming tool calls through the output parser handle: START, ARGUMENTS pieces, TOOL_CALL. */
static void test_output_parser_streaming(void) {
  static const char kOut[] =
      "<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter "
      "name=\"city\">Oslo</parameter>\n    <parameter name=\"days\">3</parameter>\n  </invoke>\n"
      "</ai00:function_calls>";
  ai00_chat_template* v1 = NULL;
  ai00_output_parser* p = NULL;
  ai00_parse_options o;
  ai00_delta d = {sizeof(ai00_delta), 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0};
  char args[128] = "";
  size_t i, n = 0;
  int starts = 0, pieces = 0, wholes = 0;
  CHECK_OK(ai00_chat_template_new(&v1, "ai00-v1", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_parse_options_default(&o));
  CHECK(o.stream_tool_calls == 0);
  o.stream_tool_calls = 1;
  CHECK_OK(ai00_output_parser_new(&p, v1, &o));
  for (i = 0; kOut[i] != '\0'; ++i) {
    CHECK_OK(ai00_output_parser_push(&n, p, kOut + i, 1));
    while (n > 0) {
      CHECK_OK(ai00_output_parser_next(&d, p));
      if (d.kind == AI00_DELTA_TOOL_CALL_START) {
        ++starts;
        CHECK(pieces == 0 && d.name_len == 11 && d.id_len == 13);
      }
      if (d.kind == AI00_DELTA_TOOL_CALL_ARGUMENTS) {
        ++pieces;
        strncat(args, d.text, d.text_len);
      }
      if (d.kind == AI00_DELTA_TOOL_CALL) {
        ++wholes;
        CHECK(d.valid == 1 && d.text_len == strlen(args) && strncmp(d.text, args, d.text_len) == 0);
      }
      CHECK_OK(ai00_output_parser_pending(&n, p));
    }
  }
  CHECK(starts == 1 && pieces == 3 && wholes == 1);
  CHECK(strcmp(args, "{\"city\":\"Oslo\",\"days\":\"3\"}") == 0);
  ai00_output_parser_free(p);
  /* A caller built against the 0.1 header (32 bytes) gets no previews. */
  o.struct_size = 32;
  CHECK_OK(ai00_output_parser_new(&p, v1, &o));
  CHECK_OK(ai00_output_parser_push(&n, p, kOut, AI00_NUL_TERMINATED));
  while (n-- > 0) {
    CHECK_OK(ai00_output_parser_next(&d, p));
    CHECK(d.kind != AI00_DELTA_TOOL_CALL_START && d.kind != AI00_DELTA_TOOL_CALL_ARGUMENTS);
  }
  ai00_output_parser_free(p);
  ai00_chat_template_free(v1);
}

/* What the JSON-format streaming test saw. */
typedef struct json_stream_seen {
  char args[128];
  int starts, pieces, pieces_before_whole, wholes, abandoned;
  size_t format;
} json_stream_seen;

static void drain_json_stream(ai00_output_parser* p, size_t n, json_stream_seen* s) {
  ai00_delta d = {sizeof(ai00_delta), 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0};
  while (n > 0) {
    CHECK_OK(ai00_output_parser_next(&d, p));
    if (d.kind == AI00_DELTA_TOOL_CALL_START) {
      ++s->starts;
      s->args[0] = '\0';
      CHECK(d.id_len == 13 && d.name_len == (s->format == 0 ? (d.call == 0 ? 11u : 1u) : 0u));
    }
    if (d.kind == AI00_DELTA_TOOL_CALL_ARGUMENTS) {
      ++s->pieces;
      strncat(s->args, d.text, d.text_len);
    }
    if (d.kind == AI00_DELTA_TOOL_CALL && d.valid) {
      ++s->wholes;
      s->pieces_before_whole = s->pieces;
      CHECK(d.name_len == 11 && strncmp(d.name, "get_weather", 11) == 0);
      CHECK(d.text_len == strlen(s->args) && strncmp(d.text, s->args, d.text_len) == 0);
    }
    if (d.kind == AI00_DELTA_TOOL_CALL && !d.valid) {
      ++s->abandoned;
      CHECK(d.call == 1 && d.text_len == 0);
    }
    CHECK_OK(ai00_output_parser_pending(&n, p));
  }
}

/* The JSON formats stream their arguments byte by byte through the handle too: ai00 v0 names
 * the tool first (the START has the name), OpenChatML writes the arguments first (the START has
 * an empty name; the TOOL_CALL names the tool). A malformed call after its START is abandoned
 * (TOOL_CALL with valid = 0 and no text). */
static void test_output_parser_streaming_json(void) {
  static const char* const kFormats[] = {"ai00-v0", "openchatml"};
  static const char* const kOut[] = {
      "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo \\u00e9\", "
      "\"days\": 3}}</tool_call><tool_call>{\"name\":\"f\",\"arguments\":{\"a\":1,\"a\":2}}"
      "</tool_call>",
      "<|function_call|>\n{\"arguments\": {\"city\": \"Oslo \\u00e9\", \"days\": 3}, "
      "\"name\": \"get_weather\"}\n<|function_call|>\n{\"arguments\": {\"a\": 1,}, \"name\": "
      "\"f\"}"};
  size_t k, i, n = 0;
  for (k = 0; k < 2; ++k) {
    ai00_chat_template* t = NULL;
    ai00_output_parser* p = NULL;
    ai00_parse_options o;
    json_stream_seen s;
    memset(&s, 0, sizeof s);
    s.format = k;
    CHECK_OK(ai00_chat_template_new(&t, kFormats[k], AI00_NUL_TERMINATED));
    CHECK_OK(ai00_parse_options_default(&o));
    o.stream_tool_calls = 1;
    CHECK_OK(ai00_output_parser_new(&p, t, &o));
    for (i = 0; kOut[k][i] != '\0'; ++i) {
      CHECK_OK(ai00_output_parser_push(&n, p, kOut[k] + i, 1));
      drain_json_stream(p, n, &s);
    }
    CHECK_OK(ai00_output_parser_finish(p, AI00_FINISH_STOP));
    CHECK_OK(ai00_output_parser_pending(&n, p));
    drain_json_stream(p, n, &s);
    CHECK(s.starts == 2 && s.wholes == 1 && s.abandoned == 1);
    CHECK(s.pieces_before_whole >= 10); /* byte by byte: many pieces, not one at the end */
    ai00_output_parser_free(p);
    ai00_chat_template_free(t);
  }
}

/* A reply cut by the token limit inside a call: finish LENGTH and the call marked invalid. */
static void test_output_parser_length_cut(void) {
  static const char kCut[] =
      "<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter name=\"city\">Os";
  ai00_chat_template* v1 = NULL;
  ai00_output_parser* p = NULL;
  ai00_delta d = {sizeof(ai00_delta), 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0};
  size_t n = 0;
  int32_t finish = 0;
  int incomplete = 0;
  CHECK_OK(ai00_chat_template_new(&v1, "ai00-v1", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_output_parser_new(&p, v1, NULL));
  CHECK_OK(ai00_output_parser_push(NULL, p, kCut, strlen(kCut)));
  CHECK_OK(ai00_output_parser_finish(p, AI00_FINISH_LENGTH));
  CHECK_OK(ai00_output_parser_pending(&n, p));
  while (n-- > 0) {
    CHECK_OK(ai00_output_parser_next(&d, p));
    if (d.kind == AI00_DELTA_TOOL_CALL && d.valid == 0) {
      ++incomplete;
      CHECK(d.name_len == 11 && memcmp(d.name, "get_weather", 11) == 0);
    }
  }
  CHECK(incomplete == 1);
  CHECK(d.kind == AI00_DELTA_FINISH && d.finish_reason == AI00_FINISH_LENGTH);
  CHECK_OK(ai00_output_parser_finish_reason(&finish, p));
  CHECK(finish == AI00_FINISH_LENGTH);
  ai00_output_parser_free(p);
  ai00_chat_template_free(v1);
}

static void test_output_parser(void) {
  ai00_chat_template* goose = NULL;
  ai00_chat_template* v1 = NULL;
  ai00_output_parser* p = NULL;
  ai00_parse_options o;
  ai00_delta d = {sizeof(ai00_delta), 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0};
  char reasoning[64] = "", content[64] = "";
  const char* json = NULL;
  const char* name = NULL;
  size_t len = 0, n = 0;
  int32_t finish = 0;
  int calls = 0;
  CHECK_OK(ai00_chat_template_new(&goose, "goose", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_chat_template_new(&v1, "ai00-v1", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_parse_options_default(&o));
  o.thinking = AI00_THINKING_ON;
  CHECK_OK(ai00_output_parser_new(&p, goose, &o));
  CHECK_OK(ai00_output_parser_finish_reason(&finish, p));
  CHECK(finish == AI00_FINISH_NONE);
  CHECK(ai00_output_parser_message_json(&json, &len, p) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("not finished");
  push_bytewise(p, ">\nI think.\n</think>\nHi!\n\nUser: x", reasoning, content, &calls);
  CHECK(ai00_output_parser_finish(p, 42) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("finish_reason = 42");
  CHECK_OK(ai00_output_parser_finish(p, AI00_FINISH_STOP));
  CHECK_OK(ai00_output_parser_pending(&n, p));
  /* A struct_size the library does not know is refused before a delta is taken. */
  d.struct_size = 0;
  CHECK(ai00_output_parser_next(&d, p) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("ai00_delta.struct_size = 0");
  d.struct_size = sizeof d + 8;
  CHECK(ai00_output_parser_next(&d, p) == AI00_ERR_INVALID_ARGUMENT);
  CHECK_OK(ai00_output_parser_pending(&len, p));
  CHECK(len == n);
  d.struct_size = sizeof d;
  while (n-- > 0) {
    CHECK_OK(ai00_output_parser_next(&d, p));
    if (d.kind == AI00_DELTA_TEXT) strncat(content, d.text, d.text_len);
    if (n == 0) CHECK(d.kind == AI00_DELTA_FINISH && d.finish_reason == AI00_FINISH_STOP);
  }
  CHECK(strcmp(reasoning, "I think.") == 0);
  CHECK(strcmp(content, "Hi!") == 0);
  CHECK(ai00_output_parser_next(&d, p) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("no delta is queued");
  CHECK(ai00_output_parser_push(NULL, p, "x", 1) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("already finished");
  CHECK(ai00_output_parser_finish(p, AI00_FINISH_STOP) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_output_parser_last_error(p), "already finished") != NULL);
  CHECK_OK(ai00_output_parser_message_json(&json, &len, p));
  CHECK(strstr(json, "\"reasoning\":\"I think.\"") != NULL);
  CHECK_OK(ai00_output_parser_free(p));

  /* ai00 v1 tool calls: two whole calls, finish reason tool_calls. */
  o.thinking = AI00_THINKING_OFF;
  o.tools_json = kTools;
  o.tools_json_len = strlen(kTools);
  CHECK_OK(ai00_output_parser_new(&p, v1, &o));
  reasoning[0] = content[0] = '\0';
  push_bytewise(p,
                "<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter "
                "name=\"city\">Tokyo</parameter>\n  </invoke>\n  <invoke name=\"get_weather\">\n"
                "    <parameter name=\"city\">London</parameter>\n  </invoke>\n"
                "</ai00:function_calls>",
                reasoning, content, &calls);
  CHECK_OK(ai00_output_parser_finish(p, AI00_FINISH_STOP));
  CHECK_OK(ai00_output_parser_pending(&n, p));
  /* A struct_size the library does not know is refused before a delta is taken. */
  d.struct_size = 0;
  CHECK(ai00_output_parser_next(&d, p) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("ai00_delta.struct_size = 0");
  d.struct_size = sizeof d + 8;
  CHECK(ai00_output_parser_next(&d, p) == AI00_ERR_INVALID_ARGUMENT);
  CHECK_OK(ai00_output_parser_pending(&len, p));
  CHECK(len == n);
  d.struct_size = sizeof d;
  while (n-- > 0) {
    CHECK_OK(ai00_output_parser_next(&d, p));
    if (d.kind == AI00_DELTA_TOOL_CALL) ++calls;
  }
  CHECK(calls == 2);
  CHECK_OK(ai00_output_parser_finish_reason(&finish, p));
  CHECK(finish == AI00_FINISH_TOOL_CALLS);
  CHECK_OK(ai00_output_parser_message_json(&json, &len, p));
  CHECK(strstr(json, "\"arguments\":{\"city\":\"London\"}") != NULL);
  CHECK_OK(ai00_output_parser_warning_count(&n, p));
  CHECK(n == 0);
  CHECK(ai00_output_parser_warning(&json, &len, p, 0) == AI00_ERR_INVALID_ARGUMENT);
  ai00_output_parser_free(p);

  /* Bad inputs: a malformed tool list, an unknown struct size, a NULL template. */
  o.tools_json = "[{\"description\": \"no name\"}]";
  o.tools_json_len = AI00_NUL_TERMINATED;
  CHECK(ai00_output_parser_new(&p, v1, &o) == AI00_ERR_FORMAT);
  LAST_ERROR_HAS("/0");
  o.tools_json = NULL;
  o.struct_size = 3;
  CHECK(ai00_output_parser_new(&p, v1, &o) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("struct_size");
  CHECK(ai00_output_parser_new(&p, NULL, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK_OK(ai00_output_parser_free(NULL));
  CHECK_OK(ai00_finish_reason_name(&name, AI00_FINISH_TOOL_CALLS));
  CHECK(strcmp(name, "tool_calls") == 0);
  CHECK(ai00_finish_reason_name(&name, 99) == AI00_ERR_INVALID_ARGUMENT);
  ai00_chat_template_free(goose);
  ai00_chat_template_free(v1);
}

static int32_t verdict(const ai00_grammar* g, const char* text, uint64_t* offset) {
  ai00_grammar_check_result r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  CHECK_OK(ai00_grammar_check(&r, g, text, strlen(text)));
  if (offset != NULL) *offset = r.byte_offset;
  return r.verdict;
}

static void test_grammar_kbnf(const ai00_model* model) {
  const char* yes_no = "start ::= 'yes' | 'no';\nalt ::= 'ok';";
  ai00_grammar* g = NULL;
  ai00_grammar_params gp;
  ai00_grammar_check_result r;
  ai00_tokenizer* tok = NULL;
  ai00_generator* gen = NULL;
  ai00_state* state = NULL;
  ai00_generate_params params;
  uint64_t at = 0;
  CHECK_OK(ai00_grammar_new(&g, NULL, yes_no, AI00_NUL_TERMINATED, NULL));
  CHECK(verdict(g, "yes", NULL) == AI00_CHECK_ACCEPTED);
  CHECK(verdict(g, "yeah", &at) == AI00_CHECK_BYTES && at == 2);
  CHECK(verdict(g, "ye", &at) == AI00_CHECK_BYTES && at == 2);
  memset(&r, 0, sizeof r);
  CHECK(ai00_grammar_check(&r, g, "yes", 3) == AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("struct_size");
  /* A grammar made without the model is refused by a generator of the model. */
  CHECK_OK(ai00_state_new(&state, model));
  CHECK_OK(ai00_generate_params_default(&params));
  params.grammar = g;
  CHECK(ai00_generator_new_raw(&gen, model, state, "Q", 1, NULL, &params) == AI00_ERR_MISMATCH);
  LAST_ERROR_HAS("ai00_grammar_compile");
  CHECK(gen == NULL);
  ai00_state_free(state);
  ai00_grammar_free(g);
  /* Another start rule. */
  CHECK_OK(ai00_grammar_params_default(&gp));
  gp.start_rule = "alt";
  gp.start_rule_len = AI00_NUL_TERMINATED;
  CHECK_OK(ai00_grammar_new(&g, NULL, yes_no, AI00_NUL_TERMINATED, &gp));
  CHECK(verdict(g, "ok", NULL) == AI00_CHECK_ACCEPTED);
  CHECK(verdict(g, "yes", &at) == AI00_CHECK_BYTES && at == 0);
  ai00_grammar_free(g);
  /* Malformed grammars: line and column, the undefined rule. */
  CHECK(ai00_grammar_new(&g, NULL, "start ::= 'a' |;", AI00_NUL_TERMINATED, NULL) ==
        AI00_ERR_GRAMMAR);
  LAST_ERROR_HAS("line 1, column 16");
  CHECK(ai00_grammar_new(&g, NULL, "start ::= a;", AI00_NUL_TERMINATED, NULL) == AI00_ERR_GRAMMAR);
  LAST_ERROR_HAS("undefined rule");
  CHECK(ai00_grammar_new(&g, NULL, NULL, 0, NULL) == AI00_ERR_INVALID_ARGUMENT);
  /* Over a vocabulary: the greedy tokenization is replayed against the masks. */
  CHECK_OK(ai00_tokenizer_load(&tok, g_vocab_path, AI00_NUL_TERMINATED));
  CHECK_OK(ai00_grammar_new(&g, tok, "start ::= #ex'</a>' '</a>';", AI00_NUL_TERMINATED, NULL));
  CHECK(verdict(g, "Hello world, how are you?</a>", NULL) == AI00_CHECK_ACCEPTED);
  CHECK(verdict(g, "Hello</a>x", &at) == AI00_CHECK_BYTES && at == 9);
  ai00_grammar_free(g);
  ai00_tokenizer_free(tok);
}

static void test_grammar_schema_and_tools(void) {
  const char* schema =
      "{\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"integer\"}}, \"required\": "
      "[\"x\"]}";
  const char* unsupported = "{\"type\": \"array\", \"unevaluatedItems\": {}}";
  ai00_grammar* g = NULL;
  ai00_schema_options so;
  ai00_tool_grammar_params tp;
  ai00_chat_template* v1 = NULL;
  ai00_chat_template* goose = NULL;
  const char* text = NULL;
  size_t len = 0, n = 0;
  CHECK_OK(ai00_grammar_new_from_json_schema(&g, NULL, schema, AI00_NUL_TERMINATED, NULL));
  CHECK_OK(ai00_grammar_kbnf(&text, &len, g));
  CHECK(len == strlen(text) && strstr(text, "start") != NULL);
  CHECK(verdict(g, "{\"x\": 12}", NULL) == AI00_CHECK_ACCEPTED);
  CHECK(verdict(g, "{\"x\": \"a\"}", NULL) == AI00_CHECK_BYTES);
  CHECK_OK(ai00_grammar_warning_count(&n, g));
  CHECK(n == 0);
  ai00_grammar_free(g);
  CHECK(ai00_grammar_new_from_json_schema(&g, NULL, unsupported, AI00_NUL_TERMINATED, NULL) ==
        AI00_ERR_GRAMMAR);
  LAST_ERROR_HAS("/unevaluatedItems");
  CHECK_OK(ai00_schema_options_default(&so));
  CHECK(so.strict_properties == 0 && so.lenient == 0 && so.flexible_whitespace == 1 &&
        so.max_whitespace == 0 && so.compact == 0);
  so.lenient = 1;
  CHECK_OK(ai00_grammar_new_from_json_schema(&g, NULL, unsupported, AI00_NUL_TERMINATED, &so));
  CHECK_OK(ai00_grammar_warning_count(&n, g));
  CHECK(n == 1);
  CHECK_OK(ai00_grammar_warning(&text, &len, g, 0));
  CHECK(strstr(text, "unevaluatedItems") != NULL);
  CHECK(ai00_grammar_warning(&text, &len, g, 1) == AI00_ERR_INVALID_ARGUMENT);
  ai00_grammar_free(g);
  so.max_whitespace = 65;
  CHECK(ai00_grammar_new_from_json_schema(&g, NULL, schema, AI00_NUL_TERMINATED, &so) ==
        AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("max_whitespace = 65");

  CHECK_OK(ai00_chat_template_new(&v1, "ai00-v1", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_chat_template_new(&goose, "goose", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_tool_grammar_params_default(&tp));
  CHECK(tp.level == AI00_GRAMMAR_STRUCTURAL);
  tp.level = AI00_GRAMMAR_SCHEMA_AWARE;
  CHECK_OK(ai00_grammar_new_for_tools(&g, NULL, v1, kTools, AI00_NUL_TERMINATED, &tp));
  CHECK_OK(ai00_grammar_kbnf(&text, &len, g));
  CHECK(strstr(text, "get_weather") != NULL);
  CHECK(verdict(g,
                "<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter "
                "name=\"city\">Paris</parameter>\n  </invoke>\n</ai00:function_calls>",
                NULL) == AI00_CHECK_ACCEPTED);
  CHECK(verdict(g,
                "<ai00:function_calls>\n  <invoke name=\"get_time\">\n  </invoke>\n"
                "</ai00:function_calls>",
                NULL) == AI00_CHECK_BYTES);
  ai00_grammar_free(g);
  CHECK(ai00_grammar_new_for_tools(&g, NULL, goose, kTools, AI00_NUL_TERMINATED, &tp) ==
        AI00_ERR_INVALID_ARGUMENT);
  CHECK(ai00_grammar_new_for_tools(&g, NULL, v1, "[{\"name\": 3}]", AI00_NUL_TERMINATED, &tp) ==
        AI00_ERR_FORMAT);
  LAST_ERROR_HAS("/0/name");
  tp.level = AI00_GRAMMAR_NONE;
  CHECK(ai00_grammar_new_for_tools(&g, NULL, v1, kTools, AI00_NUL_TERMINATED, &tp) ==
        AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("level = 1");
  tp.level = AI00_GRAMMAR_STRUCTURAL;
  tp.thinking_start = 7;
  CHECK(ai00_grammar_new_for_tools(&g, NULL, v1, kTools, AI00_NUL_TERMINATED, &tp) ==
        AI00_ERR_INVALID_ARGUMENT);
  LAST_ERROR_HAS("thinking_start = 7");
  ai00_chat_template_free(v1);
  ai00_chat_template_free(goose);
}

int main(void) {
  ai00_model* model = NULL;
  setup_paths();
  if (ai00_model_load(&model, g_model_path, AI00_NUL_TERMINATED, NULL) != AI00_OK) {
    fprintf(stderr, "cannot load %s: %s\n", g_model_path, ai00_last_error());
    return 1;
  }
  test_model_info_json(model);
  test_eval_all(model);
  test_tokenizer(model);
  test_last_render_json();
  test_output_parser();
  test_output_parser_length_cut();
  test_template_config();
  test_output_parser_streaming();
  test_output_parser_streaming_json();
  test_grammar_kbnf(model);
  test_grammar_schema_and_tools();
  ai00_model_free(model);
  if (g_failures != 0) {
    fprintf(stderr, "%d checks failed\n", g_failures);
    return 1;
  }
  printf("test_c_api_inspect: all checks passed\n");
  return 0;
}
