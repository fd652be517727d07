// Option scoring: equal to the log-probabilities computed token by token with forward on a
// clone, the caller's State unchanged, and bad input refused with clear errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/score.h"
#include "core/model/state.h"
#include "fixtures.h"

using namespace ai00::internal;
using ai00::test::shared_path;

namespace {

std::shared_ptr<const Model> rand_model() {
  return Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"));
}

// The reference: one token at a time on a clone.
double token_by_token(const Model& m, const State& s, std::vector<float> logits,
                      const std::vector<uint32_t>& c) {
  State copy = s.clone();
  double total = 0;
  for (uint32_t t : c) {
    total += log_prob(logits.data(), logits.size(), t);
    forward(m, copy, &t, 1, logits.data());
  }
  return total;
}

}  // namespace

TEST_CASE("scores equal token-by-token log-probabilities and leave the State unchanged",
          "[score]") {
  auto m = rand_model();
  const size_t V = static_cast<size_t>(m->config().vocab);
  State s(*m);
  std::vector<uint32_t> history = {5, 17, 300, 42, 7};
  std::vector<float> last(V);
  forward(*m, s, history.data(), history.size(), last.data());
  s.sampler().set_seed(3);
  const std::vector<uint8_t> before = s.serialize();
  const std::vector<std::vector<uint32_t>> cands = {
      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {200}, {11, 500, 499}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 11}};

  SECTION("from the State's last logits") {
    ScoreContext ctx;
    ctx.logits = last.data();
    ctx.n_logits = V;
    auto scores = score_options(*m, s, ctx, cands);
    REQUIRE(scores.size() == 4);
    for (size_t k = 0; k < cands.size(); ++k) {
      CAPTURE(k);
      const double ref = token_by_token(*m, s, last, cands[k]);
      CHECK(scores[k].total_logprob == Approx(ref).epsilon(1e-9).margin(1e-9));
      CHECK(scores[k].n_tokens == cands[k].size());
      CHECK(scores[k].mean_logprob ==
            Approx(ref / static_cast<double>(cands[k].size())).epsilon(1e-9));
      CHECK(scores[k].total_logprob < 0.0);
    }
    CHECK(s.serialize() == before);
  }
  SECTION("with context tokens fed to a copy first") {
    const std::vector<uint32_t> context = {99, 98, 97};
    ScoreContext ctx;
    ctx.tokens = context.data();
    ctx.n_tokens = context.size();
    auto scores = score_options(*m, s, ctx, cands);
    State ref_state = s.clone();
    std::vector<float> l(V);
    forward(*m, ref_state, context.data(), context.size(), l.data());
    for (size_t k = 0; k < cands.size(); ++k)
      CHECK(scores[k].total_logprob ==
            Approx(token_by_token(*m, ref_state, l, cands[k])).epsilon(1e-9).margin(1e-9));
    CHECK(s.serialize() == before);
  }
  SECTION("a one-token candidate's probabilities over the vocabulary sum to one") {
    ScoreContext ctx;
    ctx.logits = last.data();
    ctx.n_logits = V;
    std::vector<std::vector<uint32_t>> all;
    for (uint32_t t = 0; t < V; ++t) all.push_back({t});
    double sum = 0;
    for (const OptionScore& sc : score_options(*m, s, ctx, all)) sum += std::exp(sc.total_logprob);
    // Each exp term is a float within about 1 ulp (base/exp_sum.h): 1e-7 of the normaliser.
    CHECK(sum == Approx(1.0).epsilon(1e-7));
  }
}

TEST_CASE("option scoring refuses bad input with clear errors", "[score]") {
  auto m = rand_model();
  const size_t V = static_cast<size_t>(m->config().vocab);
  State s(*m);
  std::vector<float> logits(V, 0.0f);
  ScoreContext ctx;
  ctx.logits = logits.data();
  ctx.n_logits = V;
  CHECK_THROWS_WITH(score_options(*m, s, ctx, {}), Catch::Contains("no candidates (K = 0)"));
  CHECK_THROWS_WITH(score_options(*m, s, ctx, {{1}, {}}), Catch::Contains("candidate 1 is empty"));
  CHECK_THROWS_WITH(score_options(*m, s, ctx, {{1, 2, 9999}}),
                    Catch::Contains("candidate 0: token 9999 at position 2"));
  ScoreContext wrong = ctx;
  wrong.n_logits = V - 1;
  CHECK_THROWS_WITH(score_options(*m, s, wrong, {{1}}),
                    Catch::Contains("511 logits given") && Catch::Contains("512"));
  CHECK_THROWS_WITH(score_options(*m, s, ScoreContext{}, {{1}}), Catch::Contains("neither"));
  const uint32_t c = 4;
  ScoreContext both = ctx;
  both.tokens = &c;
  both.n_tokens = 1;
  CHECK_THROWS_WITH(score_options(*m, s, both, {{1}}), Catch::Contains("not both"));
  auto other = Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  State foreign(*other);
  CHECK_THROWS_AS(score_options(*m, foreign, ctx, {{1}}), MismatchError);
}
