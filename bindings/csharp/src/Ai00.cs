// ai00 for C#: RWKV-7 chat on the CPU over libai00's C ABI (include/ai00/ai00.h).
// Every handle is a SafeHandle owned by an IDisposable class (dispose it, or let the finalizer
// free it once); every failing call throws Ai00Exception carrying the library's status and
// message. A Generator streams IEnumerable<Delta>, steps with a token budget for frame loops
// (Unity's Update, Godot's _Process) and cancels from any thread or through a CancellationToken.
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using Ai00.Interop;

namespace Ai00
{
    public enum Status
    {
        Ok = 0, InvalidArgument = -1, IO = -2, ModelFile = -3, Format = -4, Grammar = -5,
        Mismatch = -6, Unsupported = -7, Cancelled = -8, BufferTooSmall = -9, OutOfMemory = -10,
        Internal = -99
    }
    public enum Thinking { Off = 0, On = 1, ABit = 2, ALot = 3 }
    /// <summary>ToolCallStart and ToolCallArguments come only with streamed tool calls
    /// (OutputParser streamToolCalls): the call's id and name, then pieces of its arguments JSON.</summary>
    public enum DeltaKind { Text = 0, Reasoning = 1, ToolCall = 2, Finish = 3, ToolCallStart = 4, ToolCallArguments = 5 }
    public enum WeightType { F32 = 0, F16 = 1, BF16 = 2, Q8_0 = 3, Q4_0 = 4, Q4_1 = 5, Q5_0 = 6, Q5_1 = 7 }
    public enum FileFormat { Gguf = 0, Safetensors = 1 }
    public enum FinishReason { None = -1, Stop = 0, Length = 1, ToolCalls = 2, Cancelled = 3, GrammarDone = 4, Error = 5 }
    public enum GrammarMode { Automatic = 0, None = 1, Structural = 2, SchemaAware = 3 }
    /// <summary>Which tool calls a chat turn's tool grammar allows (ai00_tool_choice, OpenAI's
    /// tool_choice): Auto (text, or text then calls), None (no call), Required (the reply is the
    /// call block), Named (as Required, every call to GenerateOptions.ToolName).</summary>
    public enum ToolChoice { Auto = 0, None = 1, Required = 2, Named = 3 }
    /// <summary>ai00_activations: Dot (default) multiplies quantized / BF16 weights with int8 /
    /// bf16 activations (logits within about 0.05 of Exact); Exact keeps fp32 activations (the
    /// reference computation's logits, slower).</summary>
    public enum Activations { Dot = 0, Exact = 1 }
    public enum SamplerMethod { Nucleus = 0, Typical = 1, MirostatV2 = 2, Greedy = 3 }
    public enum SamplerPreset { Chat = 0, Math = 1, Creative = 2, Ai00Server = 3 }
    public enum ThinkingStart { Optional = 0, Forced = 1, ForcedPartial = 2 }
    public enum CheckVerdict { Accepted = 0, Bytes = 1, Token = 2, EndToken = 3 }

    /// <summary>A failed ai00 call: the library's status and message.</summary>
    public class Ai00Exception : Exception
    {
        public Status Status { get; }
        public string LibraryMessage { get; }
        public Ai00Exception(Status status, string message)
            : base(Lib.StatusString(status) + (message.Length > 0 ? ": " + message : ""))
        {
            Status = status;
            LibraryMessage = message;
        }
    }

    /// <summary>Library-wide functions and the marshalling helpers the classes share.</summary>
    public static class Lib
    {
        public static readonly string[] Formats = { "ai00-v1", "ai00-v0", "goose", "openchatml" };

        public static Version Version
        {
            get { Check(Native.ai00_version_number(out uint v)); return new Version((int)(v / 10000), (int)(v / 100 % 100), (int)(v % 100)); }
        }
        /// <summary>What this build can do on this CPU as one JSON object (ai00_capabilities_json):
        /// ISAs, native int8/bf16 dot products, hardware threads, weight types, containers, chat
        /// formats and grammar inputs.</summary>
        public static string CapabilitiesJson
        {
            get { return Encoding.UTF8.GetString(TwoCall<byte>((out UIntPtr n, byte[] b, UIntPtr c) => Native.ai00_capabilities_json(out n, b, c))); }
        }
        public static uint AbiVersion { get { Check(Native.ai00_abi_version(out uint v)); return v; } }
        public static string StatusString(Status s) => Marshal.PtrToStringAnsi(Native.ai00_status_string((int)s));
        /// <summary>The message of this thread's last failed call ("" if none).</summary>
        public static string LastError => Utf8z(Native.ai00_last_error());
        public static string FinishReasonName(FinishReason r)
        {
            Check(Native.ai00_finish_reason_name(out IntPtr p, (int)r));
            return Utf8z(p);
        }

        internal static void Check(int status)
        {
            if (status != 0) throw new Ai00Exception((Status)status, LastError);
        }
        internal static byte[] Bytes(string s) => s == null ? null : Encoding.UTF8.GetBytes(s);
        internal static UIntPtr Len(byte[] b) => (UIntPtr)(b == null ? 0 : b.Length);
        internal static string Utf8(IntPtr p, UIntPtr len)
        {
            int n = checked((int)len.ToUInt64());
            if (p == IntPtr.Zero || n == 0) return "";
            var buf = new byte[n];
            Marshal.Copy(p, buf, 0, n);
            return Encoding.UTF8.GetString(buf);
        }
        internal static string Utf8z(IntPtr p)
        {
            if (p == IntPtr.Zero) return "";
            int n = 0;
            while (Marshal.ReadByte(p, n) != 0) ++n;
            return Utf8(p, (UIntPtr)n);
        }
        internal delegate int SizeQuery<T>(out UIntPtr n, T[] buf, UIntPtr cap);
        /// <summary>The two-call size idiom: ask the size, then fill a buffer of that size.</summary>
        internal static T[] TwoCall<T>(SizeQuery<T> call)
        {
            int s = call(out UIntPtr n, null, UIntPtr.Zero);
            if (s != 0 && s != (int)Status.BufferTooSmall) Check(s);
            var buf = new T[(int)n.ToUInt64()];
            Check(call(out n, buf, (UIntPtr)buf.Length));
            return buf;
        }
        internal delegate int StringAt(out IntPtr p, out UIntPtr n, UIntPtr index);
        internal static List<string> Strings(int count, StringAt at)
        {
            var list = new List<string>();
            for (int i = 0; i < count; ++i) { Check(at(out IntPtr p, out UIntPtr n, (UIntPtr)i)); list.Add(Utf8(p, n)); }
            return list;
        }
    }

    /// <summary>The process-wide resource limits of every parser, compiler and loader.</summary>
    public sealed class Limits
    {
        public uint MaxNestingDepth, MaxThreads;
        public ulong MaxGrammarStates, MaxNfaStates, MaxInputBytes, MaxFileBytes, MaxStringBytes, MaxTokens;

        Limits(LimitsC c)
        {
            MaxNestingDepth = c.max_nesting_depth; MaxThreads = c.max_threads; MaxGrammarStates = c.max_grammar_states;
            MaxNfaStates = c.max_nfa_states; MaxInputBytes = c.max_input_bytes; MaxFileBytes = c.max_file_bytes;
            MaxStringBytes = c.max_string_bytes; MaxTokens = c.max_tokens;
        }
        /// <summary>The documented defaults.</summary>
        public static Limits Default() { Lib.Check(Native.ai00_limits_default(out LimitsC c)); return new Limits(c); }
        /// <summary>The limits in force.</summary>
        public static Limits Current()
        {
            var c = new LimitsC { struct_size = (uint)Marshal.SizeOf(typeof(LimitsC)) };
            Lib.Check(Native.ai00_limits_get(ref c));
            return new Limits(c);
        }
        /// <summary>Makes these the process-wide limits; a zero field (or MaxNestingDepth above 1000)
        /// throws (InvalidArgument) and changes nothing.</summary>
        public void Apply()
        {
            Lib.Check(Native.ai00_limits_default(out LimitsC c));
            c.max_nesting_depth = MaxNestingDepth; c.max_threads = MaxThreads; c.max_grammar_states = MaxGrammarStates;
            c.max_nfa_states = MaxNfaStates; c.max_input_bytes = MaxInputBytes; c.max_file_bytes = MaxFileBytes;
            c.max_string_bytes = MaxStringBytes; c.max_tokens = MaxTokens;
            Lib.Check(Native.ai00_limits_set(ref c));
        }
    }

    /// <summary>Options of Converter.Convert.</summary>
    public sealed class ConvertOptions
    {
        public WeightType WeightType = WeightType.F16;
        public FileFormat FileFormat = FileFormat.Gguf;
        public bool Overwrite;
        public string VocabPath;
        /// <summary>Called with (done, total) on the calling thread; return true to cancel
        /// (the call then throws Cancelled and writes nothing). An exception it throws cancels
        /// the conversion and is rethrown.</summary>
        public Func<ulong, ulong, bool> Progress;
    }

