// Batch: members advanced together give exactly the tokens, deltas and States of each Generator
// run alone — greedy and seeded sampling, grammars, members joining and leaving mid-way, one
// cancelled from another thread; the time budget; the step cost model; bad input.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/state.h"
#include "core/pipeline/batch.h"
#include "core/pipeline/generator.h"
#include "fixtures.h"

using namespace ai00::internal;
using ai00::test::shared_path;

namespace {

std::shared_ptr<const Model> load(const char* file, int threads = 1) {
  ModelParams p;
  p.n_threads = threads;
  return Model::load(shared_path(std::string("models/") + file), p);
}

// One member's recipe: prompt, options (seeded or greedy, grammar or not).
struct Recipe {
  std::string prompt;
  GenerateOptions opt;
};

Recipe recipe(size_t i) {
  Recipe r;
  r.prompt = std::string("member ") + std::to_string(i) + std::string(i * 7 % 40, 'x') + ":";
  r.opt.max_tokens = 12 + i % 9;
  r.opt.prefill_chunk = 1 + i * 5 % 17;
  r.opt.sampler.ban_eos = true;  // the random model may draw token 0 at once
  if (i % 3 == 0) {
    r.opt.sampler.temperature = 0.0f;  // greedy
  } else {
    r.opt.seed = 1000 + i;
    r.opt.sampler.top_p = 0.9f;
  }
  if (i % 4 == 1) {
    r.opt.grammar =
        GrammarRequest{GrammarMode::json_schema,
                       R"({"type":"object","properties":{"say":{"type":"string","maxLength":6},)"
                       R"("emotion":{"enum":["calm","angry"]}},"required":["say","emotion"]})"};
    r.opt.max_tokens = 60;
  }
  return r;
}

// What a member produced: tokens, the text of each delta, the finish reason, the State.
struct Outcome {
  std::vector<uint32_t> tokens;
  std::vector<std::string> deltas;
  format::FinishReason reason = format::FinishReason::stop;
  std::vector<float> state;
};

std::string delta_text(const format::MessageDelta& d) {
  std::string s;
  for (const auto& p : d.contents) s += p.text;
  if (d.finish_reason) s += "<finish " + std::to_string(static_cast<int>(*d.finish_reason)) + ">";
  return s;
}

Outcome outcome_of(const Generator& g, const State& st, std::vector<std::string> deltas) {
  return Outcome{g.tokens(), std::move(deltas), g.finish_reason(),
                 std::vector<float>(st.data(), st.data() + st.size())};
}

Outcome alone(const std::shared_ptr<const Model>& m, const Recipe& r) {
  State st(*m);
  Generator g(m, st, RawRequest{r.prompt, {}}, r.opt);
  std::vector<std::string> ds;
  g.run([&](const format::MessageDelta& d) {
    ds.push_back(delta_text(d));
    return 0;
  });
  return outcome_of(g, st, ds);
}

// Members of a batched run, each with its own State and Generator.
struct Members {
  std::vector<std::unique_ptr<State>> states;
  std::vector<std::unique_ptr<Generator>> gens;
  std::vector<std::vector<std::string>> deltas;
  size_t finished_events = 0;

