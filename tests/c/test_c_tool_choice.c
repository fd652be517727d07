/* ai00_generate_params' tool fields (appended in 0.3) driven from C99: streamed tool-call
 * previews, tool_choice (named, required, none), parallel_tool_calls, a caller compiled against
 * the 0.2 struct, and the refusals: an unknown tool name (named in the message), an unknown
 * ai00_tool_choice value, a missing name, a tool choice beside a custom grammar or grammar_mode
 * NONE. Fixtures: $AI00_SHARED_DIR or the compiled-in AI00_DEFAULT_SHARED_DIR. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai00/ai00.h"
#include "c_check.h"

/* Both tools have finite arguments, so a forced call on the random fixture always closes. */
static const char* const k_conv = "[{\"role\":\"user\",\"content\":\"Weather in Oslo?\"}]";
static const char* const k_tools =
    "[{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\",\"properties\":{"
    "\"location\":{\"enum\":[\"Oslo\",\"Tokyo\"]},\"unit\":{\"enum\":[\"c\",\"f\"]}},"
    "\"required\":[\"location\",\"unit\"],\"additionalProperties\":false}},"
    "{\"name\":\"get_time\",\"parameters\":{\"type\":\"object\",\"additionalProperties\":false}}]";

typedef struct {
  int starts, pieces, calls;
  char arguments[512]; /* the argument pieces, concatenated */
  char whole[512];     /* the TOOL_CALL's arguments */
  char name[64];
} Seen;

static void append(char* dst, size_t cap, const char* s, size_t n) {
  size_t len = strlen(dst);
  if (len + n >= cap) n = cap - len - 1;
  memcpy(dst + len, s, n);
  dst[len + n] = '\0';
}

static int32_t collect(const ai00_delta* d, void* user_data) {
  Seen* s = (Seen*)user_data;
  if (d->kind == AI00_DELTA_TOOL_CALL_START) ++s->starts;
  if (d->kind == AI00_DELTA_TOOL_CALL_ARGUMENTS) {
    ++s->pieces;
    append(s->arguments, sizeof s->arguments, d->text, d->text_len);
  }
  if (d->kind == AI00_DELTA_TOOL_CALL) {
    ++s->calls;
    s->whole[0] = s->name[0] = '\0';
    append(s->whole, sizeof s->whole, d->text, d->text_len);
    append(s->name, sizeof s->name, d->name, d->name_len);
  }
  return 0;
}

/* Runs one chat turn with `gp`; returns the status of ai00_generator_new_chat. */
static ai00_status run_turn(ai00_model* model, const ai00_chat_template* tmpl,
                            const ai00_generate_params* gp, Seen* seen, int32_t* reason) {
  ai00_state* state = NULL;
  ai00_generator* gen = NULL;
  ai00_render_options ro;
  ai00_status st;
  memset(seen, 0, sizeof *seen);
  *reason = AI00_FINISH_NONE;
  CHECK_OK(ai00_state_new(&state, model));
  CHECK_OK(ai00_render_options_default(&ro));
  ro.tools_json = k_tools;
  ro.tools_json_len = AI00_NUL_TERMINATED;
  st =
      ai00_generator_new_chat(&gen, model, state, tmpl, k_conv, AI00_NUL_TERMINATED, &ro, NULL, gp);
  if (st == AI00_OK) {
    CHECK_OK(ai00_generator_run(reason, gen, collect, seen));
    ai00_generator_free(gen);
  } else {
    CHECK(gen == NULL);
  }
  ai00_state_free(state);
  return st;
}