    /// <summary>Rewrites weight files as GGUF or safetensors in one weight type.</summary>
    public static class Converter
    {
        public static void Convert(string pathIn, string pathOut, ConvertOptions options = null)
        {
            options = options ?? new ConvertOptions();
            Lib.Check(Native.ai00_convert_params_default(out ConvertParamsC p));
            p.weight_type = (int)options.WeightType; p.file_format = (int)options.FileFormat;
            p.overwrite = options.Overwrite ? 1 : 0;
            Exception error = null;
            ProgressCallback cb = null;
            if (options.Progress != null)
            {
                var progress = options.Progress;
                cb = (done, total, user) =>
                {
                    try { return progress(done, total) ? 1 : 0; }
                    catch (Exception e) { error = e; return 1; }  // never unwind through the library
                };
                p.progress = Marshal.GetFunctionPointerForDelegate(cb);
            }
            var vocab = Lib.Bytes(options.VocabPath == null ? null : options.VocabPath + "\0");
            var pin = GCHandle.Alloc(vocab, GCHandleType.Pinned);
            try
            {
                if (vocab != null) p.vocab_path = pin.AddrOfPinnedObject();
                var a = Lib.Bytes(pathIn); var b = Lib.Bytes(pathOut);
                int status = Native.ai00_model_convert(a, Lib.Len(a), b, Lib.Len(b), ref p);
                GC.KeepAlive(cb);
                if (error != null) throw error;
                Lib.Check(status);
            }
            finally { pin.Free(); }
        }
    }

    // ---- SafeHandles: each releases its handle with the matching ai00_*_free, once. ----
    public abstract class Ai00Handle : SafeHandle
    {
        protected Ai00Handle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid => handle == IntPtr.Zero;
        internal void Set(IntPtr h) { SetHandle(h); }
    }
    public sealed class ModelHandle : Ai00Handle { protected override bool ReleaseHandle() => Native.ai00_model_free(handle) == 0; }
    public sealed class StateHandle : Ai00Handle { protected override bool ReleaseHandle() => Native.ai00_state_free(handle) == 0; }
    public sealed class TemplateHandle : Ai00Handle { protected override bool ReleaseHandle() => Native.ai00_chat_template_free(handle) == 0; }
    public sealed class GrammarHandle : Ai00Handle { protected override bool ReleaseHandle() => Native.ai00_grammar_free(handle) == 0; }
    public sealed class GeneratorHandle : Ai00Handle
    {
        // A handle the generator needs alive (its prefix cache), released after the generator.
        internal SafeHandle Dependent;
        protected override bool ReleaseHandle()
        {
            bool ok = Native.ai00_generator_free(handle) == 0;
            var d = Dependent;
            Dependent = null;
            if (d != null) d.DangerousRelease();
            return ok;
        }
    }
    public sealed class PrefixCacheHandle : Ai00Handle { protected override bool ReleaseHandle() => Native.ai00_prefix_cache_free(handle) == 0; }
    public sealed class StateBundleHandle : Ai00Handle { protected override bool ReleaseHandle() => Native.ai00_state_bundle_free(handle) == 0; }
    public sealed class BatchHandle : Ai00Handle { protected override bool ReleaseHandle() => Native.ai00_batch_free(handle) == 0; }
    public sealed class TokenizerHandle : Ai00Handle { protected override bool ReleaseHandle() => Native.ai00_tokenizer_free(handle) == 0; }
    public sealed class OutputParserHandle : Ai00Handle { protected override bool ReleaseHandle() => Native.ai00_output_parser_free(handle) == 0; }

    /// <summary>Base of the public classes: owns one SafeHandle, IDisposable.</summary>
    public abstract class Ai00Object<THandle> : IDisposable where THandle : Ai00Handle, new()
    {
        internal readonly THandle H;
        protected Ai00Object(IntPtr raw) { H = new THandle(); H.Set(raw); }
        internal THandle Handle
        {
            get
            {
                if (H.IsClosed) throw new ObjectDisposedException(GetType().Name);
                return H;
            }
        }
        public bool IsDisposed => H.IsClosed;
        public virtual void Dispose() { H.Dispose(); }
    }

    public struct ModelInfo
    {
        public uint Layers, Embedding, Heads, HeadSize, Vocab, Tokens, Threads;
        public ulong StateBytes;
    }

    /// <summary>Weights, tokenizer and kernels of one RWKV-7 model; immutable, share it between threads.</summary>
    public sealed class Model : Ai00Object<ModelHandle>
    {
        Model(IntPtr h) : base(h) { }

        public static Model Load(string path, int threads = 1, string forcedIsa = null, string vocabPath = null,
                                 Activations activations = Activations.Dot)
            => Load(path, null, default(CancellationToken), threads, forcedIsa, vocabPath, activations);

        /// <summary>Loads with progress: <paramref name="progress"/> gets the fraction of tensor
        /// data read (0 to 1, never decreasing, exactly 1 once on success, as the last report)
        /// on the calling thread. A cancelled <paramref name="cancel"/> stops the load at the next
        /// report (Ai00Exception with Status.Cancelled, as Converter.Convert); an exception
        /// thrown by <c>Report</c> stops it too and is rethrown. The delegate handed to the
        /// library is kept alive for the call.</summary>
        public static Model Load(string path, IProgress<float> progress, CancellationToken cancel = default(CancellationToken),
                                 int threads = 1, string forcedIsa = null, string vocabPath = null,
                                 Activations activations = Activations.Dot)
        {
            var p = new ModelParams { struct_size = (uint)Marshal.SizeOf(typeof(ModelParams)) };
            Lib.Check(Native.ai00_model_params_default(ref p));
            p.n_threads = threads;
            p.activations = (int)activations;
            Exception error = null;
            ProgressCallback cb = null;
            if (progress != null || cancel.CanBeCanceled)
            {
                cb = (done, total, user) =>
                {
                    try
                    {
                        if (cancel.IsCancellationRequested) return 1;
                        if (progress != null) progress.Report(total == 0 ? 1f : (float)((double)done / total));
                        return 0;
                    }
                    catch (Exception e) { error = e; return 1; }  // never unwind through the library
                };
                p.progress = Marshal.GetFunctionPointerForDelegate(cb);
            }
            IntPtr isa = forcedIsa == null ? IntPtr.Zero : Marshal.StringToHGlobalAnsi(forcedIsa);
            IntPtr vocab = vocabPath == null ? IntPtr.Zero : Utf8Hglobal(vocabPath);
            try
            {
                p.forced_isa = isa;
                p.vocab_path = vocab;
                var raw = Lib.Bytes(path);
                int status = Native.ai00_model_load(out IntPtr h, raw, Lib.Len(raw), ref p);
                GC.KeepAlive(cb);
                if (error != null)
                {
                    if (status == 0) Native.ai00_model_free(h);
                    throw error;
                }
                Lib.Check(status);
                return new Model(h);
            }
            finally
            {
                if (isa != IntPtr.Zero) Marshal.FreeHGlobal(isa);
                if (vocab != IntPtr.Zero) Marshal.FreeHGlobal(vocab);
            }
        }

        static IntPtr Utf8Hglobal(string s)
        {
            var b = Encoding.UTF8.GetBytes(s + "\0");
            IntPtr p = Marshal.AllocHGlobal(b.Length);
            Marshal.Copy(b, 0, p, b.Length);
            return p;
        }

        public ModelInfo Info
        {
            get
            {
                var i = new ModelInfoC { struct_size = (uint)Marshal.SizeOf(typeof(ModelInfoC)) };
                Lib.Check(Native.ai00_model_get_info(ref i, Handle));
                return new ModelInfo { Layers = i.n_layer, Embedding = i.n_embd, Heads = i.n_head, HeadSize = i.head_size,
                    Vocab = i.n_vocab, Tokens = i.n_tokens, Threads = i.n_threads, StateBytes = i.state_bytes };
            }
        }
        public string Isa { get { Lib.Check(Native.ai00_model_isa_name(out IntPtr p, Handle)); return Lib.Utf8z(p); } }
        public string InfoJson
        {
            get { var h = Handle; return Encoding.UTF8.GetString(Lib.TwoCall<byte>((out UIntPtr n, byte[] b, UIntPtr c) => Native.ai00_model_info_json(out n, b, c, h))); }
        }
        public string LastError => Lib.Utf8z(Native.ai00_model_last_error(H.IsClosed ? IntPtr.Zero : H.DangerousGetHandle()));

        public uint[] Tokenize(string text)
        {
            var h = Handle; var raw = Lib.Bytes(text);
            return Lib.TwoCall<uint>((out UIntPtr n, uint[] b, UIntPtr c) => Native.ai00_model_tokenize(out n, b, c, h, raw, Lib.Len(raw)));
        }
        public string Detokenize(uint[] tokens)
        {
            var h = Handle;
            return Encoding.UTF8.GetString(Lib.TwoCall<byte>((out UIntPtr n, byte[] b, UIntPtr c) =>
                Native.ai00_model_detokenize(out n, b, c, h, tokens, (UIntPtr)tokens.Length)));
        }
        public Tokenizer Tokenizer() => Ai00.Tokenizer.FromModel(this);
        public State NewState() => new State(this);
        /// <summary>KBNF compiled against this model's vocabulary, for its generators.</summary>
        public Grammar CompileGrammar(string kbnf)
        {
            var raw = Lib.Bytes(kbnf);
            Lib.Check(Native.ai00_grammar_compile(out IntPtr g, Handle, raw, Lib.Len(raw)));
            return new Grammar(g);
        }
        /// <summary>One JSON document valid under the schema (validator semantics by default;
        /// options for strict properties or a canonical/compact layout).</summary>
        public Grammar JsonSchemaGrammar(string schemaJson, SchemaOptions options = null)
        {
            var raw = Lib.Bytes(schemaJson);
            IntPtr g;
            if (options == null) Lib.Check(Native.ai00_grammar_from_json_schema(out g, Handle, raw, Lib.Len(raw)));
            else
            {
                var o = options.ToC();
                Lib.Check(Native.ai00_grammar_from_json_schema_with_options(out g, Handle, raw, Lib.Len(raw), ref o));
            }
            return new Grammar(g);
        }
    }