  Generator& make(const std::shared_ptr<const Model>& m, const Recipe& r) {
    states.push_back(std::make_unique<State>(*m));
    gens.push_back(std::make_unique<Generator>(m, *states.back(), RawRequest{r.prompt, {}}, r.opt));
    deltas.emplace_back();
    return *gens.back();
  }
  size_t index(const Generator* g) const {
    for (size_t i = 0; i < gens.size(); ++i)
      if (gens[i].get() == g) return i;
    FAIL("event of an unknown generator");
    return 0;
  }
  void take(const BatchStepResult& r) {
    for (const BatchEvent& e : r.events) {
      if (e.kind == BatchEvent::Kind::delta) {
        deltas[index(e.member)].push_back(delta_text(e.delta));
      } else {
        CHECK(e.member->finished());
        CHECK(e.reason == e.member->finish_reason());
        ++finished_events;
      }
    }
  }
  Outcome outcome(size_t i) const { return outcome_of(*gens[i], *states[i], deltas[i]); }
};

void check_same(const Outcome& got, const Outcome& want, size_t i) {
  INFO("member " << i);
  CHECK(got.tokens == want.tokens);
  CHECK(got.deltas == want.deltas);
  CHECK(got.reason == want.reason);
  CHECK(got.state == want.state);
}

void run_until_done(Batch& b, Members& ms, size_t budget, uint64_t time_us = 0) {
  for (int guard = 0; guard < 100000; ++guard) {
    BatchStepResult r = b.step(budget, time_us);
    ms.take(r);
    if (r.steps == 0) return;
  }
  FAIL("the batch never finished");
}

}  // namespace

TEST_CASE("a batch gives each member exactly its lone run", "[batch]") {
  for (const char* file :
       {"rand-rwkv7-c128-l3-v512-F16.gguf", "rand-rwkv7-c128-l3-v512-Q8_0.gguf"}) {
    for (int threads : {1, 2}) {
      auto m = load(file, threads);
      const size_t N = 9;
      Members ms;
      Batch b(m);
      for (size_t i = 0; i < N; ++i) b.add(ms.make(m, recipe(i)));
      run_until_done(b, ms, 1 + threads);
      INFO(file << " threads " << threads);
      CHECK(ms.finished_events == N);
      for (size_t i = 0; i < N; ++i) {
        const Outcome got = ms.outcome(i);
        check_same(got, alone(m, recipe(i)), i);
        CHECK(got.tokens.size() >= 2);  // real turns, not ones ended at once
        if (i % 4 == 1) {               // the schema grammar: a JSON object
          REQUIRE_FALSE(got.deltas.empty());
          CHECK(got.deltas.front().substr(0, 1) == "{");
        }
      }
    }
  }
}

TEST_CASE("members join and leave mid-way and a leaver continues alone identically", "[batch]") {
  auto m = load("rand-rwkv7-c128-l3-v512-Q8_0.gguf");
  Members ms;
  Batch b(m);
  for (size_t i = 0; i < 3; ++i) b.add(ms.make(m, recipe(i)));
  for (int s = 0; s < 4; ++s) ms.take(b.step(2, 0));
  b.add(ms.make(m, recipe(3)));  // joins while the others decode
  b.add(ms.make(m, recipe(4)));
  for (int s = 0; s < 2; ++s) ms.take(b.step(1, 0));
  b.remove(*ms.gens[1]);  // leaves mid-turn, finishes alone
  CHECK(b.size() == 4);
  while (!ms.gens[1]->finished()) {
    for (auto& d : ms.gens[1]->step(1).deltas) ms.deltas[1].push_back(delta_text(d));
  }
  b.add(ms.make(m, recipe(5)));
  run_until_done(b, ms, 3);
  for (size_t i = 0; i < 6; ++i) check_same(ms.outcome(i), alone(m, recipe(i)), i);
}

