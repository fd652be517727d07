// Generator: seeded reproducibility, State save/restore mid-generation, thread counts, stop
// strings across tokens, push / pull / step equivalence, cancellation and bad input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/pipeline/generator.h"
#include "core/tokenizer/tokenizer.h"
#include "fixtures.h"

using namespace ai00::internal;
namespace test = ai00::test;
using ai00::test::shared_path;

namespace {

std::shared_ptr<const Model> tiny(int threads = 1) {
  ModelParams p;
  p.n_threads = threads;
  return Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"), p);
}

std::shared_ptr<const Model> rand_model() {
  return Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
}

GenerateOptions sampled(uint64_t seed, size_t max_tokens) {
  GenerateOptions o;
  o.seed = seed;
  o.max_tokens = max_tokens;
  o.sampler.temperature = 1.0f;
  o.sampler.top_p = 0.9f;
  o.sampler.ban_eos = true;  // fixed lengths: the tiny model may draw token 0 early
  o.prefill_chunk = 3;       // several chunks even for short prompts
  return o;
}

std::string concat_text(const std::vector<format::MessageDelta>& ds) {
  std::string s;
  for (const auto& d : ds)
    for (const auto& p : d.contents) s += p.text;
  return s;
}

struct Run {
  std::vector<uint32_t> tokens;
  std::string text;
  format::FinishReason reason;
};

Run run_raw(std::shared_ptr<const Model> m, const std::string& prompt, const GenerateOptions& o) {
  State st(*m);
  Generator g(m, st, RawRequest{prompt, {}}, o);
  std::vector<format::MessageDelta> ds;
  auto r = g.run([&](const format::MessageDelta& d) {
    ds.push_back(d);
    return 0;
  });
  REQUIRE(g.finished());
  return Run{g.tokens(), concat_text(ds), r};
}

}  // namespace

TEST_CASE("seeded raw generation is reproducible and thread-count independent", "[generator]") {
  auto m1 = tiny(1);
  auto m2 = tiny(2);
  const auto o = sampled(42, 48);
  Run a = run_raw(m1, "The quick brown", o);
  Run b = run_raw(m1, "The quick brown", o);
  Run c = run_raw(m2, "The quick brown", o);
  REQUIRE(a.tokens.size() == 48);
  REQUIRE(a.reason == format::FinishReason::length);
  REQUIRE(a.tokens == b.tokens);
  REQUIRE(a.tokens == c.tokens);
  REQUIRE(a.text == c.text);
  // The decoded deltas are the tokens' bytes (byte-level model, valid UTF-8 output expected to
  // match decode_text of the ids).
  REQUIRE(a.text == m1->tokenizer()->decode_text(a.tokens.data(), a.tokens.size()));
  // Another seed draws differently.
  Run d = run_raw(m1, "The quick brown", sampled(43, 48));
  REQUIRE(d.tokens != a.tokens);
}

TEST_CASE("generation continues byte for byte after State save and restore", "[generator]") {
  for (int threads : {1, 2}) {
    auto m = tiny(threads);
    const size_t total = 40, first = 17;
    Run ref = run_raw(m, "Once upon a time", sampled(7, total));

    State s1(*m);
    Generator a(m, s1, RawRequest{"Once upon a time", {}}, sampled(7, total));
    while (a.tokens().size() < first) a.step(1);
    REQUIRE_FALSE(a.finished());
    const std::vector<uint8_t> saved = s1.serialize();
    const std::vector<float> logits = a.logits();

    State s2 = State::deserialize(*m, saved.data(), saved.size());
    GenerateOptions o = sampled(7, total - first);
    o.seed.reset();  // continue the restored RNG
    o.initial_logits = logits;
    Generator b(m, s2, RawRequest{}, o);
    b.run(nullptr);
    std::vector<uint32_t> joined = a.tokens();
    joined.insert(joined.end(), b.tokens().begin(), b.tokens().end());
    REQUIRE(joined == ref.tokens);
    // The first generator, left running, also finishes identically.
    a.run(nullptr);
    REQUIRE(a.tokens() == ref.tokens);
  }
}