    /// <summary>One sequence: recurrent state plus sampler state. One thread at a time.</summary>
    public sealed class State : Ai00Object<StateHandle>
    {
        public Model Model { get; }
        internal WeakReference<Generator> Borrower;  // the generator using this State, if any
        internal State(Model model, IntPtr h) : base(h) { Model = model; }
        /// <summary>Disposes the generator borrowing this State first, so it never outlives it.</summary>
        public override void Dispose()
        {
            if (Borrower != null && Borrower.TryGetTarget(out Generator g)) g.Dispose();
            base.Dispose();
        }
        internal State(Model model) : this(model, New(model)) { }
        static IntPtr New(Model m) { Lib.Check(Native.ai00_state_new(out IntPtr h, m.Handle)); return h; }

        public static State Load(Model model, byte[] data)
        {
            Lib.Check(Native.ai00_state_load(out IntPtr h, model.Handle, data, (UIntPtr)data.Length));
            return new State(model, h);
        }
        public static State LoadFile(Model model, string path)
        {
            var raw = Lib.Bytes(path);
            Lib.Check(Native.ai00_state_load_file(out IntPtr h, model.Handle, raw, Lib.Len(raw)));
            return new State(model, h);
        }
        /// <summary>A State from an ai00 .state file (a state-tuned initial state).</summary>
        public static State LoadInitial(Model model, string path)
        {
            var raw = Lib.Bytes(path);
            Lib.Check(Native.ai00_state_load_initial(out IntPtr h, model.Handle, raw, Lib.Len(raw)));
            return new State(model, h);
        }
        public State Clone() { Lib.Check(Native.ai00_state_clone(out IntPtr h, Handle)); return new State(Model, h); }
        public void Reset() => Lib.Check(Native.ai00_state_reset(Handle));
        public void SetSeed(ulong seed) => Lib.Check(Native.ai00_state_set_seed(Handle, seed));
        public string LastError => Lib.Utf8z(Native.ai00_state_last_error(Handle));
        /// <summary>Bytes of Save().</summary>
        public long Size
        {
            get
            {
                int s = Native.ai00_state_save(out UIntPtr n, null, UIntPtr.Zero, Handle);
                if (s != (int)Status.BufferTooSmall) Lib.Check(s);
                return (long)n.ToUInt64();
            }
        }
        public byte[] Save() { var h = Handle; return Lib.TwoCall<byte>((out UIntPtr n, byte[] b, UIntPtr c) => Native.ai00_state_save(out n, b, c, h)); }
        public void SaveFile(string path) { var raw = Lib.Bytes(path); Lib.Check(Native.ai00_state_save_file(Handle, raw, Lib.Len(raw))); }
        /// <summary>Feeds tokens; returns the logits after the last one (null with wantLogits false).</summary>
        public float[] Eval(uint[] tokens, bool wantLogits = true)
        {
            float[] logits = wantLogits ? new float[Model.Info.Vocab] : null;
            Lib.Check(Native.ai00_state_eval(out UIntPtr _, logits, (UIntPtr)(logits?.Length ?? 0), Model.Handle, Handle, tokens, (UIntPtr)tokens.Length));
            return logits;
        }
        /// <summary>Logits after every token: tokens.Length rows of n_vocab, row-major.</summary>
        public float[] EvalAll(uint[] tokens)
        {
            var logits = new float[Model.Info.Vocab * (long)tokens.Length];
            Lib.Check(Native.ai00_state_eval_all(out UIntPtr _, logits, (UIntPtr)logits.Length, Model.Handle, Handle, tokens, (UIntPtr)tokens.Length));
            return logits;
        }
        /// <summary>How likely this State continues with each candidate token sequence: natural-log
        /// probabilities of the raw logits (no sampler setting applies). Give exactly one of
        /// context (tokens fed to a copy first) or logits (the State's last logits). The State
        /// is not changed. No candidates, an empty one or a bad id throw InvalidArgument.</summary>
        public Score[] ScoreOptions(uint[][] candidates, uint[] context = null, float[] logits = null)
        {
            var pins = new List<GCHandle>();
            try
            {
                var ptrs = new IntPtr[Math.Max(candidates.Length, 1)];
                var lens = new UIntPtr[Math.Max(candidates.Length, 1)];
                for (int i = 0; i < candidates.Length; ++i)
                {
                    var pin = GCHandle.Alloc(candidates[i], GCHandleType.Pinned);
                    pins.Add(pin);
                    ptrs[i] = pin.AddrOfPinnedObject();
                    lens[i] = (UIntPtr)candidates[i].Length;
                }
                return Scored(candidates.Length, context, logits, pins, (OptionScoreC[] o, ref ScoreParamsC p) =>
                    Native.ai00_state_score_options(o, (UIntPtr)candidates.Length, Model.Handle, Handle, ptrs, lens, (UIntPtr)candidates.Length, ref p));
            }
            finally { foreach (var p in pins) p.Free(); }
        }
        /// <summary>ScoreOptions with texts, each encoded alone (a new word usually starts with a space).</summary>
        public Score[] ScoreTexts(string[] texts, uint[] context = null, float[] logits = null)
        {
            var pins = new List<GCHandle>();
            try
            {
                var ptrs = new IntPtr[Math.Max(texts.Length, 1)];
                var lens = new UIntPtr[Math.Max(texts.Length, 1)];
                for (int i = 0; i < texts.Length; ++i)
                {
                    var b = Encoding.UTF8.GetBytes(texts[i]);
                    var pin = GCHandle.Alloc(b, GCHandleType.Pinned);
                    pins.Add(pin);
                    ptrs[i] = pin.AddrOfPinnedObject();
                    lens[i] = (UIntPtr)b.Length;
                }
                return Scored(texts.Length, context, logits, pins, (OptionScoreC[] o, ref ScoreParamsC p) =>
                    Native.ai00_state_score_texts(o, (UIntPtr)texts.Length, Model.Handle, Handle, ptrs, lens, (UIntPtr)texts.Length, ref p));
            }
            finally { foreach (var p in pins) p.Free(); }
        }
        delegate int ScoreCall(OptionScoreC[] o, ref ScoreParamsC p);
        static Score[] Scored(int k, uint[] context, float[] logits, List<GCHandle> pins, ScoreCall call)
        {
            var p = new ScoreParamsC { struct_size = (uint)Marshal.SizeOf(typeof(ScoreParamsC)) };
            Lib.Check(Native.ai00_score_params_default(ref p));
            if (context != null)
            {
                var pin = GCHandle.Alloc(context, GCHandleType.Pinned); pins.Add(pin);
                p.context = pin.AddrOfPinnedObject(); p.n_context = (UIntPtr)context.Length;
            }
            if (logits != null)
            {
                var pin = GCHandle.Alloc(logits, GCHandleType.Pinned); pins.Add(pin);
                p.logits = pin.AddrOfPinnedObject(); p.n_logits = (UIntPtr)logits.Length;
            }
            var o = new OptionScoreC[Math.Max(k, 1)];
            Lib.Check(call(o, ref p));
            var scores = new Score[k];
            for (int i = 0; i < k; ++i) scores[i] = new Score { TotalLogprob = o[i].total_logprob, MeanLogprob = o[i].mean_logprob, Tokens = o[i].n_tokens };
            return scores;
        }

        /// <summary>Draws a token with this State's RNG and penalties (a manual decode loop).</summary>
        public uint Sample(float[] logits, SamplerParams p = null)
        {
            using (var pinned = (p ?? SamplerParams.Default()).Pin())
            {
                var c = pinned.C;
                Lib.Check(Native.ai00_state_sample(out uint token, Handle, ref c, logits, (UIntPtr)logits.Length));
                return token;
            }
        }
    }

    /// <summary>Sampler settings; defaults are the library's, Preset() gives the Goose presets.</summary>
    public sealed class SamplerParams
    {
        public SamplerMethod Method; public float Temperature; public uint TopK; public float TopP, MinP,
            TypicalTau, MirostatTau, MirostatRate, PresencePenalty, FrequencyPenalty, PenaltyDecay, RepetitionPenalty;
        public bool BanEos;
        public Dictionary<uint, float> LogitBias = new Dictionary<uint, float>();

