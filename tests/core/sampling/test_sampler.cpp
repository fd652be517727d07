// Tests of src/core/sampler.{h,cpp} and src/core/rng.{h,cpp}: each method on hand-made logits,
// penalties and decay, bias, masks, token 0, determinism, save/restore, statistics, bad input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <vector>

#include "base/error.h"
#include "base/rng.h"
#include "core/sampling/sampler.h"

using namespace ai00::internal;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Params with every penalty off, so hand-made logits are sampled as given.
SamplerParams plain(SamplerMethod method = SamplerMethod::nucleus) {
  SamplerParams p;
  p.method = method;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.temperature = 1.0f;
  p.presence_penalty = 0.0f;
  p.frequency_penalty = 0.0f;
  p.penalty_decay = 1.0f;
  return p;
}

SamplerInput input(const std::vector<float>& logits, const std::vector<uint64_t>* mask = nullptr) {
  SamplerInput in;
  in.logits = logits.data();
  in.n_vocab = logits.size();
  if (mask != nullptr) {
    in.mask = mask->data();
    in.mask_words = mask->size();
  }
  return in;
}

std::vector<float> log_probs(const std::vector<double>& probs) {
  std::vector<float> l;
  for (double p : probs) l.push_back(static_cast<float>(std::log(p)));
  return l;
}

// Tokens and probabilities of a distribution, for compact checks.
std::vector<uint32_t> tokens_of(const std::vector<Candidate>& d) {
  std::vector<uint32_t> t;
  for (const Candidate& c : d) t.push_back(c.token);
  return t;
}

