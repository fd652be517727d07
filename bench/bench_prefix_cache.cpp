// Issue 12 part B: what the prefix-state cache and option scoring save, as ratios measured in
// one run (docs/prefix-cache.md "Measured"). Model: a random G1-shaped model (model_gen.h;
// AI00_BENCH_SIZE, default 0.1b, F16), written once to $TMPDIR (never committed), one thread.
//   BM_PersonaTimeToFirstToken: a raw turn whose 1,000-token persona prompt is cached (hit:
//     restore, then the first token sampled and its text emitted) against the same turn on an
//     empty cache (miss: the whole prefill, then the same), from a fresh State to the first
//     delta returned by Generator::next(). Counters: miss_ms, hit_ms, hit_over_miss (goal:
//     < 0.01); the hit's phases hit_state_ms (a fresh State), hit_ctor_ms (the Generator) and
//     hit_first_next_ms (the first next()); restore_ms, restore_over_miss: the cache's own
//     part (a fresh State and the copy of the entry); decode_ms: one token's forward, for
//     comparison (the first text no longer waits for it, generator.h "Emission order").
//   BM_ScoreVsPrefill: option scoring of 4 candidates of 10 tokens from a State's last logits
//     against one 40-token prefill on a copy. Counters: score_ms, prefill40_ms,
//     score_over_prefill (goal: <= 1); the same from this thread's CPU time (score_cpu_ms,
//     prefill40_cpu_ms, score_over_prefill_cpu: the model runs on one thread, so these hold on
//     a loaded machine); floor: the ratio of multiply-adds, 36 rows of blocks and head against 40
//     rows of blocks and one head row (exact scores need the head on every candidate row but
//     each candidate's last), the ratio at equal efficiency.
//   BM_ChatStorePoints: the store points of a chat turn of n and 10n messages (see below).
// Speed is never asserted in tests; run: build/<dir>/bin/bench_prefix_cache
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "compute_peak.h"
#include "core/model/model.h"
#include "core/model/prefix_cache.h"
#include "core/model/rwkv7.h"
#include "core/model/score.h"
#include "core/model/state.h"
#include "core/pipeline/generator.h"
#include "core/pipeline/prefix_reuse.h"
#include "core/tokenizer/tokenizer.h"
#include "format/format.h"
#include "model_gen.h"
#include "thread_time.h"