        internal SamplerParams(SamplerParamsC c)
        {
            Method = (SamplerMethod)c.method; Temperature = c.temperature; TopK = c.top_k; TopP = c.top_p; MinP = c.min_p;
            TypicalTau = c.typical_tau; MirostatTau = c.mirostat_tau; MirostatRate = c.mirostat_rate;
            PresencePenalty = c.presence_penalty; FrequencyPenalty = c.frequency_penalty; PenaltyDecay = c.penalty_decay;
            RepetitionPenalty = c.repetition_penalty; BanEos = c.ban_eos != 0;
        }
        public static SamplerParams Default() { Lib.Check(Native.ai00_sampler_params_default(out SamplerParamsC c)); return new SamplerParams(c); }
        public static SamplerParams Preset(SamplerPreset p) { Lib.Check(Native.ai00_sampler_params_preset(out SamplerParamsC c, (int)p)); return new SamplerParams(c); }

        internal sealed class Pinned : IDisposable
        {
            public SamplerParamsC C;
            GCHandle bias;
            public Pinned(SamplerParams p)
            {
                Lib.Check(Native.ai00_sampler_params_default(out C));
                C.method = (int)p.Method; C.temperature = p.Temperature; C.top_k = p.TopK; C.top_p = p.TopP; C.min_p = p.MinP;
                C.typical_tau = p.TypicalTau; C.mirostat_tau = p.MirostatTau; C.mirostat_rate = p.MirostatRate;
                C.presence_penalty = p.PresencePenalty; C.frequency_penalty = p.FrequencyPenalty;
                C.penalty_decay = p.PenaltyDecay; C.repetition_penalty = p.RepetitionPenalty; C.ban_eos = p.BanEos ? 1 : 0;
                var arr = new LogitBias[p.LogitBias.Count];
                int i = 0;
                foreach (var kv in p.LogitBias) arr[i++] = new LogitBias { token = kv.Key, bias = kv.Value };
                bias = GCHandle.Alloc(arr, GCHandleType.Pinned);
                C.logit_bias = arr.Length == 0 ? IntPtr.Zero : bias.AddrOfPinnedObject();
                C.n_logit_bias = (UIntPtr)arr.Length;
            }
            public void Dispose() { if (bias.IsAllocated) bias.Free(); }
        }
        internal Pinned Pin() => new Pinned(this);
    }

    /// <summary>One streamed piece of a reply, copied out of the library's buffers.</summary>
    public sealed class Delta : IEquatable<Delta>
    {
        public DeltaKind Kind; public string Text = ""; public uint Call; public string Id = "";
        public string Name = ""; public bool Valid = true; public FinishReason FinishReason = FinishReason.None;
        /// <summary>ToolCall: the arguments JSON text.</summary>
        public string Arguments => Text;
        internal static Delta From(ref DeltaC d) => new Delta
        {
            Kind = (DeltaKind)d.kind, Text = Lib.Utf8(d.text, d.text_len), Call = d.call, Id = Lib.Utf8(d.id, d.id_len),
            Name = Lib.Utf8(d.name, d.name_len), Valid = d.valid != 0, FinishReason = (FinishReason)d.finish_reason
        };
        internal static DeltaC NewC() => new DeltaC { struct_size = (uint)Marshal.SizeOf(typeof(DeltaC)) };
        public bool Equals(Delta o) => o != null && Kind == o.Kind && Text == o.Text && Call == o.Call && Id == o.Id &&
            Name == o.Name && Valid == o.Valid && FinishReason == o.FinishReason;
        public override bool Equals(object o) => Equals(o as Delta);
        public override int GetHashCode() => (Text ?? "").GetHashCode() ^ (int)Kind;
        public override string ToString() => Kind + "(" + (Kind == DeltaKind.ToolCall ? Name + " " : "") + Text +
            (Kind == DeltaKind.Finish ? FinishReason.ToString() : "") + ")";
    }

    /// <summary>Options of a render: generation prompt, thinking, tools (JSON), speaker name.</summary>
    public sealed class RenderOptions
    {
        public bool AddGenerationPrompt = true;
        public Thinking Thinking = Thinking.Off;
        public string ToolsJson;
        public string AssistantName;
        /// <summary>OpenChatML &lt;|reflect|&gt; / &lt;|introspect|&gt; flags (other formats refuse them).</summary>
        public bool Reflect, Introspect;
        /// <summary>Feed token 0 before the prompt; null keeps the template's setting.</summary>
        public bool? PrependToken0;

        internal sealed class Pinned : IDisposable
        {
            public RenderOptionsC C;
            GCHandle tools, name;
            public Pinned(RenderOptions o)
            {
                Lib.Check(Native.ai00_render_options_default(out C));
                if (o == null) return;
                C.add_generation_prompt = o.AddGenerationPrompt ? 1 : 0;
                C.thinking = (int)o.Thinking;
                C.reflect = o.Reflect ? 1 : 0; C.introspect = o.Introspect ? 1 : 0;
                if (o.PrependToken0.HasValue) C.prepend_token0 = o.PrependToken0.Value ? 1 : 0;
                if (o.ToolsJson != null) { var b = Lib.Bytes(o.ToolsJson); tools = GCHandle.Alloc(b, GCHandleType.Pinned); C.tools_json = tools.AddrOfPinnedObject(); C.tools_json_len = Lib.Len(b); }
                if (o.AssistantName != null) { var b = Lib.Bytes(o.AssistantName); name = GCHandle.Alloc(b, GCHandleType.Pinned); C.assistant_name = name.AddrOfPinnedObject(); C.assistant_name_len = Lib.Len(b); }
            }
            public void Dispose() { if (tools.IsAllocated) tools.Free(); if (name.IsAllocated) name.Free(); }
        }
    }

    public struct Rendered { public string Prompt; public List<string> StopSequences; }

    /// <summary>A chat format ("ai00-v1", "ai00-v0", "goose", "openchatml"). One thread at a time.</summary>
    public sealed class ChatTemplate : Ai00Object<TemplateHandle>
    {
        public string Name { get; }
        public ChatTemplate(string name) : base(New(name, null)) { Name = name; }
        /// <summary>A template configured by TOML text (docs/chat-formats.md "Configuration");
        /// a Format exception names config:LINE:COLUMN.</summary>
        public ChatTemplate(string name, string configToml) : base(New(name, configToml)) { Name = name; }
        static IntPtr New(string name, string config)
        {
            var raw = Lib.Bytes(name);
            IntPtr h;
            if (config == null) Lib.Check(Native.ai00_chat_template_new(out h, raw, Lib.Len(raw)));
            else { var toml = Lib.Bytes(config); Lib.Check(Native.ai00_chat_template_new_with_config(out h, raw, Lib.Len(raw), toml, Lib.Len(toml))); }
            return h;
        }
        /// <summary>The sampling preset of this template's configuration ("chat", "math", "creative" or one it adds).</summary>
        public SamplerParams SamplerPreset(string name)
        {
            var raw = Lib.Bytes(name);
            Lib.Check(Native.ai00_chat_template_sampler_preset(out SamplerParamsC c, Handle, raw, Lib.Len(raw)));
            return new SamplerParams(c);
        }
        /// <summary>A fill-in-the-middle prompt (OpenChatML).</summary>
        public string RenderFim(string prefix, string suffix)
        {
            var a = Lib.Bytes(prefix); var b = Lib.Bytes(suffix);
            Lib.Check(Native.ai00_chat_template_render_fim(out IntPtr p, out UIntPtr n, Handle, a, Lib.Len(a), b, Lib.Len(b)));
            return Lib.Utf8(p, n);
        }
        /// <summary>A multi-file sequence joined by the file separator (OpenChatML).</summary>
        public string RenderFiles(IList<string> files, bool leadingSeparator = false)
        {
            var pins = new GCHandle[files.Count];
            var ptrs = new IntPtr[Math.Max(files.Count, 1)];
            var lens = new UIntPtr[Math.Max(files.Count, 1)];
            try
            {
                for (int i = 0; i < files.Count; ++i)
                {
                    var b = Lib.Bytes(files[i] ?? "");
                    pins[i] = GCHandle.Alloc(b, GCHandleType.Pinned);
                    ptrs[i] = pins[i].AddrOfPinnedObject(); lens[i] = Lib.Len(b);
                }
                Lib.Check(Native.ai00_chat_template_render_files(out IntPtr p, out UIntPtr n, Handle, ptrs, lens,
                    (UIntPtr)files.Count, leadingSeparator ? 1 : 0));
                return Lib.Utf8(p, n);
            }
            finally { foreach (var h in pins) if (h.IsAllocated) h.Free(); }
        }
        /// <summary>A rendered conversation read back as a JSON array of messages (OpenChatML).</summary>
        public string ParseTranscript(string text)
        {
            var raw = Lib.Bytes(text);
            Lib.Check(Native.ai00_chat_template_parse_transcript(out IntPtr p, out UIntPtr n, Handle, raw, Lib.Len(raw)));
            return Lib.Utf8(p, n);
        }
        public string LastError => Lib.Utf8z(Native.ai00_chat_template_last_error(Handle));

