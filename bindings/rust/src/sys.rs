//! Raw declarations of `include/ai00/ai00.h`, written by hand (no bindgen, no crates).
//!
//! One `#[repr(C)]` type per struct of the header and one declaration per function, in the
//! header's order. Everything here is `unsafe` to call and follows the header's rules exactly;
//! the safe API lives in the other modules. Adding an ABI function is one declaration here plus
//! one wrapper there.
#![allow(non_camel_case_types)]
#![allow(missing_docs)]

use std::os::raw::{c_char, c_void};

pub type ai00_status = i32;

/// `AI00_NUL_TERMINATED`: a string length meaning "up to the first NUL".
pub const AI00_NUL_TERMINATED: usize = usize::MAX;

#[repr(C)]
pub struct ai00_model {
    _private: [u8; 0],
}
#[repr(C)]
pub struct ai00_state {
    _private: [u8; 0],
}
#[repr(C)]
pub struct ai00_chat_template {
    _private: [u8; 0],
}
#[repr(C)]
pub struct ai00_grammar {
    _private: [u8; 0],
}
#[repr(C)]
pub struct ai00_generator {
    _private: [u8; 0],
}
#[repr(C)]
pub struct ai00_tokenizer {
    _private: [u8; 0],
}
#[repr(C)]
pub struct ai00_batch {
    _private: [u8; 0],
}
#[repr(C)]
pub struct ai00_prefix_cache {
    _private: [u8; 0],
}
#[repr(C)]
pub struct ai00_state_bundle {
    _private: [u8; 0],
}
#[repr(C)]
pub struct ai00_output_parser {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_model_params {
    pub struct_size: u32,
    pub n_threads: i32,
    pub forced_isa: *const c_char,
    pub vocab_path: *const c_char,
    pub progress: ai00_progress_callback,
    pub progress_user_data: *mut c_void,
    pub activations: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ai00_limits {
    pub struct_size: u32,
    pub max_nesting_depth: u32,
    pub max_threads: u32,
    pub reserved: u32,
    pub max_grammar_states: u64,
    pub max_nfa_states: u64,
    pub max_input_bytes: u64,
    pub max_file_bytes: u64,
    pub max_string_bytes: u64,
    pub max_tokens: u64,
}

pub type ai00_progress_callback =
    Option<unsafe extern "C" fn(done: u64, total: u64, user_data: *mut c_void) -> i32>;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_convert_params {
    pub struct_size: u32,
    pub weight_type: i32,
    pub file_format: i32,
    pub overwrite: i32,
    pub vocab_path: *const c_char,
    pub progress: ai00_progress_callback,
    pub user_data: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ai00_model_info {
    pub struct_size: u32,
    pub n_layer: u32,
    pub n_embd: u32,
    pub n_head: u32,
    pub head_size: u32,
    pub n_vocab: u32,
    pub n_tokens: u32,
    pub n_threads: u32,
    pub state_bytes: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_logit_bias {
    pub token: u32,
    pub bias: f32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_sampler_params {
    pub struct_size: u32,
    pub method: i32,
    pub temperature: f32,
    pub top_k: u32,
    pub top_p: f32,
    pub min_p: f32,
    pub typical_tau: f32,
    pub mirostat_tau: f32,
    pub mirostat_rate: f32,
    pub presence_penalty: f32,
    pub frequency_penalty: f32,
    pub penalty_decay: f32,
    pub repetition_penalty: f32,
    pub ban_eos: i32,
    pub logit_bias: *const ai00_logit_bias,
    pub n_logit_bias: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_render_options {
    pub struct_size: u32,
    pub add_generation_prompt: i32,
    pub thinking: i32,
    pub tools_json: *const c_char,
    pub tools_json_len: usize,
    pub assistant_name: *const c_char,
    pub assistant_name_len: usize,
    pub reflect: i32,
    pub introspect: i32,
    pub prepend_token0: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_delta {
    pub struct_size: u32,
    pub kind: i32,
    pub call: u32,
    pub finish_reason: i32,
    pub text: *const c_char,
    pub text_len: usize,
    pub id: *const c_char,
    pub id_len: usize,
    pub name: *const c_char,
    pub name_len: usize,
    pub valid: i32,
}

pub type ai00_delta_callback =
    Option<unsafe extern "C" fn(delta: *const ai00_delta, user_data: *mut c_void) -> i32>;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_prefix_cache_params {
    pub struct_size: u32,
    pub max_bytes: u64,
    pub compress_bf16: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_prefix_cache_stats {
    pub struct_size: u32,
    pub reserved: u32,
    pub hits: u64,
    pub misses: u64,
    pub hit_tokens: u64,
    pub inserts: u64,
    pub evictions: u64,
    pub entries: u64,
    pub bytes: u64,
    pub max_bytes: u64,
    // Appended: memory set aside for later entries (ai00_prefix_cache_reserve).
    pub spare_bytes: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_score_params {
    pub struct_size: u32,
    pub context: *const u32,
    pub n_context: usize,
    pub logits: *const f32,
    pub n_logits: usize,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ai00_option_score {
    pub total_logprob: f64,
    pub mean_logprob: f64,
    pub n_tokens: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_generate_params {
    pub struct_size: u32,
    pub max_tokens: u32,
    pub prefill_chunk: u32,
    pub set_seed: i32,
    pub seed: u64,
    pub grammar_mode: i32,
    pub grammar: *const ai00_grammar,
    pub stop_sequences: *const *const c_char,
    pub n_stop_sequences: usize,
    // Appended in 0.2: an ai00_prefix_cache (GenerateParams::prefix_cache).
    pub prefix_cache: *mut c_void,
    // Appended in 0.3 (GenerateParams::stream_tool_calls, tool_choice, parallel_tool_calls).
    pub stream_tool_calls: i32,
    pub tool_choice: i32,
    pub tool_choice_name: *const c_char,
    pub tool_choice_name_len: usize,
    pub parallel_tool_calls: i32,
}

pub const AI00_ACTIVATIONS_DOT: i32 = 0;
pub const AI00_ACTIVATIONS_EXACT: i32 = 1;
pub const AI00_TOOL_CHOICE_AUTO: i32 = 0;
pub const AI00_TOOL_CHOICE_NONE: i32 = 1;
pub const AI00_TOOL_CHOICE_REQUIRED: i32 = 2;
pub const AI00_TOOL_CHOICE_NAMED: i32 = 3;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_batch_params {
    pub struct_size: u32,
    pub pass_rows: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_batch_step_params {
    pub struct_size: u32,
    pub max_tokens: u32,
    pub time_budget_us: u64,
    pub whole_batch: i32,
}

pub const AI00_BATCH_EVENT_DELTA: i32 = 0;
pub const AI00_BATCH_EVENT_FINISHED: i32 = 1;
pub const AI00_BATCH_EVENT_ERROR: i32 = 2;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_batch_event {
    pub struct_size: u32,
    pub generator: *mut ai00_generator,
    pub kind: i32,
    pub finish_reason: i32,
    pub delta: ai00_delta,
    pub error: *const c_char,
    pub error_len: usize,
}

pub type ai00_batch_event_callback =
    Option<unsafe extern "C" fn(event: *const ai00_batch_event, user_data: *mut c_void) -> i32>;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ai00_batch_step_result {
    pub struct_size: u32,
    pub steps: u32,
    pub tokens_sampled: u64,
    pub prompt_tokens: u64,
    pub time_limited: i32,
    pub unfinished: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_parse_options {
    pub struct_size: u32,
    pub thinking: i32,
    pub tools_json: *const c_char,
    pub tools_json_len: usize,
    pub id_seed: u64,
    pub stream_tool_calls: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_grammar_params {
    pub struct_size: u32,
    pub start_rule: *const c_char,
    pub start_rule_len: usize,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ai00_schema_options {
    pub struct_size: u32,
    pub lenient: i32,
    pub strict_properties: i32,
    pub flexible_whitespace: i32,
    pub max_whitespace: u32,
    pub compact: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ai00_tool_grammar_params {
    pub struct_size: u32,
    pub level: i32,
    pub thinking_start: i32,
    pub allow_eos_end: i32,
    pub schema: *const ai00_schema_options,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ai00_grammar_check_result {
    pub struct_size: u32,
    pub verdict: i32,
    pub byte_offset: u64,
    pub token_index: u64,
    pub token_id: u32,
}

#[link(name = "ai00")]
extern "C" {
    // Versions and errors
    pub fn ai00_version_number(out_version: *mut u32) -> ai00_status;
    pub fn ai00_abi_version(out_abi_version: *mut u32) -> ai00_status;
    pub fn ai00_capabilities_json(out_len: *mut usize, json: *mut c_char, capacity: usize)
        -> ai00_status;
    pub fn ai00_status_string(status: ai00_status) -> *const c_char;
    pub fn ai00_last_error() -> *const c_char;

    // Model
    pub fn ai00_model_params_default(out_params: *mut ai00_model_params) -> ai00_status;
    pub fn ai00_model_load(out_model: *mut *mut ai00_model, path: *const c_char, path_len: usize,
                           params: *const ai00_model_params) -> ai00_status;
    pub fn ai00_limits_default(out_limits: *mut ai00_limits) -> ai00_status;
    pub fn ai00_limits_get(out_limits: *mut ai00_limits) -> ai00_status;
    pub fn ai00_limits_set(limits: *const ai00_limits) -> ai00_status;
    pub fn ai00_model_free(model: *mut ai00_model) -> ai00_status;
    pub fn ai00_model_last_error(model: *const ai00_model) -> *const c_char;
    pub fn ai00_model_get_info(out_info: *mut ai00_model_info, model: *const ai00_model)
                               -> ai00_status;
    pub fn ai00_model_isa_name(out_name: *mut *const c_char, model: *const ai00_model)
                               -> ai00_status;
    pub fn ai00_model_info_json(out_len: *mut usize, json: *mut c_char, capacity: usize,
                                model: *const ai00_model) -> ai00_status;
    pub fn ai00_convert_params_default(out_params: *mut ai00_convert_params) -> ai00_status;
    pub fn ai00_model_convert(path_in: *const c_char, path_in_len: usize,
                              path_out: *const c_char, path_out_len: usize,
                              params: *const ai00_convert_params) -> ai00_status;
    pub fn ai00_model_tokenize(out_count: *mut usize, tokens: *mut u32, capacity: usize,
                               model: *const ai00_model, text: *const c_char, text_len: usize)
                               -> ai00_status;
    pub fn ai00_model_detokenize(out_len: *mut usize, text: *mut c_char, capacity: usize,
                                 model: *const ai00_model, tokens: *const u32, n_tokens: usize)
                                 -> ai00_status;

    // State
    pub fn ai00_state_new(out_state: *mut *mut ai00_state, model: *const ai00_model)
                          -> ai00_status;
    pub fn ai00_state_clone(out_state: *mut *mut ai00_state, state: *const ai00_state)
                            -> ai00_status;
    pub fn ai00_state_reset(state: *mut ai00_state) -> ai00_status;
    pub fn ai00_state_free(state: *mut ai00_state) -> ai00_status;
    pub fn ai00_state_last_error(state: *const ai00_state) -> *const c_char;
    pub fn ai00_state_set_seed(state: *mut ai00_state, seed: u64) -> ai00_status;
    pub fn ai00_state_eval(out_count: *mut usize, logits: *mut f32, capacity: usize,
                           model: *const ai00_model, state: *mut ai00_state, tokens: *const u32,
                           n_tokens: usize) -> ai00_status;
    pub fn ai00_state_eval_all(out_count: *mut usize, logits: *mut f32, capacity: usize,
                               model: *const ai00_model, state: *mut ai00_state,
                               tokens: *const u32, n_tokens: usize) -> ai00_status;
    pub fn ai00_state_save(out_size: *mut usize, buffer: *mut c_void, capacity: usize,
                           state: *const ai00_state) -> ai00_status;
    pub fn ai00_state_load(out_state: *mut *mut ai00_state, model: *const ai00_model,
                           data: *const c_void, size: usize) -> ai00_status;
    pub fn ai00_state_save_file(state: *const ai00_state, path: *const c_char, path_len: usize)
                                -> ai00_status;
    pub fn ai00_state_load_file(out_state: *mut *mut ai00_state, model: *const ai00_model,
                                path: *const c_char, path_len: usize) -> ai00_status;
    pub fn ai00_state_load_initial(out_state: *mut *mut ai00_state, model: *const ai00_model,
                                   path: *const c_char, path_len: usize) -> ai00_status;

    // Sampler
    pub fn ai00_sampler_params_default(out_params: *mut ai00_sampler_params) -> ai00_status;
    pub fn ai00_sampler_params_preset(out_params: *mut ai00_sampler_params, preset: i32)
                                      -> ai00_status;
    pub fn ai00_state_sample(out_token: *mut u32, state: *mut ai00_state,
                             params: *const ai00_sampler_params, logits: *const f32,
                             n_logits: usize) -> ai00_status;

    // Chat template
    pub fn ai00_render_options_default(out_options: *mut ai00_render_options) -> ai00_status;
    pub fn ai00_chat_template_new(out_template: *mut *mut ai00_chat_template,
                                  name: *const c_char, name_len: usize) -> ai00_status;
    pub fn ai00_chat_template_new_with_config(out_template: *mut *mut ai00_chat_template,
                                              name: *const c_char, name_len: usize,
                                              config_toml: *const c_char, config_len: usize)
                                              -> ai00_status;
    pub fn ai00_chat_template_sampler_preset(out_params: *mut ai00_sampler_params,
                                             tmpl: *const ai00_chat_template,
                                             name: *const c_char, name_len: usize)
                                             -> ai00_status;
    pub fn ai00_chat_template_render_fim(out_prompt: *mut *const c_char, out_len: *mut usize,
                                         tmpl: *mut ai00_chat_template, prefix: *const c_char,
                                         prefix_len: usize, suffix: *const c_char,
                                         suffix_len: usize) -> ai00_status;
    pub fn ai00_chat_template_render_files(out_prompt: *mut *const c_char, out_len: *mut usize,
                                           tmpl: *mut ai00_chat_template,
                                           files: *const *const c_char, file_lens: *const usize,
                                           n_files: usize, leading_separator: i32)
                                           -> ai00_status;
    pub fn ai00_chat_template_parse_transcript(out_json: *mut *const c_char, out_len: *mut usize,
                                               tmpl: *mut ai00_chat_template,
                                               text: *const c_char, text_len: usize)
                                               -> ai00_status;
    pub fn ai00_chat_template_free(tmpl: *mut ai00_chat_template) -> ai00_status;
    pub fn ai00_chat_template_last_error(tmpl: *const ai00_chat_template) -> *const c_char;
    pub fn ai00_chat_template_render(out_prompt: *mut *const c_char, out_len: *mut usize,
                                     tmpl: *mut ai00_chat_template,
                                     conversation_json: *const c_char, conversation_len: usize,
                                     options: *const ai00_render_options) -> ai00_status;
    pub fn ai00_chat_template_stop_count(out_count: *mut usize, tmpl: *const ai00_chat_template)
                                         -> ai00_status;
    pub fn ai00_chat_template_stop(out_text: *mut *const c_char, out_len: *mut usize,
                                   tmpl: *const ai00_chat_template, index: usize) -> ai00_status;
    pub fn ai00_chat_template_last_render_json(out_json: *mut *const c_char, out_len: *mut usize,
                                               tmpl: *mut ai00_chat_template) -> ai00_status;

    // Grammar (bound to a model)
    pub fn ai00_grammar_compile(out_grammar: *mut *mut ai00_grammar, model: *const ai00_model,
                                kbnf: *const c_char, kbnf_len: usize) -> ai00_status;
    pub fn ai00_grammar_from_json_schema(out_grammar: *mut *mut ai00_grammar,
                                         model: *const ai00_model, schema_json: *const c_char,
                                         schema_len: usize) -> ai00_status;
    pub fn ai00_grammar_from_json_schema_with_options(out_grammar: *mut *mut ai00_grammar,
                                                      model: *const ai00_model,
                                                      schema_json: *const c_char,
                                                      schema_len: usize,
                                                      options: *const ai00_schema_options)
                                                      -> ai00_status;
    pub fn ai00_grammar_free(grammar: *mut ai00_grammar) -> ai00_status;
    pub fn ai00_grammar_last_error(grammar: *const ai00_grammar) -> *const c_char;
    pub fn ai00_grammar_accepts(out_accepted: *mut i32, grammar: *const ai00_grammar,
                                text: *const c_char, text_len: usize) -> ai00_status;

    // Generator
    pub fn ai00_generate_params_default(out_params: *mut ai00_generate_params) -> ai00_status;
    pub fn ai00_generator_new_chat(out_generator: *mut *mut ai00_generator,
                                   model: *const ai00_model, state: *mut ai00_state,
                                   tmpl: *const ai00_chat_template,
                                   conversation_json: *const c_char, conversation_len: usize,
                                   render: *const ai00_render_options,
                                   sampler: *const ai00_sampler_params,
                                   params: *const ai00_generate_params) -> ai00_status;
    pub fn ai00_generator_new_raw(out_generator: *mut *mut ai00_generator,
                                  model: *const ai00_model, state: *mut ai00_state,
                                  prompt: *const c_char, prompt_len: usize,
                                  sampler: *const ai00_sampler_params,
                                  params: *const ai00_generate_params) -> ai00_status;
    pub fn ai00_generator_free(gen: *mut ai00_generator) -> ai00_status;
    pub fn ai00_generator_last_error(gen: *const ai00_generator) -> *const c_char;
    pub fn ai00_generator_run(out_finish_reason: *mut i32, gen: *mut ai00_generator,
                              callback: ai00_delta_callback, user_data: *mut c_void)
                              -> ai00_status;
    pub fn ai00_generator_next(out_delta: *mut ai00_delta, gen: *mut ai00_generator)
                               -> ai00_status;
    pub fn ai00_generator_step(out_finished: *mut i32, gen: *mut ai00_generator, max_tokens: u32,
                               callback: ai00_delta_callback, user_data: *mut c_void)
                               -> ai00_status;
    pub fn ai00_generator_pending(out_count: *mut usize, gen: *const ai00_generator)
                                  -> ai00_status;
    pub fn ai00_generator_cancel(gen: *mut ai00_generator) -> ai00_status;
    pub fn ai00_generator_finish_reason(out_finish_reason: *mut i32, gen: *const ai00_generator)
                                        -> ai00_status;
    pub fn ai00_generator_message_json(out_json: *mut *const c_char, out_len: *mut usize,
                                       gen: *mut ai00_generator) -> ai00_status;
    pub fn ai00_generator_warning_count(out_count: *mut usize, gen: *const ai00_generator)
                                        -> ai00_status;
    pub fn ai00_generator_warning(out_text: *mut *const c_char, out_len: *mut usize,
                                  gen: *const ai00_generator, index: usize) -> ai00_status;
    pub fn ai00_generator_tokens(out_tokens: *mut *const u32, out_count: *mut usize,
                                 gen: *const ai00_generator) -> ai00_status;

    // Tokenizer
    pub fn ai00_tokenizer_load(out_tokenizer: *mut *mut ai00_tokenizer, path: *const c_char,
                               path_len: usize) -> ai00_status;
    pub fn ai00_tokenizer_from_model(out_tokenizer: *mut *mut ai00_tokenizer,
                                     model: *const ai00_model) -> ai00_status;
    pub fn ai00_tokenizer_free(tokenizer: *mut ai00_tokenizer) -> ai00_status;
    pub fn ai00_tokenizer_last_error(tokenizer: *const ai00_tokenizer) -> *const c_char;
    pub fn ai00_tokenizer_vocab_size(out_size: *mut u32, tokenizer: *const ai00_tokenizer)
                                     -> ai00_status;
    pub fn ai00_tokenizer_encode(out_count: *mut usize, tokens: *mut u32, capacity: usize,
                                 tokenizer: *const ai00_tokenizer, text: *const c_char,
                                 text_len: usize) -> ai00_status;
    pub fn ai00_tokenizer_decode(out_len: *mut usize, bytes: *mut c_char, capacity: usize,
                                 tokenizer: *const ai00_tokenizer, tokens: *const u32,
                                 n_tokens: usize) -> ai00_status;

    // Output parser
    pub fn ai00_parse_options_default(out_options: *mut ai00_parse_options) -> ai00_status;
    pub fn ai00_output_parser_new(out_parser: *mut *mut ai00_output_parser,
                                  tmpl: *const ai00_chat_template,
                                  options: *const ai00_parse_options) -> ai00_status;
    pub fn ai00_output_parser_free(parser: *mut ai00_output_parser) -> ai00_status;
    pub fn ai00_output_parser_last_error(parser: *const ai00_output_parser) -> *const c_char;
    pub fn ai00_output_parser_push(out_pending: *mut usize, parser: *mut ai00_output_parser,
                                   bytes: *const c_char, len: usize) -> ai00_status;
    pub fn ai00_output_parser_finish(parser: *mut ai00_output_parser, finish_reason: i32)
                                     -> ai00_status;
    pub fn ai00_output_parser_pending(out_count: *mut usize, parser: *const ai00_output_parser)
                                      -> ai00_status;
    pub fn ai00_output_parser_next(out_delta: *mut ai00_delta, parser: *mut ai00_output_parser)
                                   -> ai00_status;
    pub fn ai00_output_parser_finish_reason(out_finish_reason: *mut i32,
                                            parser: *const ai00_output_parser) -> ai00_status;
    pub fn ai00_output_parser_message_json(out_json: *mut *const c_char, out_len: *mut usize,
                                           parser: *mut ai00_output_parser) -> ai00_status;
    pub fn ai00_output_parser_warning_count(out_count: *mut usize,
                                            parser: *const ai00_output_parser) -> ai00_status;
    pub fn ai00_output_parser_warning(out_text: *mut *const c_char, out_len: *mut usize,
                                      parser: *const ai00_output_parser, index: usize)
                                      -> ai00_status;
    pub fn ai00_finish_reason_name(out_name: *mut *const c_char, finish_reason: i32)
                                   -> ai00_status;

    // Grammars without a model
    pub fn ai00_grammar_params_default(out_params: *mut ai00_grammar_params) -> ai00_status;
    pub fn ai00_schema_options_default(out_options: *mut ai00_schema_options) -> ai00_status;
    pub fn ai00_tool_grammar_params_default(out_params: *mut ai00_tool_grammar_params)
                                            -> ai00_status;
    pub fn ai00_grammar_new(out_grammar: *mut *mut ai00_grammar,
                            tokenizer: *const ai00_tokenizer, kbnf: *const c_char,
                            kbnf_len: usize, params: *const ai00_grammar_params) -> ai00_status;
    pub fn ai00_grammar_new_from_json_schema(out_grammar: *mut *mut ai00_grammar,
                                             tokenizer: *const ai00_tokenizer,
                                             schema_json: *const c_char, schema_len: usize,
                                             options: *const ai00_schema_options) -> ai00_status;
    pub fn ai00_grammar_new_for_tools(out_grammar: *mut *mut ai00_grammar,
                                      tokenizer: *const ai00_tokenizer,
                                      tmpl: *const ai00_chat_template, tools_json: *const c_char,
                                      tools_json_len: usize,
                                      params: *const ai00_tool_grammar_params) -> ai00_status;
    pub fn ai00_grammar_kbnf(out_kbnf: *mut *const c_char, out_len: *mut usize,
                             grammar: *const ai00_grammar) -> ai00_status;
    pub fn ai00_grammar_warning_count(out_count: *mut usize, grammar: *const ai00_grammar)
                                      -> ai00_status;
    pub fn ai00_grammar_warning(out_text: *mut *const c_char, out_len: *mut usize,
                                grammar: *const ai00_grammar, index: usize) -> ai00_status;
    pub fn ai00_grammar_check(out_result: *mut ai00_grammar_check_result,
                              grammar: *const ai00_grammar, text: *const c_char, text_len: usize)
                              -> ai00_status;

    // Prefix-state cache
    pub fn ai00_prefix_cache_params_default(out_params: *mut ai00_prefix_cache_params)
                                            -> ai00_status;
    pub fn ai00_prefix_cache_new(out_cache: *mut *mut ai00_prefix_cache,
                                 params: *const ai00_prefix_cache_params) -> ai00_status;
    pub fn ai00_prefix_cache_free(cache: *mut ai00_prefix_cache) -> ai00_status;
    pub fn ai00_prefix_cache_last_error(cache: *const ai00_prefix_cache) -> *const c_char;
    pub fn ai00_prefix_cache_stats_get(out_stats: *mut ai00_prefix_cache_stats,
                                       cache: *const ai00_prefix_cache) -> ai00_status;
    pub fn ai00_prefix_cache_clear(cache: *mut ai00_prefix_cache) -> ai00_status;
    pub fn ai00_prefix_cache_reserve(out_reserved: *mut usize, cache: *mut ai00_prefix_cache,
                                     model: *const ai00_model, entries: usize) -> ai00_status;
    pub fn ai00_prefix_cache_warm(out_evaluated: *mut usize, cache: *mut ai00_prefix_cache,
                                  model: *const ai00_model, tokens: *const u32, n_tokens: usize)
                                  -> ai00_status;
    pub fn ai00_prefix_cache_warm_text(out_evaluated: *mut usize, cache: *mut ai00_prefix_cache,
                                       model: *const ai00_model, text: *const c_char,
                                       text_len: usize) -> ai00_status;

    // Option scoring
    pub fn ai00_score_params_default(out_params: *mut ai00_score_params) -> ai00_status;
    pub fn ai00_state_score_options(out_scores: *mut ai00_option_score, capacity: usize,
                                    model: *const ai00_model, state: *const ai00_state,
                                    candidates: *const *const u32, n_tokens: *const usize,
                                    n_candidates: usize, params: *const ai00_score_params)
                                    -> ai00_status;
    pub fn ai00_state_score_texts(out_scores: *mut ai00_option_score, capacity: usize,
                                  model: *const ai00_model, state: *const ai00_state,
                                  texts: *const *const c_char, text_lens: *const usize,
                                  n_candidates: usize, params: *const ai00_score_params)
                                  -> ai00_status;

    // State bundles
    pub fn ai00_state_bundle_save(out_size: *mut usize, buffer: *mut c_void, capacity: usize,
                                  states: *const *const ai00_state, names: *const *const c_char,
                                  name_lens: *const usize, count: usize) -> ai00_status;
    pub fn ai00_state_bundle_save_file(states: *const *const ai00_state,
                                       names: *const *const c_char, name_lens: *const usize,
                                       count: usize, path: *const c_char, path_len: usize)
                                       -> ai00_status;
    pub fn ai00_state_bundle_open(out_bundle: *mut *mut ai00_state_bundle, data: *const c_void,
                                  size: usize) -> ai00_status;
    pub fn ai00_state_bundle_open_file(out_bundle: *mut *mut ai00_state_bundle,
                                       path: *const c_char, path_len: usize) -> ai00_status;
    pub fn ai00_state_bundle_free(bundle: *mut ai00_state_bundle) -> ai00_status;
    pub fn ai00_state_bundle_last_error(bundle: *const ai00_state_bundle) -> *const c_char;
    pub fn ai00_state_bundle_count(out_count: *mut usize, bundle: *const ai00_state_bundle)
                                   -> ai00_status;
    pub fn ai00_state_bundle_name(out_name: *mut *const c_char, out_len: *mut usize,
                                  bundle: *const ai00_state_bundle, index: usize) -> ai00_status;
    pub fn ai00_state_bundle_find(out_index: *mut usize, bundle: *const ai00_state_bundle,
                                  name: *const c_char, name_len: usize) -> ai00_status;
    pub fn ai00_state_bundle_load(out_state: *mut *mut ai00_state,
                                  bundle: *const ai00_state_bundle, model: *const ai00_model,
                                  index: usize) -> ai00_status;

    // Batch
    pub fn ai00_batch_params_default(out_params: *mut ai00_batch_params) -> ai00_status;
    pub fn ai00_batch_step_params_default(out_params: *mut ai00_batch_step_params)
                                          -> ai00_status;
    pub fn ai00_batch_new(out_batch: *mut *mut ai00_batch, model: *const ai00_model,
                          params: *const ai00_batch_params) -> ai00_status;
    pub fn ai00_batch_free(batch: *mut ai00_batch) -> ai00_status;
    pub fn ai00_batch_last_error(batch: *const ai00_batch) -> *const c_char;
    pub fn ai00_batch_add(batch: *mut ai00_batch, generator: *mut ai00_generator) -> ai00_status;
    pub fn ai00_batch_remove(batch: *mut ai00_batch, generator: *mut ai00_generator)
                             -> ai00_status;
    pub fn ai00_batch_size(out_size: *mut usize, batch: *const ai00_batch) -> ai00_status;
    pub fn ai00_batch_step(out_result: *mut ai00_batch_step_result, batch: *mut ai00_batch,
                           params: *const ai00_batch_step_params,
                           callback: ai00_batch_event_callback, user_data: *mut c_void)
                           -> ai00_status;
    pub fn ai00_batch_pending(out_count: *mut usize, batch: *const ai00_batch) -> ai00_status;
    pub fn ai00_batch_next_event(out_has_event: *mut i32, out_event: *mut ai00_batch_event,
                                 batch: *mut ai00_batch) -> ai00_status;
}
