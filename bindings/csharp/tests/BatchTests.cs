// Batched decode, prefix cache, option scoring and State bundles (issue 14).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;

namespace Ai00.Tests
{
    [TestClass]
    public static class BatchTests
    {
        static Model M => Fixtures.Model;
        static readonly string[] Prompts = { "Once upon a time", "The capital of France is", "In a village far away" };

        static GenerateOptions Greedy(PrefixCache cache = null) => new GenerateOptions
        {
            MaxTokens = 8, PrefixCache = cache,
            Sampler = new Func<SamplerParams>(() => { var s = SamplerParams.Default(); s.Method = SamplerMethod.Greedy; return s; })()
        };

        static string Alone(string prompt, PrefixCache cache = null)
        {
            using (var s = M.NewState())
            using (var g = Generator.Raw(M, s, prompt, Greedy(cache)))
                return g.Text();
        }

        public static void TestBatchOfThreeMatchesLoneRunsAndRemoveMidway()
        {
            var want = Prompts.Select(p => Alone(p)).ToArray();
            var states = Prompts.Select(_ => M.NewState()).ToArray();
            var gens = Prompts.Select((p, i) => Generator.Raw(M, states[i], p, Greedy())).ToArray();
            var texts = gens.ToDictionary(g => g, g => new StringBuilder());
            int finished = 0;
            using (var batch = new Batch(M))
            {
                foreach (var g in gens) batch.Add(g);
                Assert.Equal(3, batch.Count, "members");
                foreach (var e in batch.Events(2))
                {
                    Assert.True(e.Kind != BatchEventKind.Error, "no error event");
                    if (e.Kind == BatchEventKind.Delta && e.Delta.Kind == DeltaKind.Text) texts[e.Generator].Append(e.Delta.Text);
                    if (e.Kind == BatchEventKind.Finished) ++finished;
                }
                Assert.Equal(3, finished, "finished members");
                for (int i = 0; i < gens.Length; ++i) Assert.Equal(want[i], texts[gens[i]].ToString(), "member " + i);

                // Remove mid-way: the member then finishes alone with the same text.
                using (var s = M.NewState())
                using (var g = Generator.Raw(M, s, Prompts[0], Greedy()))
                {
                    batch.Add(g);
                    Assert.Throws(Status.InvalidArgument, () => g.Step());
                    var first = string.Concat(batch.Step(3).Events
                        .Where(e => e.Generator == g && e.Kind == BatchEventKind.Delta).Select(e => e.Delta.Text));
                    batch.Remove(g);
                    Assert.Equal(3, batch.Count, "members after remove");
                    Assert.Equal(want[0], first + g.Text(), "removed member");
                }
            }
            foreach (var g in gens) g.Dispose();
            foreach (var s in states) s.Dispose();
        }

        public static void TestBatchTimeBudgetTakesTurnsUnlessWholeBatch()
        {
            var states = Prompts.Select(_ => M.NewState()).ToArray();
            var gens = Prompts.Select((p, i) => Generator.Raw(M, states[i], p, Greedy())).ToArray();
            using (var batch = new Batch(M))
            {
                foreach (var g in gens) batch.Add(g);
                var us = TimeSpan.FromTicks(10);  // 1 us
                // Nothing measured yet: one row each; then a 1 us budget holds one member per call.
                var r = batch.Step(4, us);
                Assert.Equal(1u, r.Steps, "cold steps");
                Assert.Equal(3UL, r.PromptTokens, "cold prompt tokens");
                r = batch.Step(4, us);
                Assert.Equal(1u, r.Steps, "tight steps");
                Assert.Equal(1UL, r.PromptTokens, "tight prompt tokens");
                r = batch.Step(4, us, default(CancellationToken), true);
                Assert.Equal(1u, r.Steps, "whole-batch steps");
                Assert.Equal(3UL, r.PromptTokens, "whole-batch prompt tokens");
                foreach (var g in gens) batch.Remove(g);
            }
            foreach (var g in gens) g.Dispose();
            foreach (var s in states) s.Dispose();
        }

        public static void TestBatchBadInputAndCancellationToken()
        {
            using (var tiny = Model.Load(Fixtures.TinyPath))
            using (var os = tiny.NewState())
            using (var og = Generator.Raw(tiny, os, "Hi", new GenerateOptions { MaxTokens = 2 }))
            using (var s = M.NewState())
            using (var g = Generator.Raw(M, s, "Hi", new GenerateOptions { MaxTokens = 50 }))
            using (var b = new Batch(M))
            {
                var e = Assert.Throws(Status.Mismatch, () => b.Add(og));
                Assert.True(e.LibraryMessage.Length > 0, "a message");
                b.Add(g);
                e = Assert.Throws(Status.InvalidArgument, () => b.Add(g));
                Assert.True(e.LibraryMessage.Length > 0, "a message");
                using (var cts = new CancellationTokenSource())
                {
                    cts.Cancel();
                    var r = b.Step(1, TimeSpan.Zero, cts.Token);
                    Assert.Equal(0u, r.Unfinished, "unfinished");
                    var last = r.Events.Last();
                    Assert.Equal(BatchEventKind.Finished, last.Kind, "last event");
                    Assert.Equal(FinishReason.Cancelled, last.FinishReason, "finish reason");
                }
                g.Dispose();  // a member disposed first leaves the batch
                Assert.Equal(0, b.Count, "members after disposing one");
                Assert.Equal(0u, b.Step().Steps, "steps of an empty batch");
            }
        }

