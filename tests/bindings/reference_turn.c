/* The chat turn of examples/c/chat_turn.c (Goose format, the same conversation, max_tokens 32,
 * seed 2024) run through the C ABI, printing the sampled token ids on one line, comma separated.
 * The language bindings' tests compare their own tokens for that turn with this output.
 *
 *   reference_turn MODEL [USER_TEXT] */
#include <ai00/ai00.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  char conversation[2048];
  const char* user = argc > 2 ? argv[2] : "Hello! Who are you?";
  ai00_model* model = NULL;
  ai00_state* state = NULL;
  ai00_chat_template* tmpl = NULL;
  ai00_generator* gen = NULL;
  ai00_generate_params params;
  const uint32_t* tokens = NULL;
  size_t n = 0, i;
  if (argc < 2 || strchr(user, '"') != NULL || strchr(user, '\\') != NULL) {
    fprintf(stderr, "usage: reference_turn MODEL [USER_TEXT without quotes or backslashes]\n");
    return 2;
  }
  snprintf(conversation, sizeof conversation,
           "[{\"role\":\"system\",\"content\":\"You are a helpful assistant.\"},"
           "{\"role\":\"user\",\"content\":\"%s\"}]",
           user);
  ai00_generate_params_default(&params);
  params.max_tokens = 32;
  params.set_seed = 1;
  params.seed = 2024;
  if (ai00_model_load(&model, argv[1], AI00_NUL_TERMINATED, NULL) != AI00_OK ||
      ai00_state_new(&state, model) != AI00_OK ||
      ai00_chat_template_new(&tmpl, "goose", AI00_NUL_TERMINATED) != AI00_OK ||
      ai00_generator_new_chat(&gen, model, state, tmpl, conversation, AI00_NUL_TERMINATED, NULL,
                              NULL, &params) != AI00_OK ||
      ai00_generator_run(NULL, gen, NULL, NULL) != AI00_OK ||
      ai00_generator_tokens(&tokens, &n, gen) != AI00_OK) {
    fprintf(stderr, "reference_turn: %s\n", ai00_last_error());
    return 1;
  }
  for (i = 0; i < n; ++i) printf(i ? ",%u" : "%u", (unsigned)tokens[i]);
  printf("\n");
  ai00_generator_free(gen);
  ai00_chat_template_free(tmpl);
  ai00_state_free(state);
  ai00_model_free(model);
  return 0;
}