namespace {

using namespace ai00::internal;
using Clock = std::chrono::steady_clock;

std::shared_ptr<const Model> g1_model() {
  static std::shared_ptr<const Model> m = [] {
    const char* size_env = std::getenv("AI00_BENCH_SIZE");
    const std::string size = size_env && *size_env ? size_env : "0.1b";
    const char* tmp = std::getenv("TMPDIR");
    const std::string path =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/ai00_bench_prefix_" + size + "_F16.gguf";
    if (!std::ifstream(path).good())
      ai00::bench::write_random_model(path, ai00::bench::g1_config(size), 12, DType::F16);
    ModelParams p;
    p.vocab_path = std::string(AI00_DEFAULT_SHARED_DIR) + "/tokenizer/rwkv_vocab_v20230424.txt";
    return Model::load(path, p);
  }();
  return m;
}

std::vector<uint32_t> tokens(size_t n, uint32_t salt) {
  std::vector<uint32_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = static_cast<uint32_t>(300 + (i * 7919 + salt) % 60000);
  return t;
}

double cpu_ms() { return 1e3 * ai00::bench::thread_cpu_seconds(); }

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Phases of one turn up to its first text, in milliseconds.
struct FirstToken {
  double state = 0;  // a fresh State
  double ctor = 0;   // the Generator: options, tokenizer handle, grammar (none here)
  double first = 0;  // the first next(): prefill or restore, sample, [forward], text
  double total() const { return state + ctor + first; }
  FirstToken& operator+=(const FirstToken& o) {
    state += o.state, ctor += o.ctor, first += o.first;
    return *this;
  }
};

// From a fresh State to the turn's first delta (its first text: what a user sees).
FirstToken time_to_first_token(const std::shared_ptr<const Model>& m,
                               const std::shared_ptr<PrefixCache>& cache,
                               const std::vector<uint32_t>& prompt) {
  FirstToken r;
  auto t0 = Clock::now();
  State st(*m);
  r.state = ms_since(t0);
  t0 = Clock::now();
  GenerateOptions o;
  o.seed = 1;
  o.max_tokens = 4;
  o.sampler.ban_eos = true;
  o.prefix_cache = cache;
  RawRequest req;
  req.prompt_tokens = prompt;
  Generator g(m, st, req, o);
  r.ctor = ms_since(t0);
  t0 = Clock::now();
  benchmark::DoNotOptimize(g.next());
  r.first = ms_since(t0);
  return r;
}

FirstToken scaled(FirstToken f, double k) {
  f.state *= k, f.ctor *= k, f.first *= k;
  return f;
}

void BM_PersonaTimeToFirstToken(benchmark::State& bs) {
  auto m = g1_model();
  const std::vector<uint32_t> persona = tokens(1000, 1);
  auto warm = std::make_shared<PrefixCache>();
  time_to_first_token(m, warm, persona);  // stores the persona
  FirstToken miss, hit;
  double restore = 0, decode = 0;
  int64_t runs = 0;
  std::vector<float> logits;
  for (auto _ : bs) {
    miss += time_to_first_token(m, std::make_shared<PrefixCache>(), persona);
    for (int k = 0; k < 10; ++k) hit += scaled(time_to_first_token(m, warm, persona), 0.1);
    for (int k = 0; k < 10; ++k) {  // the cache's own part: a fresh State and the copy
      const auto t0 = Clock::now();
      State st(*m);
      benchmark::DoNotOptimize(warm->restore(*m, st, persona.data(), persona.size(), &logits));
      restore += ms_since(t0) / 10;
    }
    {  // one decode step (one token's forward), which a hit's first token needs at most
      State st(*m);
      std::vector<float> out(static_cast<size_t>(m->config().vocab));
      const uint32_t t = 1234;
      forward(*m, st, &t, 1, out.data());
      const auto t0 = Clock::now();
      for (int k = 0; k < 5; ++k) forward(*m, st, &t, 1, out.data());
      decode += ms_since(t0) / 5;
    }
    ++runs;
  }
  const double n = static_cast<double>(runs);
  bs.counters["miss_ms"] = miss.total() / n;
  bs.counters["hit_ms"] = hit.total() / n;  // fresh State + Generator + first next()
  bs.counters["hit_over_miss"] = hit.total() / miss.total();
  bs.counters["hit_state_ms"] = hit.state / n;
  bs.counters["hit_ctor_ms"] = hit.ctor / n;
  bs.counters["hit_first_next_ms"] = hit.first / n;
  bs.counters["restore_ms"] = restore / n;
  bs.counters["restore_over_miss"] = restore / miss.total();
  bs.counters["decode_ms"] = decode / n;
}

void BM_ScoreVsPrefill(benchmark::State& bs) {
  auto m = g1_model();
  const size_t V = static_cast<size_t>(m->config().vocab);
  State base(*m);
  std::vector<float> last(V);
  const std::vector<uint32_t> history = tokens(32, 2);
  forward(*m, base, history.data(), history.size(), last.data());
  std::vector<std::vector<uint32_t>> cands;
  for (uint32_t k = 0; k < 4; ++k) cands.push_back(tokens(10, 100 + k));
  const std::vector<uint32_t> forty = tokens(40, 3);
  ScoreContext ctx;
  ctx.logits = last.data();
  ctx.n_logits = V;
  double score = 0, prefill = 0, score_cpu = 0, prefill_cpu = 0;
  {  // untimed: the first call faults in the model's pages (at 1.5B, 1.10 against 1.02 after)
    benchmark::DoNotOptimize(score_options(*m, base, ctx, cands));
    State copy = base.clone();
    std::vector<float> logits(V);
    forward(*m, copy, forty.data(), forty.size(), logits.data());
  }
  for (auto _ : bs) {
    auto t0 = Clock::now();
    double c0 = cpu_ms();
    benchmark::DoNotOptimize(score_options(*m, base, ctx, cands));
    score += ms_since(t0);
    score_cpu += cpu_ms() - c0;
    t0 = Clock::now();
    c0 = cpu_ms();
    State copy = base.clone();
    std::vector<float> logits(V);
    forward(*m, copy, forty.data(), forty.size(), logits.data());
    prefill += ms_since(t0);
    prefill_cpu += cpu_ms() - c0;
  }
  const double n = static_cast<double>(bs.iterations());
  bs.counters["score_ms"] = score / n;
  bs.counters["prefill40_ms"] = prefill / n;
  bs.counters["score_over_prefill"] = score / prefill;
  bs.counters["score_cpu_ms"] = score_cpu / n;
  bs.counters["prefill40_cpu_ms"] = prefill_cpu / n;
  bs.counters["score_over_prefill_cpu"] = score_cpu / prefill_cpu;
  // Multiply-adds of a row of the blocks (every matrix of every layer) and of the head.
  const double blocks = ai00::bench::block_macs(*m), head = ai00::bench::head_macs(*m);
  bs.counters["floor"] = 36 * (blocks + head) / (40 * blocks + head);
}

}  // namespace

