/* Compiled as C99 with -Wall -Wextra -pedantic -Werror: the public header must be plain C.
 * Also pins the layout of every public struct (rule 13 of docs/abi.md): a
 * change here is an ABI break and must come with a new struct name or an appended field. The
 * golden values are for LP64 (Linux/macOS x86-64 and arm64). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ai00/ai00.h"

static int failures = 0;
#define EXPECT(cond)                                             \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                \
    }                                                            \
  } while (0)

static void check_layouts(void) {
  if (sizeof(void*) != 8) return; /* golden values are LP64 */
  EXPECT(sizeof(ai00_model_params) == 48);
  EXPECT(offsetof(ai00_model_params, progress) == 24);
  EXPECT(offsetof(ai00_model_params, progress_user_data) == 32);
  EXPECT(offsetof(ai00_model_params, activations) == 40); /* appended in 0.4: 0.2's size is 40 */
  EXPECT(AI00_ACTIVATIONS_DOT == 0 && AI00_ACTIVATIONS_EXACT == 1);
  EXPECT(offsetof(ai00_model_params, forced_isa) == 8);
  EXPECT(offsetof(ai00_model_params, vocab_path) == 16);
  EXPECT(sizeof(ai00_model_info) == 40);
  EXPECT(offsetof(ai00_model_info, state_bytes) == 32);
  EXPECT(sizeof(ai00_logit_bias) == 8);
  EXPECT(sizeof(ai00_sampler_params) == 72);
  EXPECT(offsetof(ai00_sampler_params, ban_eos) == 52);
  EXPECT(offsetof(ai00_sampler_params, logit_bias) == 56);
  EXPECT(offsetof(ai00_sampler_params, n_logit_bias) == 64);
  EXPECT(sizeof(ai00_render_options) == 64);
  EXPECT(offsetof(ai00_render_options, tools_json) == 16);
  EXPECT(offsetof(ai00_render_options, assistant_name) == 32);
  EXPECT(offsetof(ai00_render_options, reflect) == 48); /* appended: the 0.1 size is 48 */
  EXPECT(offsetof(ai00_render_options, introspect) == 52);
  EXPECT(offsetof(ai00_render_options, prepend_token0) == 56);
  EXPECT(sizeof(ai00_delta) == 72);
  EXPECT(offsetof(ai00_delta, text) == 16);
  EXPECT(offsetof(ai00_delta, id) == 32);
  EXPECT(offsetof(ai00_delta, name) == 48);
  EXPECT(offsetof(ai00_delta, valid) == 64);
  EXPECT(sizeof(ai00_generate_params) == 96);
  EXPECT(offsetof(ai00_generate_params, prefix_cache) == 56); /* appended in 0.2 */
  /* appended in 0.3 */
  EXPECT(offsetof(ai00_generate_params, stream_tool_calls) == 64);
  EXPECT(offsetof(ai00_generate_params, tool_choice) == 68);
  EXPECT(offsetof(ai00_generate_params, tool_choice_name) == 72);
  EXPECT(offsetof(ai00_generate_params, tool_choice_name_len) == 80);
  EXPECT(offsetof(ai00_generate_params, parallel_tool_calls) == 88);
  EXPECT(AI00_TOOL_CHOICE_NAMED == 3);
  EXPECT(sizeof(ai00_prefix_cache_params) == 24);
  EXPECT(offsetof(ai00_prefix_cache_params, max_bytes) == 8);
  EXPECT(offsetof(ai00_prefix_cache_params, compress_bf16) == 16);
  EXPECT(sizeof(ai00_prefix_cache_stats) == 80);
  EXPECT(offsetof(ai00_prefix_cache_stats, spare_bytes) == 72); /* appended in 0.5 */
  EXPECT(offsetof(ai00_prefix_cache_stats, hits) == 8);
  EXPECT(offsetof(ai00_prefix_cache_stats, max_bytes) == 64);
  EXPECT(sizeof(ai00_score_params) == 40);
  EXPECT(offsetof(ai00_score_params, logits) == 24);
  EXPECT(sizeof(ai00_option_score) == 24);
  EXPECT(offsetof(ai00_option_score, n_tokens) == 16);
  EXPECT(offsetof(ai00_generate_params, seed) == 16);
  EXPECT(offsetof(ai00_generate_params, grammar) == 32);
  EXPECT(offsetof(ai00_generate_params, stop_sequences) == 40);
  EXPECT(offsetof(ai00_generate_params, n_stop_sequences) == 48);
  EXPECT(sizeof(ai00_parse_options) == 40);
  EXPECT(offsetof(ai00_parse_options, stream_tool_calls) == 32); /* appended: 0.1 size 32 */
  EXPECT(offsetof(ai00_parse_options, tools_json) == 8);
  EXPECT(offsetof(ai00_parse_options, id_seed) == 24);
  EXPECT(sizeof(ai00_grammar_params) == 24);
  EXPECT(offsetof(ai00_grammar_params, start_rule) == 8);
  EXPECT(sizeof(ai00_schema_options) == 24);
  EXPECT(offsetof(ai00_schema_options, compact) == 20);
  EXPECT(offsetof(ai00_schema_options, max_whitespace) == 16);
  EXPECT(sizeof(ai00_tool_grammar_params) == 24);
  EXPECT(offsetof(ai00_tool_grammar_params, schema) == 16);
  EXPECT(sizeof(ai00_grammar_check_result) == 32);
  EXPECT(offsetof(ai00_grammar_check_result, byte_offset) == 8);
  EXPECT(offsetof(ai00_grammar_check_result, token_id) == 24);
  EXPECT(AI00_ERR_INTERNAL == -99 && AI00_ERR_OUT_OF_MEMORY == -10);
}

int main(void) {
  uint32_t version = 0;
  ai00_sampler_params sp;
  ai00_generate_params gp;
  if (ai00_version_number(&version) != AI00_OK) return 1;
  if (version != AI00_VERSION_NUMBER) {
    fprintf(stderr, "library version %u != header version %d\n", (unsigned)version,
            AI00_VERSION_NUMBER);
    return 1;
  }
  EXPECT(ai00_version_number(NULL) == AI00_ERR_INVALID_ARGUMENT);
  EXPECT(strcmp(ai00_status_string(AI00_OK), "ok") == 0);
  EXPECT(ai00_status_string((ai00_status)12345) != NULL);
  /* The _default() functions fill struct_size with the library's size. */
  EXPECT(ai00_sampler_params_default(&sp) == AI00_OK && sp.struct_size == sizeof sp);
  EXPECT(ai00_generate_params_default(&gp) == AI00_OK && gp.struct_size == sizeof gp);
  EXPECT(gp.max_tokens == 256 && gp.prefill_chunk == 64);
  check_layouts();
  if (failures != 0) return 1;
  printf("ai00 %u\n", (unsigned)version);
  return 0;
}