        /// <summary>Renders a conversation (JSON array of messages) into a prompt.</summary>
        public Rendered Render(string conversationJson, RenderOptions options = null)
        {
            using (var o = new RenderOptions.Pinned(options))
            {
                var conv = Lib.Bytes(conversationJson);
                var c = o.C;
                Lib.Check(Native.ai00_chat_template_render(out IntPtr p, out UIntPtr n, Handle, conv, Lib.Len(conv), ref c));
                var r = new Rendered { Prompt = Lib.Utf8(p, n) };
                Lib.Check(Native.ai00_chat_template_stop_count(out UIntPtr count, Handle));
                var h = Handle;
                r.StopSequences = Lib.Strings((int)count, (out IntPtr t, out UIntPtr l, UIntPtr i) => Native.ai00_chat_template_stop(out t, out l, h, i));
                return r;
            }
        }
        /// <summary>The last render with its constrained-decoding hints, as JSON.</summary>
        public string LastRenderJson
        {
            get { Lib.Check(Native.ai00_chat_template_last_render_json(out IntPtr p, out UIntPtr n, Handle)); return Lib.Utf8(p, n); }
        }
        /// <summary>streamToolCalls: also ToolCallStart and ToolCallArguments deltas as each call streams.</summary>
        public OutputParser OutputParser(Thinking thinking = Thinking.Off, string toolsJson = null, ulong idSeed = 0,
            bool streamToolCalls = false)
            => new OutputParser(this, thinking, toolsJson, idSeed, streamToolCalls);
    }

    /// <summary>Parses a reply produced elsewhere into the deltas a generator would give.</summary>
    public sealed class OutputParser : Ai00Object<OutputParserHandle>
    {
        internal OutputParser(ChatTemplate t, Thinking thinking, string toolsJson, ulong idSeed, bool stream)
            : base(New(t, thinking, toolsJson, idSeed, stream)) { }
        static IntPtr New(ChatTemplate t, Thinking thinking, string toolsJson, ulong idSeed, bool stream)
        {
            Lib.Check(Native.ai00_parse_options_default(out ParseOptionsC o));
            o.thinking = (int)thinking;
            o.stream_tool_calls = stream ? 1 : 0;
            o.id_seed = idSeed;
            var tools = Lib.Bytes(toolsJson);
            var pin = GCHandle.Alloc(tools, GCHandleType.Pinned);
            try
            {
                if (tools != null) { o.tools_json = pin.AddrOfPinnedObject(); o.tools_json_len = Lib.Len(tools); }
                Lib.Check(Native.ai00_output_parser_new(out IntPtr h, t.Handle, ref o));
                return h;
            }
            finally { pin.Free(); }
        }
        List<Delta> Drain()
        {
            Lib.Check(Native.ai00_output_parser_pending(out UIntPtr n, Handle));
            var list = new List<Delta>();
            var d = Delta.NewC();
            for (ulong i = 0; i < n.ToUInt64(); ++i) { Lib.Check(Native.ai00_output_parser_next(ref d, Handle)); list.Add(Delta.From(ref d)); }
            return list;
        }
        public List<Delta> Push(string text)
        {
            var raw = Lib.Bytes(text);
            Lib.Check(Native.ai00_output_parser_push(out UIntPtr _, Handle, raw, Lib.Len(raw)));
            return Drain();
        }
        public List<Delta> Finish(FinishReason reason = FinishReason.Stop)
        {
            Lib.Check(Native.ai00_output_parser_finish(Handle, (int)reason));
            return Drain();
        }
        public FinishReason FinishReason { get { Lib.Check(Native.ai00_output_parser_finish_reason(out int r, Handle)); return (FinishReason)r; } }
        public string MessageJson { get { Lib.Check(Native.ai00_output_parser_message_json(out IntPtr p, out UIntPtr n, Handle)); return Lib.Utf8(p, n); } }
        public List<string> Warnings
        {
            get
            {
                Lib.Check(Native.ai00_output_parser_warning_count(out UIntPtr n, Handle));
                var h = Handle;
                return Lib.Strings((int)n, (out IntPtr t, out UIntPtr l, UIntPtr i) => Native.ai00_output_parser_warning(out t, out l, h, i));
            }
        }
        public string LastError => Lib.Utf8z(Native.ai00_output_parser_last_error(Handle));
    }

    /// <summary>The RWKV World tokenizer; immutable, share it between threads.</summary>
    public sealed class Tokenizer : Ai00Object<TokenizerHandle>
    {
        Tokenizer(IntPtr h) : base(h) { }
        internal static readonly TokenizerHandle Null = new TokenizerHandle();
        public static Tokenizer Load(string path)
        {
            var raw = Lib.Bytes(path);
            Lib.Check(Native.ai00_tokenizer_load(out IntPtr h, raw, Lib.Len(raw)));
            return new Tokenizer(h);
        }
        internal static Tokenizer FromModel(Model m) { Lib.Check(Native.ai00_tokenizer_from_model(out IntPtr h, m.Handle)); return new Tokenizer(h); }
        public uint VocabSize { get { Lib.Check(Native.ai00_tokenizer_vocab_size(out uint n, Handle)); return n; } }
        public uint[] Encode(byte[] bytes) { var h = Handle; return Lib.TwoCall<uint>((out UIntPtr n, uint[] b, UIntPtr c) => Native.ai00_tokenizer_encode(out n, b, c, h, bytes, Lib.Len(bytes))); }
        public uint[] Encode(string text) => Encode(Lib.Bytes(text));
        /// <summary>The exact bytes the ids stand for (possibly invalid UTF-8).</summary>
        public byte[] Decode(uint[] tokens) { var h = Handle; return Lib.TwoCall<byte>((out UIntPtr n, byte[] b, UIntPtr c) => Native.ai00_tokenizer_decode(out n, b, c, h, tokens, (UIntPtr)tokens.Length)); }
        public string LastError => Lib.Utf8z(Native.ai00_tokenizer_last_error(Handle));
    }

    /// <summary>JSON Schema conversion options; the defaults are the library's (validator
    /// semantics: extra keys allowed, any JSON whitespace). Compact with FlexibleWhitespace off
    /// gives the layout without spaces.</summary>
    public sealed class SchemaOptions
    {
        public bool Lenient, StrictProperties, FlexibleWhitespace, Compact;
        public uint MaxWhitespace;
        public SchemaOptions()
        {
            Lib.Check(Native.ai00_schema_options_default(out SchemaOptionsC c));
            Lenient = c.lenient != 0; StrictProperties = c.strict_properties != 0;
            FlexibleWhitespace = c.flexible_whitespace != 0; MaxWhitespace = c.max_whitespace; Compact = c.compact != 0;
        }
        internal SchemaOptionsC ToC()
        {
            Lib.Check(Native.ai00_schema_options_default(out SchemaOptionsC c));
            c.lenient = Lenient ? 1 : 0; c.strict_properties = StrictProperties ? 1 : 0;
            c.flexible_whitespace = FlexibleWhitespace ? 1 : 0; c.max_whitespace = MaxWhitespace;
            c.compact = Compact ? 1 : 0;
            return c;
        }
    }

    public struct CheckResult
    {
        public CheckVerdict Verdict; public ulong ByteOffset, TokenIndex; public uint TokenId;
        public bool Accepted => Verdict == CheckVerdict.Accepted;
    }

    /// <summary>A compiled grammar (KBNF, JSON Schema, tool calls); immutable, shareable.</summary>
    public sealed class Grammar : Ai00Object<GrammarHandle>
    {
        internal Grammar(IntPtr h) : base(h) { }
        static SafeHandle Tok(Tokenizer t) => t == null ? (SafeHandle)Tokenizer.Null : t.Handle;

