// The behaviours every ai00 binding shows: load, the C example's tokens, tool calls, JSON Schema
// replies, State save/load, cancel from another thread, errors; plus templates, tokenizers and
// grammars. Fixtures: $AI00_SHARED_DIR (default <repo>/../shared).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Json;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Ai00.Tests
{
    static class Fixtures
    {
        public static readonly string Shared = SharedDir();
        static string SharedDir()
        {
            foreach (var v in new[] { "AI00_SHARED_DIR", "AI00_DEFAULT_SHARED_DIR" })
            {
                var s = Environment.GetEnvironmentVariable(v);
                if (!string.IsNullOrEmpty(s)) return s;
            }
            return Path.Combine(AppDomain.CurrentDomain.BaseDirectory, "..", "..", "..", "..", "shared");
        }
        public static readonly string ModelPath = Path.Combine(Shared, "models", "rand-rwkv7-c128-l3-v512-F16.gguf");
        public static readonly string TinyPath = Path.Combine(Shared, "models", "tiny-rwkv-7v0-834K-FP32.bin");
        public static readonly string VocabPath = Path.Combine(Shared, "tokenizer", "rwkv_vocab_v20230424.txt");
        public const string Tools = "[{\"name\": \"get_weather\", \"description\": \"Weather of a city\", \"parameters\": " +
            "{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}]";
        // The conversation of examples/c/chat_turn.c.
        public const string Chat = "[{\"role\":\"system\",\"content\":\"You are a helpful assistant.\"}," +
            "{\"role\":\"user\",\"content\":\"Hello! Who are you?\"}]";
        static Model model;
        public static Model Model => model ?? (model = Model.Load(ModelPath));

        public static string Run(string exe, params string[] args)
        {
            var psi = new ProcessStartInfo(exe, string.Join(" ", args.Select(a => "\"" + a + "\"")))
            { RedirectStandardOutput = true, UseShellExecute = false, StandardOutputEncoding = new UTF8Encoding(false) };
            using (var p = Process.Start(psi))
            {
                string output = p.StandardOutput.ReadToEnd();
                p.WaitForExit();
                Assert.Equal(0, p.ExitCode, exe + " exit code");
                return output;
            }
        }
    }

    [TestClass]
    public static class CoreTests
    {
        static Model M => Fixtures.Model;

        public static void TestVersionsAndStatus()
        {
            Assert.Equal(new Version(0, 5, 0), Lib.Version);
            Assert.Equal(0u, Lib.AbiVersion);
            Assert.Equal("tool_calls", Lib.FinishReasonName(FinishReason.ToolCalls));
            var e = Assert.Throws(Status.InvalidArgument, () => Lib.FinishReasonName((FinishReason)99));
            Assert.Equal(e.LibraryMessage, Lib.LastError);
            Assert.True(Lib.StatusString(Status.IO) != Lib.StatusString(Status.Grammar));
        }

        public static void TestModelLoadAndInfo()
        {
            var info = M.Info;
            Assert.Equal(128u, info.Embedding); Assert.Equal(3u, info.Layers); Assert.Equal(512u, info.Vocab);
            // The recurrent floats (L * C * (N + 2) * 4); a saved State adds its header and sampler.
            Assert.Equal(3L * 128 * 66 * 4, (long)info.StateBytes, "recurrent state bytes");
            using (var fresh = M.NewState()) Assert.True(fresh.Size > (long)info.StateBytes, "fresh State size");
            Assert.Equal("gguf", (string)JsonValue.Parse(M.InfoJson)["format"]);
            var ids = M.Tokenize("hello\n\n");
            Assert.Equal(105u, ids[0]); Assert.Equal(261u, ids[ids.Length - 1]);
            Assert.Equal("hello\n\n", M.Detokenize(ids));
            using (var m2 = Model.Load(Fixtures.ModelPath, threads: 2, forcedIsa: "scalar"))
            {
                Assert.Equal("scalar", m2.Isa);
                Assert.Equal(2u, m2.Info.Threads);
            }
            Assert.True(new[] { "scalar", "sse2", "avx2", "avx512", "avx512_vnni", "avx512_bf16", "neon64" }.Contains(M.Isa), "isa name");
        }

        public static void TestSameTokensAsTheCExample()
        {
            string text; uint[] tokens;
            using (var s = M.NewState())
            using (var goose = new ChatTemplate("goose"))
            using (var g = Generator.Chat(M, s, goose, Fixtures.Chat, null, new GenerateOptions { MaxTokens = 32, Seed = 2024 }))
            {
                text = g.Text();
                tokens = g.Tokens;
                Assert.Equal(FinishReason.Length, g.FinishReason);
            }
            Assert.Equal(32, tokens.Length, "token count");
            var reference = Environment.GetEnvironmentVariable("AI00_REFERENCE_TURN");
            if (!string.IsNullOrEmpty(reference))
            {
                var expected = Fixtures.Run(reference, Fixtures.ModelPath).Trim();
                Assert.Equal(expected, string.Join(",", tokens), "tokens of reference_turn");
            }
            var example = Environment.GetEnvironmentVariable("AI00_EXAMPLE_CHAT_TURN");
            if (!string.IsNullOrEmpty(example))
            {
                var output = Fixtures.Run(example, Fixtures.ModelPath);
                int start = output.IndexOf("Assistant:") + "Assistant:".Length;
                Assert.Equal(output.Substring(start, output.IndexOf("\n[finish reason") - start), text, "streamed text of chat_turn");
            }
        }

        static List<Delta> Turn(Func<Generator, List<Delta>> drive)
        {
            using (var s = M.NewState())
            using (var t = new ChatTemplate("goose"))
            using (var g = Generator.Chat(M, s, t, Fixtures.Chat, null, new GenerateOptions { MaxTokens = 12, Seed = 5 }))
                return drive(g);
        }

        public static void TestPullPushAndStepAgree()
        {
            var pulled = Turn(g => g.ToList());
            var pushed = Turn(g => { var l = new List<Delta>(); g.Run(d => { l.Add(d); return false; }); return l; });
            var stepped = Turn(g => { var l = new List<Delta>(); while (!g.Finished) l.AddRange(g.Step(2)); return l; });
            Assert.True(pulled.SequenceEqual(pushed), "pull == push");
            Assert.True(pulled.SequenceEqual(stepped), "pull == step");
            Assert.Equal(DeltaKind.Finish, pulled.Last().Kind);
        }

        public static void TestCallbackStopsAndExceptionsPropagate()
        {
            using (var s = M.NewState())
            using (var t = new ChatTemplate("goose"))
            {
                using (var g = Generator.Chat(M, s, t, Fixtures.Chat, null, new GenerateOptions { MaxTokens = 50, Seed = 1 }))
                {
                    var r = g.Run(d => true);
                    Assert.True(r == FinishReason.Cancelled || r == FinishReason.Stop, "stopped by the callback");
                }
                s.Reset();
                using (var g = Generator.Chat(M, s, t, Fixtures.Chat, null, new GenerateOptions { MaxTokens = 50, Seed = 1 }))
                {
                    try { g.Run(d => throw new InvalidOperationException("from the callback")); Assert.True(false, "no exception"); }
                    catch (InvalidOperationException e) { Assert.Contains("from the callback", e.Message); }
                }
            }
        }

        public static void TestToolCallParsedIntoAStructuredCall()
        {
            const string reply = "<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter " +
                "name=\"city\">Tokyo</parameter>\n  </invoke>\n</ai00:function_calls>";
            using (var v1 = new ChatTemplate("ai00-v1"))
            {
                using (var p = v1.OutputParser(toolsJson: Fixtures.Tools))
                {
                    var deltas = new List<Delta>();
                    for (int i = 0; i < reply.Length; i += 7) deltas.AddRange(p.Push(reply.Substring(i, Math.Min(7, reply.Length - i))));
                    deltas.AddRange(p.Finish(FinishReason.Stop));
                    var calls = deltas.Where(d => d.Kind == DeltaKind.ToolCall).ToList();
                    Assert.Equal(1, calls.Count, "calls");
                    Assert.Equal("get_weather", calls[0].Name);
                    Assert.True(calls[0].Valid && calls[0].Id.StartsWith("call_"), "valid call with an id");
                    Assert.Equal("Tokyo", (string)JsonValue.Parse(calls[0].Arguments)["city"]);
                    Assert.Equal(FinishReason.ToolCalls, p.FinishReason);
                    var msg = JsonValue.Parse(p.MessageJson);
                    Assert.Equal("get_weather", (string)msg["tool_calls"][0]["function"]["name"]);
                    Assert.Equal(0, p.Warnings.Count, "warnings");
                }
                using (var g = Grammar.ForTools(v1, Fixtures.Tools, level: GrammarMode.SchemaAware))
                {
                    Assert.Contains("get_weather", g.Kbnf);
                    Assert.True(g.Check(reply).Accepted, "tool grammar accepts the call");
                    Assert.Equal(CheckVerdict.Bytes, g.Check(reply.Replace("get_weather", "get_time")).Verdict);
                }
            }
        }

        public static void TestStreamedToolCallDeltas()
        {
            const string reply = "<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter " +
                "name=\"city\">Tokyo</parameter>\n  </invoke>\n</ai00:function_calls>";
            using (var v1 = new ChatTemplate("ai00-v1"))
            {
                List<Delta> deltas;
                using (var p = v1.OutputParser(toolsJson: Fixtures.Tools, streamToolCalls: true))
                {
                    deltas = p.Push(reply);
                    deltas.AddRange(p.Finish());
                }
                using (var plain = v1.OutputParser(toolsJson: Fixtures.Tools))
                {
                    var d = plain.Push(reply); d.AddRange(plain.Finish());
                    Assert.True(!d.Exists(x => x.Kind == DeltaKind.ToolCallStart), "no start without streaming");
                }
                int si = deltas.FindIndex(d => d.Kind == DeltaKind.ToolCallStart);
                int ci = deltas.FindIndex(d => d.Kind == DeltaKind.ToolCall);
                Assert.True(si >= 0 && si < ci, "start before the call");
                Assert.Equal("get_weather", deltas[si].Name);
                Assert.Equal(deltas[ci].Id, deltas[si].Id);
                var pieces = string.Concat(deltas.Where(d => d.Kind == DeltaKind.ToolCallArguments).Select(d => d.Text));
                Assert.Equal("Tokyo", (string)JsonValue.Parse(pieces)["city"]);
                Assert.Equal(DeltaKind.Finish, deltas[deltas.Count - 1].Kind);
            }
        }

        public static void TestLimits()
        {
            var d = Limits.Default();
            Assert.Equal(256u, d.MaxNestingDepth); Assert.Equal(1024u, d.MaxThreads);
            Assert.Equal(d.MaxTokens, Limits.Current().MaxTokens);
            try
            {
                var low = Limits.Default(); low.MaxNestingDepth = 3; low.Apply();
                Assert.Equal(3u, Limits.Current().MaxNestingDepth);
                Assert.Contains("max_nesting_depth", Assert.Throws(Status.Grammar, () => Grammar.FromKbnf("start ::= ((((('a')))));")).LibraryMessage);
                var bad = Limits.Default(); bad.MaxTokens = 0;
                Assert.Contains("max_tokens", Assert.Throws(Status.InvalidArgument, () => bad.Apply()).LibraryMessage);
                Assert.Equal(3u, Limits.Current().MaxNestingDepth);
            }
            finally { d.Apply(); }
            Assert.Equal(256u, Limits.Current().MaxNestingDepth);
        }

        sealed class SyncProgress : IProgress<float>
        {
            public readonly List<float> Seen = new List<float>();
            public Func<float, bool> Throw = f => false;
            public void Report(float f) { Seen.Add(f); if (Throw(f)) throw new InvalidOperationException("stop at " + f); }
        }

        public static void TestModelLoadWithProgressAndCancel()
        {
            var src = Path.Combine(Fixtures.Shared, "models", "rand-rwkv7-c128-l3-v512-F16.gguf");
            var p = new SyncProgress();
            using (var m = Model.Load(src, p)) Assert.Equal(512u, m.Info.Vocab);
            Assert.True(p.Seen.Count >= 3, "several reports");
            Assert.Equal(0f, p.Seen[0], "first report");
            for (int i = 1; i < p.Seen.Count; ++i) Assert.True(p.Seen[i] >= p.Seen[i - 1], "monotonic");
            Assert.Equal(1f, p.Seen[p.Seen.Count - 1], "last report");
            Assert.Equal(1, p.Seen.FindAll(f => f == 1f).Count, "reports of 1");
            // A token cancelled half way: Cancelled, no model.
            using (var cts = new CancellationTokenSource())
            {
                var half = new SyncProgress { Throw = f => { if (f >= 0.5f) cts.Cancel(); return false; } };
                Assert.Throws(Status.Cancelled, () => Model.Load(src, half, cts.Token));
                Assert.True(half.Seen[half.Seen.Count - 1] < 1f, "stopped before the end");
            }
            // An exception from Report cancels the load and is rethrown.
            try
            {
                Model.Load(src, new SyncProgress { Throw = f => f > 0.2f });
                Assert.True(false, "the exception propagates");
            }
            catch (InvalidOperationException e) { Assert.Contains("stop at", e.Message); }
            // A broken file fails before any report.
            var bad = Path.Combine(Path.GetTempPath(), "ai00-cs-broken-" + Process.GetCurrentProcess().Id + ".gguf");
            File.WriteAllBytes(bad, Encoding.ASCII.GetBytes("GGUF\u0003\u0000\u0000\u0000 truncated"));
            var none = new SyncProgress();
            Assert.Throws(Status.ModelFile, () => Model.Load(bad, none));
            Assert.Equal(0, none.Seen.Count, "reports for a broken file");
            File.Delete(bad);
            var caps = Lib.CapabilitiesJson;
            Assert.Contains("\"isa_supported\": [", caps);
            Assert.Contains("\"ai00-v1\"", caps);
        }

        public static void TestConvertWithProgress()
        {
            var src = Path.Combine(Fixtures.Shared, "models", "rand-rwkv7-c128-l3-v512-FP32.bin");
            var dir = Path.Combine(Path.GetTempPath(), "ai00-cs-convert-" + Process.GetCurrentProcess().Id);
            Directory.CreateDirectory(dir);
            var dst = Path.Combine(dir, "m.gguf"); var st = Path.Combine(dir, "m.st");
            try
            {
                ulong last = 0, total = 0; int calls = 0;
                Converter.Convert(src, dst, new ConvertOptions { WeightType = WeightType.Q8_0, Progress = (d, t) => { ++calls; last = d; total = t; return false; } });
                Assert.True(calls > 0 && total > 0 && last == total, "progress reached the total");
                using (var m = Model.Load(dst)) Assert.Equal(128u, m.Info.Embedding);
                Assert.Contains("exists", Assert.Throws(Status.IO, () => Converter.Convert(src, dst)).LibraryMessage);
                Assert.Contains("Q4_0", Assert.Throws(Status.Unsupported, () => Converter.Convert(src, st,
                    new ConvertOptions { FileFormat = FileFormat.Safetensors, WeightType = WeightType.Q4_0 })).LibraryMessage);
                Assert.Throws(Status.Cancelled, () => Converter.Convert(src, st, new ConvertOptions { Progress = (d, t) => true }));
                Assert.True(!File.Exists(st), "nothing written when cancelled");
                try
                {
                    Converter.Convert(src, st, new ConvertOptions { Progress = (d, t) => { throw new InvalidOperationException("boom"); } });
                    Assert.True(false, "the callback's exception propagates");
                }
                catch (InvalidOperationException) { }
                Assert.True(!File.Exists(st), "nothing written after an exception");
            }
            finally { Directory.Delete(dir, true); }
        }

        public static void TestReasoningFromTheParser()
        {
            using (var goose = new ChatTemplate("goose"))
            using (var p = goose.OutputParser(Thinking.On))
            {
                var deltas = p.Push(">\nI think.\n</think>\nHi!\n\nUser: x").Concat(p.Finish()).ToList();
                Assert.Equal("I think.", string.Concat(deltas.Where(d => d.Kind == DeltaKind.Reasoning).Select(d => d.Text)));
                Assert.Equal("Hi!", string.Concat(deltas.Where(d => d.Kind == DeltaKind.Text).Select(d => d.Text)));
            }
        }

        public static void TestToolCallGenerationIsConstrained()
        {
            using (var s = M.NewState())
            using (var v1 = new ChatTemplate("ai00-v1"))
            using (var g = Generator.Chat(M, s, v1, "[{\"role\":\"user\",\"content\":\"Weather in Paris?\"}]",
                new RenderOptions { ToolsJson = Fixtures.Tools },
                new GenerateOptions { MaxTokens = 64, Seed = 3, GrammarMode = GrammarMode.SchemaAware }))
            {
                foreach (var d in g)
                    if (d.Kind == DeltaKind.ToolCall) { Assert.Equal("get_weather", d.Name); JsonValue.Parse(d.Arguments); }
                Assert.Equal("assistant", (string)JsonValue.Parse(g.MessageJson)["role"]);
            }
        }

        // As tests/c/test_c_tool_choice.c: finite arguments, so a forced call always closes.
        const string ChoiceTools =
            "[{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\",\"properties\":{" +
            "\"location\":{\"enum\":[\"Oslo\",\"Tokyo\"]},\"unit\":{\"enum\":[\"c\",\"f\"]}}," +
            "\"required\":[\"location\",\"unit\"],\"additionalProperties\":false}}," +
            "{\"name\":\"get_time\",\"parameters\":{\"type\":\"object\",\"additionalProperties\":false}}]";

        static List<Delta> ChoiceTurn(GenerateOptions o, out FinishReason reason, out string message)
        {
            using (var s = M.NewState())
            using (var v1 = new ChatTemplate("ai00-v1"))
            using (var g = Generator.Chat(M, s, v1, "[{\"role\":\"user\",\"content\":\"Weather in Oslo?\"}]",
                new RenderOptions { ToolsJson = ChoiceTools }, o))
            {
                var deltas = g.ToList();
                reason = g.FinishReason;
                message = g.MessageJson;
                return deltas;
            }
        }

        public static void TestToolChoiceNamedAndStreamed()
        {
            var o = new GenerateOptions { MaxTokens = 200, Seed = 7, GrammarMode = GrammarMode.SchemaAware,
                StreamToolCalls = true, ToolChoice = ToolChoice.Named, ToolName = "get_weather", ParallelToolCalls = false };
            Assert.True(new GenerateOptions().ParallelToolCalls && new GenerateOptions().ToolChoice == ToolChoice.Auto, "defaults");
            var deltas = ChoiceTurn(o, out var reason, out var message);
            Assert.Equal(FinishReason.ToolCalls, reason, "finish reason");
            var starts = deltas.Where(d => d.Kind == DeltaKind.ToolCallStart).ToList();
            var calls = deltas.Where(d => d.Kind == DeltaKind.ToolCall).ToList();
            Assert.Equal(1, starts.Count, "starts"); Assert.Equal("get_weather", starts[0].Name);
            Assert.Equal(1, calls.Count, "calls"); Assert.Equal("get_weather", calls[0].Name);
            Assert.Equal(calls[0].Arguments, string.Concat(deltas.Where(d => d.Kind == DeltaKind.ToolCallArguments).Select(d => d.Text)), "argument pieces");
            Assert.Contains("get_weather", message);
            // Without streaming: the whole call only.
            o.StreamToolCalls = false; o.ToolName = "get_time";
            deltas = ChoiceTurn(o, out reason, out message);
            Assert.True(!deltas.Any(d => d.Kind == DeltaKind.ToolCallStart || d.Kind == DeltaKind.ToolCallArguments), "no streamed pieces");
            Assert.Equal("get_time", string.Join(",", deltas.Where(d => d.Kind == DeltaKind.ToolCall).Select(d => d.Name)), "calls");
            // An unknown tool: InvalidArgument naming it.
            o.ToolName = "get_wether";
            var e = Assert.Throws(Status.InvalidArgument, () => ChoiceTurn(o, out reason, out message));
            Assert.Contains("`get_wether`", e.LibraryMessage);
        }

        public static void TestJsonSchemaConstrainedReplyParses()
        {
            const string schema = "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}," +
                "\"mood\":{\"enum\":[\"calm\",\"angry\"]}},\"required\":[\"ok\",\"mood\"]}";
            // The canonical layout and strict keys: a random model would otherwise write whitespace.
            using (var grammar = M.JsonSchemaGrammar(schema, new SchemaOptions { FlexibleWhitespace = false, StrictProperties = true }))
            using (var s = M.NewState())
            using (var g = Generator.Raw(M, s, "Answer in JSON: ", new GenerateOptions { Grammar = grammar, MaxTokens = 40, Seed = 11 }))
            {
                var text = g.Text();
                Assert.True(g.FinishReason == FinishReason.GrammarDone || g.FinishReason == FinishReason.Stop, "grammar finished");
                var value = JsonValue.Parse(text);
                Assert.True(value["ok"].JsonType == JsonType.Boolean, "ok is a boolean");
                Assert.True((string)value["mood"] == "calm" || (string)value["mood"] == "angry", "mood from the enum");
                Assert.True(grammar.Accepts(text), "grammar accepts the reply");
            }
        }

        static Tuple<string, string> Continue(State st, ChatTemplate t)
        {
            var follow = Fixtures.Chat.TrimEnd(']') + ",{\"role\":\"user\",\"content\":\"And then?\"}]";
            using (var g = Generator.Chat(M, st, t, follow, null, new GenerateOptions { MaxTokens = 10 }))
                return Tuple.Create(g.Text(), string.Join(",", g.Tokens));
        }

        public static void TestStateSaveLoadContinuesIdentically()
        {
            var path = Path.Combine(Path.GetTempPath(), "ai00_cs_" + Process.GetCurrentProcess().Id + ".state");
            using (var s = M.NewState())
            using (var t = new ChatTemplate("goose"))
            {
                using (var g = Generator.Chat(M, s, t, Fixtures.Chat, null, new GenerateOptions { MaxTokens = 8, Seed = 9 })) g.Text();
                var data = s.Save();
                Assert.Equal((long)data.Length, s.Size, "size");
                s.SaveFile(path);
                using (var a = State.Load(M, data))
                using (var b = State.LoadFile(M, path))
                using (var c = s.Clone())
                {
                    var expected = Continue(s, t);
                    Assert.Equal(expected, Continue(a, t), "from bytes");
                    Assert.Equal(expected, Continue(b, t), "from the file");
                    Assert.Equal(expected, Continue(c, t), "clone");
                }
                File.Delete(path);
            }
        }

        public static void TestEvalSampleAndSamplerParams()
        {
            var math = SamplerParams.Preset(SamplerPreset.Math);
            Assert.True(Math.Abs(math.Temperature - 0.3f) < 1e-6 && math.PresencePenalty == 0, "math preset");
            using (var s = M.NewState())
            {
                var logits = s.Eval(new uint[] { 0, 69, 66 });
                Assert.Equal(512, logits.Length);
                uint top = (uint)Array.IndexOf(logits, logits.Max());
                var greedy = SamplerParams.Default(); greedy.Method = SamplerMethod.Greedy;
                Assert.Equal(top, s.Sample(logits, greedy), "greedy");
                greedy.LogitBias[top] = float.NegativeInfinity;
                Assert.True(s.Sample(logits, greedy) != top, "banned by the bias");
                s.SetSeed(4);
                Assert.True(s.Sample(logits) < 512, "default sampler");
                var bad = SamplerParams.Default(); bad.TopP = 2;
                Assert.Contains("top_p", Assert.Throws(Status.InvalidArgument, () => s.Sample(logits, bad)).LibraryMessage);
                using (var s2 = M.NewState())
                {
                    var rows = s2.EvalAll(new uint[] { 0, 69, 66 });
                    Assert.Equal(3 * 512, rows.Length);
                    for (int i = 0; i < 512; ++i) Assert.True(Math.Abs(rows[1024 + i] - logits[i]) < 1e-3, "last row = eval");
                    Assert.True(s2.Eval(new uint[] { 1 }, false) == null, "no logits");
                }
            }
            using (var s3 = State.LoadInitial(M, Path.Combine(Fixtures.Shared, "models", "rand-rwkv7-c128-l3-v512-init.state")))
                Assert.True(s3.Size >= (long)M.Info.StateBytes, "initial state");
        }

        public static void TestCancelFromAnotherThread()
        {
            var neverStop = SamplerParams.Default(); neverStop.BanEos = true;
            using (var s = M.NewState())
            using (var g = Generator.Raw(M, s, "Once upon a time", new GenerateOptions { MaxTokens = 100000, Seed = 1, Sampler = neverStop }))
            {
                Thread t = null;
                Delta last = null;
                foreach (var d in g)
                {
                    last = d;
                    if (t == null) { t = new Thread(g.Cancel); t.Start(); }
                }
                t.Join();
                Assert.Equal(FinishReason.Cancelled, g.FinishReason);
                Assert.Equal(FinishReason.Cancelled, last.FinishReason);
                Assert.True(g.Tokens.Length < 100000, "stopped early");
            }
            // A CancellationToken cancels the stream the same way.
            using (var cts = new CancellationTokenSource())
            using (var s = M.NewState())
            using (var g = Generator.Raw(M, s, "Once upon a time", new GenerateOptions { MaxTokens = 100000, Seed = 1, Sampler = neverStop }))
            {
                Delta last = null;
                foreach (var d in g.Stream(cts.Token)) { last = d; if (!cts.IsCancellationRequested) Task.Run(() => cts.Cancel()); }
                Assert.Equal(FinishReason.Cancelled, last.FinishReason);
            }
        }

        // Activations.Exact gives the fp64 reference logits of the Q8_0 fixture after its first
        // three tokens, the default Dot does not; InfoJson says which; a value outside the enum
        // is InvalidArgument naming the field.
        public static void TestExactActivations()
        {
            string path = Path.Combine(Fixtures.Shared, "models", "rand-rwkv7-c128-l3-v512-Q8_0.gguf");
            byte[] raw = File.ReadAllBytes(Path.Combine(Fixtures.Shared, "models", "rand-rwkv7-c128-l3-v512-Q8_0-logits.bin"));
            Func<Activations, double> maxDiff = a =>
            {
                using (var m = Model.Load(path, activations: a))
                using (var s = m.NewState())
                {
                    Assert.Contains("\"activations\": \"" + (a == Activations.Exact ? "exact" : "dot") + "\"", m.InfoJson);
                    float[] logits = s.Eval(new uint[] { 0, 69, 66 });
                    double d = 0;
                    for (int i = 0; i < logits.Length; ++i)
                        d = Math.Max(d, Math.Abs(logits[i] - BitConverter.ToSingle(raw, (2 * 512 + i) * 4)));
                    return d;
                }
            };
            double exact = maxDiff(Activations.Exact), dot = maxDiff(Activations.Dot);
            Assert.True(exact <= 2e-5, "exact max |diff| " + exact + " <= 2e-5");
            Assert.True(dot > 1e-4, "dot max |diff| " + dot + " > 1e-4");
            Assert.Contains("ai00_model_params.activations",
                Assert.Throws(Status.InvalidArgument, () => Model.Load(path, activations: (Activations)7)).LibraryMessage);
        }

        public static void TestBadInputErrors()
        {
            var e = Assert.Throws(Status.IO, () => Model.Load("/nonexistent/model.gguf"));
            Assert.Contains("/nonexistent/model.gguf", e.LibraryMessage);
            Assert.Contains("/nonexistent/model.gguf", e.Message);
            Assert.Contains("line 1, column 16", Assert.Throws(Status.Grammar, () => M.CompileGrammar("start ::= 'a' |;")).LibraryMessage);
            Assert.Contains("/unevaluatedItems", Assert.Throws(Status.Grammar, () => Grammar.FromJsonSchema("{\"type\": \"array\", \"unevaluatedItems\": {}}")).LibraryMessage);
            using (var tiny = Model.Load(Fixtures.TinyPath))
            using (var other = tiny.NewState())
            using (var t = new ChatTemplate("goose"))
            {
                Assert.Throws(Status.Mismatch, () => Generator.Chat(M, other, t, Fixtures.Chat));
                Assert.Throws(Status.Mismatch, () => State.Load(M, other.Save()));
                Assert.Throws(Status.Format, () => t.Render("[{\"role\": \"nobody\"}]"));
            }
            var junk = new byte[72]; Encoding.ASCII.GetBytes("AI00STAT").CopyTo(junk, 0);
            Assert.Throws(Status.ModelFile, () => State.Load(M, junk));
            Assert.Throws(Status.IO, () => State.LoadFile(M, "/nonexistent/x.state"));
            Assert.Contains("goose", Assert.Throws(Status.InvalidArgument, () => new ChatTemplate("nope")).LibraryMessage);
            using (var s = M.NewState())
            {
                Assert.Throws(Status.InvalidArgument, () => Generator.Raw(M, s, ""));
                Assert.Throws(Status.InvalidArgument, () => s.Eval(new uint[] { 600 }));
                Assert.Contains("600", s.LastError);
            }
        }

        public static void TestDisposedHandlesAreRefused()
        {
            var s = M.NewState();
            s.Dispose(); s.Dispose();
            Assert.True(s.IsDisposed, "disposed");
            try { s.Save(); Assert.True(false, "no exception"); } catch (ObjectDisposedException) { }
            // Disposing a State first disposes the generator borrowing it.
            var s2 = M.NewState();
            var t = new ChatTemplate("goose");
            var g = Generator.Chat(M, s2, t, Fixtures.Chat, null, new GenerateOptions { MaxTokens = 2 });
            s2.Dispose();
            Assert.True(g.IsDisposed, "generator disposed with its State");
            g.Cancel();  // harmless once disposed
            t.Dispose();
        }
    }

    [TestClass]
    public static class TemplateTests
    {
        const string Conv = "[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"Hi\"}]";

        public static void TestEveryFormatAndOption()
        {
            foreach (var name in Lib.Formats)
                using (var t = new ChatTemplate(name))
                {
                    var r = t.Render(Conv);
                    Assert.Contains("Hi", r.Prompt); Assert.Contains("Be brief.", r.Prompt);
                    Assert.True(t.Render(Conv, new RenderOptions { AddGenerationPrompt = false }).Prompt != r.Prompt, name + " generation prompt");
                    if (name == "ai00-v0")
                        Assert.Throws(Status.Unsupported, () => t.Render(Conv, new RenderOptions { Thinking = Thinking.On }));
                    else
                        Assert.True(t.Render(Conv, new RenderOptions { Thinking = Thinking.ALot }).Prompt.Length > 0, "thinking");
                    var named = t.Render(Conv, new RenderOptions { AssistantName = "Ann" });
                    Assert.Equal(named.Prompt, (string)JsonValue.Parse(t.LastRenderJson)["prompt"]);
                }
            using (var goose = new ChatTemplate("goose")) Assert.True(goose.Render(Conv).StopSequences.Contains("\n\n"), "goose stops");
            using (var v1 = new ChatTemplate("ai00-v1"))
            {
                Assert.Contains("get_weather", v1.Render(Conv, new RenderOptions { ToolsJson = Fixtures.Tools, Thinking = Thinking.On }).Prompt);
                Assert.Equal("ai00_v1_xml", (string)JsonValue.Parse(v1.LastRenderJson)["constraints"]["tool_syntax"]);
            }
            using (var t = new ChatTemplate("openchatml"))
            {
                Assert.Contains("not rendered", Assert.Throws(Status.InvalidArgument, () => { var _ = t.LastRenderJson; }).LibraryMessage);
                Assert.Contains("not rendered", t.LastError);
            }
        }

        const string Toml = "[prompts]\nrole_user = \"human\"\n[prompts.goose]\nprepend_token0 = true\n" +
            "[presets.math]\ntemperature = 0.25\n";

        public static void TestConfigurationAndPresets()
        {
            using (var t = new ChatTemplate("ai00-v1", Toml))
            {
                Assert.True(t.Render("[{\"role\":\"user\",\"content\":\"Hi\"}]").Prompt.StartsWith("<ai00:human>\nHi\n</ai00:human>"), "configured role");
                var math = t.SamplerPreset("math");
                Assert.Equal(0.25f, math.Temperature); Assert.Equal(0.3f, math.TopP);
                Assert.Contains("known: math, chat, creative", Assert.Throws(Status.InvalidArgument, () => t.SamplerPreset("wild")).LibraryMessage);
            }
            Assert.Contains("config:2:13: prompts.role_user", Assert.Throws(Status.Format, () => new ChatTemplate("goose", "[prompts]\nrole_user = 3\n")).LibraryMessage);
            using (var g = new ChatTemplate("goose", Toml))
            {
                g.Render("[]");
                Assert.Contains("\"prepend_token0\": true", g.LastRenderJson);
                g.Render("[]", new RenderOptions { PrependToken0 = false });
                Assert.Contains("\"prepend_token0\": false", g.LastRenderJson);
                Assert.Throws(Status.Unsupported, () => g.Render("[]", new RenderOptions { Reflect = true }));
                Assert.Throws(Status.Unsupported, () => g.RenderFim("a", "b"));
            }
        }

        public static void TestOpenChatMLFimFilesTranscript()
        {
            using (var o = new ChatTemplate("openchatml"))
            {
                Assert.Contains("<|reflect|>", o.Render("[]", new RenderOptions { Reflect = true }).Prompt);
                Assert.Contains("<|introspect|>", o.Render("[]", new RenderOptions { Introspect = true }).Prompt);
                Assert.Equal("<|fim_prefix|>ab<|fim_middle|><|fim_suffix|>cd", o.RenderFim("ab", "cd"));
                Assert.Contains("prefix: contains", Assert.Throws(Status.Format, () => o.RenderFim("<|im_end|>", "")).LibraryMessage);
                Assert.Equal("one\n<|file_separator|>\ntwo", o.RenderFiles(new[] { "one", "two" }));
                Assert.Equal("<|file_separator|>\nx", o.RenderFiles(new[] { "x" }, true));
                var msgs = JsonValue.Parse(o.ParseTranscript("<|im_start|>user name=Eric\nHi\n<|im_end|>\n<|im_start|>assistant\nHello\n<|im_end|>"));
                Assert.Equal("Eric", (string)msgs[0]["name"]); Assert.Equal("assistant", (string)msgs[1]["role"]);
                Assert.Contains("byte 12: unknown role \"bot\"", Assert.Throws(Status.Format, () => o.ParseTranscript("<|im_start|>bot\nx<|im_end|>")).LibraryMessage);
            }
        }

        public static void TestSchemaOptionsDefaultsAndCompact()
        {
            var d = new SchemaOptions();
            Assert.True(d.FlexibleWhitespace && !d.StrictProperties && d.MaxWhitespace == 0 && !d.Compact, "validator defaults");
            const string schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}";
            using (var g = Fixtures.Model.JsonSchemaGrammar(schema)) Assert.True(g.Accepts("{ \"a\" : 1.0 ,\n \"b\": [] }"), "validator reading");
            using (var g = Fixtures.Model.JsonSchemaGrammar(schema, new SchemaOptions { FlexibleWhitespace = false, Compact = true, StrictProperties = true }))
            {
                Assert.True(g.Accepts("{\"a\":1}") && !g.Accepts("{\"a\": 1}") && !g.Accepts("{\"a\":1,\"b\":2}"), "compact and strict");
            }
            Assert.Contains("max_whitespace = 65", Assert.Throws(Status.InvalidArgument, () => Fixtures.Model.JsonSchemaGrammar(schema, new SchemaOptions { MaxWhitespace = 65 })).LibraryMessage);
        }

        public static void TestTokenizer()
        {
            using (var tok = Tokenizer.Load(Fixtures.VocabPath))
            {
                Assert.True(tok.VocabSize > 65000, "vocab size");
                Assert.Equal("33155,45,33,10464,11685", string.Join(",", tok.Encode("Hello, 你好")));
                var raw = new byte[] { 0x63, 0x61, 0x66, 0xc3, 0xa9, 0x20, 0xff, 0xfe, 0x80 };
                Assert.True(tok.Decode(tok.Encode(raw)).SequenceEqual(raw), "bytes round-trip");
                Assert.Contains("token id 70000 at position 1", Assert.Throws(Status.InvalidArgument, () => tok.Decode(new uint[] { 5, 70000 })).LibraryMessage);
                Assert.Contains("70000", tok.LastError);
                using (var g = Grammar.FromKbnf("start ::= #ex'</a>' '</a>';", tok))
                {
                    Assert.True(g.Check("Hello world, how are you?</a>").Accepted, "accepted over the vocabulary");
                    var r = g.Check("Hello</a>x");
                    Assert.Equal(CheckVerdict.Bytes, r.Verdict); Assert.Equal(9ul, r.ByteOffset);
                }
            }
            Assert.Contains("/nonexistent/vocab.txt", Assert.Throws(Status.IO, () => Tokenizer.Load("/nonexistent/vocab.txt")).LibraryMessage);
            var m = Model.Load(Fixtures.ModelPath);
            var fromModel = m.Tokenizer();
            m.Dispose();
            Assert.Equal(512u, fromModel.VocabSize);
            Assert.Equal(105u, fromModel.Encode("hello\n\n")[0]);
            fromModel.Dispose();
        }

        public static void TestGrammarsWithoutAModel()
        {
            const string yesNo = "start ::= 'yes' | 'no';\nalt ::= 'ok';";
            using (var g = Grammar.FromKbnf(yesNo))
            {
                Assert.True(g.Check("yes").Accepted && g.Accepts("no") && !g.Accepts("yeah"), "yes/no");
                Assert.Equal(2ul, g.Check("yeah").ByteOffset);
            }
            using (var g = Grammar.FromKbnf(yesNo, startRule: "alt")) Assert.True(g.Accepts("ok") && !g.Accepts("yes"), "start rule");
            Assert.Contains("undefined rule", Assert.Throws(Status.Grammar, () => Grammar.FromKbnf("start ::= a;")).LibraryMessage);
            const string schema = "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"}},\"required\":[\"x\"]}";
            using (var g = Grammar.FromJsonSchema(schema))
            {
                Assert.True(g.Accepts("{\"x\": 12}") && !g.Accepts("{\"x\": \"a\"}"), "schema");
                Assert.Contains("start", g.Kbnf); Assert.Equal(0, g.Warnings.Count);
            }
            using (var g = Grammar.FromJsonSchema("{\"type\": \"array\", \"unevaluatedItems\": {}}", null, new SchemaOptions { Lenient = true }))
            {
                Assert.Equal(1, g.Warnings.Count); Assert.Contains("unevaluatedItems", g.Warnings[0]);
            }
            using (var g = Grammar.FromJsonSchema(schema, null, new SchemaOptions { FlexibleWhitespace = true, MaxWhitespace = 2 }))
                Assert.True(g.Accepts("{ \"x\" : 1 }"), "flexible whitespace");
            Assert.Contains("max_whitespace = 65", Assert.Throws(Status.InvalidArgument, () => Grammar.FromJsonSchema(schema, null, new SchemaOptions { MaxWhitespace = 65 })).LibraryMessage);
            using (var v1 = new ChatTemplate("ai00-v1"))
            using (var goose = new ChatTemplate("goose"))
            {
                using (var g = Grammar.ForTools(v1, Fixtures.Tools, null, GrammarMode.Structural, ThinkingStart.Optional, true, new SchemaOptions()))
                    Assert.Contains("<ai00:function_calls>", g.Kbnf);
                Assert.Throws(Status.InvalidArgument, () => Grammar.ForTools(goose, Fixtures.Tools));
                Assert.Contains("/0/name", Assert.Throws(Status.Format, () => Grammar.ForTools(v1, "[{\"name\": 3}]")).LibraryMessage);
            }
            using (var g = Grammar.FromKbnf("start ::= 'yes';"))
            using (var s = Fixtures.Model.NewState())
                Assert.Contains("ai00_grammar_compile", Assert.Throws(Status.Mismatch, () => Generator.Raw(Fixtures.Model, s, "Q", new GenerateOptions { Grammar = g })).LibraryMessage);
        }
    }
}