// Deterministic pseudo-logits resembling a model's: a Gaussian-ish body plus a few spikes.
std::vector<float> fake_logits(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> l(n);
  for (float& x : l) {
    double s = 0;
    for (int k = 0; k < 4; ++k) s += rng.next_double();
    x = static_cast<float>((s - 2.0) * 3.0);
  }
  for (int k = 0; k < 8; ++k) l[rng.next_u64() % n] += 8.0f + k;
  return l;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("params: Goose presets and ai00 defaults carry the seed 001 numbers", "[sampler]") {
  const SamplerParams math = goose_preset(GoosePreset::math);
  CHECK(math.temperature == 0.3f);
  CHECK(math.top_p == 0.3f);
  CHECK(math.presence_penalty == 0.0f);
  CHECK(math.frequency_penalty == 0.0f);
  CHECK(math.penalty_decay == 0.996f);
  const SamplerParams chat = goose_preset(GoosePreset::chat);
  CHECK(chat.temperature == 1.0f);
  CHECK(chat.top_p == 0.3f);
  CHECK(chat.presence_penalty == 0.5f);
  CHECK(chat.frequency_penalty == 0.5f);
  CHECK(chat.penalty_decay == 0.996f);
  const SamplerParams creative = goose_preset(GoosePreset::creative);
  CHECK(creative.temperature == 0.6f);
  CHECK(creative.top_p == 0.7f);
  CHECK(creative.presence_penalty == 1.5f);
  CHECK(creative.frequency_penalty == 0.1f);
  CHECK(creative.penalty_decay == 0.99f);
  for (const SamplerParams& p : {math, chat, creative}) {
    CHECK(p.top_k == 128);
    CHECK(p.method == SamplerMethod::nucleus);
    CHECK_NOTHROW(validate(p));
  }
  const SamplerParams def;  // the library default is the chat preset
  CHECK(def.top_p == chat.top_p);
  CHECK(def.presence_penalty == chat.presence_penalty);
  const SamplerParams srv = ai00_server_defaults();
  CHECK(srv.top_p == 0.5f);
  CHECK(srv.top_k == 128);
  CHECK(srv.presence_penalty == 0.3f);
  CHECK(srv.frequency_penalty == 0.3f);
  CHECK(std::fabs(std::log(0.5) / std::log(srv.penalty_decay) - 200.0) < 0.01);
}

TEST_CASE("params: bad values are rejected naming the field and value", "[sampler]") {
  auto msg = [](auto edit) {
    SamplerParams p;
    edit(p);
    return message_of([&] { validate(p); });
  };
  CHECK(msg([](SamplerParams& p) { p.top_p = 1.5f; }) == "top_p = 1.5 is outside [0, 1]");
  CHECK(msg([](SamplerParams& p) { p.temperature = -1.0f; }) ==
        "temperature = -1 is outside [0, 1000]");
  CHECK(msg([](SamplerParams& p) { p.temperature = kNaN; }) ==
        "temperature = nan is outside [0, 1000]");
  CHECK(msg([](SamplerParams& p) { p.min_p = -0.1f; }) == "min_p = -0.1 is outside [0, 1]");
  CHECK(msg([](SamplerParams& p) { p.typical_tau = 2.0f; }) == "typical_tau = 2 is outside [0, 1]");
  CHECK(msg([](SamplerParams& p) { p.mirostat_tau = 0.0f; }) ==
        "mirostat_tau = 0 is outside (0, 100]");
  CHECK(msg([](SamplerParams& p) { p.mirostat_rate = 1.5f; }) ==
        "mirostat_rate = 1.5 is outside (0, 1]");
  CHECK(msg([](SamplerParams& p) { p.presence_penalty = kInf; }) ==
        "presence_penalty = inf is outside [-10, 10]");
  CHECK(msg([](SamplerParams& p) { p.frequency_penalty = 11.0f; }) ==
        "frequency_penalty = 11 is outside [-10, 10]");
  CHECK(msg([](SamplerParams& p) { p.penalty_decay = 1.01f; }) ==
        "penalty_decay = 1.01 is outside [0, 1]");
  CHECK(msg([](SamplerParams& p) { p.repetition_penalty = 0.0f; }) ==
        "repetition_penalty = 0 is outside [0.01, 100]");
  CHECK(msg([](SamplerParams& p) {
          p.method = static_cast<SamplerMethod>(9);
        }).rfind("method = 9 is not a sampler method", 0) == 0);
  CHECK(msg([](SamplerParams& p) {
          p.logit_bias = {{3, 1.0f}, {4, kInf}};
        }) == "logit_bias[1].bias = inf (token 4) must be finite or -inf");
  CHECK(msg([](SamplerParams& p) {
          p.logit_bias = {{3, 1.0f}, {4, kNaN}};
        }) == "logit_bias[1].bias = nan (token 4) must be finite or -inf");
  CHECK(msg([](SamplerParams& p) {
          p.logit_bias = {{5, 1.0f}, {2, 1.0f}, {5, -kInf}};
        }) == "logit_bias[2].token = 5 repeats logit_bias[0]");
  CHECK(msg([](SamplerParams& p) { p.logit_bias = {{5, -kInf}}; }) == "(no error)");
  // sample() validates too, before touching the state.
  Sampler s;
  SamplerState st(1);
  SamplerParams p;
  p.top_p = 2.0f;
  const std::vector<float> l = {0, 1};
  CHECK_THROWS_AS(s.sample(p, st, input(l)), InvalidArgument);
  CHECK(st == SamplerState(1));
}

TEST_CASE("greedy: argmax after penalties and bias, ties to the lower id, no draw", "[sampler]") {
  Sampler s;
  SamplerState st(3);
  const Rng before = st.rng();
  const std::vector<float> l = {1.0f, 4.0f, 2.0f, 4.0f};
  SamplerParams p = plain(SamplerMethod::greedy);
  SampleResult r = s.sample(p, st, input(l));
  CHECK(r.token == 1);
  CHECK(r.prob == 1.0f);
  CHECK(r.n_candidates == 1);
  CHECK(st.rng().words() == before.words());  // greedy never consumes the RNG
  // nucleus with T = 0 is the same argmax.
  SamplerParams t0 = plain();
  t0.temperature = 0.0f;
  t0.top_p = 0.1f;
  CHECK(s.sample(t0, st, input(l)).token == 1);
  CHECK(st.rng().words() == before.words());
  // A presence penalty on token 1 hands the argmax to token 3.
  SamplerState pen(3);
  SamplerParams pp = plain(SamplerMethod::greedy);
  pp.presence_penalty = 0.5f;
  CHECK(s.sample(pp, pen, input(l)).token == 1);
  CHECK(s.sample(pp, pen, input(l)).token == 3);
  CHECK(s.sample(pp, pen, input(l)).token == 1);  // both penalised equally: the lower id
}

TEST_CASE("nucleus: top-k, top-p, min-p and temperature on a hand-made distribution", "[sampler]") {
  Sampler s;
  SamplerState st(0);
  // p = {0.1, 0.4, 0.2, 0.3}: order 1, 3, 2, 0.
  const std::vector<float> l = log_probs({0.1, 0.4, 0.2, 0.3});
  SamplerParams p = plain();
  auto d = s.distribution(p, st, input(l));
  REQUIRE(tokens_of(d) == std::vector<uint32_t>{1, 3, 2, 0});
  CHECK(d[0].prob == Approx(0.4).epsilon(1e-6));
  CHECK(d[1].prob == Approx(0.3).epsilon(1e-6));
  CHECK(d[2].prob == Approx(0.2).epsilon(1e-6));
  CHECK(d[3].prob == Approx(0.1).epsilon(1e-6));

  p.top_p = 0.5f;  // 0.4 < 0.5, 0.7 >= 0.5: the head {1, 3}
  d = s.distribution(p, st, input(l));
  REQUIRE(tokens_of(d) == std::vector<uint32_t>{1, 3});
  CHECK(d[0].prob == Approx(0.4 / 0.7).epsilon(1e-6));
  CHECK(d[1].prob == Approx(0.3 / 0.7).epsilon(1e-6));

  p.temperature = 0.5f;  // after the cut: weights p^2 = 0.16, 0.09
  d = s.distribution(p, st, input(l));
  REQUIRE(tokens_of(d) == std::vector<uint32_t>{1, 3});
  CHECK(d[0].prob == Approx(0.64).epsilon(1e-5));
  CHECK(d[1].prob == Approx(0.36).epsilon(1e-5));

  p.temperature = 5.0f;  // temperature never changes the nucleus
  CHECK(tokens_of(s.distribution(p, st, input(l))) == std::vector<uint32_t>{1, 3});

  p.temperature = 1.0f;
  p.top_p = 0.0f;  // at least one token
  CHECK(tokens_of(s.distribution(p, st, input(l))) == std::vector<uint32_t>{1});
  p.top_p = 0.7f;  // exactly reaching top_p stops (cumulative 0.4 + 0.3 >= 0.7 up to rounding)
  const size_t n_head = s.distribution(p, st, input(l)).size();
  CHECK((n_head == 2 || n_head == 3));

  p.top_p = 1.0f;
  p.top_k = 3;
  CHECK(tokens_of(s.distribution(p, st, input(l))) == std::vector<uint32_t>{1, 3, 2});
  p.top_k = 1;
  CHECK(tokens_of(s.distribution(p, st, input(l))) == std::vector<uint32_t>{1});

  p.top_k = 0;
  p.min_p = 0.6f;  // keep p >= 0.24
  CHECK(tokens_of(s.distribution(p, st, input(l))) == std::vector<uint32_t>{1, 3});
  p.min_p = 1.0f;  // only the maximum
  CHECK(tokens_of(s.distribution(p, st, input(l))) == std::vector<uint32_t>{1});

  // Equal logits are ordered by id.
  const std::vector<float> flat = {0.0f, 0.0f, 0.0f, 0.0f};
  SamplerParams f = plain();
  f.top_k = 2;
  d = s.distribution(f, st, input(flat));
  REQUIRE(tokens_of(d) == std::vector<uint32_t>{0, 1});
  CHECK(d[0].prob == 0.5f);
}

TEST_CASE("typical: ordered by distance from the entropy, cut at tau", "[sampler]") {
  Sampler s;
  SamplerState st(0);
  // p = {1/2, 1/4, 1/8, 1/8}: H = 1.75 bits, -log2 p = {1, 2, 3, 3}, distances {.75, .25,
  // 1.25, 1.25}: order 1, 0, 2, 3. tau 0.5: 0.25 < 0.5, 0.75 >= 0.5 -> {1, 0}.
  const std::vector<float> l = log_probs({0.5, 0.25, 0.125, 0.125});
  SamplerParams p = plain(SamplerMethod::typical);
  p.typical_tau = 0.5f;
  auto d = s.distribution(p, st, input(l));
  REQUIRE(tokens_of(d) == std::vector<uint32_t>{1, 0});
  CHECK(d[0].prob == Approx(1.0 / 3.0).epsilon(1e-6));
  CHECK(d[1].prob == Approx(2.0 / 3.0).epsilon(1e-6));
  p.typical_tau = 1.0f;
  CHECK(tokens_of(s.distribution(p, st, input(l))) == std::vector<uint32_t>{1, 0, 2, 3});
  p.typical_tau = 0.2f;  // only the most typical token
  CHECK(tokens_of(s.distribution(p, st, input(l))) == std::vector<uint32_t>{1});
  p.typical_tau = 1.0f;
  p.top_k = 3;
  CHECK(tokens_of(s.distribution(p, st, input(l))) == std::vector<uint32_t>{1, 0, 2});
  // T = 0 takes the most likely token of the typical set.
  p.typical_tau = 0.5f;
  p.top_k = 0;
  p.temperature = 0.0f;
  CHECK(s.sample(p, st, input(l)).token == 0);
}

TEST_CASE("mirostat v2: truncates by surprise and moves mu toward tau", "[sampler]") {
  Sampler s;
  // p = {1/2, 1/4, 1/8, 1/8}, surprise {1, 2, 3, 3} bits; tau 1.1 -> mu starts at 2.2: keep
  // surprise <= 2.2 bits -> {0, 1}.
  const std::vector<float> l = log_probs({0.5, 0.25, 0.125, 0.125});
  SamplerParams p = plain(SamplerMethod::mirostat_v2);
  p.mirostat_tau = 1.1f;
  p.mirostat_rate = 0.1f;
  p.presence_penalty = 5.0f;  // ignored by mirostat
  SamplerState st0(0);
  auto d = s.distribution(p, st0, input(l));
  REQUIRE(tokens_of(d) == std::vector<uint32_t>{0, 1});
  CHECK(d[0].prob == Approx(2.0 / 3.0).epsilon(1e-6));
  int up = 0, down = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    SamplerState st(seed);
    const SampleResult r = s.sample(p, st, input(l));
    REQUIRE(st.has_mirostat_mu());
    // Renormalised surprise: token 0 -> log2(3/2) < tau (mu grows), token 1 -> log2 3 > tau.
    const double surprise = r.token == 0 ? std::log2(1.5) : std::log2(3.0);
    CHECK(st.mirostat_mu() == Approx(2.2 - 0.1 * (surprise - 1.1)).epsilon(1e-6));
    (r.token == 0 ? up : down) += 1;
    CHECK((r.token == 0) == (st.mirostat_mu() > 2.2f));
  }
  CHECK(up > 0);
  CHECK(down > 0);
  // mu is clamped at 4 tau; a low mu keeps only the argmax.
  SamplerState hi(1);
  hi.set_mirostat_mu(4.39f);
  const std::vector<float> peaked = log_probs({0.999, 0.0005, 0.0005});
  for (int i = 0; i < 5; ++i) s.sample(p, hi, input(peaked));
  CHECK(hi.mirostat_mu() == Approx(4.4));  // 4 tau
  SamplerState lo(1);
  lo.set_mirostat_mu(0.1f);
  CHECK(tokens_of(s.distribution(p, lo, input(l))) == std::vector<uint32_t>{0});
  CHECK_THROWS_AS(lo.set_mirostat_mu(kNaN), InvalidArgument);
  // Penalties do not apply to mirostat (the table is still kept up to date).
  SamplerState penalised(0);
  penalised.accept(0, p);
  REQUIRE(penalised.penalty(0) == 5.0f);
  const auto dp = s.distribution(p, penalised, input(l));
  REQUIRE(tokens_of(dp) == std::vector<uint32_t>{0, 1});
  CHECK(dp[0].prob == d[0].prob);
}

