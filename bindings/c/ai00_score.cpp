// Option scoring through the C ABI (ai00.h "Option scoring"; core/model/score.h).
#include <string>
#include <vector>

#include "abi_state.h"
#include "core/model/score.h"
#include "core/tokenizer/tokenizer.h"

namespace {

using ai00::internal::abi::require;

ai00::internal::ScoreContext context_of(const ai00_score_params* p, const char* fn) {
  ai00::internal::ScoreContext ctx;
  if (p == nullptr) return ctx;  // neither: score_options names the problem
  ai00::internal::abi::check_struct_size(p->struct_size, sizeof(ai00_score_params),
                                         sizeof(ai00_score_params), fn, "ai00_score_params");
  ctx.tokens = p->context;
  ctx.n_tokens = p->n_context;
  ctx.logits = p->logits;
  ctx.n_logits = p->n_logits;
  return ctx;
}

// Checks the shared arguments and writes the scores.
void score_into(ai00_option_score* out, const ai00_model* model, const ai00_state* state,
                const std::vector<std::vector<uint32_t>>& candidates,
                const ai00_score_params* params, const char* fn) {
  const auto scores =
      ai00::internal::score_options(*model->model, state->core, context_of(params, fn), candidates);
  for (size_t k = 0; k < scores.size(); ++k) {
    out[k].total_logprob = scores[k].total_logprob;
    out[k].mean_logprob = scores[k].mean_logprob;
    out[k].n_tokens = scores[k].n_tokens;
  }
}

// Throws for a NULL handle or no candidates; returns the message of a too small out_scores, or
// "" when it is large enough.
std::string check_common(ai00_option_score* out, size_t capacity, const ai00_model* model,
                         const ai00_state* state, size_t n_candidates, const char* fn) {
  require(model, fn, "model");
  require(state, fn, "state");
  if (n_candidates == 0)
    throw ai00::internal::InvalidArgument(std::string(fn) + ": no candidates (n_candidates = 0)");
  if (out != nullptr && capacity >= n_candidates) return {};
  return std::string(fn) + ": out_scores holds " + std::to_string(out ? capacity : 0) +
         " results, " + std::to_string(n_candidates) + " candidates given";
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_score_params_default(ai00_score_params* out_params) {
  try {
    require(out_params, "ai00_score_params_default", "out_params");
    *out_params = ai00_score_params{};
    out_params->struct_size = sizeof(ai00_score_params);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_state_score_options(ai00_option_score* out_scores, size_t capacity,
                                              const ai00_model* model, const ai00_state* state,
                                              const uint32_t* const* candidates,
                                              const size_t* n_tokens, size_t n_candidates,
                                              const ai00_score_params* params) {
  try {
    const char* fn = "ai00_state_score_options";
    const std::string small = check_common(out_scores, capacity, model, state, n_candidates, fn);
    if (!small.empty())
      return ai00::internal::abi::fail(&state->error, AI00_ERR_BUFFER_TOO_SMALL, small);
    require(candidates, fn, "candidates");
    require(n_tokens, fn, "n_tokens");
    std::vector<std::vector<uint32_t>> c(n_candidates);
    for (size_t k = 0; k < n_candidates; ++k) {
      if (n_tokens[k] > 0 && candidates[k] == nullptr)
        throw ai00::internal::InvalidArgument(std::string(fn) + ": candidates[" +
                                              std::to_string(k) + "] is NULL");
      if (n_tokens[k] > 0) c[k].assign(candidates[k], candidates[k] + n_tokens[k]);
    }
    score_into(out_scores, model, state, c, params, fn);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(state ? &state->error : nullptr);
  }
}

AI00_API ai00_status ai00_state_score_texts(ai00_option_score* out_scores, size_t capacity,
                                            const ai00_model* model, const ai00_state* state,
                                            const char* const* texts, const size_t* text_lens,
                                            size_t n_candidates, const ai00_score_params* params) {
  try {
    const char* fn = "ai00_state_score_texts";
    const std::string small = check_common(out_scores, capacity, model, state, n_candidates, fn);
    if (!small.empty())
      return ai00::internal::abi::fail(&state->error, AI00_ERR_BUFFER_TOO_SMALL, small);
    require(texts, fn, "texts");
    const ai00::internal::Tokenizer* tok = model->model->tokenizer();
    if (tok == nullptr)
      throw ai00::internal::UnsupportedError(std::string(fn) + ": the model has no tokenizer");
    std::vector<std::vector<uint32_t>> c(n_candidates);
    for (size_t k = 0; k < n_candidates; ++k) {
      const std::string what = "texts[" + std::to_string(k) + "]";
      require(texts[k], fn, what.c_str());
      const size_t len = text_lens ? text_lens[k] : AI00_NUL_TERMINATED;
      c[k] = tok->encode(ai00::internal::abi::text_arg(texts[k], len, fn, what.c_str()));
    }
    score_into(out_scores, model, state, c, params, fn);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(state ? &state->error : nullptr);
  }
}

}  // extern "C"
