/* Links the installed libai00 through find_package(ai00) and drives a real model with it:
 * load, tokenize, evaluate, sample greedily. argv[1] is the shared fixture folder
 * ($AI00_SHARED_DIR overrides it). */
#include <ai00/ai00.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const char* shared = getenv("AI00_SHARED_DIR");
  char path[1024];
  ai00_model* model = NULL;
  ai00_state* state = NULL;
  ai00_sampler_params sp;
  uint32_t v = 0, tokens[32], token = 0;
  size_t n = 0;
  float logits[512];
  if (ai00_version_number(&v) != AI00_OK || v != AI00_VERSION_NUMBER) return 1;
  if (shared == NULL || shared[0] == '\0') shared = argc > 1 ? argv[1] : "../shared";
  snprintf(path, sizeof path, "%s/models/rand-rwkv7-c128-l3-v512-F16.gguf", shared);
  if (ai00_model_load(&model, path, AI00_NUL_TERMINATED, NULL) != AI00_OK ||
      ai00_model_tokenize(&n, tokens, 32, model, "Hello", AI00_NUL_TERMINATED) != AI00_OK ||
      ai00_state_new(&state, model) != AI00_OK ||
      ai00_state_eval(NULL, logits, 512, model, state, tokens, n) != AI00_OK ||
      ai00_sampler_params_default(&sp) != AI00_OK) {
    fprintf(stderr, "package_test: %s\n", ai00_last_error());
    return 1;
  }
  sp.method = AI00_SAMPLER_GREEDY;
  if (ai00_state_sample(&token, state, &sp, logits, 512) != AI00_OK) return 1;
  printf("installed ai00 %u: \"Hello\" is %u tokens, greedy next token %u\n", (unsigned)v,
         (unsigned)n, (unsigned)token);
  ai00_state_free(state);
  ai00_model_free(model);
  return 0;
}