TEST_CASE("penalties: presence, frequency and decay over a sequence of tokens", "[sampler]") {
  SamplerParams p = plain();
  p.presence_penalty = 0.5f;
  p.frequency_penalty = 0.3f;
  p.penalty_decay = 0.5f;
  SamplerState st(0);
  st.accept(5, p);
  CHECK(st.penalty(5) == 0.5f);
  st.accept(7, p);
  CHECK(st.penalty(5) == 0.25f);
  CHECK(st.penalty(7) == 0.5f);
  st.accept(5, p);
  CHECK(st.penalty(5) == 0.125f + 0.3f);
  CHECK(st.penalty(7) == 0.25f);
  CHECK(st.penalty(6) == 0.0f);
  REQUIRE(st.penalties().size() == 2);
  CHECK(st.penalties()[0].token == 5);
  CHECK(st.penalties()[0].weight == 1.0f);
  CHECK(st.penalties()[1].weight == 0.5f);
  const uint32_t more[] = {1, 7};
  st.accept(more, 2, p);
  SamplerParams bad = p;
  bad.penalty_decay = kNaN;
  CHECK(message_of([&] { st.accept(more, 2, bad); }) == "penalty_decay = nan is outside [0, 1]");
  CHECK(message_of([&] { st.accept(nullptr, 2, p); }) == "accept: tokens is null");
  CHECK(st.penalties().front().token == 1);  // kept sorted by id

  // The table is applied as l -= penalty before the softmax.
  Sampler s;
  std::vector<float> l(10, 0.0f);
  const auto d = s.distribution(p, st, input(l));
  std::map<uint32_t, double> prob;
  for (const Candidate& c : d) prob[c.token] = c.prob;
  CHECK(prob[5] / prob[0] == Approx(std::exp(-st.penalty(5))).epsilon(1e-5));
  CHECK(prob[7] / prob[0] == Approx(std::exp(-st.penalty(7))).epsilon(1e-5));
  // sample() charges the drawn token.
  SamplerState fresh(9);
  const SampleResult r = s.sample(p, fresh, input(l));
  CHECK(fresh.penalty(r.token) == 0.5f);
  CHECK(fresh.penalties().size() == 1);
}

