// Option scoring (score.h).
#include "core/model/score.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "base/error.h"
#include "base/exp_sum.h"
#include "core/model/model.h"
#include "core/model/state.h"

namespace ai00::internal {
namespace {

void check_tokens(const uint32_t* t, size_t n, size_t vocab, const std::string& what) {
  for (size_t i = 0; i < n; ++i)
    if (t[i] >= vocab)
      throw InvalidArgument("score_options: " + what + " token " + std::to_string(t[i]) +
                            " at position " + std::to_string(i) + " is outside the vocabulary (" +
                            std::to_string(vocab) + ")");
}

void validate(const Model& model, const State& state, const ScoreContext& ctx,
              const std::vector<std::vector<uint32_t>>& candidates) {
  state.check_model(model);
  const size_t vocab = static_cast<size_t>(model.config().vocab);
  if (candidates.empty()) throw InvalidArgument("score_options: no candidates (K = 0)");
  for (size_t k = 0; k < candidates.size(); ++k) {
    if (candidates[k].empty())
      throw InvalidArgument("score_options: candidate " + std::to_string(k) + " is empty");
    check_tokens(candidates[k].data(), candidates[k].size(), vocab,
                 "candidate " + std::to_string(k) + ":");
  }
  const bool has_tokens = ctx.n_tokens > 0, has_logits = ctx.logits != nullptr;
  if (has_tokens && ctx.tokens == nullptr)
    throw InvalidArgument("score_options: context tokens are null");
  if (has_tokens == has_logits)
    throw InvalidArgument(std::string("score_options: give either context tokens or the logits "
                                      "of the State's last token") +
                          (has_tokens ? ", not both" : " (neither was given)"));
  if (has_logits && ctx.n_logits != vocab)
    throw InvalidArgument("score_options: " + std::to_string(ctx.n_logits) +
                          " logits given, the model's vocabulary has " + std::to_string(vocab));
  if (has_tokens) check_tokens(ctx.tokens, ctx.n_tokens, vocab, "context");
}

}  // namespace

double log_prob(const float* logits, size_t n, uint32_t token) {
  // The maximum in float (exact as a double); a NaN logit makes the result NaN (exp_nonpos would
  // weigh it 0).
  float mf = -INFINITY;
  bool nan = false;
  for (size_t i = 0; i < n; ++i) {
    mf = logits[i] > mf ? logits[i] : mf;
    nan |= logits[i] != logits[i];
  }
  if (nan) return std::numeric_limits<double>::quiet_NaN();
  // The sum with the sampler's exp (base/exp_sum.h: vectorised, about 1 ulp, blocks of 64 in
  // float, the blocks in double): a scalar double exp per logit made the log-softmax of 36 rows
  // of 65,536 logits a tenth of a 4 x 10 scoring call.
  const double sum = exp_sums(logits, n, mf, 1.0f, false).e;
  return static_cast<double>(logits[token]) - static_cast<double>(mf) - std::log(sum);
}

std::vector<OptionScore> score_options(const Model& model, const State& state,
                                       const ScoreContext& ctx,
                                       const std::vector<std::vector<uint32_t>>& candidates,
                                       const ForwardOptions& options) {
  validate(model, state, ctx, candidates);
  const size_t V = static_cast<size_t>(model.config().vocab);
  // The candidates start from `state`, or from a copy advanced by the context tokens (a copy
  // only then: at 1.5B a State is 12.6 MB, a copy about 1 % of a 4 x 10 call).
  std::optional<State> advanced;
  std::vector<float> first;  // l_0
  if (ctx.logits != nullptr) first.assign(ctx.logits, ctx.logits + V);
  if (ctx.n_tokens > 0) {
    advanced.emplace(state.clone());
    first.resize(V);
    ForwardOptions o = options;
    o.all_logits = false;
    forward(model, *advanced, ctx.tokens, ctx.n_tokens, first.data(), o);
  }
  const State& base = advanced ? *advanced : state;
  // One copy per candidate of two or more tokens, fed all but its last token (all_logits).
  // Their logits back to back in one buffer, in segment order, so the head writes them in place
  // (rwkv7.cpp pass_logits); not value-initialised: every row is written before it is read.
  const size_t K = candidates.size();
  std::vector<State> copies;
  std::vector<float*> rows(K, nullptr);
  std::vector<BatchSegment> segments;
  size_t total_rows = 0;
  for (const std::vector<uint32_t>& c : candidates) total_rows += c.size() < 2 ? 0 : c.size() - 1;
  std::unique_ptr<float[]> logits(new float[std::max<size_t>(total_rows, 1) * V]);
  copies.reserve(K);
  for (size_t k = 0, row = 0; k < K; ++k) {
    const std::vector<uint32_t>& c = candidates[k];
    if (c.size() < 2) continue;
    copies.push_back(base.clone());
    rows[k] = logits.get() + row * V;
    row += c.size() - 1;
    segments.push_back({&copies.back(), c.data(), c.size() - 1, rows[k], true});
  }
  if (!segments.empty()) forward_batch(model, segments, options);
  // Every row's log-softmax (a pass over V logits in double each), in parallel over the rows
  // on the Model's arena; each term is computed alone, then summed in token order as before.
  std::vector<std::pair<size_t, size_t>> terms;  // (candidate, token index >= 1)
  for (size_t k = 0; k < K; ++k) {
    for (size_t j = 1; j < candidates[k].size(); ++j) terms.emplace_back(k, j);
  }
  std::vector<double> lp(terms.size());
  model.execute([&] {
    model.parallel_blocks(static_cast<int64_t>(terms.size()), 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const auto [k, j] = terms[static_cast<size_t>(i)];
        lp[static_cast<size_t>(i)] = log_prob(rows[k] + (j - 1) * V, V, candidates[k][j]);
      }
    });
  });
  std::vector<OptionScore> out(K);
  for (size_t k = 0, i = 0; k < K; ++k) {
    const std::vector<uint32_t>& c = candidates[k];
    double total = log_prob(first.data(), V, c[0]);
    for (size_t j = 1; j < c.size(); ++j) total += lp[i++];
    out[k].total_logprob = total;
    out[k].n_tokens = c.size();
    out[k].mean_logprob = total / static_cast<double>(c.size());
  }
  return out;
}

}  // namespace ai00::internal