// The store points of a chat turn (prefix_reuse.h chat_store_points) for a conversation of
// `messages` messages of about 200 bytes, ai00 v1, World vocabulary: the time of the call
// (store_points_ms), of rendering every prefix alone (render_prefixes_ms, the part it still
// does), and of also encoding every prefix (encode_prefixes_ms, what it did before). Linear
// cost shows as the same per-message time at n and 10n messages; the prefix renders are
// O(messages x prompt bytes).
void BM_ChatStorePoints(benchmark::State& bs) {
  static const auto tok = Tokenizer::from_vocab_file(std::string(AI00_DEFAULT_SHARED_DIR) +
                                                     "/tokenizer/rwkv_vocab_v20230424.txt");
  auto f = format::make_format("ai00-v1").value();
  std::vector<format::Message> conv;
  for (int64_t k = 0; k < bs.range(0); ++k) {
    format::Message m;
    m.role = k % 2 ? format::Role::assistant : format::Role::user;
    std::string text = "Message " + std::to_string(k) + ":";
    while (text.size() < 200) text += " some words about the RWKV language model,";
    m.contents.push_back(format::Part::make_text(text));
    conv.push_back(m);
  }
  format::RenderOptions ro;
  const std::string prompt = f->render(conv, ro).value().prompt;
  const std::vector<uint32_t> ids = tok->encode(prompt);
  auto ms_of = [](auto&& fn) {
    const auto t0 = Clock::now();
    fn();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  double points_ms = 0, render_ms = 0, encode_ms = 0;
  for (auto _ : bs) {
    points_ms += ms_of([&] {
      benchmark::DoNotOptimize(chat_store_points(*f, conv, ro, prompt, false, *tok, ids));
    });
    format::RenderOptions bare = ro;
    bare.add_generation_prompt = false;
    std::vector<format::Message> head;
    std::vector<std::string> texts;
    render_ms += ms_of([&] {
      for (const auto& m : conv) {
        head.push_back(m);
        texts.push_back(f->render(head, bare).value().prompt);
      }
    });
    encode_ms += ms_of([&] {
      for (const auto& t : texts) benchmark::DoNotOptimize(tok->encode(t));
    });
  }
  const double n = static_cast<double>(bs.iterations());
  bs.counters["store_points_ms"] = points_ms / n;
  bs.counters["render_prefixes_ms"] = render_ms / n;
  bs.counters["encode_prefixes_ms"] = (render_ms + encode_ms) / n;
  bs.counters["prompt_bytes"] = static_cast<double>(prompt.size());
}

BENCHMARK(BM_ChatStorePoints)->Arg(32)->Arg(320)->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PersonaTimeToFirstToken)->Iterations(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScoreVsPrefill)->Iterations(5)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
