/* ai00_model_convert from strict C99: a conversion with progress, the converted file's logits
 * against the source's, and the refusals (existing output, quantized .st, unknown type,
 * unwritable directory, cancelled by the callback) with their status and message.
 * Fixtures: $AI00_SHARED_DIR or the compiled-in AI00_DEFAULT_SHARED_DIR. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ai00/ai00.h"
#include "c_check.h"

typedef struct progress_log {
  int calls;
  uint64_t last_done, total;
  int cancel_after; /* 0: never */
} progress_log;

static int32_t on_progress(uint64_t done, uint64_t total, void* user_data) {
  progress_log* p = (progress_log*)user_data;
  ++p->calls;
  p->last_done = done;
  p->total = total;
  return p->cancel_after != 0 && p->calls >= p->cancel_after;
}

/* Logits after four tokens of the model at `path` into out[512]. */
static int logits_of(const char* path, float* out) {
  static const uint32_t tokens[4] = {0, 69, 66, 408};
  ai00_model* model = NULL;
  ai00_state* state = NULL;
  size_t count = 0;
  int ok = ai00_model_load(&model, path, AI00_NUL_TERMINATED, NULL) == AI00_OK &&
           ai00_state_new(&state, model) == AI00_OK &&
           ai00_state_eval(&count, out, 512, model, state, tokens, 4) == AI00_OK && count == 512;
  ai00_state_free(state);
  ai00_model_free(model);
  return ok;
}

int main(void) {
  char src[1024], dst[1024], st[1024], bad[1024];
  const char* shared = getenv("AI00_SHARED_DIR");
  const char* tmp = getenv("TMPDIR");
  ai00_convert_params params;
  progress_log log = {0, 0, 0, 0};
  float a[512], b[512];
  double diff = 0.0;
  size_t i;
  if (shared == NULL || shared[0] == '\0') shared = AI00_DEFAULT_SHARED_DIR;
  if (tmp == NULL || tmp[0] == '\0') tmp = "/tmp";
  snprintf(src, sizeof src, "%s/models/rand-rwkv7-c128-l3-v512-FP32.bin", shared);
  snprintf(dst, sizeof dst, "%s/ai00-c-convert-%ld.gguf", tmp, (long)getpid());
  snprintf(st, sizeof st, "%s/ai00-c-convert-%ld.st", tmp, (long)getpid());
  snprintf(bad, sizeof bad, "%s/ai00-no-such-dir-%ld/x.gguf", tmp, (long)getpid());
  remove(dst);
  remove(st);

  CHECK_OK(ai00_convert_params_default(&params));
  CHECK(params.weight_type == AI00_WEIGHT_F16 && params.file_format == AI00_FILE_GGUF);
  CHECK(params.overwrite == 0 && params.progress == NULL);
  params.weight_type = AI00_WEIGHT_Q8_0;
  params.progress = on_progress;
  params.user_data = &log;
  CHECK_OK(ai00_model_convert(src, AI00_NUL_TERMINATED, dst, strlen(dst), &params));
  CHECK(log.calls > 0 && log.total > 0 && log.last_done == log.total);
  /* The Q8_0 file gives the source's logits within Q8_0's tolerance (0.1 on this model). */
  CHECK(logits_of(src, a) && logits_of(dst, b));
  for (i = 0; i < 512; ++i) diff = fabs(a[i] - b[i]) > diff ? fabs(a[i] - b[i]) : diff;
  CHECK(diff > 0.0 && diff < 0.1);

  /* An existing output is refused unless overwrite is set. */
  CHECK(ai00_model_convert(src, AI00_NUL_TERMINATED, dst, AI00_NUL_TERMINATED, &params) ==
        AI00_ERR_IO);
  CHECK(strstr(ai00_last_error(), "exists") != NULL && strstr(ai00_last_error(), dst) != NULL);
  params.overwrite = 1;
  params.weight_type = AI00_WEIGHT_F32;
  CHECK_OK(ai00_model_convert(src, AI00_NUL_TERMINATED, dst, AI00_NUL_TERMINATED, &params));
  CHECK(logits_of(dst, b));
  CHECK(memcmp(a, b, sizeof a) == 0); /* F32 from an FP32 source: the same bits */

  /* safetensors holds float types only. */
  params.file_format = AI00_FILE_SAFETENSORS;
  params.weight_type = AI00_WEIGHT_Q4_0;
  CHECK(ai00_model_convert(src, AI00_NUL_TERMINATED, st, AI00_NUL_TERMINATED, &params) ==
        AI00_ERR_UNSUPPORTED);
  CHECK(strstr(ai00_last_error(), "Q4_0") != NULL);
  params.weight_type = AI00_WEIGHT_BF16;
  CHECK_OK(ai00_model_convert(src, AI00_NUL_TERMINATED, st, AI00_NUL_TERMINATED, &params));
  CHECK(logits_of(st, b));

  /* Unknown enum values, an unwritable directory, a missing input, a cancelled run. */
  params.weight_type = 99;
  CHECK(ai00_model_convert(src, AI00_NUL_TERMINATED, st, AI00_NUL_TERMINATED, &params) ==
        AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "weight_type") != NULL);
  params.weight_type = AI00_WEIGHT_F16;
  params.file_format = 7;
  CHECK(ai00_model_convert(src, AI00_NUL_TERMINATED, st, AI00_NUL_TERMINATED, &params) ==
        AI00_ERR_INVALID_ARGUMENT);
  params.file_format = AI00_FILE_GGUF;
  CHECK(ai00_model_convert(src, AI00_NUL_TERMINATED, bad, AI00_NUL_TERMINATED, &params) ==
        AI00_ERR_IO);
  CHECK(strstr(ai00_last_error(), bad) != NULL);
  CHECK(ai00_model_convert("/nonexistent/m.bin", AI00_NUL_TERMINATED, dst, AI00_NUL_TERMINATED,
                           &params) == AI00_ERR_IO);
  CHECK(strstr(ai00_last_error(), "/nonexistent/m.bin") != NULL);
  remove(dst);
  log.calls = 0;
  log.cancel_after = 1;
  CHECK(ai00_model_convert(src, AI00_NUL_TERMINATED, dst, AI00_NUL_TERMINATED, &params) ==
        AI00_ERR_CANCELLED);
  CHECK(access(dst, F_OK) != 0); /* nothing under the final name */
  CHECK(ai00_model_convert(NULL, 0, dst, AI00_NUL_TERMINATED, NULL) == AI00_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ai00_last_error(), "path_in") != NULL);
  remove(st);
  if (g_failures != 0) {
    fprintf(stderr, "%d checks failed\n", g_failures);
    return 1;
  }
  printf("test_c_api_convert: all checks passed\n");
  return 0;
}