        public static void TestPrefixCacheHitGivesTheSameOutput()
        {
            const string prompt = "A long shared persona line for every character of the village. Hello";
            var miss = Alone(prompt);
            using (var cache = new PrefixCache(64UL << 20))
            {
                Assert.Equal(miss, Alone(prompt, cache), "first run");
                var st = cache.Stats;
                Assert.Equal(1UL, st.Misses, "misses"); Assert.Equal(0UL, st.Hits, "hits");
                Assert.True(st.Entries >= 1, "entries");
                Assert.Equal(miss, Alone(prompt, cache), "hit");
                st = cache.Stats;
                Assert.Equal(1UL, st.Hits, "hits"); Assert.True(st.HitTokens > 0, "hit tokens");
                cache.Clear();
                Assert.Equal(0UL, cache.Stats.Entries, "entries after clear");
                Assert.True(cache.Warm(M, "A long shared persona") > 0, "warm ran");
                Assert.Equal(0L, cache.Warm(M, M.Tokenize("A long shared persona")), "warm again");
                Assert.Throws(Status.InvalidArgument, () => cache.Warm(M, new uint[0]));
            }
            // A generator keeps its cache alive after the cache is disposed.
            var c2 = new PrefixCache();
            using (var s = M.NewState())
            using (var g = Generator.Raw(M, s, prompt, Greedy(c2)))
            {
                c2.Dispose();
                Assert.Equal(miss, g.Text(), "text with a disposed cache");
            }
        }

        public static void TestPrefixCacheReserve()
        {
            var info = M.Info;
            // One entry's memory: the State floats, the logits and 256 bytes.
            ulong perEntry = info.StateBytes + 4UL * info.Vocab + 256;
            using (var cache = new PrefixCache(64UL << 20))
            {
                Assert.Equal(0UL, cache.Stats.SpareBytes, "spare bytes of a new cache");
                Assert.Equal(0L, cache.Reserve(M, 0), "reserve 0");
                Assert.Equal(2L, cache.Reserve(M, 2), "reserve 2");
                var st = cache.Stats;
                Assert.Equal(2 * perEntry, st.SpareBytes, "spare bytes"); Assert.Equal(0UL, st.Entries, "entries");
                // An insert takes a spare.
                Assert.True(cache.Warm(M, "A long shared persona") > 0, "warm ran");
                st = cache.Stats;
                Assert.Equal(perEntry, st.SpareBytes, "spare bytes after an insert"); Assert.Equal(1UL, st.Entries, "entries");
                cache.Clear();
                Assert.Equal(0UL, cache.Stats.SpareBytes, "spare bytes after clear");
            }
            // A bound smaller than one entry sets nothing aside.
            using (var tiny = new PrefixCache(1024))
            {
                Assert.Equal(0L, tiny.Reserve(M, 2), "reserve under a 1024-byte bound");
                Assert.Equal(0UL, tiny.Stats.SpareBytes, "spare bytes under a 1024-byte bound");
            }
        }

        public static void TestOptionScoring()
        {
            using (var s = M.NewState())
            {
                s.Eval(M.Tokenize("The cat sat on the"), false);
                var before = s.Save();
                var words = new[] { " mat", " roof", " very big dog" };
                var cands = words.Select(w => M.Tokenize(w)).ToArray();
                var ctx = M.Tokenize(" old");
                var scores = s.ScoreOptions(cands, ctx);
                Assert.Equal(3, scores.Length, "scores");
                for (int i = 0; i < 3; ++i)
                {
                    Assert.True(!double.IsNaN(scores[i].TotalLogprob) && !double.IsInfinity(scores[i].TotalLogprob) && scores[i].TotalLogprob < 0, "finite score");
                    Assert.Equal((ulong)cands[i].Length, scores[i].Tokens, "tokens");
                }
                var texts = s.ScoreTexts(words, ctx);
                for (int i = 0; i < 3; ++i) Assert.Equal(scores[i].TotalLogprob, texts[i].TotalLogprob, "text score");
                Assert.True(before.SequenceEqual(s.Save()), "the State is unchanged");
                var e = Assert.Throws(Status.InvalidArgument, () => s.ScoreOptions(new uint[0][], ctx));
                Assert.True(e.LibraryMessage.Length > 0, "a message");
                Assert.Throws(Status.InvalidArgument, () => s.ScoreOptions(cands));  // neither context nor logits
            }
        }

        public static void TestBundleRoundTripAndTruncated()
        {
            using (var a = M.NewState())
            using (var b = M.NewState())
            {
                a.Eval(M.Tokenize("Alice speaks"), false);
                b.Eval(M.Tokenize("Bob listens quietly"), false);
                var entries = new[] { new KeyValuePair<string, State>("alice", a), new KeyValuePair<string, State>("bob", b) };
                var data = StateBundle.Save(entries);
                var path = Path.Combine(Path.GetTempPath(), "ai00_cs_" + Environment.TickCount + ".bundle");
                StateBundle.SaveFile(entries, path);
                foreach (var bundle in new[] { StateBundle.Open(data), StateBundle.OpenFile(path) })
                    using (bundle)
                    {
                        Assert.Equal("alice,bob", string.Join(",", bundle.Names), "names");
                        Assert.Equal(1, bundle.Find("bob"), "find");
                        using (var la = bundle.Load(M, "alice")) Assert.True(la.Save().SequenceEqual(a.Save()), "alice");
                        using (var lb = bundle.Load(M, 1)) Assert.True(lb.Save().SequenceEqual(b.Save()), "bob");
                        Assert.Throws(Status.InvalidArgument, () => bundle.Find("carol"));
                    }
                File.Delete(path);
                var e = Assert.Throws(Status.ModelFile, () => StateBundle.Open(data.Take(data.Length - 10).ToArray()));
                Assert.True(e.LibraryMessage.Length > 0, "a message");
                Assert.Throws(Status.InvalidArgument, () => StateBundle.Save(new[] { new KeyValuePair<string, State>("", a) }));
            }
        }
    }
}