TEST_CASE("penalties: the repetition factor fades with the decay", "[sampler]") {
  SamplerParams p = plain(SamplerMethod::greedy);
  p.repetition_penalty = 2.0f;
  p.penalty_decay = 0.5f;
  SamplerState st(0);
  st.accept(0, p);  // weight 1: factor 2
  st.accept(1, p);  // token 0 weight 0.5: factor 1.5; token 1 factor 2
  Sampler s;
  // Token 0: 3 / 1.5 = 2; token 1: 4.2 / 2 = 2.1; token 2: 2.05 -> token 1 wins.
  CHECK(s.sample(p, st, input({3.0f, 4.2f, 2.05f})).token == 1);
  SamplerState neg(0);
  neg.accept(0, p);
  // Negative logits are multiplied: -1 * 2 = -2 < -1.5.
  CHECK(s.sample(p, neg, input({-1.0f, -1.5f})).token == 1);
}

TEST_CASE("logit bias: added after the mask, -inf bans, checked against the vocabulary",
          "[sampler]") {
  Sampler s;
  SamplerState st(0);
  const std::vector<float> l = {5.0f, 1.0f, 0.0f};
  SamplerParams p = plain(SamplerMethod::greedy);
  p.logit_bias = {{2, 10.0f}};
  CHECK(s.sample(p, st, input(l)).token == 2);
  p.logit_bias = {{0, -kInf}};
  CHECK(s.sample(p, st, input(l)).token == 1);
  // A bias cannot revive a masked token.
  const std::vector<uint64_t> mask = {0b011};
  p.logit_bias = {{2, 100.0f}};
  CHECK(s.sample(p, st, input(l, &mask)).token == 0);
  p.logit_bias = {{3, 1.0f}};
  CHECK(message_of([&] { s.sample(p, st, input(l)); }) ==
        "logit_bias[0].token = 3 is outside the vocabulary [0, 3)");
}

