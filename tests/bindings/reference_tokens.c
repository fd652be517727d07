/* The tokens examples/c/chat_turn.c generates, printed for the language bindings' tests to
 * compare with: the same model (rand-rwkv7-c128-l3-v512-F16.gguf), format (goose), conversation,
 * seed (2024) and max_tokens (32), through the C ABI only.
 *
 *   reference_tokens [MODEL]     prints the ids, comma-separated, on one line */
#include <ai00/ai00.h>
#include <stdio.h>
#include <stdlib.h>

static const char* k_conversation =
    "[{\"role\":\"system\",\"content\":\"You are a helpful assistant.\"},"
    "{\"role\":\"user\",\"content\":\"Hello! Who are you?\"}]";

int main(int argc, char** argv) {
  char model_path[1024];
  const char* shared = getenv("AI00_SHARED_DIR");
  ai00_model* model = NULL;
  ai00_state* state = NULL;
  ai00_chat_template* tmpl = NULL;
  ai00_generator* gen = NULL;
  ai00_generate_params params;
  const uint32_t* tokens = NULL;
  size_t n = 0, i;
  int32_t reason = AI00_FINISH_NONE;
  if (shared == NULL || shared[0] == '\0') shared = AI00_DEFAULT_SHARED_DIR;
  if (argc > 1) {
    snprintf(model_path, sizeof model_path, "%s", argv[1]);
  } else {
    snprintf(model_path, sizeof model_path, "%s/models/rand-rwkv7-c128-l3-v512-F16.gguf", shared);
  }
  if (ai00_model_load(&model, model_path, AI00_NUL_TERMINATED, NULL) != AI00_OK ||
      ai00_state_new(&state, model) != AI00_OK ||
      ai00_chat_template_new(&tmpl, "goose", AI00_NUL_TERMINATED) != AI00_OK ||
      ai00_generate_params_default(&params) != AI00_OK) {
    fprintf(stderr, "reference_tokens: %s\n", ai00_last_error());
    return 1;
  }
  params.max_tokens = 32;
  params.set_seed = 1;
  params.seed = 2024;
  if (ai00_generator_new_chat(&gen, model, state, tmpl, k_conversation, AI00_NUL_TERMINATED, NULL,
                              NULL, &params) != AI00_OK ||
      ai00_generator_run(&reason, gen, NULL, NULL) != AI00_OK ||
      ai00_generator_tokens(&tokens, &n, gen) != AI00_OK) {
    fprintf(stderr, "reference_tokens: %s\n", ai00_last_error());
    return 1;
  }
  for (i = 0; i < n; ++i) printf(i == 0 ? "%u" : ",%u", (unsigned)tokens[i]);
  printf("\n");
  ai00_generator_free(gen);
  ai00_chat_template_free(tmpl);
  ai00_state_free(state);
  ai00_model_free(model);
  return 0;
}
