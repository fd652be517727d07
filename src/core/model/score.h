// Option scoring: how likely a State is to continue with each of K candidate continuations
// (dialogue choices, intent classification, routing; docs/prefix-cache.md "Option scoring").
//
// For a State, the logits of its next token come from either
//   * `context` tokens, fed first to a private copy of the State (the caller's State is never
//     changed), or
//   * `logits`, the [V] logits of the State's last consumed token (Generator::logits(), a
//     prefix-cache entry, ai00_state_eval).
// For candidate c of m tokens the score is log P(c | State) = sum_j log_softmax(l_j)[c_j], where
// l_0 are the logits above and l_j (j >= 1) the logits after c_0..c_{j-1}. Every log_softmax is
// of the raw fp32 logits (log_prob below: float exponentials within about 1 ulp, summed in
// double, so a State's probabilities over the vocabulary sum to 1 within 1e-7): no temperature,
// penalty, logit bias, grammar mask or any other sampler setting applies (they shape sampling,
// not the model's probabilities).
// The K candidates run as one forward_batch over K copies of the State (each copy gets m-1
// tokens with all_logits), so the weights are read once per pass for all of them.
//
// Errors (before any work): InvalidArgument for no candidates, an empty candidate, a token >=
// vocab (naming the candidate and position), both or neither of context and logits, logits of
// another count than V; MismatchError for a State of another model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/model/rwkv7.h"

namespace ai00::internal {

class Model;
class State;

struct OptionScore {
  double total_logprob = 0;  // natural log of P(candidate | State)
  double mean_logprob = 0;   // total / n_tokens
  size_t n_tokens = 0;
};

struct ScoreContext {
  const uint32_t* tokens = nullptr;  // fed to a copy of the State first, or none
  size_t n_tokens = 0;
  const float* logits = nullptr;  // [V] after the State's last token, or none
  size_t n_logits = 0;
};

std::vector<OptionScore> score_options(const Model& model, const State& state,
                                       const ScoreContext& context,
                                       const std::vector<std::vector<uint32_t>>& candidates,
                                       const ForwardOptions& options = {});

// log_softmax(logits)[token]: logits[token] - max - log(sum of exp(logit - max)), the sum with the
// sampler's exp (base/exp_sum.h, about 1 ulp per term, summed in blocks of 64 floats added in
// double), the rest in double. NaN when a logit is NaN.
double log_prob(const float* logits, size_t n, uint32_t token);

}  // namespace ai00::internal