TEST_CASE("mask: only allowed tokens are drawn, no-text ids, bad masks", "[sampler]") {
  Sampler s;
  std::vector<float> l(200, 0.0f);
  std::vector<uint64_t> mask(4, 0);
  const uint32_t allowed[] = {3, 64, 130, 199};
  for (uint32_t t : allowed) mask[t / 64] |= uint64_t{1} << (t % 64);
  SamplerParams p = plain();
  SamplerState st(11);
  std::map<uint32_t, int> seen;
  for (int i = 0; i < 400; ++i) seen[s.sample(p, st, input(l, &mask)).token]++;
  REQUIRE(seen.size() == 4);
  for (uint32_t t : allowed) CHECK(seen[t] > 50);
  const auto d = s.distribution(p, st, input(l, &mask));
  CHECK(tokens_of(d) == std::vector<uint32_t>{3, 64, 130, 199});

  // Too few words for the vocabulary.
  std::vector<uint64_t> short_mask(3, ~uint64_t{0});
  CHECK(message_of([&] { s.sample(p, st, input(l, &short_mask)); }) ==
        "sampler: mask has 3 words (192 tokens) but the vocabulary has 200 tokens");
  SamplerInput bad = input(l);
  bad.mask_words = 4;
  CHECK(message_of([&] { s.sample(p, st, bad); }) == "sampler: mask is null but mask_words = 4");

  // Ids 65530..65535 carry no text and are never drawn, whatever their logit.
  std::vector<float> big(65536, 0.0f);
  for (size_t t = 65530; t < 65536; ++t) big[t] = 100.0f;
  SamplerParams g = plain(SamplerMethod::greedy);
  CHECK(s.sample(g, st, input(big)).token == 0);
}

