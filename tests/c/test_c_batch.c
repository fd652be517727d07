/* ai00_batch driven from C99 (compiled with -Wall -Wextra -pedantic -Werror): members give the
 * tokens, text and finish reasons of the same generators stepped alone (greedy, seeded, a JSON
 * Schema grammar), events by callback and by queue, a member removed mid-turn continues alone,
 * stepping a member directly is refused, and bad input (generators of another model, the same
 * generator twice, NULLs, struct sizes) gets a clear status and message.
 * Fixtures: $AI00_SHARED_DIR or the compiled-in AI00_DEFAULT_SHARED_DIR. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai00/ai00.h"
#include "c_check.h"

#define N_MEMBERS 5
#define MAX_TEXT 4096

static char g_shared[1024];

static ai00_model* load(const char* file) {
  char path[1200];
  ai00_model* m = NULL;
  snprintf(path, sizeof path, "%s/models/%s", g_shared, file);
  CHECK_OK(ai00_model_load(&m, path, AI00_NUL_TERMINATED, NULL));
  return m;
}

/* What a member produced. */
typedef struct outcome {
  char text[MAX_TEXT];
  size_t len;
  int32_t finish;
  int events_finished;
  uint32_t tokens[512];
  size_t n_tokens;
} outcome;

static void append(outcome* o, const ai00_delta* d) {
  if (d->kind == AI00_DELTA_TEXT && o->len + d->text_len < MAX_TEXT) {
    memcpy(o->text + o->len, d->text, d->text_len);
    o->len += d->text_len;
  }
  if (d->kind == AI00_DELTA_FINISH) o->finish = d->finish_reason;
}

