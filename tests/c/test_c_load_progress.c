/* Issue 14 and 15 through the C ABI (C99): ai00_model_load's progress callback (monotonic, ends
 * with exactly one (total, total) as the last call, cancellation at some fraction returns
 * AI00_ERR_CANCELLED and leaves the model pointer NULL, a broken file fails before any report,
 * an 0.1-sized params struct loads without progress), *_default honouring a caller's older
 * struct_size, ai00_capabilities_json, and ai00_model_tokenize refusing more ids than the
 * max_tokens limit. Fixtures: $AI00_SHARED_DIR or the compiled-in AI00_DEFAULT_SHARED_DIR. */
#include <stddef.h>
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

typedef struct progress_log {
  int calls;
  int finals;        /* calls with done == total */
  int after_final;   /* calls after a (total, total) one */
  int non_monotonic; /* calls whose done went down or whose total changed */
  uint64_t last_done;
  uint64_t total;
  double cancel_at; /* return non-zero once done/total >= this (> 1: never) */
} progress_log;

static int32_t on_progress(uint64_t done, uint64_t total, void* user_data) {
  progress_log* p = (progress_log*)user_data;
  if (p->finals > 0) ++p->after_final;
  if (p->calls > 0 && (done < p->last_done || total != p->total)) ++p->non_monotonic;
  if (done > total) ++p->non_monotonic;
  ++p->calls;
  p->last_done = done;
  p->total = total;
  if (done == total) ++p->finals;
  return total > 0 && (double)done / (double)total >= p->cancel_at ? 1 : 0;
}

static void test_progress(const char* rel) {
  ai00_model* model = NULL;
  ai00_model_params params;
  progress_log log;
  memset(&log, 0, sizeof log);
  log.cancel_at = 2.0;
  CHECK_OK(ai00_model_params_default(&params));
  CHECK(params.progress == NULL && params.progress_user_data == NULL);
  params.progress = on_progress;
  params.progress_user_data = &log;
  CHECK_OK(ai00_model_load(&model, shared(rel), AI00_NUL_TERMINATED, &params));
  CHECK(model != NULL);
  /* (0, total), one report per tensor at least, then the final one. */
  CHECK(log.calls >= 3);
  CHECK(log.total > 0);
  CHECK(log.non_monotonic == 0);
  CHECK(log.finals == 1);
  CHECK(log.after_final == 0);
  CHECK(log.last_done == log.total);
  ai00_model_free(model);
}

static void test_cancel(const char* rel, double at) {
  ai00_model* model = NULL;
  ai00_model_params params;
  progress_log log;
  memset(&log, 0, sizeof log);
  log.cancel_at = at;
  CHECK_OK(ai00_model_params_default(&params));
  params.progress = on_progress;
  params.progress_user_data = &log;
  CHECK(ai00_model_load(&model, shared(rel), AI00_NUL_TERMINATED, &params) == AI00_ERR_CANCELLED);
  CHECK(model == NULL);
  CHECK(strstr(ai00_last_error(), "cancelled") != NULL);
  /* The call that asked to stop was the last one. */
  CHECK(log.calls >= 1 && (double)log.last_done / (double)log.total >= at);
  CHECK(at >= 1.0 || log.finals == 0);
}

static void test_broken_file(void) {
  const char* path = "test_c_load_progress_broken.gguf";
  ai00_model* model = NULL;
  ai00_model_params params;
  progress_log log;
  FILE* f = fopen(path, "wb");
  static const char junk[] = "GGUF\x03\x00\x00\x00 truncated here";
  CHECK(f != NULL);
  if (f == NULL) return;
  fwrite(junk, 1, sizeof junk - 1, f);
  fclose(f);
  memset(&log, 0, sizeof log);
  log.cancel_at = 2.0;
  CHECK_OK(ai00_model_params_default(&params));
  params.progress = on_progress;
  params.progress_user_data = &log;
  CHECK(ai00_model_load(&model, path, AI00_NUL_TERMINATED, &params) == AI00_ERR_MODEL_FILE);
  CHECK(model == NULL);
  CHECK(log.calls == 0 && log.finals == 0);
  remove(path);
}