TEST_CASE("token 0: drawable by default, banned by ban_eos, governed by the mask bit",
          "[sampler]") {
  Sampler s;
  SamplerState st(0);
  const std::vector<float> l = {9.0f, 1.0f, 0.0f};
  SamplerParams p = plain(SamplerMethod::greedy);
  CHECK(s.sample(p, st, input(l)).token == 0);
  p.ban_eos = true;
  CHECK(s.sample(p, st, input(l)).token == 1);
  p.ban_eos = false;
  std::vector<uint64_t> no_eos = {0b110};
  CHECK(s.sample(p, st, input(l, &no_eos)).token == 1);
  std::vector<uint64_t> only_eos = {0b001};  // e.g. a completed grammar
  CHECK(s.sample(p, st, input(l, &only_eos)).token == 0);
  p.ban_eos = true;
  CHECK(message_of([&] {
          s.sample(p, st, input(l, &only_eos));
        }).rfind("sampler: no token can be drawn: all 3 logits", 0) == 0);
}

TEST_CASE("degenerate logits: all -inf, NaN, +inf and empty input", "[sampler]") {
  Sampler s;
  SamplerState st(0);
  SamplerParams p = plain();
  const std::vector<float> dead = {-kInf, -kInf, kNaN};
  CHECK(message_of([&] { s.sample(p, st, input(dead)); }) ==
        "sampler: no token can be drawn: all 3 logits are -inf or NaN after the mask, ban_eos, "
        "the no-text ids 65530-65535 and the logit bias");
  CHECK(st == SamplerState(0));  // nothing consumed on error
  // NaN logits are treated as -inf: never drawn, whatever the seed.
  const std::vector<float> nan_l = {kNaN, 1.0f, kNaN, 0.5f};
  for (uint64_t seed = 0; seed < 50; ++seed) {
    SamplerState x(seed);
    const uint32_t t = s.sample(p, x, input(nan_l)).token;
    CHECK((t == 1 || t == 3));
  }
  // Several +inf logits share the mass equally; finite ones get none.
  const std::vector<float> inf_l = {kInf, 50.0f, kInf};
  const auto d = s.distribution(p, st, input(inf_l));
  REQUIRE(d.size() == 3);
  CHECK(tokens_of(d) == std::vector<uint32_t>{0, 2, 1});
  CHECK(d[0].prob == 0.5f);
  CHECK(d[1].prob == 0.5f);
  CHECK(d[2].prob == 0.0f);
  // A one-token vocabulary, and mask bits past the vocabulary, are fine.
  const std::vector<float> one = {-3.0f};
  const std::vector<uint64_t> all_bits = {~uint64_t{0}};
  for (SamplerMethod m : {SamplerMethod::nucleus, SamplerMethod::typical,
                          SamplerMethod::mirostat_v2, SamplerMethod::greedy}) {
    CHECK(s.sample(plain(m), st, input(one, &all_bits)).token == 0);
  }
  const std::vector<float> three = {0.0f, 0.0f, 0.0f};
  for (int i = 0; i < 50; ++i) CHECK(s.sample(p, st, input(three, &all_bits)).token < 3);
  SamplerInput empty;
  CHECK(message_of([&] { s.sample(p, st, empty); }) ==
        "sampler: logits are null or empty (n_vocab = 0)");
}

TEST_CASE("determinism: the same seed gives the same tokens, another seed others", "[sampler]") {
  const std::vector<float> l = fake_logits(3000, 5);
  SamplerParams p = goose_preset(GoosePreset::creative);
  auto run = [&](uint64_t seed) {
    Sampler s;
    SamplerState st(seed);
    std::vector<uint32_t> out;
    for (int i = 0; i < 200; ++i) out.push_back(s.sample(p, st, input(l)).token);
    return out;
  };
  const auto a = run(123);
  CHECK(a == run(123));
  CHECK(a != run(124));
  // A Sampler reused across vocabulary sizes and methods keeps no stale scratch.
  Sampler shared;
  SamplerState one(123);
  SamplerState other(5);
  const std::vector<float> small = {0.5f, 0.1f, 0.3f};
  const std::vector<float> big = fake_logits(65536, 8);
  for (int i = 0; i < 200; ++i) {
    shared.sample(plain(SamplerMethod::typical), other, input(i % 2 ? small : big));
    REQUIRE(shared.sample(p, one, input(l)).token == a[i]);
  }
  // set_seed restarts the RNG, reset also clears the table.
  SamplerState st(1);
  Sampler s;
  for (int i = 0; i < 5; ++i) s.sample(p, st, input(l));
  st.set_seed(123);
  CHECK(st.rng().words() == Rng(123).words());
  CHECK(!st.penalties().empty());
  st.reset(123);
  CHECK(st == SamplerState(123));
}

