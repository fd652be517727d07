// P/Invoke declarations of include/ai00/ai00.h: structs and one line per function, in the
// header's order. Adding an ABI function is one declaration here plus one wrapper in Ai00.cs.
// The library is "ai00" (libai00.so / ai00.dll), found by the runtime's loader: LD_LIBRARY_PATH,
// a Mono dllmap, or a Unity/Godot native plugin folder.
using System;
using System.Runtime.InteropServices;

namespace Ai00.Interop
{
    [StructLayout(LayoutKind.Sequential)]
    public struct ModelParams
    {
        public uint struct_size; public int n_threads; public IntPtr forced_isa; public IntPtr vocab_path;
        public IntPtr progress; public IntPtr progress_user_data;
        public int activations;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct ModelInfoC
    {
        public uint struct_size, n_layer, n_embd, n_head, head_size, n_vocab, n_tokens, n_threads;
        public ulong state_bytes;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct LimitsC
    {
        public uint struct_size, max_nesting_depth, max_threads, reserved;
        public ulong max_grammar_states, max_nfa_states, max_input_bytes, max_file_bytes,
            max_string_bytes, max_tokens;
    }

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate int ProgressCallback(ulong done, ulong total, IntPtr userData);

    [StructLayout(LayoutKind.Sequential)]
    public struct ConvertParamsC
    {
        public uint struct_size; public int weight_type; public int file_format; public int overwrite;
        public IntPtr vocab_path; public IntPtr progress; public IntPtr user_data;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct LogitBias { public uint token; public float bias; }

    [StructLayout(LayoutKind.Sequential)]
    public struct SamplerParamsC
    {
        public uint struct_size; public int method; public float temperature; public uint top_k;
        public float top_p, min_p, typical_tau, mirostat_tau, mirostat_rate, presence_penalty,
            frequency_penalty, penalty_decay, repetition_penalty;
        public int ban_eos; public IntPtr logit_bias; public UIntPtr n_logit_bias;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct RenderOptionsC
    {
        public uint struct_size; public int add_generation_prompt; public int thinking;
        public IntPtr tools_json; public UIntPtr tools_json_len;
        public IntPtr assistant_name; public UIntPtr assistant_name_len;
        public int reflect; public int introspect; public int prepend_token0;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct DeltaC
    {
        public uint struct_size; public int kind; public uint call; public int finish_reason;
        public IntPtr text; public UIntPtr text_len; public IntPtr id; public UIntPtr id_len;
        public IntPtr name; public UIntPtr name_len; public int valid;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct GenerateParamsC
    {
        public uint struct_size; public uint max_tokens; public uint prefill_chunk; public int set_seed;
        public ulong seed; public int grammar_mode; public IntPtr grammar;
        public IntPtr stop_sequences; public UIntPtr n_stop_sequences;
        public IntPtr prefix_cache; // appended in 0.2 (GenerateOptions.PrefixCache)
        // appended in 0.3 (GenerateOptions.StreamToolCalls, ToolChoice, ToolName, ParallelToolCalls)
        public int stream_tool_calls; public int tool_choice;
        public IntPtr tool_choice_name; public UIntPtr tool_choice_name_len;
        public int parallel_tool_calls;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct ParseOptionsC
    {
        public uint struct_size; public int thinking; public IntPtr tools_json; public UIntPtr tools_json_len;
        public ulong id_seed; public int stream_tool_calls;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct GrammarParamsC { public uint struct_size; public IntPtr start_rule; public UIntPtr start_rule_len; }

    [StructLayout(LayoutKind.Sequential)]
    public struct SchemaOptionsC
    {
        public uint struct_size; public int lenient; public int strict_properties;
        public int flexible_whitespace; public uint max_whitespace; public int compact;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct ToolGrammarParamsC
    {
        public uint struct_size; public int level; public int thinking_start; public int allow_eos_end;
        public IntPtr schema;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct CheckResultC
    {
        public uint struct_size; public int verdict; public ulong byte_offset; public ulong token_index;
        public uint token_id;
    }

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate int DeltaCallback(ref DeltaC delta, IntPtr userData);

    [StructLayout(LayoutKind.Sequential)]
    public struct PrefixCacheParamsC { public uint struct_size; public ulong max_bytes; public int compress_bf16; }

    [StructLayout(LayoutKind.Sequential)]
    public struct PrefixCacheStatsC
    {
        public uint struct_size; public uint reserved;
        public ulong hits, misses, hit_tokens, inserts, evictions, entries, bytes, max_bytes;
        public ulong spare_bytes; // appended: memory set aside for later entries (Reserve)
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct ScoreParamsC
    {
        public uint struct_size; public IntPtr context; public UIntPtr n_context;
        public IntPtr logits; public UIntPtr n_logits;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct OptionScoreC { public double total_logprob; public double mean_logprob; public ulong n_tokens; }

    [StructLayout(LayoutKind.Sequential)]
    public struct BatchParamsC { public uint struct_size; public uint pass_rows; }

    [StructLayout(LayoutKind.Sequential)]
    public struct BatchStepParamsC { public uint struct_size; public uint max_tokens; public ulong time_budget_us; public int whole_batch; }

    [StructLayout(LayoutKind.Sequential)]
    public struct BatchEventC
    {
        public uint struct_size; public IntPtr generator; public int kind; public int finish_reason;
        public DeltaC delta; public IntPtr error; public UIntPtr error_len;
    }

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate int BatchEventCallback(ref BatchEventC evt, IntPtr userData);

    [StructLayout(LayoutKind.Sequential)]
    public struct BatchStepResultC
    {
        public uint struct_size; public uint steps; public ulong tokens_sampled; public ulong prompt_tokens;
        public int time_limited; public uint unfinished;
    }

    public static class Native
    {
        const string L = "ai00";
        const CallingConvention C = CallingConvention.Cdecl;

        [DllImport(L, CallingConvention = C)] public static extern int ai00_version_number(out uint v);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_capabilities_json(out UIntPtr len, byte[] json, UIntPtr cap);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_abi_version(out uint v);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_status_string(int status);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_last_error();
        // Model
        [DllImport(L, CallingConvention = C)] public static extern int ai00_model_params_default(ref ModelParams p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_limits_default(out LimitsC l);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_limits_get(ref LimitsC l);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_limits_set(ref LimitsC l);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_model_load(out IntPtr model, byte[] path, UIntPtr len, ref ModelParams p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_model_free(IntPtr model);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_model_last_error(IntPtr model);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_model_get_info(ref ModelInfoC info, SafeHandle model);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_model_isa_name(out IntPtr name, SafeHandle model);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_model_info_json(out UIntPtr len, byte[] json, UIntPtr cap, SafeHandle model);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_convert_params_default(out ConvertParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_model_convert(byte[] pathIn, UIntPtr inLen, byte[] pathOut, UIntPtr outLen, ref ConvertParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_model_tokenize(out UIntPtr count, uint[] tokens, UIntPtr cap, SafeHandle model, byte[] text, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_model_detokenize(out UIntPtr len, byte[] text, UIntPtr cap, SafeHandle model, uint[] tokens, UIntPtr n);
        // State
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_new(out IntPtr state, SafeHandle model);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_clone(out IntPtr state, SafeHandle src);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_reset(SafeHandle state);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_free(IntPtr state);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_state_last_error(SafeHandle state);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_set_seed(SafeHandle state, ulong seed);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_eval(out UIntPtr count, float[] logits, UIntPtr cap, SafeHandle model, SafeHandle state, uint[] tokens, UIntPtr n);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_eval_all(out UIntPtr count, float[] logits, UIntPtr cap, SafeHandle model, SafeHandle state, uint[] tokens, UIntPtr n);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_save(out UIntPtr size, byte[] buf, UIntPtr cap, SafeHandle state);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_load(out IntPtr state, SafeHandle model, byte[] data, UIntPtr size);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_save_file(SafeHandle state, byte[] path, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_load_file(out IntPtr state, SafeHandle model, byte[] path, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_load_initial(out IntPtr state, SafeHandle model, byte[] path, UIntPtr len);
        // Sampler
        [DllImport(L, CallingConvention = C)] public static extern int ai00_sampler_params_default(out SamplerParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_sampler_params_preset(out SamplerParamsC p, int preset);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_sample(out uint token, SafeHandle state, ref SamplerParamsC p, float[] logits, UIntPtr n);
        // Chat template
        [DllImport(L, CallingConvention = C)] public static extern int ai00_render_options_default(out RenderOptionsC o);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_new(out IntPtr tmpl, byte[] name, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_new_with_config(out IntPtr tmpl, byte[] name, UIntPtr len, byte[] toml, UIntPtr tomlLen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_sampler_preset(out SamplerParamsC p, SafeHandle tmpl, byte[] name, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_free(IntPtr tmpl);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_chat_template_last_error(SafeHandle tmpl);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_render(out IntPtr prompt, out UIntPtr len, SafeHandle tmpl, byte[] conv, UIntPtr convLen, ref RenderOptionsC o);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_render_fim(out IntPtr prompt, out UIntPtr len, SafeHandle tmpl, byte[] prefix, UIntPtr prefixLen, byte[] suffix, UIntPtr suffixLen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_render_files(out IntPtr prompt, out UIntPtr len, SafeHandle tmpl, IntPtr[] files, UIntPtr[] fileLens, UIntPtr n, int leadingSeparator);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_parse_transcript(out IntPtr json, out UIntPtr len, SafeHandle tmpl, byte[] text, UIntPtr textLen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_stop_count(out UIntPtr n, SafeHandle tmpl);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_stop(out IntPtr text, out UIntPtr len, SafeHandle tmpl, UIntPtr index);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_chat_template_last_render_json(out IntPtr json, out UIntPtr len, SafeHandle tmpl);
        // Grammar
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_compile(out IntPtr g, SafeHandle model, byte[] kbnf, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_from_json_schema(out IntPtr g, SafeHandle model, byte[] schema, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_from_json_schema_with_options(out IntPtr g, SafeHandle model, byte[] schema, UIntPtr len, ref SchemaOptionsC o);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_free(IntPtr g);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_grammar_last_error(SafeHandle g);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_accepts(out int ok, SafeHandle g, byte[] text, UIntPtr len);
        // Generator
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generate_params_default(out GenerateParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_new_chat(out IntPtr gen, SafeHandle model, SafeHandle state, SafeHandle tmpl, byte[] conv, UIntPtr convLen, ref RenderOptionsC render, ref SamplerParamsC sampler, ref GenerateParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_new_raw(out IntPtr gen, SafeHandle model, SafeHandle state, byte[] prompt, UIntPtr len, ref SamplerParamsC sampler, ref GenerateParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_free(IntPtr gen);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_generator_last_error(SafeHandle gen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_run(out int reason, SafeHandle gen, DeltaCallback cb, IntPtr user);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_next(ref DeltaC d, SafeHandle gen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_step(out int finished, SafeHandle gen, uint maxTokens, DeltaCallback cb, IntPtr user);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_pending(out UIntPtr n, SafeHandle gen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_cancel(SafeHandle gen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_finish_reason(out int reason, SafeHandle gen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_message_json(out IntPtr json, out UIntPtr len, SafeHandle gen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_warning_count(out UIntPtr n, SafeHandle gen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_warning(out IntPtr text, out UIntPtr len, SafeHandle gen, UIntPtr index);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_generator_tokens(out IntPtr tokens, out UIntPtr n, SafeHandle gen);
        // Prefix-state cache
        [DllImport(L, CallingConvention = C)] public static extern int ai00_prefix_cache_params_default(ref PrefixCacheParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_prefix_cache_new(out IntPtr cache, ref PrefixCacheParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_prefix_cache_free(IntPtr cache);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_prefix_cache_last_error(SafeHandle cache);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_prefix_cache_stats_get(ref PrefixCacheStatsC s, SafeHandle cache);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_prefix_cache_clear(SafeHandle cache);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_prefix_cache_reserve(out UIntPtr reserved, SafeHandle cache, SafeHandle model, UIntPtr entries);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_prefix_cache_warm(out UIntPtr evaluated, SafeHandle cache, SafeHandle model, uint[] tokens, UIntPtr n);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_prefix_cache_warm_text(out UIntPtr evaluated, SafeHandle cache, SafeHandle model, byte[] text, UIntPtr len);
        // Option scoring
        [DllImport(L, CallingConvention = C)] public static extern int ai00_score_params_default(ref ScoreParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_score_options([Out] OptionScoreC[] scores, UIntPtr cap, SafeHandle model, SafeHandle state, IntPtr[] candidates, UIntPtr[] nTokens, UIntPtr k, ref ScoreParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_score_texts([Out] OptionScoreC[] scores, UIntPtr cap, SafeHandle model, SafeHandle state, IntPtr[] texts, UIntPtr[] lens, UIntPtr k, ref ScoreParamsC p);
        // State bundles
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_bundle_save(out UIntPtr size, byte[] buf, UIntPtr cap, IntPtr[] states, IntPtr[] names, UIntPtr[] nameLens, UIntPtr count);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_bundle_save_file(IntPtr[] states, IntPtr[] names, UIntPtr[] nameLens, UIntPtr count, byte[] path, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_bundle_open(out IntPtr bundle, byte[] data, UIntPtr size);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_bundle_open_file(out IntPtr bundle, byte[] path, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_bundle_free(IntPtr bundle);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_state_bundle_last_error(SafeHandle bundle);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_bundle_count(out UIntPtr n, SafeHandle bundle);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_bundle_name(out IntPtr name, out UIntPtr len, SafeHandle bundle, UIntPtr index);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_bundle_find(out UIntPtr index, SafeHandle bundle, byte[] name, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_state_bundle_load(out IntPtr state, SafeHandle bundle, SafeHandle model, UIntPtr index);
        // Batch
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_params_default(ref BatchParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_step_params_default(ref BatchStepParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_new(out IntPtr batch, SafeHandle model, ref BatchParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_free(IntPtr batch);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_batch_last_error(SafeHandle batch);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_add(SafeHandle batch, SafeHandle gen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_remove(SafeHandle batch, SafeHandle gen);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_size(out UIntPtr n, SafeHandle batch);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_step(ref BatchStepResultC r, SafeHandle batch, ref BatchStepParamsC p, BatchEventCallback cb, IntPtr user);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_pending(out UIntPtr n, SafeHandle batch);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_batch_next_event(out int has, ref BatchEventC e, SafeHandle batch);
        // Tokenizer
        [DllImport(L, CallingConvention = C)] public static extern int ai00_tokenizer_load(out IntPtr tok, byte[] path, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_tokenizer_from_model(out IntPtr tok, SafeHandle model);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_tokenizer_free(IntPtr tok);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_tokenizer_last_error(SafeHandle tok);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_tokenizer_vocab_size(out uint n, SafeHandle tok);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_tokenizer_encode(out UIntPtr count, uint[] tokens, UIntPtr cap, SafeHandle tok, byte[] text, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_tokenizer_decode(out UIntPtr len, byte[] bytes, UIntPtr cap, SafeHandle tok, uint[] tokens, UIntPtr n);
        // Output parser
        [DllImport(L, CallingConvention = C)] public static extern int ai00_parse_options_default(out ParseOptionsC o);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_new(out IntPtr p, SafeHandle tmpl, ref ParseOptionsC o);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_free(IntPtr p);
        [DllImport(L, CallingConvention = C)] public static extern IntPtr ai00_output_parser_last_error(SafeHandle p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_push(out UIntPtr pending, SafeHandle p, byte[] bytes, UIntPtr len);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_finish(SafeHandle p, int reason);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_pending(out UIntPtr n, SafeHandle p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_next(ref DeltaC d, SafeHandle p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_finish_reason(out int reason, SafeHandle p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_message_json(out IntPtr json, out UIntPtr len, SafeHandle p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_warning_count(out UIntPtr n, SafeHandle p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_output_parser_warning(out IntPtr text, out UIntPtr len, SafeHandle p, UIntPtr index);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_finish_reason_name(out IntPtr name, int reason);
        // Grammars without a model
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_params_default(out GrammarParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_schema_options_default(out SchemaOptionsC o);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_tool_grammar_params_default(out ToolGrammarParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_new(out IntPtr g, SafeHandle tokenizer, byte[] kbnf, UIntPtr len, ref GrammarParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_new_from_json_schema(out IntPtr g, SafeHandle tokenizer, byte[] schema, UIntPtr len, ref SchemaOptionsC o);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_new_for_tools(out IntPtr g, SafeHandle tokenizer, SafeHandle tmpl, byte[] tools, UIntPtr len, ref ToolGrammarParamsC p);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_kbnf(out IntPtr kbnf, out UIntPtr len, SafeHandle g);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_warning_count(out UIntPtr n, SafeHandle g);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_warning(out IntPtr text, out UIntPtr len, SafeHandle g, UIntPtr index);
        [DllImport(L, CallingConvention = C)] public static extern int ai00_grammar_check(ref CheckResultC r, SafeHandle g, byte[] text, UIntPtr len);
    }
}
