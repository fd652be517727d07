// Token samplers (docs/generation.md "Sampling"): nucleus (top-k, top-p, min-p, temperature),
// typical, mirostat v2 and greedy, with ai00's presence / frequency penalties and their decay, a
// faded repetition penalty, logit bias and the grammar's token mask.
//
// Three pieces:
//  * SamplerParams — plain, copyable settings; validate() rejects bad values with
//    InvalidArgument naming the field and value ("top_p = 1.5 is outside [0, 1]").
//  * SamplerState  — the per-sequence part that lives in the State: the seed, the RNG, the sparse
//    penalty table and mirostat's mu. It serialises to bytes (magic, version, checksum) so a
//    restored or cloned State continues exactly as the original would.
//  * Sampler       — scratch buffers only (no sequence data); reuse one per thread to avoid
//    allocating on every token.
//
// Order of operations of one step (sample()), ai00-compatible:
//  1. Penalties (skipped by mirostat): for every token t in the table, first the repetition
//     factor r_t = 1 + (repetition_penalty - 1) * weight[t] (weight = 1 when t was last chosen,
//     times decay per step since): l = l > 0 ? l / r_t : l * r_t; then l -= penalty[t].
//  2. Mask: tokens whose mask bit is clear, ids 65530..65535 (no text) and token 0 when ban_eos
//     is set become -inf. NaN logits are treated as -inf (never drawn); +inf is clamped to the
//     largest float, so several +inf tokens share the mass equally.
//  3. Logit bias: l[t] += bias (a bias of -inf bans t).
//  4. Softmax over the tokens left; order by logit, descending, ties by lower id (the order of
//     probability); keep top_k (0 = no limit); keep the smallest head whose cumulative
//     probability reaches top_p; then drop tokens with p < min_p * p_max. At least one token is
//     always kept. Typical instead orders by |-log p - H| (H the entropy; ties by id), keeps
//     top_k and cuts at cumulative typical_tau. Mirostat v2 keeps the tokens whose surprise
//     -log2 p is at most mu (mu starts at 2 * mirostat_tau), ordered by logit.
//  5. Temperature acts after the cut: weights p^(1/T) = exp((l - l_max) / T), renormalised, so
//     it never changes which tokens are kept. T = 0 (or a T so small that 1/T overflows, or
//     method greedy) means argmax, ties to the lower id, with no random draw. Mirostat ignores
//     T, top_k, top_p and min_p.
//  6. One uniform double in [0, 1) from the state's RNG (53 bits), multiplied by the weight sum
//     and walked over the cumulative weights in the order of step 4.
//  7. Update: every penalty and weight is multiplied by penalty_decay; then the chosen token's
//     penalty becomes presence_penalty if it was not in the table, else grows by
//     frequency_penalty, and its weight becomes 1. Mirostat sets mu <- min(mu - mirostat_rate *
//     (s - mirostat_tau), 4 * mirostat_tau), s = -log2 of the drawn token's renormalised
//     probability. The table is updated for every method, mirostat included.
//
// Determinism: single-threaded, fixed iteration orders, our own RNG and exp() (no std::
// distribution, no libm exp): sums run in id order in fixed blocks or in the order of step 4,
// which is a strict total order, so partial sorts, radix sorts and vectorisation give the same
// sequence with any compiler and standard library, for any thread count. std::log enters only
// the min_p and mirostat thresholds and mirostat's mu update, where a last-bit difference
// between two libms could only matter for a token exactly on the boundary.
//
// Cost at V = 65536 (bench/bench_sampler.cpp): a few passes over the logits (copy, max, exp
// sum), a one-pass top-m selection and a sort of the prefix actually walked; top_k keeps that
// prefix small. Without top_k a large nucleus (thousands of tokens) costs a radix sort of it.
//
// Errors: InvalidArgument for bad parameters, a mask too short for the vocabulary, a logit bias
// outside the vocabulary, or a step where no token can be drawn (every logit -inf or NaN after
// mask, ban_eos, the no-text ids and bias); the state is unchanged then. ModelFileError /
// UnsupportedError from SamplerState::deserialize.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/rng.h"