TEST_CASE("save and restore: a restored state continues identically for 1000 samples",
          "[sampler]") {
  SamplerParams p = goose_preset(GoosePreset::chat);
  Sampler s1;
  SamplerState orig(2024);
  std::vector<std::vector<float>> steps;
  for (int i = 0; i < 16; ++i) steps.push_back(fake_logits(4096, 100 + i));
  for (int i = 0; i < 300; ++i) s1.sample(p, orig, input(steps[i % 16]));
  SamplerParams miro = plain(SamplerMethod::mirostat_v2);
  s1.sample(miro, orig, input(steps[0]));  // make mu part of the saved state
  const std::vector<uint8_t> bytes = orig.serialize();
  CHECK(bytes.size() == orig.serialized_size());
  SamplerState restored = SamplerState::deserialize(bytes.data(), bytes.size());
  CHECK(restored == orig);
  CHECK(restored.serialize() == bytes);
  Sampler s2;
  for (int i = 0; i < 1000; ++i) {
    const SamplerParams& q = (i % 7 == 3) ? miro : p;
    const SampleResult a = s1.sample(q, orig, input(steps[i % 16]));
    const SampleResult b = s2.sample(q, restored, input(steps[i % 16]));
    REQUIRE(a.token == b.token);
    REQUIRE(a.prob == b.prob);
  }
  CHECK(restored == orig);
}

TEST_CASE("save and restore: damaged bytes are rejected with the offset", "[sampler]") {
  SamplerParams p = plain();
  p.presence_penalty = 1.0f;
  SamplerState st(77);
  st.accept(4, p);
  st.accept(9, p);
  const std::vector<uint8_t> good = st.serialize();
  REQUIRE(good.size() == 64 + 2 * 12 + 8);
  auto msg = [](std::vector<uint8_t> b) {
    return message_of([&] { SamplerState::deserialize(b.data(), b.size()); });
  };
  // Rewrites the checksum so that a structural check, not the checksum, must catch the damage.
  auto resum = [](std::vector<uint8_t> b) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i + 8 < b.size(); ++i) h = (h ^ b[i]) * 0x100000001b3ull;
    for (int i = 0; i < 8; ++i) b[b.size() - 8 + i] = static_cast<uint8_t>(h >> (8 * i));
    return b;
  };
  CHECK(msg(std::vector<uint8_t>(good.begin(), good.begin() + 10)) ==
        "sampler state: truncated: 10 bytes given, at least 72 needed");
  auto b = good;
  b[0] = 'X';
  CHECK(msg(b) == "sampler state: bad magic (expected \"AISS\") at byte 0");
  b = good;
  b[4] = 2;
  CHECK_THROWS_AS(SamplerState::deserialize(b.data(), b.size()), UnsupportedError);
  CHECK(msg(b) == "sampler state: version 2 is not supported (this library reads version 1)");
  b = good;
  b.push_back(0);
  CHECK(msg(b) == "sampler state: size field says 96 bytes but 97 were given at byte 8");
  b = good;
  b[30] ^= 1;
  CHECK(msg(b) == "sampler state: checksum mismatch (corrupted data) at byte 88");
  b = good;
  std::swap(b[64], b[76]);  // token 9 before token 4
  CHECK(msg(resum(b)) ==
        "sampler state: penalty entry 1 (token 4) is not in increasing token order at byte 76");
  b = good;
  std::fill(b.begin() + 20, b.begin() + 52, 0);
  CHECK(msg(resum(b)) == "sampler state: RNG state is all zero at byte 20");
  b = good;
  b[60] = 0;  // entry count 0, but two entries follow
  CHECK(msg(resum(b)) == "sampler state: 0 penalty entries do not fit in 96 bytes at byte 60");
  b = good;
  const uint32_t nan_bits = 0x7fc00000u;
  std::memcpy(&b[68], &nan_bits, 4);
  CHECK(msg(resum(b)) == "sampler state: penalty entry 0 is not finite at byte 68");
  std::vector<uint8_t> small(5);
  CHECK_THROWS_AS(st.serialize(small.data(), small.size()), InvalidArgument);
  CHECK(SamplerState::deserialize(good.data(), good.size()) == st);
}