TEST_CASE("push, pull and step give identical deltas", "[generator]") {
  auto m = tiny();
  auto o = sampled(11, 60);
  o.stop_sequences = {"zzzz"};
  std::vector<format::MessageDelta> push, pull, step;
  std::vector<uint32_t> t_push, t_pull, t_step;
  {
    State st(*m);
    Generator g(m, st, RawRequest{"Hello there", {}}, o);
    g.run([&](const format::MessageDelta& d) {
      push.push_back(d);
      return 0;
    });
    t_push = g.tokens();
  }
  {
    State st(*m);
    Generator g(m, st, RawRequest{"Hello there", {}}, o);
    while (auto d = g.next()) pull.push_back(*d);
    REQUIRE_FALSE(g.next());
    t_pull = g.tokens();
  }
  {
    State st(*m);
    Generator g(m, st, RawRequest{"Hello there", {}}, o);
    size_t frames = 0;
    while (!g.finished()) {
      auto r = g.step(5);
      REQUIRE(r.tokens_generated <= 5);
      step.insert(step.end(), r.deltas.begin(), r.deltas.end());
      ++frames;
    }
    REQUIRE(frames >= 12);
    t_step = g.tokens();
  }
  REQUIRE(t_push == t_pull);
  REQUIRE(t_push == t_step);
  REQUIRE(concat_text(push) == concat_text(pull));
  REQUIRE(concat_text(push) == concat_text(step));
  REQUIRE(push.size() == pull.size());
  REQUIRE(push.back().finish_reason == format::FinishReason::length);
  REQUIRE(step.back().finish_reason == format::FinishReason::length);
}

TEST_CASE("stop sequences split across tokens are never emitted", "[generator]") {
  auto m = tiny();
  // Find a 3-byte string the unconstrained run writes after its 10th byte; it spans 3 tokens on
  // this byte-level model.
  Run free_run = run_raw(m, "It was", sampled(5, 80));
  REQUIRE(free_run.text.size() > 20);
  std::string stop;
  size_t at = 0;
  for (size_t i = 10; i + 3 <= free_run.text.size(); ++i) {
    std::string cand = free_run.text.substr(i, 3);
    bool ascii = std::all_of(cand.begin(), cand.end(),
                             [](char ch) { return (static_cast<unsigned char>(ch) & 0x80) == 0; });
    if (ascii && free_run.text.find(cand) == i) {
      stop = cand;
      at = i;
      break;
    }
  }
  REQUIRE(!stop.empty());
  auto o = sampled(5, 80);
  o.stop_sequences = {"", stop};
  Run cut = run_raw(m, "It was", o);
  REQUIRE(cut.reason == format::FinishReason::stop);
  REQUIRE(cut.text == free_run.text.substr(0, at));
  REQUIRE(cut.text.find(stop) == std::string::npos);
  // The whole stop string was generated (the State consumed it), it just never went out: the
  // tokens are a prefix of the free run's and their text ends with the stop string.
  REQUIRE(cut.tokens.size() <= free_run.tokens.size());
  REQUIRE(std::equal(cut.tokens.begin(), cut.tokens.end(), free_run.tokens.begin()));
  const std::string all = m->tokenizer()->decode_text(cut.tokens.data(), cut.tokens.size());
  REQUIRE(all.size() >= stop.size());
  REQUIRE(all.compare(all.size() - stop.size(), stop.size(), stop) == 0);
}