/* Member i: prompt, sampler and params. grammar (may be NULL) constrains member 1. */
static ai00_generator* make(ai00_model* m, ai00_state** st, int i, const ai00_grammar* grammar) {
  char prompt[64];
  ai00_sampler_params sp;
  ai00_generate_params gp;
  ai00_generator* g = NULL;
  snprintf(prompt, sizeof prompt, "npc %d says:%.*s", i, i * 3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
  CHECK_OK(ai00_state_new(st, m));
  CHECK_OK(ai00_sampler_params_default(&sp));
  CHECK_OK(ai00_generate_params_default(&gp));
  sp.temperature = i % 2 == 0 ? 0.0f : 1.0f;
  sp.top_p = 0.9f;
  sp.ban_eos = 1;
  gp.set_seed = 1;
  gp.seed = 77 + (uint64_t)i;
  gp.max_tokens = 10 + (uint32_t)i * 3;
  gp.prefill_chunk = 1 + (uint32_t)i * 4;
  if (i == 1) {
    gp.grammar = grammar;
    gp.max_tokens = 60;
  }
  CHECK_OK(ai00_generator_new_raw(&g, m, *st, prompt, AI00_NUL_TERMINATED, &sp, &gp));
  return g;
}

static void tokens_of(ai00_generator* g, outcome* o) {
  const uint32_t* t = NULL;
  CHECK_OK(ai00_generator_tokens(&t, &o->n_tokens, g));
  if (o->n_tokens > 512) o->n_tokens = 512;
  memcpy(o->tokens, t, o->n_tokens * sizeof *t);
}

static int32_t on_delta(const ai00_delta* d, void* user) {
  append((outcome*)user, d);
  return 0;
}

static void alone(ai00_model* m, int i, const ai00_grammar* grammar, outcome* o) {
  ai00_state* st = NULL;
  ai00_generator* g = make(m, &st, i, grammar);
  memset(o, 0, sizeof *o);
  CHECK_OK(ai00_generator_run(NULL, g, on_delta, o));
  tokens_of(g, o);
  ai00_generator_free(g);
  ai00_state_free(st);
}

typedef struct members {
  ai00_generator* gens[N_MEMBERS];
  ai00_state* states[N_MEMBERS];
  outcome out[N_MEMBERS];
} members;

static int index_of(members* ms, const ai00_generator* g) {
  int i;
  for (i = 0; i < N_MEMBERS; ++i)
    if (ms->gens[i] == g) return i;
  return -1;
}

static void take_event(members* ms, const ai00_batch_event* e) {
  int i = index_of(ms, e->generator);
  CHECK(i >= 0);
  if (i < 0) return;
  if (e->kind == AI00_BATCH_EVENT_DELTA) {
    CHECK(e->delta.struct_size == sizeof(ai00_delta));
    append(&ms->out[i], &e->delta);
  } else {
    CHECK(e->kind == AI00_BATCH_EVENT_FINISHED);
    CHECK(e->finish_reason == ms->out[i].finish);
    ms->out[i].events_finished++;
  }
}

static int32_t on_event(const ai00_batch_event* e, void* user) {
  take_event((members*)user, e);
  return 0;
}

static void same(const outcome* a, const outcome* b, int i) {
  if (a->len != b->len || memcmp(a->text, b->text, a->len) != 0 || a->finish != b->finish ||
      a->n_tokens != b->n_tokens ||
      memcmp(a->tokens, b->tokens, a->n_tokens * sizeof a->tokens[0]) != 0) {
    fprintf(stderr, "member %d differs: '%.*s' vs '%.*s'\n", i, (int)a->len, a->text, (int)b->len,
            b->text);
    ++g_failures;
  }
}

static void test_batch_equals_alone(ai00_model* m, const ai00_grammar* grammar) {
  members ms;
  ai00_batch* b = NULL;
  ai00_batch_step_params sp;
  ai00_batch_step_result res;
  outcome want;
  int i, guard;
  memset(&ms, 0, sizeof ms);
  CHECK_OK(ai00_batch_new(&b, m, NULL));
  for (i = 0; i < N_MEMBERS; ++i) {
    ms.gens[i] = make(m, &ms.states[i], i, grammar);
    CHECK_OK(ai00_batch_add(b, ms.gens[i]));
  }
  CHECK_OK(ai00_batch_step_params_default(&sp));
  sp.max_tokens = 2;
  res.struct_size = sizeof res;
  for (guard = 0; guard < 1000; ++guard) {
    /* Alternate callback and queue delivery: the same events either way. */
    if (guard % 2 == 0) {
      CHECK_OK(ai00_batch_step(&res, b, &sp, on_event, &ms));
    } else {
      size_t pending = 0, k;
      CHECK_OK(ai00_batch_step(&res, b, &sp, NULL, NULL));
      CHECK_OK(ai00_batch_pending(&pending, b));
      for (k = 0; k < pending; ++k) {
        ai00_batch_event e;
        int32_t has = 0;
        e.struct_size = sizeof e;
        CHECK_OK(ai00_batch_next_event(&has, &e, b));
        CHECK(has == 1);
        take_event(&ms, &e);
      }
    }
    if (res.steps == 0) break;
  }
  CHECK(res.unfinished == 0);
  for (i = 0; i < N_MEMBERS; ++i) {
    tokens_of(ms.gens[i], &ms.out[i]);
    alone(m, i, grammar, &want);
    same(&ms.out[i], &want, i);
    CHECK(ms.out[i].events_finished == 1);
    CHECK(ms.out[i].n_tokens >= 2);
  }
  CHECK(ms.out[1].len > 0 && ms.out[1].text[0] == '{'); /* the schema member writes JSON */
  CHECK_OK(ai00_batch_free(b));
  for (i = 0; i < N_MEMBERS; ++i) {
    ai00_generator_free(ms.gens[i]);
    ai00_state_free(ms.states[i]);
  }
}

/* A member removed mid-turn continues alone identically; stepping a member is refused; freeing
 * a member takes it out of its batch. */
static void test_remove_and_guard(ai00_model* m) {
  members ms;
  ai00_batch* b = NULL;
  outcome want;
  size_t n = 0;
  int32_t finished = 0;
  ai00_delta d;
  memset(&ms, 0, sizeof ms);
  CHECK_OK(ai00_batch_new(&b, m, NULL));
  ms.gens[0] = make(m, &ms.states[0], 0, NULL);
  ms.gens[2] = make(m, &ms.states[2], 2, NULL);
  CHECK_OK(ai00_batch_add(b, ms.gens[0]));
  CHECK_OK(ai00_batch_add(b, ms.gens[2]));
  CHECK_OK(ai00_batch_step(NULL, b, NULL, on_event, &ms));
  CHECK_OK(ai00_batch_step(NULL, b, NULL, on_event, &ms));
  CHECK(ai00_generator_step(&finished, ms.gens[0], 1, NULL, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_generator_last_error(ms.gens[0]), "member of a batch") != NULL);
  CHECK(ai00_generator_run(NULL, ms.gens[0], NULL, NULL) == AI00_ERR_INVALID_ARGUMENT);
  d.struct_size = sizeof d;
  CHECK(ai00_generator_next(&d, ms.gens[0]) == AI00_ERR_INVALID_ARGUMENT);
  CHECK_OK(ai00_batch_remove(b, ms.gens[0]));
  CHECK(ai00_batch_remove(b, ms.gens[0]) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_batch_last_error(b), "not a member") != NULL);
  CHECK_OK(ai00_generator_run(NULL, ms.gens[0], on_delta, &ms.out[0]));
  tokens_of(ms.gens[0], &ms.out[0]);
  alone(m, 0, NULL, &want);
  same(&ms.out[0], &want, 0);
  CHECK_OK(ai00_generator_free(ms.gens[2])); /* a member: leaves the batch first */
  CHECK_OK(ai00_batch_size(&n, b));
  CHECK(n == 0);
  CHECK_OK(ai00_batch_free(b));
  ai00_generator_free(ms.gens[0]);
  ai00_state_free(ms.states[0]);
  ai00_state_free(ms.states[2]);
}