TEST_CASE("a member cancelled from another thread stops while the others continue", "[batch]") {
  auto m = load("rand-rwkv7-c128-l3-v512-F16.gguf", 2);
  Members ms;
  Batch b(m);
  std::vector<Recipe> rs;
  for (size_t i = 0; i < 4; ++i) {
    rs.push_back(recipe(i));
    rs.back().opt.max_tokens = 40;
    rs.back().opt.sampler.ban_eos = true;
    rs.back().opt.grammar = {};
    b.add(ms.make(m, rs.back()));
  }
  std::atomic<int> steps{0};
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] {
    while (steps.load() < 5) std::this_thread::yield();
    ms.gens[2]->cancel();
    cancelled = true;
  });
  for (int guard = 0; guard < 1000; ++guard) {
    BatchStepResult r = b.step(1, 0);
    ms.take(r);
    // After the fifth call the loop waits for the other thread's cancel, so the member is
    // surely cancelled mid-turn however the threads are scheduled.
    if (steps.fetch_add(1) + 1 == 5) {
      while (!cancelled.load()) std::this_thread::yield();
    }
    if (r.steps == 0) break;
  }
  canceller.join();
  CHECK(ms.gens[2]->finish_reason() == format::FinishReason::cancelled);
  const Outcome lone = alone(m, rs[2]);
  const auto& got = ms.gens[2]->tokens();
  CHECK(got.size() < lone.tokens.size());
  CHECK(std::equal(got.begin(), got.end(), lone.tokens.begin()));  // a prefix of the lone run
  for (size_t i : {0, 1, 3}) check_same(ms.outcome(i), alone(m, rs[i]), i);
}

TEST_CASE("the time budget: one step at least, the least recently advanced first", "[batch]") {
  auto m = load("rand-rwkv7-c128-l3-v512-F16.gguf");
  Members ms;
  Batch b(m);
  Recipe longp = recipe(2);
  longp.prompt = std::string(300, 'y');
  longp.opt.prefill_chunk = 64;
  b.add(ms.make(m, recipe(0)));
  b.add(ms.make(m, longp));
  auto moved = [&](size_t i) {  // prompt tokens consumed plus tokens sampled
    return ms.gens[i]->prompt_tokens_processed() + ms.gens[i]->tokens().size();
  };
  // No step measured yet: the first step gives every member one row (member 1's chunk would be
  // 64), and a budget no step can meet ends the call after it.
  BatchStepResult r = b.step(5, 1);
  CHECK(r.steps == 1);
  CHECK(r.time_limited);
  CHECK(moved(0) == 1);
  CHECK(moved(1) == 1);
  ms.take(r);
  // Now one row per member does not fit: each call advances one member, in turn.
  for (size_t call = 0; call < 4; ++call) {
    const size_t m0 = moved(0), m1 = moved(1);
    r = b.step(5, 1);
    ms.take(r);
    INFO("call " << call);
    CHECK(r.steps == 1);
    CHECK(r.time_limited);
    CHECK(moved(0) == m0 + (call % 2 == 0 ? 1 : 0));
    CHECK(moved(1) == m1 + (call % 2 == 1 ? 1 : 0));
  }
  // A generous budget runs several steps; the token budget caps the decoding member.
  const size_t sampled = ms.gens[0]->tokens().size();
  r = b.step(3, 10000000);
  ms.take(r);
  CHECK(r.steps >= 2);
  CHECK_FALSE(r.time_limited);
  CHECK(ms.gens[0]->tokens().size() <= sampled + 3);
  run_until_done(b, ms, 4, 2000);
  check_same(ms.outcome(0), alone(m, recipe(0)), 0);
  check_same(ms.outcome(1), alone(m, longp), 1);
  // Nothing active: a step is a no-op.
  r = b.step(1, 0);
  CHECK(r.steps == 0);
  CHECK(r.events.empty());
}