        /// <summary>KBNF at byte level (no tokenizer) or over a tokenizer's vocabulary, for checks.</summary>
        public static Grammar FromKbnf(string kbnf, Tokenizer tokenizer = null, string startRule = null)
        {
            Lib.Check(Native.ai00_grammar_params_default(out GrammarParamsC p));
            var start = Lib.Bytes(startRule);
            var pin = GCHandle.Alloc(start, GCHandleType.Pinned);
            try
            {
                if (start != null) { p.start_rule = pin.AddrOfPinnedObject(); p.start_rule_len = Lib.Len(start); }
                var raw = Lib.Bytes(kbnf);
                Lib.Check(Native.ai00_grammar_new(out IntPtr g, Tok(tokenizer), raw, Lib.Len(raw), ref p));
                return new Grammar(g);
            }
            finally { pin.Free(); }
        }
        public static Grammar FromJsonSchema(string schemaJson, Tokenizer tokenizer = null, SchemaOptions options = null)
        {
            var o = (options ?? new SchemaOptions()).ToC();
            var raw = Lib.Bytes(schemaJson);
            Lib.Check(Native.ai00_grammar_new_from_json_schema(out IntPtr g, Tok(tokenizer), raw, Lib.Len(raw), ref o));
            return new Grammar(g);
        }
        /// <summary>The tool-call grammar of the template's format for the tools (JSON).</summary>
        public static Grammar ForTools(ChatTemplate template, string toolsJson, Tokenizer tokenizer = null,
            GrammarMode level = GrammarMode.Structural, ThinkingStart thinkingStart = ThinkingStart.Optional,
            bool allowEosEnd = false, SchemaOptions schema = null)
        {
            Lib.Check(Native.ai00_tool_grammar_params_default(out ToolGrammarParamsC p));
            p.level = (int)level; p.thinking_start = (int)thinkingStart; p.allow_eos_end = allowEosEnd ? 1 : 0;
            IntPtr so = IntPtr.Zero;
            try
            {
                if (schema != null)
                {
                    so = Marshal.AllocHGlobal(Marshal.SizeOf(typeof(SchemaOptionsC)));
                    Marshal.StructureToPtr(schema.ToC(), so, false);
                    p.schema = so;
                }
                var raw = Lib.Bytes(toolsJson);
                Lib.Check(Native.ai00_grammar_new_for_tools(out IntPtr g, Tok(tokenizer), template.Handle, raw, Lib.Len(raw), ref p));
                return new Grammar(g);
            }
            finally { if (so != IntPtr.Zero) Marshal.FreeHGlobal(so); }
        }
        public string Kbnf { get { Lib.Check(Native.ai00_grammar_kbnf(out IntPtr p, out UIntPtr n, Handle)); return Lib.Utf8(p, n); } }
        public List<string> Warnings
        {
            get
            {
                Lib.Check(Native.ai00_grammar_warning_count(out UIntPtr n, Handle));
                var h = Handle;
                return Lib.Strings((int)n, (out IntPtr t, out UIntPtr l, UIntPtr i) => Native.ai00_grammar_warning(out t, out l, h, i));
            }
        }
        public bool Accepts(string text) { var raw = Lib.Bytes(text); Lib.Check(Native.ai00_grammar_accepts(out int ok, Handle, raw, Lib.Len(raw))); return ok != 0; }
        public CheckResult Check(string text)
        {
            var r = new CheckResultC { struct_size = (uint)Marshal.SizeOf(typeof(CheckResultC)) };
            var raw = Lib.Bytes(text);
            Lib.Check(Native.ai00_grammar_check(ref r, Handle, raw, Lib.Len(raw)));
            return new CheckResult { Verdict = (CheckVerdict)r.verdict, ByteOffset = r.byte_offset, TokenIndex = r.token_index, TokenId = r.token_id };
        }
        public string LastError => Lib.Utf8z(Native.ai00_grammar_last_error(Handle));
    }

    /// <summary>Settings of one turn.</summary>
    public sealed class GenerateOptions
    {
        public uint? MaxTokens; public uint? PrefillChunk; public ulong? Seed;
        public GrammarMode GrammarMode = GrammarMode.Automatic;
        public Grammar Grammar;
        public string[] StopSequences = new string[0];
        public SamplerParams Sampler;
        /// <summary>A prefix-state cache shared with other generators (docs/prefix-cache.md);
        /// the generator keeps it alive until it is disposed.</summary>
        public PrefixCache PrefixCache;
        /// <summary>Chat turns: each tool call is also streamed as a ToolCallStart delta and
        /// ToolCallArguments pieces before its whole ToolCall delta.</summary>
        public bool StreamToolCalls;
        /// <summary>Chat turns with tools: which tool calls the tool grammar allows.</summary>
        public ToolChoice ToolChoice = ToolChoice.Auto;
        /// <summary>The tool of ToolChoice.Named; a name not among the turn's tools is an
        /// InvalidArgument error naming it (the library copies the name).</summary>
        public string ToolName;
        /// <summary>Chat turns with tools: false allows at most one call per reply.</summary>
        public bool ParallelToolCalls = true;
    }

    /// <summary>One turn on one State. It borrows the State until disposed: dispose it before the
    /// State is used again. Enumerate it (or Stream(token)) for deltas, Run() with a callback, or
    /// Step(budget) once per frame. Cancel() may be called from any thread.</summary>
    public sealed class Generator : Ai00Object<GeneratorHandle>, IEnumerable<Delta>
    {
        // The model, State, template and grammar stay alive with us.
        internal readonly object[] KeepAlive;
        internal bool finished;
        internal Batch InBatch;  // the batch it is a member of, or null
        Generator(IntPtr h, params object[] keep) : base(h) { KeepAlive = keep; }

        /// <summary>Disposing a member takes it out of its batch first (the library does).</summary>
        public override void Dispose()
        {
            var b = InBatch;
            if (b != null && !H.IsClosed) b.Forget(this);
            InBatch = null;
            base.Dispose();
        }

        // Keeps the prefix cache alive (a SafeHandle reference) until the generator is freed.
        Generator Hold(PrefixCache cache)
        {
            if (cache == null) return this;
            bool added = false;
            cache.Handle.DangerousAddRef(ref added);
            if (added) H.Dependent = cache.Handle;
            return this;
        }

        delegate int Create(ref GenerateParamsC p, ref SamplerParamsC s);
        static IntPtr Make(GenerateOptions o, Create create)
        {
            o = o ?? new GenerateOptions();
            Lib.Check(Native.ai00_generate_params_default(out GenerateParamsC p));
            if (o.MaxTokens.HasValue) p.max_tokens = o.MaxTokens.Value;
            if (o.PrefillChunk.HasValue) p.prefill_chunk = o.PrefillChunk.Value;
            if (o.Seed.HasValue) { p.set_seed = 1; p.seed = o.Seed.Value; }
            p.grammar_mode = (int)o.GrammarMode;
            p.stream_tool_calls = o.StreamToolCalls ? 1 : 0;
            p.parallel_tool_calls = o.ParallelToolCalls ? 1 : 0;
            p.tool_choice = (int)o.ToolChoice;
            bool addRef = false, cacheRef = false;
            var stops = new IntPtr[o.StopSequences.Length];
            var stopsPin = default(GCHandle);
            IntPtr toolName = IntPtr.Zero; // the library copies it during the creation call
            try
            {
                if (o.ToolChoice == ToolChoice.Named && o.ToolName != null)
                {
                    var b = Encoding.UTF8.GetBytes(o.ToolName);
                    toolName = Marshal.AllocHGlobal(b.Length + 1);
                    Marshal.Copy(b, 0, toolName, b.Length);
                    p.tool_choice_name = toolName;
                    p.tool_choice_name_len = (UIntPtr)b.Length;
                }
                if (o.Grammar != null) { o.Grammar.Handle.DangerousAddRef(ref addRef); p.grammar = o.Grammar.Handle.DangerousGetHandle(); }
                if (o.PrefixCache != null) { o.PrefixCache.Handle.DangerousAddRef(ref cacheRef); p.prefix_cache = o.PrefixCache.Handle.DangerousGetHandle(); }
                for (int i = 0; i < stops.Length; ++i)
                {
                    var b = Encoding.UTF8.GetBytes(o.StopSequences[i] + "\0");
                    stops[i] = Marshal.AllocHGlobal(b.Length);
                    Marshal.Copy(b, 0, stops[i], b.Length);
                }
                stopsPin = GCHandle.Alloc(stops, GCHandleType.Pinned);
                p.stop_sequences = stops.Length == 0 ? IntPtr.Zero : stopsPin.AddrOfPinnedObject();
                p.n_stop_sequences = (UIntPtr)stops.Length;
                using (var sp = (o.Sampler ?? SamplerParams.Default()).Pin())
                {
                    var s = sp.C;
                    Lib.Check(create(ref p, ref s));
                }
                return IntPtr.Zero;
            }
            finally
            {
                if (addRef) o.Grammar.Handle.DangerousRelease();
                if (cacheRef) o.PrefixCache.Handle.DangerousRelease();
                foreach (var s in stops) if (s != IntPtr.Zero) Marshal.FreeHGlobal(s);
                if (stopsPin.IsAllocated) stopsPin.Free();
                if (toolName != IntPtr.Zero) Marshal.FreeHGlobal(toolName);
            }
        }

        /// <summary>A chat turn: the template renders the conversation (JSON array of messages).</summary>
        public static Generator Chat(Model model, State state, ChatTemplate template, string conversationJson,
            RenderOptions render = null, GenerateOptions options = null)
        {
            IntPtr h = IntPtr.Zero;
            var conv = Lib.Bytes(conversationJson);
            using (var r = new RenderOptions.Pinned(render))
            {
                var rc = r.C;
                Make(options, (ref GenerateParamsC p, ref SamplerParamsC s) =>
                    Native.ai00_generator_new_chat(out h, model.Handle, state.Handle, template.Handle, conv, Lib.Len(conv), ref rc, ref s, ref p));
            }
            return new Generator(h, model, state, template, options?.Grammar).Hold(options?.PrefixCache).Borrow(state);
        }

        /// <summary>A raw-text turn: the prompt is fed as is; the reply is Text deltas.</summary>
        public static Generator Raw(Model model, State state, string prompt, GenerateOptions options = null)
        {
            IntPtr h = IntPtr.Zero;
            var raw = Lib.Bytes(prompt);
            Make(options, (ref GenerateParamsC p, ref SamplerParamsC s) =>
                Native.ai00_generator_new_raw(out h, model.Handle, state.Handle, raw, Lib.Len(raw), ref s, ref p));
            return new Generator(h, model, state, options?.Grammar).Hold(options?.PrefixCache).Borrow(state);
        }

        Generator Borrow(State s) { s.Borrower = new WeakReference<Generator>(this); return this; }

