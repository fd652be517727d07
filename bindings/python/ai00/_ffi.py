"""ctypes declarations of include/ai00/ai00.h: structs, callback type and one row per function.

Adding an ABI function is one row in ``_FUNCTIONS`` plus one wrapper in the public module.
The library is found through ``AI00_LIBRARY`` (a path to libai00.so), then the system loader
(``libai00.so.0`` / ``libai00.so``).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_float, c_int32, c_size_t,
                    c_uint32, c_uint64, c_void_p)

NUL_TERMINATED = ctypes.c_size_t(-1).value




class ModelInfoC(Structure):
    _fields_ = [("struct_size", c_uint32), ("n_layer", c_uint32), ("n_embd", c_uint32),
                ("n_head", c_uint32), ("head_size", c_uint32), ("n_vocab", c_uint32),
                ("n_tokens", c_uint32), ("n_threads", c_uint32), ("state_bytes", c_uint64)]


class LimitsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("max_nesting_depth", c_uint32),
                ("max_threads", c_uint32), ("reserved", c_uint32),
                ("max_grammar_states", c_uint64), ("max_nfa_states", c_uint64),
                ("max_input_bytes", c_uint64), ("max_file_bytes", c_uint64),
                ("max_string_bytes", c_uint64), ("max_tokens", c_uint64)]


ProgressCallback = CFUNCTYPE(c_int32, c_uint64, c_uint64, c_void_p)


class ModelParams(Structure):
    _fields_ = [("struct_size", c_uint32), ("n_threads", c_int32), ("forced_isa", c_char_p),
                ("vocab_path", c_char_p), ("progress", ProgressCallback),
                ("progress_user_data", c_void_p), ("activations", c_int32)]


class ConvertParamsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("weight_type", c_int32), ("file_format", c_int32),
                ("overwrite", c_int32), ("vocab_path", c_char_p), ("progress", ProgressCallback),
                ("user_data", c_void_p)]


class LogitBias(Structure):
    _fields_ = [("token", c_uint32), ("bias", c_float)]


class SamplerParamsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("method", c_int32), ("temperature", c_float),
                ("top_k", c_uint32), ("top_p", c_float), ("min_p", c_float),
                ("typical_tau", c_float), ("mirostat_tau", c_float), ("mirostat_rate", c_float),
                ("presence_penalty", c_float), ("frequency_penalty", c_float),
                ("penalty_decay", c_float), ("repetition_penalty", c_float),
                ("ban_eos", c_int32), ("logit_bias", POINTER(LogitBias)),
                ("n_logit_bias", c_size_t)]


class RenderOptionsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("add_generation_prompt", c_int32),
                ("thinking", c_int32), ("tools_json", c_char_p), ("tools_json_len", c_size_t),
                ("assistant_name", c_char_p), ("assistant_name_len", c_size_t),
                ("reflect", c_int32), ("introspect", c_int32), ("prepend_token0", c_int32)]


class DeltaC(Structure):
    _fields_ = [("struct_size", c_uint32), ("kind", c_int32), ("call", c_uint32),
                ("finish_reason", c_int32), ("text", c_void_p), ("text_len", c_size_t),
                ("id", c_void_p), ("id_len", c_size_t), ("name", c_void_p),
                ("name_len", c_size_t), ("valid", c_int32)]


class GenerateParamsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("max_tokens", c_uint32),
                ("prefill_chunk", c_uint32), ("set_seed", c_int32), ("seed", c_uint64),
                ("grammar_mode", c_int32), ("grammar", c_void_p),
                ("stop_sequences", POINTER(c_char_p)), ("n_stop_sequences", c_size_t),
                # appended in 0.2 (Generator.chat/raw prefix_cache=)
                ("prefix_cache", c_void_p),
                # appended in 0.3 (Generator.chat stream_tool_calls=, tool_choice=, parallel_tool_calls=)
                ("stream_tool_calls", c_int32), ("tool_choice", c_int32),
                ("tool_choice_name", c_void_p), ("tool_choice_name_len", c_size_t),
                ("parallel_tool_calls", c_int32)]


class ParseOptionsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("thinking", c_int32), ("tools_json", c_char_p),
                ("tools_json_len", c_size_t), ("id_seed", c_uint64),
                ("stream_tool_calls", c_int32)]


class GrammarParamsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("start_rule", c_char_p),
                ("start_rule_len", c_size_t)]


class SchemaOptionsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("lenient", c_int32), ("strict_properties", c_int32),
                ("flexible_whitespace", c_int32), ("max_whitespace", c_uint32),
                ("compact", c_int32)]


class ToolGrammarParamsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("level", c_int32), ("thinking_start", c_int32),
                ("allow_eos_end", c_int32), ("schema", POINTER(SchemaOptionsC))]


class CheckResultC(Structure):
    _fields_ = [("struct_size", c_uint32), ("verdict", c_int32), ("byte_offset", c_uint64),
                ("token_index", c_uint64), ("token_id", c_uint32)]


DeltaCallback = CFUNCTYPE(c_int32, POINTER(DeltaC), c_void_p)


class PrefixCacheParamsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("max_bytes", c_uint64), ("compress_bf16", c_int32)]


class PrefixCacheStatsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("reserved", c_uint32), ("hits", c_uint64),
                ("misses", c_uint64), ("hit_tokens", c_uint64), ("inserts", c_uint64),
                ("evictions", c_uint64), ("entries", c_uint64), ("bytes", c_uint64),
                ("max_bytes", c_uint64),
                # appended: memory set aside for later entries (PrefixCache.reserve)
                ("spare_bytes", c_uint64)]


class ScoreParamsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("context", POINTER(c_uint32)), ("n_context", c_size_t),
                ("logits", POINTER(c_float)), ("n_logits", c_size_t)]


class OptionScoreC(Structure):
    _fields_ = [("total_logprob", ctypes.c_double), ("mean_logprob", ctypes.c_double),
                ("n_tokens", c_uint64)]


class BatchParamsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("pass_rows", c_uint32)]


class BatchStepParamsC(Structure):
    _fields_ = [("struct_size", c_uint32), ("max_tokens", c_uint32), ("time_budget_us", c_uint64),
                ("whole_batch", c_int32)]


class BatchEventC(Structure):
    _fields_ = [("struct_size", c_uint32), ("generator", c_void_p), ("kind", c_int32),
                ("finish_reason", c_int32), ("delta", DeltaC), ("error", c_void_p),
                ("error_len", c_size_t)]


class BatchStepResultC(Structure):
    _fields_ = [("struct_size", c_uint32), ("steps", c_uint32), ("tokens_sampled", c_uint64),
                ("prompt_tokens", c_uint64), ("time_limited", c_int32), ("unfinished", c_uint32)]


BatchEventCallback = CFUNCTYPE(c_int32, POINTER(BatchEventC), c_void_p)

_P = c_void_p  # every opaque handle
_PP = POINTER(c_void_p)
_S = c_size_t
_PS = POINTER(c_size_t)
_ST = c_int32  # ai00_status
_CCP = POINTER(c_char_p)
_PU32 = POINTER(c_uint32)
_PF = POINTER(c_float)

# name: (restype, argtypes), in the header's order.
_FUNCTIONS = {
    "ai00_version_number": (_ST, [_PU32]),
    "ai00_abi_version": (_ST, [_PU32]),
    "ai00_capabilities_json": (_ST, [_PS, c_void_p, _S]),
    "ai00_status_string": (c_char_p, [c_int32]),
    "ai00_last_error": (c_char_p, []),
    # Model
    "ai00_model_params_default": (_ST, [POINTER(ModelParams)]),
    "ai00_limits_default": (_ST, [POINTER(LimitsC)]),
    "ai00_limits_get": (_ST, [POINTER(LimitsC)]),
    "ai00_limits_set": (_ST, [POINTER(LimitsC)]),
    "ai00_model_load": (_ST, [_PP, c_char_p, _S, POINTER(ModelParams)]),
    "ai00_model_free": (_ST, [_P]),
    "ai00_model_last_error": (c_char_p, [_P]),
    "ai00_model_get_info": (_ST, [POINTER(ModelInfoC), _P]),
    "ai00_model_isa_name": (_ST, [_CCP, _P]),
    "ai00_model_info_json": (_ST, [_PS, c_void_p, _S, _P]),
    "ai00_convert_params_default": (_ST, [POINTER(ConvertParamsC)]),
    "ai00_model_convert": (_ST, [c_char_p, _S, c_char_p, _S, POINTER(ConvertParamsC)]),
    "ai00_model_tokenize": (_ST, [_PS, _PU32, _S, _P, c_char_p, _S]),
    "ai00_model_detokenize": (_ST, [_PS, c_void_p, _S, _P, _PU32, _S]),
    # State
    "ai00_state_new": (_ST, [_PP, _P]),
    "ai00_state_clone": (_ST, [_PP, _P]),
    "ai00_state_reset": (_ST, [_P]),
    "ai00_state_free": (_ST, [_P]),
    "ai00_state_last_error": (c_char_p, [_P]),
    "ai00_state_set_seed": (_ST, [_P, c_uint64]),
    "ai00_state_eval": (_ST, [_PS, _PF, _S, _P, _P, _PU32, _S]),
    "ai00_state_eval_all": (_ST, [_PS, _PF, _S, _P, _P, _PU32, _S]),
    "ai00_state_save": (_ST, [_PS, c_void_p, _S, _P]),
    "ai00_state_load": (_ST, [_PP, _P, c_void_p, _S]),
    "ai00_state_save_file": (_ST, [_P, c_char_p, _S]),
    "ai00_state_load_file": (_ST, [_PP, _P, c_char_p, _S]),
    "ai00_state_load_initial": (_ST, [_PP, _P, c_char_p, _S]),
    # Sampler
    "ai00_sampler_params_default": (_ST, [POINTER(SamplerParamsC)]),
    "ai00_sampler_params_preset": (_ST, [POINTER(SamplerParamsC), c_int32]),
    "ai00_state_sample": (_ST, [_PU32, _P, POINTER(SamplerParamsC), _PF, _S]),
    # Chat template
    "ai00_render_options_default": (_ST, [POINTER(RenderOptionsC)]),
    "ai00_chat_template_new": (_ST, [_PP, c_char_p, _S]),
    "ai00_chat_template_new_with_config": (_ST, [_PP, c_char_p, _S, c_char_p, _S]),
    "ai00_chat_template_sampler_preset": (_ST, [POINTER(SamplerParamsC), _P, c_char_p, _S]),
    "ai00_chat_template_free": (_ST, [_P]),
    "ai00_chat_template_last_error": (c_char_p, [_P]),
    "ai00_chat_template_render": (_ST, [POINTER(c_void_p), _PS, _P, c_char_p, _S,
                                        POINTER(RenderOptionsC)]),
    "ai00_chat_template_render_fim": (_ST, [POINTER(c_void_p), _PS, _P, c_char_p, _S, c_char_p,
                                            _S]),
    "ai00_chat_template_render_files": (_ST, [POINTER(c_void_p), _PS, _P, POINTER(c_char_p),
                                              _PS, _S, c_int32]),
    "ai00_chat_template_parse_transcript": (_ST, [POINTER(c_void_p), _PS, _P, c_char_p, _S]),
    "ai00_chat_template_stop_count": (_ST, [_PS, _P]),
    "ai00_chat_template_stop": (_ST, [POINTER(c_void_p), _PS, _P, _S]),
    "ai00_chat_template_last_render_json": (_ST, [POINTER(c_void_p), _PS, _P]),
    # Grammar (model)
    "ai00_grammar_compile": (_ST, [_PP, _P, c_char_p, _S]),
    "ai00_grammar_from_json_schema": (_ST, [_PP, _P, c_char_p, _S]),
    "ai00_grammar_from_json_schema_with_options": (_ST, [_PP, _P, c_char_p, _S,
                                                         POINTER(SchemaOptionsC)]),
    "ai00_grammar_free": (_ST, [_P]),
    "ai00_grammar_last_error": (c_char_p, [_P]),
    "ai00_grammar_accepts": (_ST, [POINTER(c_int32), _P, c_char_p, _S]),
    # Generator
    "ai00_generate_params_default": (_ST, [POINTER(GenerateParamsC)]),
    "ai00_generator_new_chat": (_ST, [_PP, _P, _P, _P, c_char_p, _S, POINTER(RenderOptionsC),
                                      POINTER(SamplerParamsC), POINTER(GenerateParamsC)]),
    "ai00_generator_new_raw": (_ST, [_PP, _P, _P, c_char_p, _S, POINTER(SamplerParamsC),
                                     POINTER(GenerateParamsC)]),
    "ai00_generator_free": (_ST, [_P]),
    "ai00_generator_last_error": (c_char_p, [_P]),
    "ai00_generator_run": (_ST, [POINTER(c_int32), _P, DeltaCallback, c_void_p]),
    "ai00_generator_next": (_ST, [POINTER(DeltaC), _P]),
    "ai00_generator_step": (_ST, [POINTER(c_int32), _P, c_uint32, DeltaCallback, c_void_p]),
    "ai00_generator_pending": (_ST, [_PS, _P]),
    "ai00_generator_cancel": (_ST, [_P]),
    "ai00_generator_finish_reason": (_ST, [POINTER(c_int32), _P]),
    "ai00_generator_message_json": (_ST, [POINTER(c_void_p), _PS, _P]),
    "ai00_generator_warning_count": (_ST, [_PS, _P]),
    "ai00_generator_warning": (_ST, [POINTER(c_void_p), _PS, _P, _S]),
    "ai00_generator_tokens": (_ST, [POINTER(_PU32), _PS, _P]),
    # Prefix-state cache
    "ai00_prefix_cache_params_default": (_ST, [POINTER(PrefixCacheParamsC)]),
    "ai00_prefix_cache_new": (_ST, [_PP, POINTER(PrefixCacheParamsC)]),
    "ai00_prefix_cache_free": (_ST, [_P]),
    "ai00_prefix_cache_last_error": (c_char_p, [_P]),
    "ai00_prefix_cache_stats_get": (_ST, [POINTER(PrefixCacheStatsC), _P]),
    "ai00_prefix_cache_clear": (_ST, [_P]),
    "ai00_prefix_cache_reserve": (_ST, [_PS, _P, _P, _S]),
    "ai00_prefix_cache_warm": (_ST, [_PS, _P, _P, _PU32, _S]),
    "ai00_prefix_cache_warm_text": (_ST, [_PS, _P, _P, c_char_p, _S]),
    # Option scoring
    "ai00_score_params_default": (_ST, [POINTER(ScoreParamsC)]),
    "ai00_state_score_options": (_ST, [POINTER(OptionScoreC), _S, _P, _P, POINTER(_PU32), _PS, _S,
                                       POINTER(ScoreParamsC)]),
    "ai00_state_score_texts": (_ST, [POINTER(OptionScoreC), _S, _P, _P, POINTER(c_char_p), _PS,
                                     _S, POINTER(ScoreParamsC)]),
    # State bundles
    "ai00_state_bundle_save": (_ST, [_PS, c_void_p, _S, _PP, POINTER(c_char_p), _PS, _S]),
    "ai00_state_bundle_save_file": (_ST, [_PP, POINTER(c_char_p), _PS, _S, c_char_p, _S]),
    "ai00_state_bundle_open": (_ST, [_PP, c_void_p, _S]),
    "ai00_state_bundle_open_file": (_ST, [_PP, c_char_p, _S]),
    "ai00_state_bundle_free": (_ST, [_P]),
    "ai00_state_bundle_last_error": (c_char_p, [_P]),
    "ai00_state_bundle_count": (_ST, [_PS, _P]),
    "ai00_state_bundle_name": (_ST, [POINTER(c_void_p), _PS, _P, _S]),
    "ai00_state_bundle_find": (_ST, [_PS, _P, c_char_p, _S]),
    "ai00_state_bundle_load": (_ST, [_PP, _P, _P, _S]),
    # Batch
    "ai00_batch_params_default": (_ST, [POINTER(BatchParamsC)]),
    "ai00_batch_step_params_default": (_ST, [POINTER(BatchStepParamsC)]),
    "ai00_batch_new": (_ST, [_PP, _P, POINTER(BatchParamsC)]),
    "ai00_batch_free": (_ST, [_P]),
    "ai00_batch_last_error": (c_char_p, [_P]),
    "ai00_batch_add": (_ST, [_P, _P]),
    "ai00_batch_remove": (_ST, [_P, _P]),
    "ai00_batch_size": (_ST, [_PS, _P]),
    "ai00_batch_step": (_ST, [POINTER(BatchStepResultC), _P, POINTER(BatchStepParamsC),
                              BatchEventCallback, c_void_p]),
    "ai00_batch_pending": (_ST, [_PS, _P]),
    "ai00_batch_next_event": (_ST, [POINTER(c_int32), POINTER(BatchEventC), _P]),
    # Tokenizer
    "ai00_tokenizer_load": (_ST, [_PP, c_char_p, _S]),
    "ai00_tokenizer_from_model": (_ST, [_PP, _P]),
    "ai00_tokenizer_free": (_ST, [_P]),
    "ai00_tokenizer_last_error": (c_char_p, [_P]),
    "ai00_tokenizer_vocab_size": (_ST, [_PU32, _P]),
    "ai00_tokenizer_encode": (_ST, [_PS, _PU32, _S, _P, c_char_p, _S]),
    "ai00_tokenizer_decode": (_ST, [_PS, c_void_p, _S, _P, _PU32, _S]),
    # Output parser
    "ai00_parse_options_default": (_ST, [POINTER(ParseOptionsC)]),
    "ai00_output_parser_new": (_ST, [_PP, _P, POINTER(ParseOptionsC)]),
    "ai00_output_parser_free": (_ST, [_P]),
    "ai00_output_parser_last_error": (c_char_p, [_P]),
    "ai00_output_parser_push": (_ST, [_PS, _P, c_char_p, _S]),
    "ai00_output_parser_finish": (_ST, [_P, c_int32]),
    "ai00_output_parser_pending": (_ST, [_PS, _P]),
    "ai00_output_parser_next": (_ST, [POINTER(DeltaC), _P]),
    "ai00_output_parser_finish_reason": (_ST, [POINTER(c_int32), _P]),
    "ai00_output_parser_message_json": (_ST, [POINTER(c_void_p), _PS, _P]),
    "ai00_output_parser_warning_count": (_ST, [_PS, _P]),
    "ai00_output_parser_warning": (_ST, [POINTER(c_void_p), _PS, _P, _S]),
    "ai00_finish_reason_name": (_ST, [_CCP, c_int32]),
    # Grammars without a model
    "ai00_grammar_params_default": (_ST, [POINTER(GrammarParamsC)]),
    "ai00_schema_options_default": (_ST, [POINTER(SchemaOptionsC)]),
    "ai00_tool_grammar_params_default": (_ST, [POINTER(ToolGrammarParamsC)]),
    "ai00_grammar_new": (_ST, [_PP, _P, c_char_p, _S, POINTER(GrammarParamsC)]),
    "ai00_grammar_new_from_json_schema": (_ST, [_PP, _P, c_char_p, _S,
                                                POINTER(SchemaOptionsC)]),
    "ai00_grammar_new_for_tools": (_ST, [_PP, _P, _P, c_char_p, _S,
                                         POINTER(ToolGrammarParamsC)]),
    "ai00_grammar_kbnf": (_ST, [POINTER(c_void_p), _PS, _P]),
    "ai00_grammar_warning_count": (_ST, [_PS, _P]),
    "ai00_grammar_warning": (_ST, [POINTER(c_void_p), _PS, _P, _S]),
    "ai00_grammar_check": (_ST, [POINTER(CheckResultC), _P, c_char_p, _S]),
}


def _load_library() -> ctypes.CDLL:
    explicit = os.environ.get("AI00_LIBRARY")
    candidates = [explicit] if explicit else []
    found = ctypes.util.find_library("ai00")
    candidates += ["libai00.so.0", "libai00.so"] + ([found] if found else [])
    errors = []
    for name in candidates:
        try:
            return ctypes.CDLL(name)
        except OSError as e:  # try the next one
            errors.append(f"{name}: {e}")
    raise OSError("cannot load libai00 (set AI00_LIBRARY to its path): " + "; ".join(errors))


lib = _load_library()
for _name, (_res, _args) in _FUNCTIONS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args