TEST_CASE("a step plan: everyone when one row each fits, else the least recently advanced",
          "[batch]") {
  const std::vector<StepCandidate> cands = {{false, 3}, {true, 1}, {true, 2}, {false, 1}};
  using V = std::vector<size_t>;
  StepCostModel c;
  StepPlan p = plan_step(cands, c, -1.0, true);  // no time budget: all, own chunks
  CHECK(p.members == V{0, 1, 2, 3});
  CHECK(p.cap == 0);
  p = plan_step(cands, c, 1000.0, false);  // a budget, nothing measured: all, one row each
  CHECK(p.members == V{0, 1, 2, 3});
  CHECK(p.cap == 1);
  c.observe(1, 150);
  c.observe(11, 250);                     // 140 + 10 per row
  c.observe(31, 450);                     // on the line: steps up to 31 rows measured
  p = plan_step(cands, c, 400.0, false);  // 26 rows fit: 2 decode, 24 shared by 2 prompts
  CHECK(p.members == V{0, 1, 2, 3});
  CHECK(p.cap == 12);
  p = plan_step(cands, c, 175.0, true);  // 3 rows: the three advanced longest ago
  CHECK(p.members == V{1, 2, 3});
  CHECK(p.cap == 1);
  p = plan_step(cands, c, 100.0, true);  // not even one row: the first step still runs one
  CHECK(p.members == V{1});
  CHECK(p.cap == 1);
  CHECK(plan_step(cands, c, 175.0, false).members.empty());  // a later step waits
  p = plan_step(cands, c, 100.0, true, true);  // whole_batch: the first step takes everyone
  CHECK(p.members == V{0, 1, 2, 3});
  CHECK(p.cap == 1);
  CHECK(plan_step(cands, c, 100.0, false, true).members.empty());
}

TEST_CASE("the step cost model keeps a margin for steps that ran over", "[batch]") {
  StepCostModel c;
  c.observe(1, 150);
  c.observe(11, 250);  // 140 + 10 per row
  c.observe(6, 200);   // on the line
  CHECK(c.margin() == 1.0);
  CHECK(c.rows_within(240) == 10);
  c.observe(6, 100);  // under the prediction: no margin
  CHECK(c.margin() == 1.0);
  const double predicted = c.predict_us(6);
  c.observe(6, 1.5 * predicted);  // 50 % over
  CHECK(c.margin() > 1.5);
  CHECK(c.margin() < 2.5);
  const size_t within = c.rows_within(400);
  CHECK(c.predict_us(within) * c.margin() <= 400);
  CHECK(c.predict_us(within + 1) * c.margin() > 400);
  for (int i = 0; i < 60; ++i) c.observe(6, c.predict_us(6));  // steady again
  CHECK(c.margin() < 1.05);
  c.observe(6, 1000 * c.predict_us(6));
  CHECK(c.margin() == StepCostModel::kMaxMargin);
}

TEST_CASE("the step cost model is no cheaper per row past its largest recent step", "[batch]") {
  StepCostModel c;
  c.observe(1, 4000);
  c.observe(6, 5000);  // weight-bound: 3800 + 200 per row, 833 per row at 6 rows
  CHECK(c.predict_us(6) == Approx(5000));
  CHECK(c.predict_us(62) == Approx(5000.0 / 6 * 62));  // not the line's 16,200
  CHECK(c.rows_within(16000) == 19);                   // 16000 / 833.3; the line alone: 61
  CHECK(c.rows_within(4500) == 3);                     // inside the reach: the line
  c.observe(19, 12000);                                // the next step grows the reach
  CHECK(c.rows_within(16000) > 19);
  CHECK(c.predict_us(c.rows_within(16000)) <= 16000);
  CHECK(c.predict_us(c.rows_within(16000) + 1) > 16000);
  CHECK(c.predict_us(19) < 12000 * 1.05);                    // inside the reach: the line
  for (size_t i = 0; i < StepCostModel::kRecent / 2; ++i) {  // the 19-row step leaves the window
    c.observe(1, 4000);
    c.observe(3, 4400);
  }
  CHECK(c.predict_us(3) == Approx(4400).epsilon(0.02));
  CHECK(c.predict_us(19) == Approx(4400.0 / 3 * 19).epsilon(0.01));  // the line: 7,600
}