TEST_CASE("cancel from another thread stops within one token", "[generator]") {
  auto m = rand_model();
  State st(*m);
  auto o = sampled(3, 100000);
  Generator g(m, st, RawRequest{"hello", {}}, o);
  std::mutex mu;
  std::condition_variable cv;
  bool asked = false, cancelled = false;
  size_t tokens_at_cancel = 0;
  std::thread canceller([&] {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return asked; });
    g.cancel();
    cancelled = true;
    cv.notify_all();
  });
  g.run([&](const format::MessageDelta&) {
    if (g.tokens().size() >= 20 && tokens_at_cancel == 0) {
      std::unique_lock<std::mutex> lock(mu);
      tokens_at_cancel = g.tokens().size();
      asked = true;
      cv.notify_all();
      cv.wait(lock, [&] { return cancelled; });  // the other thread has set the flag
    }
    return 0;
  });
  canceller.join();
  REQUIRE(tokens_at_cancel >= 20);
  REQUIRE(g.finish_reason() == format::FinishReason::cancelled);
  REQUIRE(g.tokens().size() <= tokens_at_cancel + 1);
}

TEST_CASE("cancel between prefill chunks and by callback", "[generator]") {
  auto m = rand_model();
  {
    State st(*m);
    auto o = sampled(3, 50);
    o.prefill_chunk = 2;
    Generator g(m, st, RawRequest{"a longer prompt of many tokens", {}}, o);
    auto r = g.step(1);
    REQUIRE(r.prompt_tokens_processed == 2);
    g.cancel();
    r = g.step(100);
    REQUIRE(r.finished);
    REQUIRE(g.prompt_tokens_processed() == 2);
    REQUIRE(g.tokens().empty());
    REQUIRE(g.finish_reason() == format::FinishReason::cancelled);
    REQUIRE(r.deltas.back().finish_reason == format::FinishReason::cancelled);
  }
  {
    State st(*m);
    Generator g(m, st, RawRequest{"hi", {}}, sampled(3, 50));
    size_t calls = 0;
    auto reason = g.run([&](const format::MessageDelta& d) {
      ++calls;
      return d.finish_reason ? 0 : 1;
    });
    REQUIRE(reason == format::FinishReason::cancelled);
    REQUIRE(g.tokens().size() <= 4);  // the first text delta, at most one code point's tokens
  }
}

TEST_CASE("concurrent generators on one shared model match sequential runs", "[generator]") {
  auto m = tiny(1);
  Run ref1 = run_raw(m, "alpha", sampled(1, 40));
  Run ref2 = run_raw(m, "beta", sampled(2, 40));
  Run r1, r2;
  std::thread t1([&] { r1 = run_raw(m, "alpha", sampled(1, 40)); });
  std::thread t2([&] { r2 = run_raw(m, "beta", sampled(2, 40)); });
  t1.join();
  t2.join();
  REQUIRE(r1.tokens == ref1.tokens);
  REQUIRE(r2.tokens == ref2.tokens);
}

TEST_CASE("raw generation with a custom KBNF grammar", "[generator][grammar]") {
  auto m = rand_model();
  for (uint64_t seed = 0; seed < 10; ++seed) {
    auto o = sampled(seed, 30);
    o.grammar = GrammarRequest{GrammarMode::kbnf, "start ::= 'yes' | 'no' | 'maybe';"};
    Run r = run_raw(m, "answer:", o);
    INFO("seed " << seed << " text " << r.text);
    REQUIRE((r.text == "yes" || r.text == "no" || r.text == "maybe"));
    REQUIRE(
        (r.reason == format::FinishReason::grammar_done || r.reason == format::FinishReason::stop));
  }
}

TEST_CASE("raw generation under a JSON Schema", "[generator][grammar]") {
  auto m = rand_model();
  for (uint64_t seed = 0; seed < 10; ++seed) {
    auto o = sampled(seed, 40);
    o.grammar = GrammarRequest{GrammarMode::json_schema, R"({"type": "boolean"})"};
    Run r = run_raw(m, "json:", o);
    INFO("seed " << seed << " text " << r.text);
    REQUIRE((r.text == "true" || r.text == "false"));
    REQUIRE(r.reason == format::FinishReason::grammar_done);
  }
}