        /// <summary>The deltas to the end of the turn (the last is Finish); the token cancels it.</summary>
        public IEnumerable<Delta> Stream(CancellationToken cancel = default(CancellationToken))
        {
            using (cancel.Register(Cancel))
            {
                var d = Delta.NewC();
                while (!finished)
                {
                    Lib.Check(Native.ai00_generator_next(ref d, Handle));
                    var delta = Delta.From(ref d);
                    finished = delta.Kind == DeltaKind.Finish;
                    yield return delta;
                }
            }
        }
        public IEnumerator<Delta> GetEnumerator() => Stream().GetEnumerator();
        System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();

        /// <summary>Runs the turn to its end; the callback returns true to stop it.</summary>
        public FinishReason Run(Func<Delta, bool> onDelta = null)
        {
            Exception error = null;
            DeltaCallback cb = null;
            if (onDelta != null)
                cb = (ref DeltaC d, IntPtr u) =>
                {
                    try { return onDelta(Delta.From(ref d)) ? 1 : 0; }
                    catch (Exception e) { error = e; return 1; }  // never unwind through the library
                };
            Lib.Check(Native.ai00_generator_run(out int reason, Handle, cb, IntPtr.Zero));
            GC.KeepAlive(cb);
            finished = true;
            if (error != null) throw error;
            return (FinishReason)reason;
        }

        /// <summary>Bounded work for a frame: at most maxTokens tokens (or one prefill chunk).
        /// Returns the deltas it produced; Finished tells when the turn has ended.</summary>
        public List<Delta> Step(uint maxTokens = 1)
        {
            Lib.Check(Native.ai00_generator_step(out int done, Handle, maxTokens, null, IntPtr.Zero));
            Lib.Check(Native.ai00_generator_pending(out UIntPtr n, Handle));
            var list = new List<Delta>();
            var d = Delta.NewC();
            for (ulong i = 0; i < n.ToUInt64(); ++i)
            {
                Lib.Check(Native.ai00_generator_next(ref d, Handle));
                list.Add(Delta.From(ref d));
            }
            if (done != 0 || list.Exists(x => x.Kind == DeltaKind.Finish)) finished = true;
            return list;
        }
        public bool Finished => finished;

        /// <summary>Stops the turn before the next token; any thread, while not disposed.</summary>
        public void Cancel()
        {
            bool added = false;
            try
            {
                H.DangerousAddRef(ref added);  // fails once disposed: nothing to cancel then
                Lib.Check(Native.ai00_generator_cancel(H));
            }
            catch (ObjectDisposedException) { }
            finally { if (added) H.DangerousRelease(); }
        }
        public FinishReason FinishReason { get { Lib.Check(Native.ai00_generator_finish_reason(out int r, Handle)); return (FinishReason)r; } }
        public string MessageJson { get { Lib.Check(Native.ai00_generator_message_json(out IntPtr p, out UIntPtr n, Handle)); return Lib.Utf8(p, n); } }
        public List<string> Warnings
        {
            get
            {
                Lib.Check(Native.ai00_generator_warning_count(out UIntPtr n, Handle));
                var h = Handle;
                return Lib.Strings((int)n, (out IntPtr t, out UIntPtr l, UIntPtr i) => Native.ai00_generator_warning(out t, out l, h, i));
            }
        }
        public uint[] Tokens
        {
            get
            {
                Lib.Check(Native.ai00_generator_tokens(out IntPtr p, out UIntPtr n, Handle));
                var ints = new int[(int)n.ToUInt64()];
                if (ints.Length > 0) Marshal.Copy(p, ints, 0, ints.Length);
                return Array.ConvertAll(ints, x => (uint)x);
            }
        }
        public string LastError => Lib.Utf8z(Native.ai00_generator_last_error(Handle));
        /// <summary>Runs to the end and returns the content text.</summary>
        public string Text()
        {
            var sb = new StringBuilder();
            foreach (var d in this) if (d.Kind == DeltaKind.Text) sb.Append(d.Text);
            return sb.ToString();
        }
    }

    /// <summary>One candidate's score: natural-log probability of its tokens.</summary>
    public struct Score { public double TotalLogprob, MeanLogprob; public ulong Tokens; }

    /// <summary>Counters of a PrefixCache since it was made. SpareBytes: the memory set aside for
    /// later entries (PrefixCache.Reserve, and an evicted entry's memory on its way to the insert
    /// that takes it), counted against MaxBytes.</summary>
    public struct PrefixCacheStats { public ulong Hits, Misses, HitTokens, Inserts, Evictions, Entries, Bytes, MaxBytes, SpareBytes; }

    /// <summary>States after token prefixes (system prompt, persona), reused by generators whose
    /// State is pristine (new or reset): set GenerateOptions.PrefixCache. Every method is
    /// thread-safe (any number of threads and generators may share one). A generator keeps its
    /// cache alive, so disposing the cache early only drops this reference.</summary>
    public sealed class PrefixCache : Ai00Object<PrefixCacheHandle>
    {
        PrefixCache(IntPtr h) : base(h) { }
        public PrefixCache(ulong maxBytes = 0, bool compressBf16 = false) : this(New(maxBytes, compressBf16)) { }
        static IntPtr New(ulong maxBytes, bool compressBf16)
        {
            var p = new PrefixCacheParamsC { struct_size = (uint)Marshal.SizeOf(typeof(PrefixCacheParamsC)) };
            Lib.Check(Native.ai00_prefix_cache_params_default(ref p));
            if (maxBytes != 0) p.max_bytes = maxBytes;
            p.compress_bf16 = compressBf16 ? 1 : 0;
            Lib.Check(Native.ai00_prefix_cache_new(out IntPtr h, ref p));
            return h;
        }
        public PrefixCacheStats Stats
        {
            get
            {
                var s = new PrefixCacheStatsC { struct_size = (uint)Marshal.SizeOf(typeof(PrefixCacheStatsC)) };
                Lib.Check(Native.ai00_prefix_cache_stats_get(ref s, Handle));
                return new PrefixCacheStats { Hits = s.hits, Misses = s.misses, HitTokens = s.hit_tokens, Inserts = s.inserts,
                    Evictions = s.evictions, Entries = s.entries, Bytes = s.bytes, MaxBytes = s.max_bytes,
                    SpareBytes = s.spare_bytes };
            }
        }
        /// <summary>Drops every entry and the memory set aside (the counters other than Entries,
        /// Bytes and SpareBytes are kept).</summary>
        public void Clear() => Lib.Check(Native.ai00_prefix_cache_clear(Handle));
        /// <summary>Sets memory aside now for `entries` more entries of the model (allocated and
        /// written, so its pages are in), for a loop that must not wait on fresh pages when a
        /// generator stores a State later; later inserts of that model take this memory first. It
        /// counts against MaxBytes (Stats.SpareBytes). Returns how many entries were set aside:
        /// fewer when the bound is reached, 0 for 0 entries.</summary>
        public long Reserve(Model model, ulong entries)
        {
            Lib.Check(Native.ai00_prefix_cache_reserve(out UIntPtr n, Handle, model.Handle, (UIntPtr)entries));
            return (long)n.ToUInt64();
        }
        /// <summary>Stores the State after tokens fed to the zero state; returns the tokens that
        /// ran through the model (0 when all were cached).</summary>
        public long Warm(Model model, uint[] tokens)
        {
            Lib.Check(Native.ai00_prefix_cache_warm(out UIntPtr n, Handle, model.Handle, tokens, (UIntPtr)tokens.Length));
            return (long)n.ToUInt64();
        }
        /// <summary>Warm on the model's encoding of text (e.g. a persona's rendered system prompt).</summary>
        public long Warm(Model model, string text)
        {
            var raw = Lib.Bytes(text);
            Lib.Check(Native.ai00_prefix_cache_warm_text(out UIntPtr n, Handle, model.Handle, raw, Lib.Len(raw)));
            return (long)n.ToUInt64();
        }
        public string LastError => Lib.Utf8z(Native.ai00_prefix_cache_last_error(Handle));
    }

    /// <summary>Many named States in one buffer or file. Save/SaveFile write one; Open/OpenFile
    /// read it (checking every entry: a truncated or corrupt bundle throws ModelFile). Immutable
    /// once opened: any thread may read it. States loaded from it stay valid after Dispose.</summary>
    public sealed class StateBundle : Ai00Object<StateBundleHandle>
    {
        StateBundle(IntPtr h) : base(h) { }

