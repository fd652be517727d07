/* A chat turn in C: load a model, render a conversation with a chat format, stream the reply
 * through a callback, then save the State so the conversation can continue later.
 *
 *   chat_turn [MODEL] [USER_TEXT]
 *
 * MODEL defaults to the 512-token test model under $AI00_SHARED_DIR (or the fixture folder
 * compiled in). Uses only the public C header. */
#include <ai00/ai00.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends s[0..n) to out as a JSON string body. */
static void json_escape(char* out, size_t cap, const char* s) {
  size_t o = strlen(out);
  for (; *s != '\0' && o + 7 < cap; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = (char)c;
    } else if (c < 0x20) {
      o += (size_t)sprintf(out + o, "\\u%04x", c);
    } else {
      out[o++] = (char)c;
    }
  }
  out[o] = '\0';
}

/* Streams each delta to stdout as it arrives. */
static int32_t on_delta(const ai00_delta* d, void* user_data) {
  size_t* bytes = (size_t*)user_data;
  if (d->kind == AI00_DELTA_TEXT) {
    fwrite(d->text, 1, d->text_len, stdout);
    fflush(stdout);
    *bytes += d->text_len;
  } else if (d->kind == AI00_DELTA_FINISH) {
    printf("\n[finish reason %d]\n", (int)d->finish_reason);
  }
  return 0; /* non-zero would stop the turn */
}

static int fail(const char* what) {
  fprintf(stderr, "chat_turn: %s: %s\n", what, ai00_last_error());
  return 1;
}

int main(int argc, char** argv) {
  char model_path[1024], conversation[4096] = "", state_path[1100];
  const char* shared = getenv("AI00_SHARED_DIR");
  const char* user = argc > 2 ? argv[2] : "Hello! Who are you?";
  ai00_model* model = NULL;
  ai00_state* state = NULL;
  ai00_chat_template* tmpl = NULL;
  ai00_generator* gen = NULL;
  ai00_generate_params params;
  int32_t reason = AI00_FINISH_NONE;
  size_t bytes = 0;

  if (shared == NULL || shared[0] == '\0') shared = AI00_DEFAULT_SHARED_DIR;
  if (argc > 1) {
    snprintf(model_path, sizeof model_path, "%s", argv[1]);
  } else {
    snprintf(model_path, sizeof model_path, "%s/models/rand-rwkv7-c128-l3-v512-F16.gguf", shared);
  }
  strcat(conversation, "[{\"role\":\"system\",\"content\":\"You are a helpful assistant.\"},");
  strcat(conversation, "{\"role\":\"user\",\"content\":\"");
  json_escape(conversation, sizeof conversation - 8, user);
  strcat(conversation, "\"}]");

  if (ai00_model_load(&model, model_path, AI00_NUL_TERMINATED, NULL) != AI00_OK)
    return fail("load");
  if (ai00_state_new(&state, model) != AI00_OK) return fail("state");
  if (ai00_chat_template_new(&tmpl, "goose", AI00_NUL_TERMINATED) != AI00_OK)
    return fail("template");

  ai00_generate_params_default(&params);
  params.max_tokens = 32;
  params.set_seed = 1;
  params.seed = 2024;
  if (ai00_generator_new_chat(&gen, model, state, tmpl, conversation, AI00_NUL_TERMINATED, NULL,
                              NULL, &params) != AI00_OK)
    return fail("generator");
  printf("User: %s\nAssistant:", user);
  if (ai00_generator_run(&reason, gen, on_delta, &bytes) != AI00_OK) return fail("run");
  ai00_generator_free(gen);

  /* The State now holds the whole exchange: save it to continue the chat in another session. */
  snprintf(state_path, sizeof state_path, "%s/ai00_chat_turn_example.state",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (ai00_state_save_file(state, state_path, AI00_NUL_TERMINATED) != AI00_OK) return fail("save");
  printf("%u bytes streamed; State saved to %s\n", (unsigned)bytes, state_path);
  remove(state_path);

  ai00_chat_template_free(tmpl);
  ai00_state_free(state);
  ai00_model_free(model);
  return reason == AI00_FINISH_ERROR ? 1 : 0;
}