namespace ai00::internal {

enum class SamplerMethod : uint8_t {
  nucleus,      // top_k, top_p, min_p, temperature (ai00's default sampler)
  typical,      // locally typical sampling: cut at cumulative typical_tau, then temperature
  mirostat_v2,  // target surprise mirostat_tau; no penalties, no top_k, no temperature
  greedy,       // argmax after penalties, mask and bias; never draws
};

// Added to the logit of one token (step 3).
struct LogitBias {
  uint32_t token = 0;
  float bias = 0.0f;  // finite, or -inf to ban the token
};

// Defaults are the Goose "chat" preset, the library default (seed 001). Ranges are checked by
// validate(); the range of each field is in its comment.
struct SamplerParams {
  SamplerMethod method = SamplerMethod::nucleus;
  float temperature = 1.0f;           // [0, 1000]; 0 = argmax
  uint32_t top_k = 128;               // 0 = no limit
  float top_p = 0.3f;                 // [0, 1]
  float min_p = 0.0f;                 // [0, 1]; 0 = off
  float typical_tau = 0.5f;           // [0, 1] (typical only)
  float mirostat_tau = 3.0f;          // (0, 100] target surprise in bits (mirostat only)
  float mirostat_rate = 0.1f;         // (0, 1] learning rate of mu (mirostat only)
  float presence_penalty = 0.5f;      // [-10, 10] charged at a token's first appearance
  float frequency_penalty = 0.5f;     // [-10, 10] added at each later appearance
  float penalty_decay = 0.996f;       // [0, 1] per generated token; half-life ln 0.5 / ln decay
  float repetition_penalty = 1.0f;    // [0.01, 100]; 1 = off
  bool ban_eos = false;               // mask token 0 (end of text) on every step
  std::vector<LogitBias> logit_bias;  // distinct tokens; range checked against the vocabulary
};

// Throws InvalidArgument naming the first bad field and its value.
void validate(const SamplerParams& params);

// The recommended Goose (RWKV7-G1) parameters of seed 001; top_k stays 128.
enum class GoosePreset : uint8_t {
  math,      // T 0.3, top_p 0.3, presence 0, frequency 0, decay 0.996
  chat,      // T 1.0, top_p 0.3, presence 0.5, frequency 0.5, decay 0.996 (library default)
  creative,  // T 0.6, top_p 0.7 (0.6-0.8), presence 1.5 (1-2), frequency 0.1 (0-0.2), decay 0.99
};
SamplerParams goose_preset(GoosePreset preset);
// ai00_server's own defaults: top_p 0.5, top_k 128, T 1, presence 0.3, frequency 0.3,
// decay 0.99654026 (half-life 200 tokens).
SamplerParams ai00_server_defaults();

// One entry of the sparse penalty table.
struct PenaltyEntry {
  uint32_t token = 0;
  float penalty = 0.0f;  // subtracted from the logit (step 1)
  float weight = 0.0f;   // 1 when last chosen, times decay per step since (repetition factor)
};

// The per-sequence sampler state stored in the State. A plain value: copying it forks the
// sequence (the copy continues identically). Not synchronised: one thread at a time.
class SamplerState {
 public:
  explicit SamplerState(uint64_t seed = 0) : seed_(seed), rng_(seed) {}

  // Sets the seed and restarts the RNG from it; the penalty table and mu are kept.
  void set_seed(uint64_t seed) noexcept;
  // Forgets everything: new seed, fresh RNG, empty penalty table, mu unset.
  void reset(uint64_t seed) noexcept;

  uint64_t seed() const noexcept { return seed_; }
  Rng& rng() noexcept { return rng_; }
  const Rng& rng() const noexcept { return rng_; }

  // Step 7 for one token: decay every entry, then charge `token`. Sampler::sample does this
  // itself; call it to seed the table from earlier assistant turns (ai00's model_text), in
  // order, without touching the RNG. Validates params (InvalidArgument).
  void accept(uint32_t token, const SamplerParams& params);
  void accept(const uint32_t* tokens, size_t count, const SamplerParams& params);

  // Entries sorted by token id (each token at most once).
  const std::vector<PenaltyEntry>& penalties() const noexcept { return table_; }
  // The penalty of `token`, 0 if it is not in the table.
  float penalty(uint32_t token) const noexcept;

  // Mirostat v2's running surprise bound in bits; unset until the first mirostat step starts
  // it at 2 * mirostat_tau. set_mirostat_mu throws InvalidArgument unless mu is finite.
  bool has_mirostat_mu() const noexcept { return has_mu_; }
  float mirostat_mu() const noexcept { return mu_; }
  void set_mirostat_mu(float mu);

  // Serialised form, little-endian: "AISS", u32 version (1), u32 total size, u64 seed,
  // 4 x u64 RNG words, u32 flags (bit 0: mu set), f32 mu, u32 n, n x {u32 token, f32 penalty,
  // f32 weight} sorted by token, u64 FNV-1a checksum of every byte before it.
  size_t serialized_size() const noexcept;
  // Writes exactly serialized_size() bytes; throws InvalidArgument if `size` is smaller.
  void serialize(uint8_t* out, size_t size) const;
  std::vector<uint8_t> serialize() const;
  // Checks magic, size, checksum, RNG words, finite values and strictly increasing tokens;
  // throws ModelFileError naming the byte offset, UnsupportedError for an unknown version.
  static SamplerState deserialize(const uint8_t* data, size_t size);