TEST_CASE("statistics: temperature sampling frequencies match the softmax (chi-square)",
          "[sampler]") {
  const std::vector<float> l = {1.0f, 0.2f, -0.5f, 2.0f, 0.0f, -1.0f};
  SamplerParams p = plain();
  p.temperature = 0.7f;
  std::vector<double> expect(l.size());
  double z = 0;
  for (size_t i = 0; i < l.size(); ++i) z += expect[i] = std::exp(l[i] / 0.7);
  for (double& e : expect) e /= z;
  Sampler s;
  SamplerState st(31337);
  const auto d = s.distribution(p, st, input(l));
  REQUIRE(d.size() == l.size());
  for (const Candidate& c : d) CHECK(c.prob == Approx(expect[c.token]).epsilon(1e-5));
  const int n = 60000;
  std::vector<int> count(l.size(), 0);
  for (int i = 0; i < n; ++i) count[s.sample(p, st, input(l)).token]++;
  double chi2 = 0;
  for (size_t i = 0; i < l.size(); ++i) {
    const double e = expect[i] * n;
    chi2 += (count[i] - e) * (count[i] - e) / e;
  }
  // 5 degrees of freedom: P(chi2 > 25) is about 1.4e-4; a biased sampler lands far above.
  CHECK(chi2 < 25.0);
}

TEST_CASE("large vocabulary: the chunked partial sort equals a full sort", "[sampler]") {
  const size_t n = 65536;
  const std::vector<float> l = fake_logits(n, 99);
  // Reference order: logit descending, ties by id.
  std::vector<uint32_t> order(65530);  // the no-text ids 65530..65535 are never candidates
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return l[a] > l[b] || (l[a] == l[b] && a < b); });
  Sampler s;
  SamplerState st(0);
  for (float top_p : {0.3f, 0.9f, 1.0f}) {
    SamplerParams p = plain();
    p.top_p = top_p;
    const auto d = s.distribution(p, st, input(l));
    REQUIRE(!d.empty());
    for (size_t i = 0; i < d.size(); ++i) REQUIRE(d[i].token == order[i]);
    if (top_p == 1.0f) CHECK(d.size() == n - 6);  // the no-text ids are gone
  }
  // top_k heads of every size: the small buffered selection and the radix selection.
  for (uint32_t top_k : {1u, 100u, 2047u, 2048u, 3000u, 20000u, 65529u}) {
    SamplerParams p = plain();
    p.top_k = top_k;
    const auto d = s.distribution(p, st, input(l));
    REQUIRE(d.size() == top_k);
    for (size_t i = 0; i < d.size(); ++i) REQUIRE(d[i].token == order[i]);
  }
  // Many equal logits: ties are ordered by id in every path.
  std::vector<float> steps(n);
  for (size_t i = 0; i < n; ++i) steps[i] = static_cast<float>((i * 7919) % 5);
  std::vector<uint32_t> step_order(65530);
  std::iota(step_order.begin(), step_order.end(), 0u);
  std::stable_sort(step_order.begin(), step_order.end(),
                   [&](uint32_t a, uint32_t b) { return steps[a] > steps[b]; });
  for (uint32_t top_k : {50u, 5000u, 30000u}) {
    SamplerParams p = plain();
    p.top_k = top_k;
    const auto d = s.distribution(p, st, input(steps));
    REQUIRE(d.size() == top_k);
    for (size_t i = 0; i < d.size(); ++i) REQUIRE(d[i].token == step_order[i]);
  }
  // Draws at T = 1 with every token kept match a walk of the full sort.
  SamplerParams p = plain();
  double z = 0;
  const float l_max = l[order[0]];
  for (size_t i = 0; i < 65530; ++i) z += std::exp(l[i] - l_max);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    SamplerState a(seed);
    Rng twin(seed);
    const uint32_t got = s.sample(p, a, input(l)).token;
    const double target = twin.next_double() * z;
    double cum = 0;
    uint32_t want = order[0];
    for (uint32_t t : order) {
      cum += std::exp(l[t] - l_max);
      if (target < cum) {
        want = t;
        break;
      }
    }
    CHECK(got == want);
  }
}