static void test_bad_input(ai00_model* m, ai00_model* other) {
  ai00_batch* b = NULL;
  ai00_batch* b2 = NULL;
  ai00_state *s1 = NULL, *s2 = NULL;
  ai00_generator* g = make(m, &s1, 0, NULL);
  ai00_generator* foreign = make(other, &s2, 1, NULL);
  ai00_batch_params bp;
  ai00_batch_step_params sp;
  ai00_batch_step_result res;
  ai00_batch_event e;
  size_t n = 99;
  int32_t has = 7;
  CHECK(ai00_batch_new(NULL, m, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(ai00_batch_new(&b, NULL, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "model is NULL") != NULL);
  CHECK_OK(ai00_batch_params_default(&bp));
  bp.struct_size = 3;
  CHECK(ai00_batch_new(&b, m, &bp) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "struct_size") != NULL);
  CHECK_OK(ai00_batch_new(&b, m, NULL));
  CHECK_OK(ai00_batch_new(&b2, m, NULL));
  /* An empty batch steps as a no-op. */
  res.struct_size = sizeof res;
  CHECK_OK(ai00_batch_step(&res, b, NULL, NULL, NULL));
  CHECK(res.steps == 0 && res.unfinished == 0);
  CHECK_OK(ai00_batch_pending(&n, b));
  CHECK(n == 0);
  e.struct_size = sizeof e;
  CHECK_OK(ai00_batch_next_event(&has, &e, b));
  CHECK(has == 0);
  /* Generators of another model; the same generator twice; in two batches. */
  CHECK(ai00_batch_add(b, foreign) == AI00_ERR_MISMATCH);
  CHECK(strstr(ai00_batch_last_error(b), "another model") != NULL);
  CHECK_OK(ai00_batch_add(b, g));
  CHECK(ai00_batch_add(b, g) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_batch_last_error(b), "already in this batch") != NULL);
  CHECK(ai00_batch_add(b2, g) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_batch_last_error(b2), "another batch") != NULL);
  CHECK(ai00_batch_add(b, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(ai00_batch_add(NULL, g) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(ai00_batch_remove(b, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(ai00_batch_size(NULL, b) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(ai00_batch_size(&n, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK_OK(ai00_batch_size(&n, b));
  CHECK(n == 1);
  /* Struct sizes too small. */
  CHECK_OK(ai00_batch_step_params_default(&sp));
  sp.struct_size = 4;
  CHECK(ai00_batch_step(NULL, b, &sp, NULL, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_batch_last_error(b), "ai00_batch_step_params") != NULL);
  res.struct_size = 4;
  CHECK(ai00_batch_step(&res, b, NULL, NULL, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_batch_last_error(b), "ai00_batch_step_result") != NULL);
  CHECK(ai00_batch_step(NULL, NULL, NULL, NULL, NULL) == AI00_ERR_INVALID_ARGUMENT);
  /* A time budget no step can meet: exactly one step (progress), then time_limited. */
  sp.struct_size = sizeof sp;
  sp.max_tokens = 5;
  sp.time_budget_us = 1;
  res.struct_size = sizeof res;
  CHECK_OK(ai00_batch_step(&res, b, &sp, NULL, NULL));
  CHECK(res.steps == 1 && res.time_limited == 1 && res.unfinished == 1);
  /* whole_batch is 0 or 1. */
  sp.whole_batch = 7;
  CHECK(ai00_batch_step(&res, b, &sp, NULL, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_batch_last_error(b), "whole_batch = 7") != NULL);
  sp.whole_batch = 1;
  CHECK_OK(ai00_batch_step(&res, b, &sp, NULL, NULL));
  CHECK(res.steps == 1 && res.time_limited == 1);
  /* A caller built before whole_batch (16-byte struct): the default fills only those bytes, and
   * the step reads only those. */
  sp.struct_size = 16;
  sp.whole_batch = 99;
  CHECK_OK(ai00_batch_step_params_default(&sp));
  CHECK(sp.struct_size == 16 && sp.max_tokens == 1 && sp.whole_batch == 99);
  CHECK_OK(ai00_batch_step(&res, b, &sp, NULL, NULL));
  sp.struct_size = sizeof sp;
  sp.whole_batch = 0;
  CHECK_OK(ai00_batch_step(NULL, b, NULL, NULL, NULL));
  e.struct_size = 8;
  CHECK(ai00_batch_next_event(&has, &e, b) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_batch_last_error(b), "ai00_batch_event") != NULL);
  CHECK_OK(ai00_batch_pending(&n, b));
  CHECK(n > 0); /* the refused call took nothing */
  CHECK(ai00_batch_next_event(NULL, &e, b) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strcmp(ai00_batch_last_error(NULL), "") == 0);
  CHECK_OK(ai00_batch_free(NULL));
  CHECK_OK(ai00_batch_free(b)); /* frees the batch; g is no longer a member */
  CHECK_OK(ai00_batch_add(b2, g));
  CHECK_OK(ai00_batch_free(b2));
  CHECK_OK(ai00_generator_step(NULL, g, 1, NULL, NULL));
  ai00_generator_free(g);
  ai00_generator_free(foreign);
  ai00_state_free(s1);
  ai00_state_free(s2);
}

int main(void) {
  const char* shared = getenv("AI00_SHARED_DIR");
  static const char schema[] =
      "{\"type\":\"object\",\"properties\":{\"say\":{\"type\":\"string\",\"maxLength\":5},"
      "\"emotion\":{\"enum\":[\"calm\",\"angry\"]}},\"required\":[\"say\",\"emotion\"]}";
  ai00_model *m, *other;
  ai00_grammar* grammar = NULL;
  if (shared == NULL || shared[0] == '\0') shared = AI00_DEFAULT_SHARED_DIR;
  snprintf(g_shared, sizeof g_shared, "%s", shared);
  m = load("rand-rwkv7-c128-l3-v512-Q8_0.gguf");
  other = load("rand-rwkv7-c128-l3-v512-F16.gguf");
  if (m == NULL || other == NULL) return 1;
  CHECK_OK(ai00_grammar_from_json_schema(&grammar, m, schema, AI00_NUL_TERMINATED));
  test_batch_equals_alone(m, grammar);
  test_remove_and_guard(m);
  test_bad_input(m, other);
  ai00_grammar_free(grammar);
  ai00_model_free(m);
  ai00_model_free(other);
  if (g_failures != 0) fprintf(stderr, "%d check(s) failed\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
