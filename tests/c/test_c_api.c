/* The C ABI driven from C99 (compiled with -Wall -Wextra -pedantic -Werror): a model, the
 * tokenizer, States (eval, save/restore, clone, files), sampling, chat templates, grammars and a
 * generated turn, plus the bad inputs each must refuse with a clear status and message.
 * Fixtures: $AI00_SHARED_DIR or the compiled-in AI00_DEFAULT_SHARED_DIR. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai00/ai00.h"
#include "c_check.h"

static char g_model_path[1024];
static char g_tmp_dir[1024];

static void setup_paths(void) {
  const char* shared = getenv("AI00_SHARED_DIR");
  const char* tmp = getenv("TMPDIR");
  if (shared == NULL || shared[0] == '\0') shared = AI00_DEFAULT_SHARED_DIR;
  if (tmp == NULL || tmp[0] == '\0') tmp = "/tmp";
  snprintf(g_model_path, sizeof g_model_path, "%s/models/rand-rwkv7-c128-l3-v512-F16.gguf", shared);
  snprintf(g_tmp_dir, sizeof g_tmp_dir, "%s", tmp);
}

static void test_versions_and_errors(void) {
  uint32_t v = 0;
  ai00_model* model = NULL;
  CHECK_OK(ai00_version_number(&v));
  CHECK(v == AI00_VERSION_NUMBER);
  CHECK_OK(ai00_abi_version(&v));
  CHECK(v == AI00_ABI_VERSION);
  CHECK(ai00_version_number(NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "out_version") != NULL);
  CHECK(strcmp(ai00_status_string(AI00_ERR_GRAMMAR), "malformed or unsupported grammar") == 0);
  /* A missing file: AI00_ERR_IO and the path in the message. */
  CHECK(ai00_model_load(&model, "/nonexistent/dir/m.gguf", AI00_NUL_TERMINATED, NULL) ==
        AI00_ERR_IO);
  CHECK(model == NULL);
  CHECK(strstr(ai00_last_error(), "/nonexistent/dir/m.gguf") != NULL);
  /* NULL handles and destroy(NULL). */
  CHECK(ai00_model_load(NULL, "x", 1, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(ai00_model_free(NULL) == AI00_OK);
  CHECK(ai00_state_free(NULL) == AI00_OK);
  CHECK(ai00_grammar_free(NULL) == AI00_OK);
  CHECK(ai00_chat_template_free(NULL) == AI00_OK);
  CHECK(ai00_generator_free(NULL) == AI00_OK);
  CHECK(strcmp(ai00_model_last_error(NULL), "") == 0);
}

static ai00_model* load_model(void) {
  ai00_model_params params;
  ai00_model* model = NULL;
  CHECK_OK(ai00_model_params_default(&params));
  CHECK(params.n_threads == 1);
  /* A struct_size this library does not know is refused (a newer, larger header). */
  params.struct_size = 7;
  CHECK(ai00_model_load(&model, g_model_path, AI00_NUL_TERMINATED, &params) ==
        AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "struct_size") != NULL);
  params.struct_size = sizeof params;
  params.n_threads = 2;
  CHECK_OK(ai00_model_load(&model, g_model_path, strlen(g_model_path), &params));
  return model;
}

