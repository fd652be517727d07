'use strict';
// koffi declarations of include/ai00/ai00.h: structs, the callback type, and one line per
// function in the header's order. Adding an ABI function is one line in FUNCTIONS plus one
// wrapper in index.js. The library: $AI00_LIBRARY (a path), else "libai00.so.0" / "libai00.so"
// through the system loader.
const koffi = require('koffi');

function loadLibrary() {
  const names = [process.env.AI00_LIBRARY, 'libai00.so.0', 'libai00.so', 'libai00.dylib', 'ai00.dll']
    .filter(Boolean);
  const errors = [];
  for (const name of names) {
    try {
      return koffi.load(name);
    } catch (e) {
      errors.push(`${name}: ${e.message}`);
    }
  }
  throw new Error(`cannot load libai00 (set AI00_LIBRARY to its path): ${errors.join('; ')}`);
}

for (const t of ['ai00_model', 'ai00_state', 'ai00_chat_template', 'ai00_grammar', 'ai00_generator',
  'ai00_tokenizer', 'ai00_output_parser', 'ai00_batch', 'ai00_prefix_cache', 'ai00_state_bundle']) koffi.opaque(t);

koffi.struct('ai00_model_info', {
  struct_size: 'uint32_t', n_layer: 'uint32_t', n_embd: 'uint32_t', n_head: 'uint32_t', head_size: 'uint32_t',
  n_vocab: 'uint32_t', n_tokens: 'uint32_t', n_threads: 'uint32_t', state_bytes: 'uint64_t',
});
koffi.struct('ai00_limits', {
  struct_size: 'uint32_t', max_nesting_depth: 'uint32_t', max_threads: 'uint32_t', reserved: 'uint32_t',
  max_grammar_states: 'uint64_t', max_nfa_states: 'uint64_t', max_input_bytes: 'uint64_t',
  max_file_bytes: 'uint64_t', max_string_bytes: 'uint64_t', max_tokens: 'uint64_t',
});
koffi.proto('int32_t ai00_progress_callback(uint64_t done, uint64_t total, void *user_data)');
koffi.struct('ai00_model_params', {
  struct_size: 'uint32_t', n_threads: 'int32_t', forced_isa: 'const char *', vocab_path: 'const char *',
  progress: 'ai00_progress_callback *', progress_user_data: 'void *', activations: 'int32_t',
});
koffi.struct('ai00_convert_params', {
  struct_size: 'uint32_t', weight_type: 'int32_t', file_format: 'int32_t', overwrite: 'int32_t',
  vocab_path: 'const char *', progress: 'ai00_progress_callback *', user_data: 'void *',
});
koffi.struct('ai00_logit_bias', { token: 'uint32_t', bias: 'float' });
koffi.struct('ai00_sampler_params', {
  struct_size: 'uint32_t', method: 'int32_t', temperature: 'float', top_k: 'uint32_t', top_p: 'float',
  min_p: 'float', typical_tau: 'float', mirostat_tau: 'float', mirostat_rate: 'float',
  presence_penalty: 'float', frequency_penalty: 'float', penalty_decay: 'float', repetition_penalty: 'float',
  ban_eos: 'int32_t', logit_bias: 'void *', n_logit_bias: 'size_t',
});
koffi.struct('ai00_render_options', {
  struct_size: 'uint32_t', add_generation_prompt: 'int32_t', thinking: 'int32_t',
  tools_json: 'void *', tools_json_len: 'size_t', assistant_name: 'void *', assistant_name_len: 'size_t',
  reflect: 'int32_t', introspect: 'int32_t', prepend_token0: 'int32_t',
});
koffi.struct('ai00_delta', {
  struct_size: 'uint32_t', kind: 'int32_t', call: 'uint32_t', finish_reason: 'int32_t',
  text: 'void *', text_len: 'size_t', id: 'void *', id_len: 'size_t', name: 'void *', name_len: 'size_t',
  valid: 'int32_t',
});
koffi.struct('ai00_generate_params', {
  struct_size: 'uint32_t', max_tokens: 'uint32_t', prefill_chunk: 'uint32_t', set_seed: 'int32_t',
  seed: 'uint64_t', grammar_mode: 'int32_t', grammar: 'ai00_grammar *', stop_sequences: 'const char **',
  n_stop_sequences: 'size_t',
  prefix_cache: 'void *', // appended in 0.2 (the prefixCache option)
  // appended in 0.3 (the streamToolCalls, toolChoice and parallelToolCalls options)
  stream_tool_calls: 'int32_t', tool_choice: 'int32_t', tool_choice_name: 'void *',
  tool_choice_name_len: 'size_t', parallel_tool_calls: 'int32_t',
});
koffi.struct('ai00_parse_options', {
  struct_size: 'uint32_t', thinking: 'int32_t', tools_json: 'void *', tools_json_len: 'size_t', id_seed: 'uint64_t',
  stream_tool_calls: 'int32_t',
});
koffi.struct('ai00_grammar_params', { struct_size: 'uint32_t', start_rule: 'void *', start_rule_len: 'size_t' });
koffi.struct('ai00_schema_options', {
  struct_size: 'uint32_t', lenient: 'int32_t', strict_properties: 'int32_t', flexible_whitespace: 'int32_t',
  max_whitespace: 'uint32_t', compact: 'int32_t',
});
koffi.struct('ai00_tool_grammar_params', {
  struct_size: 'uint32_t', level: 'int32_t', thinking_start: 'int32_t', allow_eos_end: 'int32_t',
  schema: 'ai00_schema_options *',
});
koffi.struct('ai00_grammar_check_result', {
  struct_size: 'uint32_t', verdict: 'int32_t', byte_offset: 'uint64_t', token_index: 'uint64_t', token_id: 'uint32_t',
});
koffi.proto('int32_t ai00_delta_callback(const ai00_delta *delta, void *user_data)');
koffi.struct('ai00_prefix_cache_params', { struct_size: 'uint32_t', max_bytes: 'uint64_t', compress_bf16: 'int32_t' });
koffi.struct('ai00_prefix_cache_stats', {
  struct_size: 'uint32_t', reserved: 'uint32_t', hits: 'uint64_t', misses: 'uint64_t', hit_tokens: 'uint64_t',
  inserts: 'uint64_t', evictions: 'uint64_t', entries: 'uint64_t', bytes: 'uint64_t', max_bytes: 'uint64_t',
  spare_bytes: 'uint64_t', // appended: memory set aside for later entries (PrefixCache.reserve)
});
koffi.struct('ai00_score_params', {
  struct_size: 'uint32_t', context: 'void *', n_context: 'size_t', logits: 'void *', n_logits: 'size_t',
});
koffi.struct('ai00_option_score', { total_logprob: 'double', mean_logprob: 'double', n_tokens: 'uint64_t' });
koffi.struct('ai00_batch_params', { struct_size: 'uint32_t', pass_rows: 'uint32_t' });
koffi.struct('ai00_batch_step_params', { struct_size: 'uint32_t', max_tokens: 'uint32_t', time_budget_us: 'uint64_t', whole_batch: 'int32_t' });
koffi.struct('ai00_batch_event', {
  struct_size: 'uint32_t', generator: 'ai00_generator *', kind: 'int32_t', finish_reason: 'int32_t',
  delta: 'ai00_delta', error: 'void *', error_len: 'size_t',
});
koffi.struct('ai00_batch_step_result', {
  struct_size: 'uint32_t', steps: 'uint32_t', tokens_sampled: 'uint64_t', prompt_tokens: 'uint64_t',
  time_limited: 'int32_t', unfinished: 'uint32_t',
});
koffi.proto('int32_t ai00_batch_event_callback(const ai00_batch_event *event, void *user_data)');