  bool operator==(const SamplerState& other) const noexcept;
  bool operator!=(const SamplerState& other) const noexcept { return !(*this == other); }

 private:
  friend class Sampler;
  void charge(uint32_t token, const SamplerParams& params);  // accept() without validation

  uint64_t seed_ = 0;
  Rng rng_;
  std::vector<PenaltyEntry> table_;  // sorted by token
  bool has_mu_ = false;
  float mu_ = 0.0f;
};

// The logits of one step and the grammar's mask over them (not owned; valid during the call).
struct SamplerInput {
  const float* logits = nullptr;  // [n_vocab]
  size_t n_vocab = 0;
  // Bit i of mask[i / 64] (LSB first) set = token i allowed; nullptr = all allowed. Needs at
  // least ceil(n_vocab / 64) words; bits past n_vocab are ignored.
  const uint64_t* mask = nullptr;
  size_t mask_words = 0;
};

// One token of the final distribution, in walk order.
struct Candidate {
  uint32_t token = 0;
  float prob = 0.0f;  // after the cut and the temperature, renormalised
};

struct SampleResult {
  uint32_t token = 0;
  float prob = 0.0f;          // probability of `token` in the distribution it was drawn from
  uint32_t n_candidates = 0;  // tokens kept by the cut (1 for argmax)
};

// Scratch space for sampling. Holds no sequence data: any Sampler may serve any SamplerState.
// Not thread-safe; use one per thread. Params are validated on every call.
class Sampler {
 public:
  // Steps 1-7: draws a token (consuming exactly one RNG double unless it is an argmax) and
  // updates `state`.
  SampleResult sample(const SamplerParams& params, SamplerState& state, const SamplerInput& in);

  // Steps 1-5 without drawing or updating: the candidates a draw would choose from, in walk
  // order, with their probabilities. For inspection, tests and logprobs.
  std::vector<Candidate> distribution(const SamplerParams& params, const SamplerState& state,
                                      const SamplerInput& in);

 private:
  struct Cand {
    float key;    // ordering key, larger first: the logit, or -|-log p - H| for typical
    uint32_t id;  // the logit after steps 1-3 is work_[id]
  };
  // The result of steps 4-5 held in the scratch buffers.
  struct Cut {
    size_t kept = 0;      // tokens kept: a prefix of the order of step 4
    double total = 1.0;   // sum of the kept weights
    bool argmax = false;  // a single token, no draw
    float l_ref = 0.0f;   // weights are exp((l - l_ref) * inv_t)
    float inv_t = 1.0f;   // 1 / T of step 5
  };

  void check_input(const SamplerParams& params, const SamplerInput& in) const;
  void prepare(const SamplerParams& params, const SamplerState& state, const SamplerInput& in);
  void scan(size_t n);
  Cut cut(const SamplerParams& params, const SamplerState& state);
  size_t mass_cut(double z, float p_cut, size_t limit);
  void finish(Cut& c, bool zero_t, double total_all);
  size_t draw(const Cut& c, Rng& rng);
  size_t grow_hint(size_t i, double remaining, double w_last, size_t cap) const;
  void select_top(size_t m);
  void select_top_large(size_t m);
  void decode(const uint64_t* u, size_t n, unsigned id_bits, size_t first);
  void ensure_sorted(size_t count);
  void sort_rest();
  float logit(size_t i) const;
  double weight(const Cut& c, size_t i) const;

  std::vector<float> work_;         // [n_vocab] logits after steps 1-3; -inf = not drawable
  std::vector<Cand> cands_;         // [0, sorted_) = the first tokens of the order of step 4
  std::vector<uint64_t> radix_;     // sort_rest() scratch: composite keys and their copy
  std::vector<int32_t> block_max_;  // scan() scratch: per 64 tokens, the largest ordered key
  size_t sorted_ = 0;
  size_t n_valid_ = 0;       // drawable tokens
  float l_max_ = 0.0f;       // largest logit
  uint32_t argmax_ = 0;      // its lowest id
  std::vector<float> keys_;  // [n_vocab] typical's keys -|-log p - H|
  bool typical_ = false;     // order by keys_ rather than by the logits
};

// A human-readable name ("nucleus", ...) for messages and the CLI.
const char* sampler_method_name(SamplerMethod method) noexcept;

}  // namespace ai00::internal