TEST_CASE("generator rejects bad input with clear errors", "[generator]") {
  auto m = tiny();
  State st(*m);
  GenerateOptions o;
  o.max_tokens = 0;
  REQUIRE_THROWS_AS(Generator(m, st, RawRequest{"x", {}}, o), InvalidArgument);
  o = GenerateOptions{};
  o.prefill_chunk = 0;
  REQUIRE_THROWS_AS(Generator(m, st, RawRequest{"x", {}}, o), InvalidArgument);
  o = GenerateOptions{};
  REQUIRE_THROWS_WITH(Generator(m, st, RawRequest{}, o), Catch::Contains("initial_logits"));
  REQUIRE_THROWS_WITH(Generator(m, st, RawRequest{"", {1, 300}}, o), Catch::Contains("position 1"));
  o.sampler.top_p = 2.0f;
  REQUIRE_THROWS_WITH(Generator(m, st, RawRequest{"x", {}}, o), Catch::Contains("top_p"));
  o = GenerateOptions{};
  o.grammar = GrammarRequest{GrammarMode::kbnf, "start ::= undefined_rule;"};
  REQUIRE_THROWS_AS(Generator(m, st, RawRequest{"x", {}}, o), GrammarError);
  o.grammar = GrammarRequest{GrammarMode::json_schema, "{\"type\": 5}"};
  REQUIRE_THROWS_AS(Generator(m, st, RawRequest{"x", {}}, o), Error);
  auto other = rand_model();
  State wrong(*other);
  REQUIRE_THROWS_AS(Generator(m, wrong, RawRequest{"x", {}}, GenerateOptions{}), MismatchError);
  // Goose has no tool syntax: rendering tools is unsupported.
  ChatRequest req;
  req.format = format::make_format("goose").value();
  format::Message user;
  user.role = format::Role::user;
  user.contents.push_back(format::Part::make_text("hi"));
  req.conversation = {user};
  format::ToolDesc tool;
  tool.name = "f";
  req.render.tools = {tool};
  REQUIRE_THROWS_AS(Generator(m, st, req, GenerateOptions{}), UnsupportedError);
  REQUIRE(parse_grammar_mode("schema_aware").value() == GrammarMode::schema_aware);
  REQUIRE_FALSE(parse_grammar_mode("strict").ok());
}

TEST_CASE("a precompiled grammar is used as is, one of another vocabulary is refused",
          "[generator][grammar]") {
  auto m = rand_model();
  GrammarCache cache(*m);
  auto o = sampled(4, 20);
  o.compiled_grammar = cache.compile("start ::= 'ok';");
  Run r = run_raw(m, "q:", o);
  REQUIRE(r.text == "ok");
  REQUIRE(r.reason == format::FinishReason::grammar_done);
  auto t = tiny();
  State st(*t);
  REQUIRE_THROWS_AS(Generator(t, st, RawRequest{"x", {}}, o), MismatchError);
}

TEST_CASE("the State carries the sampler: clone continues identically, history penalties",
          "[generator]") {
  auto m = tiny();
  State a(*m);
  Generator g(m, a, RawRequest{"Clone me", {}}, sampled(21, 30));
  while (g.tokens().size() < 10) g.step(1);
  State b = a.clone();
  REQUIRE(b.sampler() == a.sampler());
  auto o = sampled(21, 20);
  o.seed.reset();
  o.initial_logits = g.logits();
  Generator gb(m, b, RawRequest{}, o);
  gb.run(nullptr);
  g.run(nullptr);
  std::vector<uint32_t> tail(g.tokens().begin() + 10, g.tokens().end());
  REQUIRE(gb.tokens() == tail);

  // penalize_history charges the earlier assistant turns' tokens before sampling.
  ChatRequest req;
  req.format = format::make_format("ai00-v1").value();
  format::Message user, asst, user2;
  user.role = format::Role::user;
  user.contents.push_back(format::Part::make_text("hi"));
  asst.role = format::Role::assistant;
  asst.contents.push_back(format::Part::make_text("qqq"));
  user2 = user;
  req.conversation = {user, asst, user2};
  State h(*m);
  GenerateOptions ho;
  ho.penalize_history = true;
  Generator gh(m, h, req, ho);
  const uint32_t q = static_cast<uint32_t>('q');  // byte-level: id = byte
  REQUIRE(h.sampler().penalty(q) > ho.sampler.presence_penalty);
  State n(*m);
  Generator gn(m, n, req, GenerateOptions{});
  REQUIRE(n.sampler().penalty(q) == 0.0f);
}