static void test_good(ai00_model* model, const ai00_chat_template* tmpl) {
  ai00_generate_params gp;
  Seen seen;
  int32_t reason;
  gp.struct_size = sizeof gp; /* this header's size: an older one gets only its bytes */
  CHECK_OK(ai00_generate_params_default(&gp));
  CHECK(gp.struct_size == sizeof gp);
  CHECK(gp.stream_tool_calls == 0 && gp.tool_choice == AI00_TOOL_CHOICE_AUTO);
  CHECK(gp.tool_choice_name == NULL && gp.parallel_tool_calls == 1);
  /* A named call, streamed: its start, argument pieces (one per parameter, then the brace),
   * then the whole call, whose arguments the pieces concatenate to. */
  gp.set_seed = 1;
  gp.seed = 7;
  gp.max_tokens = 200;
  gp.grammar_mode = AI00_GRAMMAR_SCHEMA_AWARE;
  gp.stream_tool_calls = 1;
  gp.tool_choice = AI00_TOOL_CHOICE_NAMED;
  gp.tool_choice_name = "get_weather";
  gp.tool_choice_name_len = AI00_NUL_TERMINATED;
  gp.parallel_tool_calls = 0;
  CHECK_OK(run_turn(model, tmpl, &gp, &seen, &reason));
  CHECK(reason == AI00_FINISH_TOOL_CALLS);
  CHECK(seen.calls == 1 && seen.starts == 1 && seen.pieces >= 2);
  CHECK(strcmp(seen.name, "get_weather") == 0);
  CHECK(strcmp(seen.arguments, seen.whole) == 0);
  printf("named, streamed: %s\n", seen.whole);
  /* Without streaming: the whole call only; a name with an explicit length. */
  gp.stream_tool_calls = 0;
  gp.tool_choice_name = "get_time and more";
  gp.tool_choice_name_len = 8;
  CHECK_OK(run_turn(model, tmpl, &gp, &seen, &reason));
  CHECK(reason == AI00_FINISH_TOOL_CALLS);
  CHECK(seen.calls == 1 && seen.starts == 0 && seen.pieces == 0);
  CHECK(strcmp(seen.name, "get_time") == 0 && strcmp(seen.whole, "{}") == 0);
  /* required, one call: either tool, exactly once. */
  gp.tool_choice = AI00_TOOL_CHOICE_REQUIRED;
  gp.tool_choice_name = NULL;
  CHECK_OK(run_turn(model, tmpl, &gp, &seen, &reason));
  CHECK(reason == AI00_FINISH_TOOL_CALLS && seen.calls == 1);
  /* none: no call at all. */
  gp.tool_choice = AI00_TOOL_CHOICE_NONE;
  gp.max_tokens = 24;
  CHECK_OK(run_turn(model, tmpl, &gp, &seen, &reason));
  CHECK(reason != AI00_FINISH_TOOL_CALLS && seen.calls == 0);
  /* A caller built against 0.2 (the struct ends after prefix_cache): the tool fields past its
   * struct_size are not read, whatever they hold. */
  gp.struct_size = sizeof gp; /* this header's size: an older one gets only its bytes */
  CHECK_OK(ai00_generate_params_default(&gp));
  gp.struct_size = (uint32_t)(offsetof(ai00_generate_params, prefix_cache) + sizeof(void*));
  gp.max_tokens = 8;
  gp.tool_choice = 99;
  gp.parallel_tool_calls = 0;
  CHECK_OK(run_turn(model, tmpl, &gp, &seen, &reason));
}

static void test_bad(ai00_model* model, const ai00_chat_template* tmpl) {
  ai00_generate_params gp;
  ai00_grammar* g = NULL;
  Seen seen;
  int32_t reason;
  gp.struct_size = sizeof gp; /* this header's size: an older one gets only its bytes */
  CHECK_OK(ai00_generate_params_default(&gp));
  gp.tool_choice = AI00_TOOL_CHOICE_NAMED;
  gp.tool_choice_name = "get_wether";
  CHECK(run_turn(model, tmpl, &gp, &seen, &reason) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "`get_wether`") != NULL);
  CHECK(strstr(ai00_last_error(), "get_weather, get_time") != NULL);
  gp.tool_choice_name = NULL;
  CHECK(run_turn(model, tmpl, &gp, &seen, &reason) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "tool_choice_name") != NULL);
  gp.tool_choice = 7;
  CHECK(run_turn(model, tmpl, &gp, &seen, &reason) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "ai00_generate_params.tool_choice = 7") != NULL);
  gp.tool_choice = AI00_TOOL_CHOICE_REQUIRED;
  gp.grammar_mode = AI00_GRAMMAR_NONE;
  CHECK(run_turn(model, tmpl, &gp, &seen, &reason) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "grammar mode is `none`") != NULL);
  gp.grammar_mode = AI00_GRAMMAR_AUTOMATIC;
  CHECK_OK(ai00_grammar_compile(&g, model, "start ::= 'yes';", AI00_NUL_TERMINATED));
  gp.grammar = g;
  CHECK(run_turn(model, tmpl, &gp, &seen, &reason) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "compiled grammar") != NULL);
  ai00_grammar_free(g);
}

int main(void) {
  char path[1024];
  const char* shared = getenv("AI00_SHARED_DIR");
  ai00_model* model = NULL;
  ai00_chat_template* tmpl = NULL;
  if (shared == NULL || shared[0] == '\0') shared = AI00_DEFAULT_SHARED_DIR;
  snprintf(path, sizeof path, "%s/models/rand-rwkv7-c128-l3-v512-F16.gguf", shared);
  if (ai00_model_load(&model, path, AI00_NUL_TERMINATED, NULL) != AI00_OK) {
    fprintf(stderr, "cannot load %s: %s\n", path, ai00_last_error());
    return 1;
  }
  CHECK_OK(ai00_chat_template_new(&tmpl, "ai00-v1", AI00_NUL_TERMINATED));
  test_good(model, tmpl);
  test_bad(model, tmpl);
  ai00_chat_template_free(tmpl);
  ai00_model_free(model);
  if (g_failures != 0) {
    fprintf(stderr, "%d checks failed\n", g_failures);
    return 1;
  }
  printf("test_c_tool_choice: all checks passed\n");
  return 0;
}
