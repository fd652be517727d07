// ai00 C++ API — State and sampler settings (header-only RAII over ai00.h).
//
// A State is one sequence of one Model: the fixed-size recurrent state plus the sampler state
// (seed, RNG, penalty table), so a saved, loaded or cloned State continues exactly like the
// original. It keeps its Model alive.
// Ownership: unique (movable, not copyable): copying costs a whole State, so it is explicit —
// clone(). Threading: one thread at a time per State; different States of one Model may run
// concurrently. Errors: ai00::Error (AI00_ERR_MISMATCH for a State of another model,
// AI00_ERR_MODEL_FILE for corrupt saved bytes with the byte offset, AI00_ERR_IO with the path).
//
// Usage (save a character, branch a dialogue):
//
//   ai00::State npc(model);
//   ... generate turns on npc ...
//   npc.save_file("npc.state");                      // fixed size, checksummed, versioned
//   ai00::State later = ai00::State::load_file(model, "npc.state");
//   ai00::State branch = later.clone();               // an independent continuation
//
// Manual decoding without a Generator: eval() the prompt's tokens, then sample() from the
// returned logits and eval() the drawn token, until done.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/error.hpp"
#include "ai00/model.hpp"

namespace ai00 {
inline namespace api {

// ai00_sampler_params with the library defaults filled in (the Goose "chat" preset). Fields are
// the C struct's; logit_bias is borrowed by the call that receives the params.
struct SamplerParams : ai00_sampler_params {
  SamplerParams() : ai00_sampler_params() { detail::check(ai00_sampler_params_default(this)); }
  static SamplerParams preset(ai00_sampler_preset p) {
    SamplerParams s;
    detail::check(ai00_sampler_params_preset(&s, p));
    return s;
  }
};

class State {
 public:
  // A fresh (zero) State of `model`.
  explicit State(const Model& model) : model_(model) {
    ai00_state* s = nullptr;
    detail::check(ai00_state_new(&s, model.get()));
    handle_.reset(s);
  }

  // Restores bytes written by save() (same model).
  static State load(const Model& model, const std::vector<uint8_t>& bytes) {
    ai00_state* s = nullptr;
    detail::check(ai00_state_load(&s, model.get(), bytes.data(), bytes.size()));
    return State(model, s);
  }
  static State load_file(const Model& model, const std::string& path) {
    ai00_state* s = nullptr;
    detail::check(ai00_state_load_file(&s, model.get(), path.data(), path.size()));
    return State(model, s);
  }
  // An ai00 `.state` file (state-tuned initial state).
  static State load_initial(const Model& model, const std::string& path) {
    ai00_state* s = nullptr;
    detail::check(ai00_state_load_initial(&s, model.get(), path.data(), path.size()));
    return State(model, s);
  }

  // An independent copy: branch a dialogue, retry a turn.
  State clone() const {
    ai00_state* s = nullptr;
    detail::check(ai00_state_clone(&s, get()));
    return State(model_, s);
  }
  void reset() { detail::check(ai00_state_reset(get())); }
  void set_seed(uint64_t seed) { detail::check(ai00_state_set_seed(get(), seed)); }

  // Feeds tokens; returns the logits after the last one (n_vocab floats).
  std::vector<float> eval(const std::vector<uint32_t>& tokens) {
    std::vector<float> logits(model_.n_vocab());
    size_t n = 0;
    detail::check(ai00_state_eval(&n, logits.data(), logits.size(), model_.get(), get(),
                                  tokens.data(), tokens.size()));
    return logits;
  }
  // Feeds tokens; returns the logits after each of them: tokens.size() rows of n_vocab floats.
  std::vector<float> eval_all(const std::vector<uint32_t>& tokens) {
    std::vector<float> logits(tokens.size() * model_.n_vocab());
    size_t n = 0;
    detail::check(ai00_state_eval_all(&n, logits.data(), logits.size(), model_.get(), get(),
                                      tokens.data(), tokens.size()));
    return logits;
  }
  // Feeds tokens without computing logits (cheaper prefill).
  void prefill(const std::vector<uint32_t>& tokens) {
    detail::check(
        ai00_state_eval(nullptr, nullptr, 0, model_.get(), get(), tokens.data(), tokens.size()));
  }
  // Draws a token with this State's RNG and penalties (and updates them).
  uint32_t sample(const std::vector<float>& logits, const SamplerParams& params = {}) {
    uint32_t t = 0;
    detail::check(ai00_state_sample(&t, get(), &params, logits.data(), logits.size()));
    return t;
  }

  // Serialized bytes (recurrent state, sampler state, checksums, model fingerprint).
  std::vector<uint8_t> save() const {
    size_t n = 0;
    ai00_status s = ai00_state_save(&n, nullptr, 0, get());
    if (s != AI00_ERR_BUFFER_TOO_SMALL) detail::check(s);
    std::vector<uint8_t> bytes(n);
    detail::check(ai00_state_save(&n, bytes.data(), bytes.size(), get()));
    return bytes;
  }
  void save_file(const std::string& path) const {
    detail::check(ai00_state_save_file(get(), path.data(), path.size()));
  }

  const Model& model() const noexcept { return model_; }
  ai00_state* get() const noexcept { return handle_.get(); }
  // Takes ownership of a State handle of `model` made by another C call (a bundle's load).
  static State adopt(const Model& model, ai00_state* owned) { return State(model, owned); }

 private:
  State(const Model& model, ai00_state* owned) : model_(model), handle_(owned) {}
  struct Free {
    void operator()(ai00_state* s) const noexcept { ai00_state_free(s); }
  };
  Model model_;
  std::unique_ptr<ai00_state, Free> handle_;
};

}  // namespace api
}  // namespace ai00
