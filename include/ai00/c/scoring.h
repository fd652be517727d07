/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Option scoring: log-probabilities of candidate continuations after a State, as one batch.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_SCORING_H
#define AI00_C_SCORING_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Option scoring
 * ========================================================================================== */
/* How likely a State is to continue with each of K candidates (dialogue choices, intents,
 * routing). Score = natural-log probability of the candidate's tokens, from log_softmax of the
 * model's raw fp32 logits: no sampler setting (temperature, penalties, bias) and no grammar
 * applies. The State is not changed: the candidates run as one batch on copies of it. */

/* Where the first candidate token's probabilities come from. Fill with
 * ai00_score_params_default(); fields are only appended. Give exactly one of: */
typedef struct ai00_score_params {
  uint32_t struct_size;
  /* Tokens fed (to a copy of the State) before the candidates, e.g. the player's line. */
  const uint32_t* context;
  size_t n_context;
  /* Or the n_vocab logits of the State's last consumed token (ai00_state_eval's output). */
  const float* logits;
  size_t n_logits;
} ai00_score_params;

AI00_API ai00_status ai00_score_params_default(ai00_score_params* out_params);

/* One candidate's score. */
typedef struct ai00_option_score {
  double total_logprob; /* log P(candidate | State, context) */
  double mean_logprob;  /* total_logprob / n_tokens */
  uint64_t n_tokens;
} ai00_option_score;

/* Scores `n_candidates` token sequences (candidates[k] has n_tokens[k] ids) into
 * out_scores[0 .. n_candidates). capacity < n_candidates is AI00_ERR_BUFFER_TOO_SMALL. Errors:
 * AI00_ERR_INVALID_ARGUMENT (no candidates, an empty candidate, an id >= n_vocab, both or
 * neither of context and logits, n_logits != n_vocab; the message names the candidate and
 * position), AI00_ERR_MISMATCH (a State of another model). Same threading as ai00_state_eval. */
AI00_API ai00_status ai00_state_score_options(ai00_option_score* out_scores, size_t capacity,
                                              const ai00_model* model, const ai00_state* state,
                                              const uint32_t* const* candidates,
                                              const size_t* n_tokens, size_t n_candidates,
                                              const ai00_score_params* params);

/* As ai00_state_score_options with texts, each encoded alone by the model's tokenizer (a
 * candidate that starts a new word usually starts with a space). text_lens may be NULL for
 * NUL-terminated texts. AI00_ERR_UNSUPPORTED without tokenizer. */
AI00_API ai00_status ai00_state_score_texts(ai00_option_score* out_scores, size_t capacity,
                                            const ai00_model* model, const ai00_state* state,
                                            const char* const* texts, const size_t* text_lens,
                                            size_t n_candidates, const ai00_score_params* params);

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_SCORING_H */