TEST_CASE("a step grows one row past its reach when one row takes most of the budget", "[batch]") {
  // A slow machine: one row is 10 ms of a 16 ms frame. At the reach's full time per row, 2 rows
  // would be 20 ms and no step would ever grow past the first size measured.
  StepCostModel c;
  for (int i = 0; i < 4; ++i) c.observe(1, 10000);
  CHECK(c.predict_us(2) == Approx(15000));  // the probe: 10 ms + half a row
  CHECK(c.predict_us(3) == Approx(30000));  // further: the reach's time per row
  CHECK(c.rows_within(16000) == 2);
  CHECK(c.rows_within(14000) == 1);  // the probe does not fit
  c.observe(2, 10600);               // the weight read dominates: 2 rows cost little more
  CHECK(c.margin() == 1.0);          // under the probe's prediction: no overrun
  CHECK(c.rows_within(16000) == 3);  // the reach is 2 rows now (5.3 ms a row)
  c.observe(3, 11200);
  CHECK(c.rows_within(16000) >= 4);
  CHECK(c.predict_us(c.rows_within(16000)) <= 16000);
  // A probe that costs the full row counts as an overrun and widens the margin.
  StepCostModel d;
  for (int i = 0; i < 4; ++i) d.observe(1, 10000);
  d.observe(2, 20000);
  CHECK(d.margin() > 1.2);
  CHECK(d.predict_us(2) == Approx(20000).epsilon(0.01));  // measured now: the line
  CHECK(d.rows_within(16000) == 1);
}

TEST_CASE("the step cost model fits fixed + per-row time", "[batch]") {
  StepCostModel c;
  CHECK_FALSE(c.ready());
  c.observe(4, 100);
  CHECK(c.ready());
  CHECK(c.predict_us(8) == Approx(200));  // one size seen: all time is per row (over-predicts)
  c.observe(20, 180);
  c.observe(4, 100);
  CHECK(c.predict_us(12) == Approx(140).epsilon(0.01));  // 80 + 5 per row
  CHECK(c.rows_within(80) == 0);
  CHECK(c.rows_within(130) == 10);
}

TEST_CASE("a batch refuses bad members", "[batch]") {
  auto m = load("rand-rwkv7-c128-l3-v512-F16.gguf");
  auto other = load("rand-rwkv7-c128-l3-v512-Q8_0.gguf");
  Members ms;
  Batch b(m);
  Generator& a = ms.make(m, recipe(0));
  Generator& foreign = ms.make(other, recipe(1));
  b.add(a);
  CHECK_THROWS_WITH(b.add(foreign), Catch::Contains("another model"));
  CHECK_THROWS_AS(b.add(foreign), MismatchError);
  CHECK_THROWS_WITH(b.add(a), Catch::Contains("already member 0"));
  Generator same_state(m, *ms.states[0], RawRequest{"x", {}}, recipe(2).opt);
  CHECK_THROWS_WITH(b.add(same_state), Catch::Contains("already runs on this generator's State"));
  CHECK_THROWS_AS(b.remove(foreign), InvalidArgument);
  CHECK(b.size() == 1);
  b.remove(a);
  CHECK(b.size() == 0);
  CHECK(b.step(4, 0).steps == 0);  // an empty batch: a no-op
}

// generator.h "Emission order": after next() the token's forward is pending; a Batch's first
// prepare() returns it, and the turn ends exactly like a lone run.
TEST_CASE("a Generator pulled with next() then batched continues like a lone run", "[batch]") {
  auto m = Model::load(ai00::test::shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  GenerateOptions o;
  o.seed = 3;
  o.max_tokens = 20;
  o.sampler.ban_eos = true;
  State lone_state(*m);
  Generator lone(m, lone_state, RawRequest{"Twice upon", {}}, o);
  while (lone.next()) {
  }
  State st(*m);
  Generator g(m, st, RawRequest{"Twice upon", {}}, o);
  for (int k = 0; k < 3; ++k) REQUIRE(g.next());
  Batch b(m);
  b.add(g);
  while (!g.finished()) b.step(4, 0);
  REQUIRE(g.tokens() == lone.tokens());
  REQUIRE(std::equal(st.data(), st.data() + st.size(), lone_state.data()));
}