const FUNCTIONS = [
  'int ai00_version_number(_Out_ uint32_t *v)',
  'int ai00_abi_version(_Out_ uint32_t *v)',
  'int ai00_capabilities_json(_Out_ size_t *len, void *json, size_t cap)',
  'const char *ai00_status_string(int status)',
  'const char *ai00_last_error()',
  // Model
  'int ai00_model_params_default(_Inout_ ai00_model_params *p)',
  'int ai00_limits_default(_Out_ ai00_limits *l)',
  'int ai00_limits_get(_Inout_ ai00_limits *l)',
  'int ai00_limits_set(const ai00_limits *l)',
  'int ai00_model_load(_Out_ ai00_model **out, const void *path, size_t len, const ai00_model_params *p)',
  'int ai00_model_free(ai00_model *m)',
  'const char *ai00_model_last_error(const ai00_model *m)',
  'int ai00_model_get_info(_Inout_ ai00_model_info *info, const ai00_model *m)',
  'int ai00_model_isa_name(_Out_ const char **name, const ai00_model *m)',
  'int ai00_model_info_json(_Out_ size_t *len, void *json, size_t cap, const ai00_model *m)',
  'int ai00_convert_params_default(_Out_ ai00_convert_params *p)',
  'int ai00_model_convert(const void *path_in, size_t in_len, const void *path_out, size_t out_len, const ai00_convert_params *p)',
  'int ai00_model_tokenize(_Out_ size_t *n, void *tokens, size_t cap, const ai00_model *m, const void *text, size_t len)',
  'int ai00_model_detokenize(_Out_ size_t *n, void *text, size_t cap, const ai00_model *m, const void *tokens, size_t n_tokens)',
  // State
  'int ai00_state_new(_Out_ ai00_state **out, const ai00_model *m)',
  'int ai00_state_clone(_Out_ ai00_state **out, const ai00_state *s)',
  'int ai00_state_reset(ai00_state *s)',
  'int ai00_state_free(ai00_state *s)',
  'const char *ai00_state_last_error(const ai00_state *s)',
  'int ai00_state_set_seed(ai00_state *s, uint64_t seed)',
  'int ai00_state_eval(_Out_ size_t *n, void *logits, size_t cap, const ai00_model *m, ai00_state *s, const void *tokens, size_t n_tokens)',
  'int ai00_state_eval_all(_Out_ size_t *n, void *logits, size_t cap, const ai00_model *m, ai00_state *s, const void *tokens, size_t n_tokens)',
  'int ai00_state_save(_Out_ size_t *n, void *buf, size_t cap, const ai00_state *s)',
  'int ai00_state_load(_Out_ ai00_state **out, const ai00_model *m, const void *data, size_t size)',
  'int ai00_state_save_file(const ai00_state *s, const void *path, size_t len)',
  'int ai00_state_load_file(_Out_ ai00_state **out, const ai00_model *m, const void *path, size_t len)',
  'int ai00_state_load_initial(_Out_ ai00_state **out, const ai00_model *m, const void *path, size_t len)',
  // Sampler
  'int ai00_sampler_params_default(_Out_ ai00_sampler_params *p)',
  'int ai00_sampler_params_preset(_Out_ ai00_sampler_params *p, int32_t preset)',
  'int ai00_state_sample(_Out_ uint32_t *token, ai00_state *s, const ai00_sampler_params *p, const void *logits, size_t n)',
  // Chat template
  'int ai00_render_options_default(_Out_ ai00_render_options *o)',
  'int ai00_chat_template_new(_Out_ ai00_chat_template **out, const void *name, size_t len)',
  'int ai00_chat_template_new_with_config(_Out_ ai00_chat_template **out, const void *name, size_t len, const void *toml, size_t toml_len)',
  'int ai00_chat_template_sampler_preset(_Out_ ai00_sampler_params *p, const ai00_chat_template *t, const void *name, size_t len)',
  'int ai00_chat_template_free(ai00_chat_template *t)',
  'const char *ai00_chat_template_last_error(const ai00_chat_template *t)',
  'int ai00_chat_template_render(_Out_ void **prompt, _Out_ size_t *len, ai00_chat_template *t, const void *conv, size_t conv_len, const ai00_render_options *o)',
  'int ai00_chat_template_render_fim(_Out_ void **prompt, _Out_ size_t *len, ai00_chat_template *t, const void *prefix, size_t prefix_len, const void *suffix, size_t suffix_len)',
  'int ai00_chat_template_render_files(_Out_ void **prompt, _Out_ size_t *len, ai00_chat_template *t, void **files, const void *file_lens, size_t n, int32_t leading_separator)',
  'int ai00_chat_template_parse_transcript(_Out_ void **json, _Out_ size_t *len, ai00_chat_template *t, const void *text, size_t len2)',
  'int ai00_chat_template_stop_count(_Out_ size_t *n, const ai00_chat_template *t)',
  'int ai00_chat_template_stop(_Out_ void **text, _Out_ size_t *len, const ai00_chat_template *t, size_t index)',
  'int ai00_chat_template_last_render_json(_Out_ void **json, _Out_ size_t *len, ai00_chat_template *t)',
  // Grammar
  'int ai00_grammar_compile(_Out_ ai00_grammar **out, const ai00_model *m, const void *kbnf, size_t len)',
  'int ai00_grammar_from_json_schema(_Out_ ai00_grammar **out, const ai00_model *m, const void *schema, size_t len)',
  'int ai00_grammar_from_json_schema_with_options(_Out_ ai00_grammar **out, const ai00_model *m, const void *schema, size_t len, const ai00_schema_options *o)',
  'int ai00_grammar_free(ai00_grammar *g)',
  'const char *ai00_grammar_last_error(const ai00_grammar *g)',
  'int ai00_grammar_accepts(_Out_ int32_t *ok, const ai00_grammar *g, const void *text, size_t len)',
  // Generator
  'int ai00_generate_params_default(_Out_ ai00_generate_params *p)',
  'int ai00_generator_new_chat(_Out_ ai00_generator **out, const ai00_model *m, ai00_state *s, const ai00_chat_template *t, const void *conv, size_t conv_len, const ai00_render_options *render, const ai00_sampler_params *sampler, const ai00_generate_params *p)',
  'int ai00_generator_new_raw(_Out_ ai00_generator **out, const ai00_model *m, ai00_state *s, const void *prompt, size_t len, const ai00_sampler_params *sampler, const ai00_generate_params *p)',
  'int ai00_generator_free(ai00_generator *g)',
  'const char *ai00_generator_last_error(const ai00_generator *g)',
  'int ai00_generator_run(_Out_ int32_t *reason, ai00_generator *g, ai00_delta_callback *cb, void *user)',
  'int ai00_generator_next(_Inout_ ai00_delta *d, ai00_generator *g)',
  'int ai00_generator_step(_Out_ int32_t *finished, ai00_generator *g, uint32_t max_tokens, ai00_delta_callback *cb, void *user)',
  'int ai00_generator_pending(_Out_ size_t *n, const ai00_generator *g)',
  'int ai00_generator_cancel(ai00_generator *g)',
  'int ai00_generator_finish_reason(_Out_ int32_t *reason, const ai00_generator *g)',
  'int ai00_generator_message_json(_Out_ void **json, _Out_ size_t *len, ai00_generator *g)',
  'int ai00_generator_warning_count(_Out_ size_t *n, const ai00_generator *g)',
  'int ai00_generator_warning(_Out_ void **text, _Out_ size_t *len, const ai00_generator *g, size_t index)',
  'int ai00_generator_tokens(_Out_ void **tokens, _Out_ size_t *n, const ai00_generator *g)',
  // Prefix-state cache
  'int ai00_prefix_cache_params_default(_Inout_ ai00_prefix_cache_params *p)',
  'int ai00_prefix_cache_new(_Out_ ai00_prefix_cache **out, const ai00_prefix_cache_params *p)',
  'int ai00_prefix_cache_free(ai00_prefix_cache *c)',
  'const char *ai00_prefix_cache_last_error(const ai00_prefix_cache *c)',
  'int ai00_prefix_cache_stats_get(_Inout_ ai00_prefix_cache_stats *s, const ai00_prefix_cache *c)',
  'int ai00_prefix_cache_clear(ai00_prefix_cache *c)',
  'int ai00_prefix_cache_reserve(_Out_ size_t *n, ai00_prefix_cache *c, const ai00_model *m, size_t entries)',
  'int ai00_prefix_cache_warm(_Out_ size_t *n, ai00_prefix_cache *c, const ai00_model *m, const void *tokens, size_t n_tokens)',
  'int ai00_prefix_cache_warm_text(_Out_ size_t *n, ai00_prefix_cache *c, const ai00_model *m, const void *text, size_t len)',
  // Option scoring
  'int ai00_score_params_default(_Inout_ ai00_score_params *p)',
  'int ai00_state_score_options(void *out, size_t cap, const ai00_model *m, const ai00_state *s, void **cands, const void *n_tokens, size_t k, const ai00_score_params *p)',
  'int ai00_state_score_texts(void *out, size_t cap, const ai00_model *m, const ai00_state *s, void **texts, const void *lens, size_t k, const ai00_score_params *p)',
  // State bundles
  'int ai00_state_bundle_save(_Out_ size_t *n, void *buf, size_t cap, ai00_state **states, void **names, const void *name_lens, size_t count)',
  'int ai00_state_bundle_save_file(ai00_state **states, void **names, const void *name_lens, size_t count, const void *path, size_t len)',
  'int ai00_state_bundle_open(_Out_ ai00_state_bundle **out, const void *data, size_t size)',
  'int ai00_state_bundle_open_file(_Out_ ai00_state_bundle **out, const void *path, size_t len)',
  'int ai00_state_bundle_free(ai00_state_bundle *b)',
  'const char *ai00_state_bundle_last_error(const ai00_state_bundle *b)',
  'int ai00_state_bundle_count(_Out_ size_t *n, const ai00_state_bundle *b)',
  'int ai00_state_bundle_name(_Out_ void **name, _Out_ size_t *len, const ai00_state_bundle *b, size_t index)',
  'int ai00_state_bundle_find(_Out_ size_t *index, const ai00_state_bundle *b, const void *name, size_t len)',
  'int ai00_state_bundle_load(_Out_ ai00_state **out, const ai00_state_bundle *b, const ai00_model *m, size_t index)',
  // Batch
  'int ai00_batch_params_default(_Inout_ ai00_batch_params *p)',
  'int ai00_batch_step_params_default(_Inout_ ai00_batch_step_params *p)',
  'int ai00_batch_new(_Out_ ai00_batch **out, const ai00_model *m, const ai00_batch_params *p)',
  'int ai00_batch_free(ai00_batch *b)',
  'const char *ai00_batch_last_error(const ai00_batch *b)',
  'int ai00_batch_add(ai00_batch *b, ai00_generator *g)',
  'int ai00_batch_remove(ai00_batch *b, ai00_generator *g)',
  'int ai00_batch_size(_Out_ size_t *n, const ai00_batch *b)',
  'int ai00_batch_step(_Inout_ ai00_batch_step_result *r, ai00_batch *b, const ai00_batch_step_params *p, ai00_batch_event_callback *cb, void *user)',
  'int ai00_batch_pending(_Out_ size_t *n, const ai00_batch *b)',
  'int ai00_batch_next_event(_Out_ int32_t *has, _Inout_ ai00_batch_event *e, ai00_batch *b)',
  // Tokenizer
  'int ai00_tokenizer_load(_Out_ ai00_tokenizer **out, const void *path, size_t len)',
  'int ai00_tokenizer_from_model(_Out_ ai00_tokenizer **out, const ai00_model *m)',
  'int ai00_tokenizer_free(ai00_tokenizer *t)',
  'const char *ai00_tokenizer_last_error(const ai00_tokenizer *t)',
  'int ai00_tokenizer_vocab_size(_Out_ uint32_t *n, const ai00_tokenizer *t)',
  'int ai00_tokenizer_encode(_Out_ size_t *n, void *tokens, size_t cap, const ai00_tokenizer *t, const void *text, size_t len)',
  'int ai00_tokenizer_decode(_Out_ size_t *n, void *bytes, size_t cap, const ai00_tokenizer *t, const void *tokens, size_t n_tokens)',
  // Output parser
  'int ai00_parse_options_default(_Out_ ai00_parse_options *o)',
  'int ai00_output_parser_new(_Out_ ai00_output_parser **out, const ai00_chat_template *t, const ai00_parse_options *o)',
  'int ai00_output_parser_free(ai00_output_parser *p)',
  'const char *ai00_output_parser_last_error(const ai00_output_parser *p)',
  'int ai00_output_parser_push(_Out_ size_t *pending, ai00_output_parser *p, const void *bytes, size_t len)',
  'int ai00_output_parser_finish(ai00_output_parser *p, int32_t reason)',
  'int ai00_output_parser_pending(_Out_ size_t *n, const ai00_output_parser *p)',
  'int ai00_output_parser_next(_Inout_ ai00_delta *d, ai00_output_parser *p)',
  'int ai00_output_parser_finish_reason(_Out_ int32_t *reason, const ai00_output_parser *p)',
  'int ai00_output_parser_message_json(_Out_ void **json, _Out_ size_t *len, ai00_output_parser *p)',
  'int ai00_output_parser_warning_count(_Out_ size_t *n, const ai00_output_parser *p)',
  'int ai00_output_parser_warning(_Out_ void **text, _Out_ size_t *len, const ai00_output_parser *p, size_t index)',
  'int ai00_finish_reason_name(_Out_ const char **name, int32_t reason)',
  // Grammars without a model
  'int ai00_grammar_params_default(_Out_ ai00_grammar_params *p)',
  'int ai00_schema_options_default(_Out_ ai00_schema_options *o)',
  'int ai00_tool_grammar_params_default(_Out_ ai00_tool_grammar_params *p)',
  'int ai00_grammar_new(_Out_ ai00_grammar **out, const ai00_tokenizer *t, const void *kbnf, size_t len, const ai00_grammar_params *p)',
  'int ai00_grammar_new_from_json_schema(_Out_ ai00_grammar **out, const ai00_tokenizer *t, const void *schema, size_t len, const ai00_schema_options *o)',
  'int ai00_grammar_new_for_tools(_Out_ ai00_grammar **out, const ai00_tokenizer *t, const ai00_chat_template *tmpl, const void *tools, size_t len, const ai00_tool_grammar_params *p)',
  'int ai00_grammar_kbnf(_Out_ void **kbnf, _Out_ size_t *len, const ai00_grammar *g)',
  'int ai00_grammar_warning_count(_Out_ size_t *n, const ai00_grammar *g)',
  'int ai00_grammar_warning(_Out_ void **text, _Out_ size_t *len, const ai00_grammar *g, size_t index)',
  'int ai00_grammar_check(_Inout_ ai00_grammar_check_result *r, const ai00_grammar *g, const void *text, size_t len)',
];

const lib = loadLibrary();
const fn = {};
for (const decl of FUNCTIONS) {
  const f = lib.func(decl);
  fn[f.info.name] = f;
}

module.exports = { koffi, fn };
