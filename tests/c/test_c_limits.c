/* Issue 15 through the C ABI (C99): the limits (defaults, get/set, each refusing work with a
 * message naming the limit, its value and where), ai00_state_sample refusing a logits count
 * other than n_vocab, a serialized State holding NaN or another model's State (which dimension
 * differs), all as a C caller sees them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai00/ai00.h"
#include "c_check.h"

static char g_shared[2048];
static const char* shared(const char* rel) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/%s", g_shared, rel);
  return buf;
}

static uint64_t fnv1a(const unsigned char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i;
  for (i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static void test_limits(void) {
  ai00_limits d, cur, l;
  ai00_model* model = NULL;
  ai00_model_params params;
  ai00_grammar* g = NULL;
  char deep[64];
  CHECK_OK(ai00_limits_default(&d));
  CHECK(d.struct_size == sizeof(ai00_limits));
  CHECK(d.max_nesting_depth == 256 && d.max_threads == 1024);
  CHECK(d.max_grammar_states == 50000 && d.max_nfa_states == 200000);
  CHECK(d.max_input_bytes == (uint64_t)64 << 20 && d.max_string_bytes == (uint64_t)1 << 20);
  memset(&cur, 0, sizeof cur);
  cur.struct_size = sizeof cur;
  CHECK_OK(ai00_limits_get(&cur));
  CHECK(memcmp(&cur, &d, sizeof d) == 0);
  CHECK(ai00_limits_get(NULL) == AI00_ERR_INVALID_ARGUMENT);

  /* A zero field is refused and changes nothing. */
  l = d;
  l.max_tokens = 0;
  CHECK(ai00_limits_set(&l) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "max_tokens") != NULL);
  l = d;
  l.max_nesting_depth = 100000;
  CHECK(ai00_limits_set(&l) == AI00_ERR_INVALID_ARGUMENT);
  CHECK_OK(ai00_limits_get(&cur));
  CHECK(cur.max_nesting_depth == 256);

  /* Threads: checked before the file is opened. */
  l = d;
  l.max_threads = 2;
  CHECK_OK(ai00_limits_set(&l));
  CHECK_OK(ai00_model_params_default(&params));
  params.n_threads = 3;
  CHECK(ai00_model_load(&model, "/nonexistent.gguf", AI00_NUL_TERMINATED, &params) ==
        AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "3 threads exceeds the limit max_threads = 2") != NULL);
  params.n_threads = 2000000000;
  CHECK(ai00_model_load(&model, "/nonexistent.gguf", AI00_NUL_TERMINATED, &params) ==
        AI00_ERR_INVALID_ARGUMENT);

  /* Nesting and grammar states, through a grammar of the tiny model. */
  params.n_threads = 1;
  CHECK_OK(ai00_model_load(&model, shared("models/tiny-rwkv-7v0-834K-FP32.bin"),
                           AI00_NUL_TERMINATED, &params));
  l.max_nesting_depth = 8;
  l.max_grammar_states = 5;
  CHECK_OK(ai00_limits_set(&l));
  strcpy(deep, "start ::= ((((((((('a')))))))));");
  CHECK(ai00_grammar_compile(&g, model, deep, strlen(deep)) == AI00_ERR_GRAMMAR);
  CHECK(strstr(ai00_last_error(),
               "line 1, column 19: group nesting exceeds the limit "
               "max_nesting_depth = 8") != NULL);
  CHECK(ai00_grammar_compile(&g, model, "start ::= 'abcdefgh';", AI00_NUL_TERMINATED) ==
        AI00_ERR_GRAMMAR);
  CHECK(strstr(ai00_last_error(), "exceeds the limit max_grammar_states = 5") != NULL);
  CHECK(ai00_grammar_compile(&g, model, "start ::= 'abc';", AI00_NUL_TERMINATED) == AI00_OK);
  ai00_grammar_free(g);
  CHECK_OK(ai00_limits_set(&d));
  ai00_model_free(model);
}

static void test_state_checks(void) {
  ai00_model *tiny = NULL, *other = NULL;
  ai00_state *st = NULL, *loaded = NULL;
  float logits[256];
  uint32_t token = 0, tok1 = 1;
  size_t n = 0, size = 0;
  unsigned char* buf;
  float nan_value = NAN;
  CHECK_OK(ai00_model_load(&tiny, shared("models/tiny-rwkv-7v0-834K-FP32.bin"), AI00_NUL_TERMINATED,
                           NULL));
  CHECK_OK(ai00_model_load(&other, shared("models/rand-rwkv7-c128-l3-v512-F16.gguf"),
                           AI00_NUL_TERMINATED, NULL));
  CHECK_OK(ai00_state_new(&st, tiny));
  CHECK_OK(ai00_state_eval(&n, logits, 256, tiny, st, &tok1, 1));
  /* Fewer (or more) logits than the vocabulary: refused, naming both counts. */
  CHECK(ai00_state_sample(&token, st, NULL, logits, 255) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_state_last_error(st), "n_logits is 255") != NULL);
  CHECK(strstr(ai00_state_last_error(st), "256") != NULL);
  CHECK_OK(ai00_state_sample(&token, st, NULL, logits, 256));

  CHECK(ai00_state_save(&size, NULL, 0, st) == AI00_ERR_BUFFER_TOO_SMALL);
  buf = (unsigned char*)malloc(size);
  CHECK_OK(ai00_state_save(&size, buf, size, st));
  /* Another model: the message says which dimension differs. */
  CHECK(ai00_state_load(&loaded, other, buf, size) == AI00_ERR_MISMATCH);
  CHECK(strstr(ai00_last_error(), "n_layer differs (state 12, model 3)") != NULL);
  /* A NaN with a valid checksum: refused with its byte offset. */
  memcpy(buf + 64 + 4 * 7, &nan_value, 4);
  {
    uint64_t h = fnv1a(buf + 64, 12 * (2 * 64 + 64 * 64) * 4);
    memcpy(buf + 48, &h, 8);
  }
  CHECK(ai00_state_load(&loaded, tiny, buf, size) == AI00_ERR_MODEL_FILE);
  CHECK(strstr(ai00_last_error(), "byte offset 92: float 7 is NaN") != NULL);
  CHECK(loaded == NULL);
  free(buf);
  ai00_state_free(st);
  ai00_model_free(other);
  ai00_model_free(tiny);
}

int main(void) {
  const char* env = getenv("AI00_SHARED_DIR");
  snprintf(g_shared, sizeof g_shared, "%s", env && *env ? env : AI00_DEFAULT_SHARED_DIR);
  test_limits();
  test_state_checks();
  if (g_failures) {
    fprintf(stderr, "test_c_limits: %d check(s) failed\n", g_failures);
    return 1;
  }
  printf("test_c_limits: all checks passed\n");
  return 0;
}
