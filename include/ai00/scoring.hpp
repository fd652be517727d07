// ai00 C++ API — option scoring (header-only over ai00.h "Option scoring").
//
// How likely a State is to continue with each candidate: natural-log probabilities from the
// model's raw logits (no sampler setting or grammar applies), without changing the State; the
// candidates run as one batch on copies of it. The first token's probabilities come from
// `context` tokens fed to a copy first (e.g. the player's line) or, with an empty context, from
// `last_logits`, the logits of the State's last token (State::eval's result).
// Threading: as State::eval (the State is only read). Errors: ai00::Error
// (AI00_ERR_INVALID_ARGUMENT naming an empty candidate or a bad token, AI00_ERR_MISMATCH).
//
//   auto scores = ai00::score_texts(npc, {" Yes.", " Never!"}, player_line_tokens);
//   bool agrees = scores[0].mean_logprob > scores[1].mean_logprob;
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/error.hpp"
#include "ai00/state.hpp"

namespace ai00 {
inline namespace api {

namespace detail {
inline ai00_score_params score_params(const std::vector<uint32_t>& context,
                                      const std::vector<float>& last_logits) {
  ai00_score_params p;
  check(ai00_score_params_default(&p));
  if (!context.empty()) {
    p.context = context.data();
    p.n_context = context.size();
  }
  if (!last_logits.empty()) {
    p.logits = last_logits.data();
    p.n_logits = last_logits.size();
  }
  return p;
}
}  // namespace detail

// Scores of token candidates, in order.
inline std::vector<ai00_option_score> score_options(
    const State& state, const std::vector<std::vector<uint32_t>>& candidates,
    const std::vector<uint32_t>& context, const std::vector<float>& last_logits = {}) {
  std::vector<const uint32_t*> ptrs;
  std::vector<size_t> lens;
  for (const auto& c : candidates) {
    ptrs.push_back(c.data());
    lens.push_back(c.size());
  }
  std::vector<ai00_option_score> out(candidates.size());
  const ai00_score_params p = detail::score_params(context, last_logits);
  detail::check(ai00_state_score_options(out.data(), out.size(), state.model().get(), state.get(),
                                         ptrs.data(), lens.data(), candidates.size(), &p));
  return out;
}

// Scores of text candidates, each encoded alone by the model's tokenizer.
inline std::vector<ai00_option_score> score_texts(const State& state,
                                                  const std::vector<std::string>& candidates,
                                                  const std::vector<uint32_t>& context,
                                                  const std::vector<float>& last_logits = {}) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (const auto& c : candidates) {
    ptrs.push_back(c.data());
    lens.push_back(c.size());
  }
  std::vector<ai00_option_score> out(candidates.size());
  const ai00_score_params p = detail::score_params(context, last_logits);
  detail::check(ai00_state_score_texts(out.data(), out.size(), state.model().get(), state.get(),
                                       ptrs.data(), lens.data(), candidates.size(), &p));
  return out;
}

}  // namespace api
}  // namespace ai00