        delegate int WithArgs(IntPtr[] states, IntPtr[] names, UIntPtr[] lens, UIntPtr count);
        static int Call(IEnumerable<KeyValuePair<string, State>> entries, WithArgs call)
        {
            var list = new List<KeyValuePair<string, State>>(entries);
            var states = new IntPtr[Math.Max(list.Count, 1)];
            var names = new IntPtr[Math.Max(list.Count, 1)];
            var lens = new UIntPtr[Math.Max(list.Count, 1)];
            var added = new bool[list.Count];
            try
            {
                for (int i = 0; i < list.Count; ++i)
                {
                    var h = list[i].Value.Handle;
                    h.DangerousAddRef(ref added[i]);
                    states[i] = h.DangerousGetHandle();
                    var b = Encoding.UTF8.GetBytes(list[i].Key);
                    names[i] = Marshal.AllocHGlobal(Math.Max(b.Length, 1));
                    Marshal.Copy(b, 0, names[i], b.Length);
                    lens[i] = (UIntPtr)b.Length;
                }
                return call(states, names, lens, (UIntPtr)list.Count);
            }
            finally
            {
                for (int i = 0; i < list.Count; ++i)
                {
                    if (added[i]) list[i].Value.H.DangerousRelease();
                    if (names[i] != IntPtr.Zero) Marshal.FreeHGlobal(names[i]);
                }
            }
        }
        /// <summary>The bundle bytes of named States (names unique, 1..4096 UTF-8 bytes).</summary>
        public static byte[] Save(IEnumerable<KeyValuePair<string, State>> entries)
        {
            byte[] result = null;
            Lib.Check(Call(entries, (st, nm, ln, n) =>
            {
                result = Lib.TwoCall<byte>((out UIntPtr size, byte[] b, UIntPtr c) => Native.ai00_state_bundle_save(out size, b, c, st, nm, ln, n));
                return 0;
            }));
            return result;
        }
        public static void SaveFile(IEnumerable<KeyValuePair<string, State>> entries, string path)
        {
            var raw = Lib.Bytes(path);
            Lib.Check(Call(entries, (st, nm, ln, n) => Native.ai00_state_bundle_save_file(st, nm, ln, n, raw, Lib.Len(raw))));
        }
        public static StateBundle Open(byte[] data)
        {
            Lib.Check(Native.ai00_state_bundle_open(out IntPtr h, data.Length == 0 ? new byte[1] : data, (UIntPtr)data.Length));
            return new StateBundle(h);
        }
        public static StateBundle OpenFile(string path)
        {
            var raw = Lib.Bytes(path);
            Lib.Check(Native.ai00_state_bundle_open_file(out IntPtr h, raw, Lib.Len(raw)));
            return new StateBundle(h);
        }
        public int Count { get { Lib.Check(Native.ai00_state_bundle_count(out UIntPtr n, Handle)); return (int)n.ToUInt64(); } }
        public string Name(int index)
        {
            Lib.Check(Native.ai00_state_bundle_name(out IntPtr p, out UIntPtr n, Handle, (UIntPtr)index));
            return Lib.Utf8(p, n);
        }
        public List<string> Names { get { var l = new List<string>(); for (int i = 0; i < Count; ++i) l.Add(Name(i)); return l; } }
        /// <summary>The index of the entry named name (none throws InvalidArgument).</summary>
        public int Find(string name)
        {
            var raw = Lib.Bytes(name);
            Lib.Check(Native.ai00_state_bundle_find(out UIntPtr i, Handle, raw.Length == 0 ? new byte[1] : raw, Lib.Len(raw)));
            return (int)i.ToUInt64();
        }
        /// <summary>A new State of model from an entry (a State of another model throws Mismatch).</summary>
        public State Load(Model model, int index)
        {
            Lib.Check(Native.ai00_state_bundle_load(out IntPtr h, Handle, model.Handle, (UIntPtr)index));
            return new State(model, h);
        }
        public State Load(Model model, string name) => Load(model, Find(name));
        public string LastError => Lib.Utf8z(Native.ai00_state_bundle_last_error(Handle));
    }

    public enum BatchEventKind { Delta = 0, Finished = 1, Error = 2 }

    /// <summary>One event of a batch step: a member's delta, its end, or its failure.</summary>
    public sealed class BatchEvent
    {
        public Generator Generator { get; internal set; }
        public BatchEventKind Kind { get; internal set; }
        public FinishReason FinishReason { get; internal set; }
        public Delta Delta { get; internal set; }   // Kind == Delta
        public string Error { get; internal set; } = "";  // Kind == Error
    }

    /// <summary>What one Batch.Step did, with its events in order.</summary>
    public sealed class BatchStepResult
    {
        public uint Steps; public ulong TokensSampled; public ulong PromptTokens; public bool TimeLimited; public uint Unfinished;
        public List<BatchEvent> Events = new List<BatchEvent>();
    }

    /// <summary>Many generators of ONE model advanced together, one pass over the weights per
    /// step (docs/batching.md); every member produces exactly what it produces alone. The batch
    /// references its members; a member cannot be stepped alone (InvalidArgument), and disposing
    /// it takes it out first. One thread at a time; a member's Cancel() (or the CancellationToken
    /// of Step/Events) works from any thread.</summary>
    public sealed class Batch : Ai00Object<BatchHandle>
    {
        readonly Dictionary<IntPtr, Generator> members = new Dictionary<IntPtr, Generator>();
        public Model Model { get; }
        Batch(Model model, IntPtr h) : base(h) { Model = model; }
        public Batch(Model model, uint passRows = 0) : this(model, New(model, passRows)) { }
        static IntPtr New(Model model, uint passRows)
        {
            var p = new BatchParamsC { struct_size = (uint)Marshal.SizeOf(typeof(BatchParamsC)) };
            Lib.Check(Native.ai00_batch_params_default(ref p));
            if (passRows != 0) p.pass_rows = passRows;
            Lib.Check(Native.ai00_batch_new(out IntPtr h, model.Handle, ref p));
            return h;
        }
        public override void Dispose()
        {
            foreach (var g in members.Values) g.InBatch = null;
            members.Clear();
            base.Dispose();
        }
        internal void Forget(Generator g) { members.Remove(g.H.DangerousGetHandle()); }

        /// <summary>Adds a member: Mismatch for a generator of another model, InvalidArgument for
        /// one already in this or another batch.</summary>
        public void Add(Generator generator)
        {
            Lib.Check(Native.ai00_batch_add(Handle, generator.Handle));
            members[generator.H.DangerousGetHandle()] = generator;
            generator.InBatch = this;
        }
        /// <summary>Takes a member out; it may then be stepped alone and continues exactly.</summary>
        public void Remove(Generator generator)
        {
            Lib.Check(Native.ai00_batch_remove(Handle, generator.Handle));
            members.Remove(generator.H.DangerousGetHandle());
            generator.InBatch = null;
        }
        public int Count { get { Lib.Check(Native.ai00_batch_size(out UIntPtr n, Handle)); return (int)n.ToUInt64(); } }
        public ICollection<Generator> Members => members.Values;

        /// <summary>One bounded advance: at most maxTokens tokens per decoding member and, with a
        /// time budget, only steps predicted to fit. A cancelled token cancels every member (they
        /// finish Cancelled at the next step).</summary>
        public BatchStepResult Step(uint maxTokens = 1, TimeSpan timeBudget = default(TimeSpan),
            CancellationToken cancel = default(CancellationToken), bool wholeBatch = false)
        {
            var p = new BatchStepParamsC { struct_size = (uint)Marshal.SizeOf(typeof(BatchStepParamsC)) };
            Lib.Check(Native.ai00_batch_step_params_default(ref p));
            p.max_tokens = maxTokens;
            p.time_budget_us = timeBudget > TimeSpan.Zero ? (ulong)(timeBudget.Ticks / 10) : 0;
            p.whole_batch = wholeBatch ? 1 : 0;
            var r = new BatchStepResultC { struct_size = (uint)Marshal.SizeOf(typeof(BatchStepResultC)) };
            var list = new List<Generator>(members.Values);
            Action cancelAll = () => { foreach (var g in list) g.Cancel(); };
            if (cancel.IsCancellationRequested) cancelAll();
            using (cancel.Register(cancelAll))
                Lib.Check(Native.ai00_batch_step(ref r, Handle, ref p, null, IntPtr.Zero));
            var result = new BatchStepResult { Steps = r.steps, TokensSampled = r.tokens_sampled, PromptTokens = r.prompt_tokens,
                TimeLimited = r.time_limited != 0, Unfinished = r.unfinished };
            Lib.Check(Native.ai00_batch_pending(out UIntPtr n, Handle));
            for (ulong i = 0; i < n.ToUInt64(); ++i)
            {
                var e = new BatchEventC { struct_size = (uint)Marshal.SizeOf(typeof(BatchEventC)) };
                Lib.Check(Native.ai00_batch_next_event(out int has, ref e, Handle));
                if (has == 0) break;
                members.TryGetValue(e.generator, out Generator g);
                var ev = new BatchEvent { Generator = g, Kind = (BatchEventKind)e.kind, FinishReason = (FinishReason)e.finish_reason };
                if (ev.Kind == BatchEventKind.Delta) ev.Delta = Delta.From(ref e.delta);
                else
                {
                    if (g != null) g.finished = true;
                    if (ev.Kind == BatchEventKind.Error) ev.Error = Lib.Utf8(e.error, e.error_len);
                }
                result.Events.Add(ev);
            }
            return result;
        }

        /// <summary>Steps until every member has finished, yielding the events as they come.</summary>
        public IEnumerable<BatchEvent> Events(uint maxTokens = 1, CancellationToken cancel = default(CancellationToken))
        {
            while (true)
            {
                var r = Step(maxTokens, TimeSpan.Zero, cancel);
                foreach (var e in r.Events) yield return e;
                if (r.Steps == 0 || r.Unfinished == 0) yield break;
            }
        }
        public string LastError => Lib.Utf8z(Native.ai00_batch_last_error(Handle));
    }
}