TEST_CASE("State serialization carries the sampler section, version 1 still loads",
          "[generator][state]") {
  auto m = tiny();
  State st(*m);
  Generator g(m, st, RawRequest{"abc", {}}, sampled(5, 12));
  g.run(nullptr);
  REQUIRE(!st.sampler().penalties().empty());
  std::vector<uint8_t> bytes = st.serialize();
  State back = State::deserialize(*m, bytes.data(), bytes.size());
  REQUIRE(back.sampler() == st.sampler());
  // A version 1 buffer: the floats only, version field 1; loads with a fresh sampler state.
  std::vector<uint8_t> v1(bytes.begin(), bytes.begin() + 64 + st.size_bytes());
  v1[8] = 1;
  State old = State::deserialize(*m, v1.data(), v1.size());
  REQUIRE(old.sampler() == SamplerState());
  REQUIRE(std::equal(old.data(), old.data() + old.size(), st.data()));
  // A corrupt sampler section names its offset.
  std::vector<uint8_t> bad = bytes;
  bad[64 + st.size_bytes() + 8 + 20] ^= 1;
  REQUIRE_THROWS_WITH(State::deserialize(*m, bad.data(), bad.size()),
                      Catch::Contains("sampler section") && Catch::Contains("byte offset"));
  REQUIRE_THROWS_AS(State::deserialize(*m, bad.data(), bad.size()), ModelFileError);
}

// generator.h "Emission order": next() hands a token's text out before the token's forward;
// cancelling or destroying the Generator afterwards still leaves every emitted token in the
// State, and a Generator handed to a Batch after next() runs that forward first.
namespace {
bool same_floats(const State& a, const State& b) {
  return a.size() == b.size() && std::equal(a.data(), a.data() + a.size(), b.data());
}
}  // namespace

TEST_CASE("emission before forward: the State holds every emitted token after cancel or free",
          "[generator]") {
  auto m = tiny();
  const GenerateOptions o = sampled(5, 30);
  for (bool destroy : {false, true}) {
    State st(*m);
    std::vector<uint32_t> fed;
    {
      Generator g(m, st, RawRequest{"Once upon a time", {}}, o);
      for (int k = 0; k < 5; ++k) REQUIRE(g.next());
      REQUIRE_FALSE(g.finished());
      fed = g.prompt_tokens();
      fed.insert(fed.end(), g.tokens().begin(), g.tokens().end());
      if (!destroy) {
        const size_t n = g.tokens().size();
        g.cancel();
        while (g.next()) {
        }
        REQUIRE(g.finish_reason() == format::FinishReason::cancelled);
        REQUIRE(g.tokens().size() == n);  // nothing sampled after the cancel
      }
    }  // destroy: the pending forward runs in the destructor
    State ref(*m);
    forward(*m, ref, fed.data(), fed.size(), nullptr);
    REQUIRE(same_floats(st, ref));
  }
}

TEST_CASE("emission before forward: a finished turn's State and logits include its last token",
          "[generator]") {
  auto m = tiny();
  State st(*m);
  Generator g(m, st, RawRequest{"Once upon a time", {}}, sampled(9, 12));
  while (g.next()) {
  }
  REQUIRE(g.finish_reason() == format::FinishReason::length);
  std::vector<uint32_t> fed = g.prompt_tokens();
  fed.insert(fed.end(), g.tokens().begin(), g.tokens().end());
  State ref(*m);
  std::vector<float> logits(static_cast<size_t>(m->config().vocab));
  forward(*m, ref, fed.data(), fed.size(), logits.data());
  REQUIRE(same_floats(st, ref));
  REQUIRE(g.logits() == logits);
}