/* A caller built against 0.1's header: its struct ends at vocab_path. */
static void test_old_struct(const char* rel) {
  const size_t v1 = offsetof(ai00_model_params, vocab_path) + sizeof(const char*);
  unsigned char raw[sizeof(ai00_model_params) + 16];
  ai00_model_params* p = (ai00_model_params*)(void*)raw;
  ai00_model* model = NULL;
  memset(raw, 0xAB, sizeof raw);
  p->struct_size = (uint32_t)v1;
  CHECK_OK(ai00_model_params_default(p));
  CHECK(p->struct_size == v1 && p->n_threads == 1 && p->forced_isa == NULL);
  /* Nothing past the older struct was written. */
  CHECK(raw[v1] == 0xAB && raw[sizeof raw - 1] == 0xAB);
  CHECK_OK(ai00_model_load(&model, shared(rel), AI00_NUL_TERMINATED, p));
  ai00_model_free(model);
  /* Garbage (not a known size) means "this header": the whole struct is written. */
  memset(raw, 0xAB, sizeof raw);
  CHECK_OK(ai00_model_params_default(p));
  CHECK(p->struct_size == sizeof(ai00_model_params) && p->progress == NULL);
  /* Sizes between the first published one and the library's are kept for every grown struct. */
  {
    ai00_render_options r;
    ai00_parse_options po;
    ai00_schema_options so;
    memset(&r, 0, sizeof r);
    r.struct_size = (uint32_t)offsetof(ai00_render_options, reflect);
    CHECK_OK(ai00_render_options_default(&r));
    CHECK(r.struct_size == offsetof(ai00_render_options, reflect) && r.prepend_token0 == 0);
    memset(&po, 0, sizeof po);
    CHECK_OK(ai00_parse_options_default(&po));
    CHECK(po.struct_size == sizeof po);
    memset(&so, 0x7F, sizeof so);
    so.struct_size = (uint32_t)offsetof(ai00_schema_options, compact);
    CHECK_OK(ai00_schema_options_default(&so));
    CHECK(so.struct_size == offsetof(ai00_schema_options, compact) && so.compact == 0x7F7F7F7F);
  }
}

static void test_capabilities(void) {
  size_t len = 0;
  char* json;
  CHECK(ai00_capabilities_json(NULL, NULL, 0) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(ai00_capabilities_json(&len, NULL, 0) == AI00_ERR_BUFFER_TOO_SMALL);
  CHECK(len > 2);
  json = (char*)malloc(len + 1);
  if (json == NULL) return;
  CHECK_OK(ai00_capabilities_json(&len, json, len));
  json[len] = '\0';
  CHECK(json[0] == '{' && json[len - 1] == '}');
  CHECK(strstr(json, "\"isa_supported\": [\"") != NULL);
  CHECK(strstr(json, "\"scalar\"") != NULL);
  CHECK(strstr(json, "\"ai00-v1\"") != NULL && strstr(json, "\"openchatml\"") != NULL);
  CHECK(strstr(json, "\"Q8_0\"") != NULL && strstr(json, "\"json_schema\"") != NULL);
  CHECK(strstr(json, "\"int8_dot\": ") != NULL && strstr(json, "\"bf16_dot\": ") != NULL);
  free(json);
}

static void test_tokenize_limit(void) {
  ai00_model* model = NULL;
  ai00_model_info info;
  ai00_limits saved, l;
  uint32_t ids[64];
  size_t n = 0;
  CHECK_OK(ai00_model_load(&model, shared("models/tiny-rwkv-7v0-834K-FP32.bin"),
                           AI00_NUL_TERMINATED, NULL));
  if (model == NULL) return;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK_OK(ai00_model_get_info(&info, model));
  CHECK(info.n_tokens > 0);
  memset(&saved, 0, sizeof saved);
  saved.struct_size = sizeof saved;
  CHECK_OK(ai00_limits_get(&saved));
  l = saved;
  l.max_tokens = 4;
  CHECK_OK(ai00_limits_set(&l));
  CHECK_OK(ai00_model_tokenize(&n, ids, 64, model, "abc", 3));
  CHECK(n == 3);
  n = 0;
  CHECK(ai00_model_tokenize(&n, ids, 64, model, "hello world", 11) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(n == 0);
  CHECK(strstr(ai00_last_error(), "ai00_model_tokenize") != NULL);
  CHECK(strstr(ai00_last_error(), "exceeds the limit max_tokens = 4") != NULL);
  CHECK(strstr(ai00_model_last_error(model), "max_tokens") != NULL);
  CHECK_OK(ai00_limits_set(&saved));
  CHECK_OK(ai00_model_tokenize(&n, ids, 64, model, "hello world", 11));
  ai00_model_free(model);
}

int main(void) {
  const char* env = getenv("AI00_SHARED_DIR");
  snprintf(g_shared, sizeof g_shared, "%s", env && *env ? env : AI00_DEFAULT_SHARED_DIR);
  test_progress("models/rand-rwkv7-c128-l3-v512-F16.gguf");
  test_progress("models/tiny-rwkv-7v0-834K-FP32.bin");
  test_progress("models/rand-rwkv7-c128-l3-v512-F16.pth");
  test_cancel("models/rand-rwkv7-c128-l3-v512-F16.gguf", 0.0);
  test_cancel("models/rand-rwkv7-c128-l3-v512-F16.gguf", 0.5);
  test_cancel("models/rand-rwkv7-c128-l3-v512-F16.gguf", 1.0);
  test_broken_file();
  test_old_struct("models/rand-rwkv7-c128-l3-v512-F16.gguf");
  test_capabilities();
  test_tokenize_limit();
  if (g_failures) fprintf(stderr, "%d check(s) failed\n", g_failures);
  return g_failures ? 1 : 0;
}