static void test_model_and_tokenizer(ai00_model* model) {
  ai00_model_info info;
  const char* isa = NULL;
  uint32_t tokens[64];
  size_t count = 0, len = 0;
  char text[64];
  const char* hello = "Hello, world";
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK_OK(ai00_model_get_info(&info, model));
  CHECK(info.n_layer == 3 && info.n_embd == 128 && info.n_vocab == 512);
  CHECK(info.n_threads == 2 && info.state_bytes > 0);
  CHECK_OK(ai00_model_isa_name(&isa, model));
  CHECK(isa != NULL && isa[0] != '\0');
  /* Two-call idiom: size query, then too small, then enough. */
  CHECK(ai00_model_tokenize(&count, NULL, 0, model, hello, strlen(hello)) ==
        AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(count > 0 && count <= strlen(hello));
  CHECK(ai00_model_tokenize(&count, tokens, 1, model, hello, strlen(hello)) ==
        AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(strstr(ai00_model_last_error(model), "capacity is 1") != NULL);
  CHECK_OK(ai00_model_tokenize(&count, tokens, 64, model, hello, AI00_NUL_TERMINATED));
  CHECK_OK(ai00_model_detokenize(&len, text, sizeof text, model, tokens, count));
  CHECK(len == strlen(hello) && memcmp(text, hello, len) == 0);
  tokens[0] = 100000; /* outside the vocabulary */
  CHECK(ai00_model_detokenize(&len, text, sizeof text, model, tokens, 1) ==
        AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "100000") != NULL);
}

static size_t argmax(const float* x, size_t n) {
  size_t i, best = 0;
  for (i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

static int same(const float* a, const float* b, size_t n) {
  return memcmp(a, b, n * sizeof(float)) == 0;
}

/* Evaluates a prompt, saves, continues; a restored State and a clone continue identically. */
static void test_state(ai00_model* model) {
  static float logits[512], after_a[512], after_b[512];
  uint32_t prompt[3] = {10, 20, 30}, next = 40, sampled = 0;
  ai00_state *state = NULL, *restored = NULL, *clone = NULL, *from_file = NULL;
  ai00_sampler_params sp;
  unsigned char* buf;
  size_t size = 0, count = 0;
  char path[1200];
  CHECK_OK(ai00_state_new(&state, model));
  CHECK(ai00_state_eval(&count, logits, 100, model, state, prompt, 3) == AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(count == 512);
  CHECK(ai00_state_eval(NULL, logits, 512, model, state, prompt, 0) == AI00_ERR_INVALID_ARGUMENT);
  prompt[1] = 9999; /* bad id: refused, State untouched */
  CHECK(ai00_state_eval(NULL, logits, 512, model, state, prompt, 3) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_state_last_error(state), "9999") != NULL);
  prompt[1] = 20;
  CHECK_OK(ai00_state_eval(&count, logits, 512, model, state, prompt, 3));
  CHECK(count == 512 && isfinite(logits[0]));
  /* Greedy sampling is the argmax. */
  CHECK_OK(ai00_sampler_params_default(&sp));
  sp.method = AI00_SAMPLER_GREEDY;
  CHECK_OK(ai00_state_sample(&sampled, state, &sp, logits, 512));
  CHECK(sampled == argmax(logits, 512));
  sp.top_p = 2.0f; /* out of range: the field is named */
  CHECK(ai00_state_sample(&sampled, state, &sp, logits, 512) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "top_p") != NULL);
  /* Save to a caller buffer: the size query, then the bytes. */
  CHECK(ai00_state_save(&size, NULL, 0, state) == AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(size > 3 * 128 * 66 * 4);
  buf = (unsigned char*)malloc(size);
  CHECK(ai00_state_save(&size, buf, size - 1, state) == AI00_ERR_BUFFER_TOO_SMALL);
  CHECK_OK(ai00_state_save(&size, buf, size, state));
  CHECK_OK(ai00_state_clone(&clone, state));
  CHECK_OK(ai00_state_eval(NULL, after_a, 512, model, state, &next, 1));
  CHECK_OK(ai00_state_load(&restored, model, buf, size));
  CHECK_OK(ai00_state_eval(NULL, after_b, 512, model, restored, &next, 1));
  CHECK(same(after_a, after_b, 512));
  CHECK_OK(ai00_state_eval(NULL, after_b, 512, model, clone, &next, 1));
  CHECK(same(after_a, after_b, 512));
  /* A corrupt buffer names the byte offset; a truncated one too. */
  buf[100] ^= 0xff;
  CHECK(ai00_state_load(&from_file, model, buf, size) == AI00_ERR_MODEL_FILE);
  CHECK(strstr(ai00_last_error(), "checksum") != NULL);
  CHECK(ai00_state_load(&from_file, model, buf, 10) == AI00_ERR_MODEL_FILE);
  CHECK(from_file == NULL);
  /* Files. */
  snprintf(path, sizeof path, "%s/ai00_test_c_api_%ld.state", g_tmp_dir, (long)size);
  CHECK_OK(ai00_state_save_file(restored, path, AI00_NUL_TERMINATED));
  CHECK_OK(ai00_state_load_file(&from_file, model, path, AI00_NUL_TERMINATED));
  CHECK_OK(ai00_state_eval(NULL, after_a, 512, model, restored, &next, 1));
  CHECK_OK(ai00_state_eval(NULL, after_b, 512, model, from_file, &next, 1));
  CHECK(same(after_a, after_b, 512));
  remove(path);
  CHECK(ai00_state_load_file(&clone, model, "/nonexistent/x.state", AI00_NUL_TERMINATED) ==
        AI00_ERR_IO);
  CHECK(strstr(ai00_last_error(), "/nonexistent/x.state") != NULL);
  CHECK_OK(ai00_state_reset(state));
  /* An ai00 `.state` initial state (state tuning) starts a State from it. */
  ai00_state_free(clone);
  clone = NULL;
  snprintf(path, sizeof path, "%s", g_model_path);
  strcpy(strstr(path, "-F16.gguf"), "-init.state");
  CHECK_OK(ai00_state_load_initial(&clone, model, path, AI00_NUL_TERMINATED));
  CHECK_OK(ai00_state_eval(NULL, after_a, 512, model, clone, &next, 1));
  CHECK(!same(after_a, after_b, 512));
  free(buf);
  ai00_state_free(state);
  ai00_state_free(restored);
  ai00_state_free(clone);
  ai00_state_free(from_file);
}

static void test_chat_template(void) {
  ai00_chat_template* tmpl = NULL;
  ai00_render_options ro;
  const char *prompt = NULL, *stop = NULL;
  size_t len = 0, n = 0;
  const char* conv = "[{\"role\":\"user\",\"content\":\"Hi there\"}]";
  CHECK(ai00_chat_template_new(&tmpl, "no-such-format", AI00_NUL_TERMINATED) ==
        AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "goose") != NULL); /* lists the known names */
  CHECK_OK(ai00_chat_template_new(&tmpl, "goose", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_render_options_default(&ro));
  CHECK_OK(ai00_chat_template_render(&prompt, &len, tmpl, conv, strlen(conv), &ro));
  CHECK(len == strlen("User: Hi there\n\nAssistant:"));
  CHECK(strcmp(prompt, "User: Hi there\n\nAssistant:") == 0);
  CHECK_OK(ai00_chat_template_stop_count(&n, tmpl));
  CHECK(n >= 1);
  CHECK_OK(ai00_chat_template_stop(&stop, &len, tmpl, 0));
  CHECK(ai00_chat_template_stop(&stop, &len, tmpl, n) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(ai00_chat_template_render(&prompt, &len, tmpl, "[{\"role\":7}]", AI00_NUL_TERMINATED,
                                  NULL) == AI00_ERR_FORMAT);
  CHECK(strstr(ai00_chat_template_last_error(tmpl), "/0/role") != NULL);
  /* Tools go through the render options; a malformed tool list names its JSON pointer. */
  CHECK_OK(ai00_chat_template_free(tmpl));
  CHECK_OK(ai00_chat_template_new(&tmpl, "ai00-v1", AI00_NUL_TERMINATED));
  ro.tools_json =
      "[{\"name\":\"get_time\",\"description\":\"Current time\","
      "\"parameters\":{\"type\":\"object\"}}]";
  ro.tools_json_len = strlen(ro.tools_json);
  ro.thinking = AI00_THINKING_ON;
  CHECK_OK(ai00_chat_template_render(&prompt, &len, tmpl, conv, strlen(conv), &ro));
  CHECK(strstr(prompt, "<ai00:available_tools>") != NULL);
  CHECK(strstr(prompt, "get_time") != NULL);
  CHECK(strstr(prompt, "<think>") != NULL);
  ro.tools_json = "[{\"description\":7}]";
  ro.tools_json_len = AI00_NUL_TERMINATED;
  CHECK(ai00_chat_template_render(&prompt, &len, tmpl, conv, strlen(conv), &ro) == AI00_ERR_FORMAT);
  CHECK(strstr(ai00_last_error(), "tools_json") != NULL);
  ro.tools_json = NULL;
  ro.tools_json_len = 0;
  ro.thinking = 99;
  CHECK(ai00_chat_template_render(&prompt, &len, tmpl, conv, strlen(conv), &ro) ==
        AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "thinking") != NULL);
  ai00_chat_template_free(tmpl);
}

static void test_grammar(ai00_model* model) {
  ai00_grammar* g = NULL;
  int32_t ok = 0;
  const char* kbnf = "start ::= \"yes\" | \"no\";\n";
  CHECK_OK(ai00_grammar_compile(&g, model, kbnf, strlen(kbnf)));
  CHECK_OK(ai00_grammar_accepts(&ok, g, "yes", 3));
  CHECK(ok == 1);
  CHECK_OK(ai00_grammar_accepts(&ok, g, "maybe", 5));
  CHECK(ok == 0);
  ai00_grammar_free(g);
  g = NULL;
  /* A syntax error on line 2: AI00_ERR_GRAMMAR with line:column. */
  CHECK(ai00_grammar_compile(&g, model, "start ::= a;\na ::= \"x\" |;\n", AI00_NUL_TERMINATED) ==
        AI00_ERR_GRAMMAR);
  CHECK(g == NULL);
  CHECK(strstr(ai00_last_error(), "line 2, column") != NULL);
  CHECK(strstr(ai00_model_last_error(model), "line 2, column") != NULL);
  CHECK_OK(ai00_grammar_from_json_schema(&g, model, "{\"type\":\"boolean\"}", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_grammar_accepts(&ok, g, "true", 4));
  CHECK(ok == 1);
  ai00_grammar_free(g);
  g = NULL;
  CHECK(ai00_grammar_from_json_schema(&g, model, "{\"unevaluatedItems\":{}}",
                                      AI00_NUL_TERMINATED) == AI00_ERR_GRAMMAR);
  CHECK(strstr(ai00_last_error(), "/unevaluatedItems") != NULL);
  /* Syntax errors name the byte offset and line:column. */
  CHECK(ai00_grammar_from_json_schema(&g, model, "{\"type\":\n 7,}", AI00_NUL_TERMINATED) ==
        AI00_ERR_GRAMMAR);
  CHECK(strstr(ai00_last_error(), "byte 12 (line 2, column 4)") != NULL);
  /* A schema no finite value satisfies is an error, not a dead grammar. */
  CHECK(ai00_grammar_from_json_schema(&g, model, "{\"$ref\":\"#\"}", AI00_NUL_TERMINATED) ==
        AI00_ERR_GRAMMAR);
  CHECK(strstr(ai00_last_error(), "no finite JSON value") != NULL);
  {
    /* Defaults read JSON as validators do (whitespace, extra keys); compact and strict are
     * options. */
    const char* schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}";
    ai00_schema_options so;
    CHECK_OK(
        ai00_grammar_from_json_schema_with_options(&g, model, schema, AI00_NUL_TERMINATED, NULL));
    CHECK_OK(ai00_grammar_accepts(&ok, g, "{ \"a\" : 1.0 ,\n \"b\": [] }", AI00_NUL_TERMINATED));
    CHECK(ok == 1);
    /* For generation a model-bound grammar takes no whitespace around the value. */
    CHECK_OK(ai00_grammar_accepts(&ok, g, " {}", AI00_NUL_TERMINATED));
    CHECK(ok == 0);
    ai00_grammar_free(g);
    g = NULL;
    CHECK_OK(ai00_schema_options_default(&so));
    CHECK(so.flexible_whitespace == 1 && so.max_whitespace == 0 && so.compact == 0 &&
          so.strict_properties == 0);
    so.flexible_whitespace = 0;
    so.compact = 1;
    so.strict_properties = 1;
    CHECK_OK(
        ai00_grammar_from_json_schema_with_options(&g, model, schema, AI00_NUL_TERMINATED, &so));
    CHECK_OK(ai00_grammar_accepts(&ok, g, "{\"a\":1}", AI00_NUL_TERMINATED));
    CHECK(ok == 1);
    CHECK_OK(ai00_grammar_accepts(&ok, g, "{\"a\": 1}", AI00_NUL_TERMINATED));
    CHECK(ok == 0);
    CHECK_OK(ai00_grammar_accepts(&ok, g, "{\"a\":1,\"b\":2}", AI00_NUL_TERMINATED));
    CHECK(ok == 0);
    ai00_grammar_free(g);
    g = NULL;
    /* A caller built before `compact` was appended: accepted, compact off. */
    so.struct_size = (uint32_t)offsetof(ai00_schema_options, compact);
    CHECK_OK(
        ai00_grammar_from_json_schema_with_options(&g, model, schema, AI00_NUL_TERMINATED, &so));
    CHECK_OK(ai00_grammar_accepts(&ok, g, "{\"a\": 1}", AI00_NUL_TERMINATED));
    CHECK(ok == 1);
    ai00_grammar_free(g);
    g = NULL;
    so.struct_size = 3;
    CHECK(ai00_grammar_from_json_schema_with_options(&g, model, schema, AI00_NUL_TERMINATED, &so) ==
          AI00_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ai00_last_error(), "struct_size") != NULL);
    CHECK(g == NULL);
  }
}

/* Collects a turn's text through the callback; `stop_after` > 0 stops after that many deltas. */
typedef struct collected {
  char text[4096];
  size_t len;
  int n_deltas;
  int n_finish;
  int stop_after;
} collected;

static int32_t collect(const ai00_delta* d, void* user_data) {
  collected* c = (collected*)user_data;
  ++c->n_deltas;
  if (d->kind == AI00_DELTA_FINISH) ++c->n_finish;
  if ((d->kind == AI00_DELTA_TEXT || d->kind == AI00_DELTA_REASONING) &&
      c->len + d->text_len < sizeof c->text) {
    memcpy(c->text + c->len, d->text, d->text_len);
    c->len += d->text_len;
    c->text[c->len] = '\0';
  }
  return (c->stop_after > 0 && c->n_deltas >= c->stop_after) ? 1 : 0;
}

static const char* k_conv = "[{\"role\":\"user\",\"content\":\"Tell me a story\"}]";

static ai00_generator* chat_turn(ai00_model* model, ai00_state* state, ai00_chat_template* tmpl,
                                 uint32_t max_tokens) {
  ai00_generator* gen = NULL;
  ai00_generate_params gp;
  ai00_sampler_params sp;
  CHECK_OK(ai00_generate_params_default(&gp));
  CHECK_OK(ai00_sampler_params_default(&sp));
  gp.max_tokens = max_tokens;
  gp.set_seed = 1;
  gp.seed = 42;
  CHECK_OK(ai00_generator_new_chat(&gen, model, state, tmpl, k_conv, AI00_NUL_TERMINATED, NULL, &sp,
                                   &gp));
  if (gen == NULL) {
    fprintf(stderr, "cannot create a generator: %s\n", ai00_last_error());
    exit(1);
  }
  return gen;
}

/* A whole chat turn three ways (pull, push, step) on clones of one State: same text. */
static void test_generator(ai00_model* model) {
  ai00_state *base = NULL, *s1 = NULL, *s2 = NULL, *s3 = NULL;
  ai00_chat_template* tmpl = NULL;
  ai00_generator* gen = NULL;
  ai00_delta d = {sizeof(ai00_delta), 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0};
  collected pushed, stepped;
  char pulled[4096];
  size_t pulled_len = 0, n_tokens = 0, json_len = 0;
  int32_t reason = AI00_FINISH_NONE, finished = 0;
  const uint32_t* tokens = NULL;
  const char* json = NULL;
  int guard = 0;
  memset(&pushed, 0, sizeof pushed);
  memset(&stepped, 0, sizeof stepped);
  CHECK_OK(ai00_chat_template_new(&tmpl, "goose", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_state_new(&base, model));
  CHECK_OK(ai00_state_clone(&s1, base));
  CHECK_OK(ai00_state_clone(&s2, base));
  CHECK_OK(ai00_state_clone(&s3, base));
  /* Pull. */
  gen = chat_turn(model, s1, tmpl, 12);
  CHECK_OK(ai00_generator_finish_reason(&reason, gen));
  CHECK(reason == AI00_FINISH_NONE);
  /* ai00_generator_next honours struct_size: an unknown size is refused and nothing is lost. */
  d.struct_size = 3;
  CHECK(ai00_generator_next(&d, gen) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_generator_last_error(gen), "ai00_delta.struct_size = 3") != NULL);
  d.struct_size = sizeof d;
  do {
    CHECK_OK(ai00_generator_next(&d, gen));
    CHECK(d.struct_size == sizeof d);
    if (d.kind == AI00_DELTA_TEXT && pulled_len + d.text_len < sizeof pulled) {
      memcpy(pulled + pulled_len, d.text, d.text_len);
      pulled_len += d.text_len;
    }
  } while (d.kind != AI00_DELTA_FINISH && ++guard < 1000);
  pulled[pulled_len] = '\0';
  CHECK(d.finish_reason == AI00_FINISH_STOP || d.finish_reason == AI00_FINISH_LENGTH);
  CHECK_OK(ai00_generator_next(&d, gen)); /* FINISH repeats */
  CHECK(d.kind == AI00_DELTA_FINISH);
  CHECK_OK(ai00_generator_tokens(&tokens, &n_tokens, gen));
  CHECK(n_tokens >= 1 && n_tokens <= 12);
  CHECK_OK(ai00_generator_warning_count(&json_len, gen));
  CHECK(ai00_generator_warning(&json, &json_len, gen, 1000) == AI00_ERR_INVALID_ARGUMENT);
  CHECK_OK(ai00_generator_message_json(&json, &json_len, gen));
  CHECK(strstr(json, "\"assistant\"") != NULL);
  printf("chat turn: %u tokens, finish %d, %u bytes of text\n", (unsigned)n_tokens,
         (int)d.finish_reason, (unsigned)pulled_len);
  ai00_generator_free(gen);
  /* Push. */
  gen = chat_turn(model, s2, tmpl, 12);
  CHECK_OK(ai00_generator_run(&reason, gen, collect, &pushed));
  CHECK(pushed.n_finish == 1);
  CHECK(strcmp(pushed.text, pulled) == 0);
  ai00_generator_free(gen);
  /* Step, two tokens per call, deltas to the callback. */
  gen = chat_turn(model, s3, tmpl, 12);
  guard = 0;
  while (!finished && ++guard < 1000)
    CHECK_OK(ai00_generator_step(&finished, gen, 2, collect, &stepped));
  CHECK(stepped.n_finish == 1);
  CHECK(strcmp(stepped.text, pulled) == 0);
  ai00_generator_free(gen);
  /* Step with queued deltas: step, then take exactly the pending ones (bounded work). */
  CHECK_OK(ai00_state_reset(s3));
  gen = chat_turn(model, s3, tmpl, 12);
  finished = 0;
  guard = 0;
  pulled_len = 0;
  while (!finished && ++guard < 1000) {
    size_t pending = 0, before = 0, after = 0;
    CHECK_OK(ai00_generator_tokens(&tokens, &before, gen));
    CHECK_OK(ai00_generator_step(&finished, gen, 1, NULL, NULL));
    CHECK_OK(ai00_generator_tokens(&tokens, &after, gen));
    CHECK(after - before <= 1);
    CHECK_OK(ai00_generator_pending(&pending, gen));
    for (; pending > 0; --pending) {
      CHECK_OK(ai00_generator_next(&d, gen));
      if (d.kind == AI00_DELTA_TEXT && pulled_len + d.text_len < sizeof pulled) {
        memcpy(pulled + pulled_len, d.text, d.text_len);
        pulled_len += d.text_len;
      }
    }
  }
  pulled[pulled_len] = '\0';
  CHECK(strcmp(stepped.text, pulled) == 0);
  ai00_generator_free(gen);
  /* A callback returning non-zero cancels the turn. */
  memset(&pushed, 0, sizeof pushed);
  pushed.stop_after = 1;
  CHECK_OK(ai00_state_reset(s1));
  gen = chat_turn(model, s1, tmpl, 50);
  CHECK_OK(ai00_generator_run(&reason, gen, collect, &pushed));
  CHECK(reason == AI00_FINISH_CANCELLED || reason == AI00_FINISH_STOP);
  ai00_generator_free(gen);
  /* Bad conversation JSON: AI00_ERR_FORMAT, no generator. */
  gen = NULL;
  CHECK(ai00_generator_new_chat(&gen, model, s1, tmpl, "[{\"role\":\"nobody\"}]",
                                AI00_NUL_TERMINATED, NULL, NULL, NULL) == AI00_ERR_FORMAT);
  CHECK(gen == NULL);
  ai00_chat_template_free(tmpl);
  ai00_state_free(base);
  ai00_state_free(s1);
  ai00_state_free(s2);
  ai00_state_free(s3);
}

/* A raw turn under a grammar can only write a sentence of it. */
static void test_grammar_turn(ai00_model* model) {
  ai00_state* state = NULL;
  ai00_grammar* g = NULL;
  ai00_generator* gen = NULL;
  ai00_generate_params gp;
  collected out;
  int32_t reason = AI00_FINISH_NONE, ok = 0;
  memset(&out, 0, sizeof out);
  CHECK_OK(ai00_state_new(&state, model));
  CHECK_OK(ai00_grammar_compile(&g, model, "start ::= \"yes\" | \"no\";", AI00_NUL_TERMINATED));
  CHECK_OK(ai00_generate_params_default(&gp));
  gp.grammar = g;
  gp.max_tokens = 20;
  gp.set_seed = 1;
  gp.seed = 7;
  CHECK(ai00_generator_new_raw(&gen, model, state, "", 0, NULL, &gp) == AI00_ERR_INVALID_ARGUMENT);
  CHECK_OK(ai00_generator_new_raw(&gen, model, state, "Q: yes or no?\nA: ", AI00_NUL_TERMINATED,
                                  NULL, &gp));
  if (gen == NULL) exit(1);
  CHECK_OK(ai00_generator_run(&reason, gen, collect, &out));
  CHECK(reason == AI00_FINISH_GRAMMAR_DONE || reason == AI00_FINISH_STOP);
  printf("grammar turn: \"%s\", finish %d\n", out.text, (int)reason);
  CHECK_OK(ai00_grammar_accepts(&ok, g, out.text, out.len));
  CHECK(ok == 1);
  ai00_generator_free(gen);
  ai00_grammar_free(g);
  ai00_state_free(state);
}

/* Seed 003 "Custom Grammars": with thinking on, a custom grammar given through the C ABI is
 * wrapped in the thinking block. The sampler is pushed hard towards 'x', which `yes | no` alone
 * never allows: the reply must think in x's (reasoning) and may then only say yes or no. */
static void test_grammar_turn_thinking(ai00_model* model) {
  ai00_chat_template* tmpl = NULL;
  ai00_state* state = NULL;
  ai00_grammar* g = NULL;
  ai00_generator* gen = NULL;
  ai00_generate_params gp;
  ai00_sampler_params sp;
  ai00_render_options ro;
  ai00_logit_bias bias;
  uint32_t x_token = 0;
  size_t count = 0, len = 0;
  const char* msg = NULL;
  int32_t reason = AI00_FINISH_NONE;
  collected out;
  int thinking, kind;
  CHECK_OK(ai00_model_tokenize(&count, &x_token, 1, model, "x", 1));
  CHECK(count == 1);
  bias.token = x_token;
  bias.bias = 100.0f;
  CHECK_OK(ai00_chat_template_new(&tmpl, "ai00-v1", AI00_NUL_TERMINATED));
  for (kind = 0; kind < 2; ++kind) {
    /* the same for KBNF and for a JSON Schema (whose values are JSON strings) */
    if (kind == 0) {
      CHECK_OK(ai00_grammar_compile(&g, model, "start ::= \"yes\" | \"no\";", AI00_NUL_TERMINATED));
    } else {
      CHECK_OK(ai00_grammar_from_json_schema(&g, model, "{\"enum\": [\"yes\", \"no\"]}",
                                             AI00_NUL_TERMINATED));
    }
    for (thinking = 0; thinking <= 1; ++thinking) {
      memset(&out, 0, sizeof out);
      CHECK_OK(ai00_state_new(&state, model));
      CHECK_OK(ai00_render_options_default(&ro));
      ro.thinking = thinking ? AI00_THINKING_ON : AI00_THINKING_OFF;
      CHECK_OK(ai00_sampler_params_default(&sp));
      sp.temperature = 0;
      sp.logit_bias = &bias;
      sp.n_logit_bias = 1;
      CHECK_OK(ai00_generate_params_default(&gp));
      gp.grammar = g;
      gp.max_tokens = 12;
      CHECK_OK(ai00_generator_new_chat(&gen, model, state, tmpl, k_conv, AI00_NUL_TERMINATED, &ro,
                                       &sp, &gp));
      if (gen == NULL) exit(1);
      CHECK_OK(ai00_generator_run(&reason, gen, collect, &out));
      CHECK_OK(ai00_generator_message_json(&msg, &len, gen));
      printf("grammar turn, thinking %d: \"%s\" -> %s\n", thinking, out.text, msg);
      if (thinking) {
        /* Wrapped: the block takes the x's, cut by max_tokens inside it. */
        CHECK(strstr(out.text, "xxxx") != NULL);
        CHECK(reason == AI00_FINISH_LENGTH);
        CHECK(strstr(msg, "\"reasoning\"") != NULL);
      } else {
        /* Not wrapped: the grammar alone, `yes` or `no`. */
        CHECK(strchr(out.text, 'x') == NULL);
        if (kind == 0) {
          CHECK(strcmp(out.text, "yes") == 0 || strcmp(out.text, "no") == 0);
        } else {
          CHECK(strcmp(out.text, "\"yes\"") == 0 || strcmp(out.text, "\"no\"") == 0);
        }
      }
      ai00_generator_free(gen);
      ai00_state_free(state);
    }
    ai00_grammar_free(g);
    g = NULL;
  }
  ai00_chat_template_free(tmpl);
}

int main(void) {
  ai00_model* model;
  setup_paths();
  test_versions_and_errors();
  model = load_model();
  if (model == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", g_model_path, ai00_last_error());
    return 1;
  }
  test_model_and_tokenizer(model);
  test_state(model);
  test_chat_template();
  test_grammar(model);
  test_generator(model);
  test_grammar_turn(model);
  test_grammar_turn_thinking(model);
  ai00_model_free(model);
  if (g_failures != 0) {
    fprintf(stderr, "%d checks failed\n", g_failures);
    return 1;
  }
  printf("test_c_api: all checks passed\n");
  return 0;
}
