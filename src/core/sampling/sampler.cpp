// Samplers: parameters, the per-sequence state and its bytes, and the sampling pipeline. The
// order of operations and the determinism rules are documented in sampler.h.
#include "core/sampling/sampler.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

#include "base/error.h"
#include "base/exp_sum.h"

namespace ai00::internal {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
// Token ids 65530..65535 of the RWKV World vocabulary carry no text (docs section 5, step 2).
constexpr uint32_t kFirstNoTextToken = 65530;
// From this many candidates to order at once, a radix sort beats std::sort.
constexpr size_t kRadixMin = 2048;

std::string num(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void check_range(const char* field, float v, float lo, float hi, bool lo_open = false) {
  const bool ok = lo_open ? (v > lo && v <= hi) : (v >= lo && v <= hi);  // false for NaN
  if (!ok) {
    throw InvalidArgument(std::string(field) + " = " + num(v) + " is outside " +
                          (lo_open ? "(" : "[") + num(lo) + ", " + num(hi) + "]");
  }
}

void validate_bias(const std::vector<LogitBias>& bias) {
  std::vector<std::pair<uint32_t, size_t>> seen;  // (token, index), to report duplicates
  seen.reserve(bias.size());
  for (size_t i = 0; i < bias.size(); ++i) {
    const float b = bias[i].bias;
    if (std::isnan(b) || b == kInf) {
      throw InvalidArgument("logit_bias[" + std::to_string(i) + "].bias = " + num(b) + " (token " +
                            std::to_string(bias[i].token) + ") must be finite or -inf");
    }
    seen.emplace_back(bias[i].token, i);
  }
  std::sort(seen.begin(), seen.end());
  for (size_t i = 1; i < seen.size(); ++i) {
    if (seen[i].first == seen[i - 1].first) {
      throw InvalidArgument("logit_bias[" + std::to_string(seen[i].second) +
                            "].token = " + std::to_string(seen[i].first) + " repeats logit_bias[" +
                            std::to_string(seen[i - 1].second) + "]");
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Parameters

const char* sampler_method_name(SamplerMethod method) noexcept {
  switch (method) {
    case SamplerMethod::nucleus:
      return "nucleus";
    case SamplerMethod::typical:
      return "typical";
    case SamplerMethod::mirostat_v2:
      return "mirostat_v2";
    case SamplerMethod::greedy:
      return "greedy";
  }
  return "unknown";
}

void validate(const SamplerParams& p) {
  if (static_cast<unsigned>(p.method) > static_cast<unsigned>(SamplerMethod::greedy)) {
    throw InvalidArgument("method = " + std::to_string(static_cast<unsigned>(p.method)) +
                          " is not a sampler method (0 nucleus, 1 typical, 2 mirostat_v2, "
                          "3 greedy)");
  }
  check_range("temperature", p.temperature, 0.0f, 1000.0f);
  check_range("top_p", p.top_p, 0.0f, 1.0f);
  check_range("min_p", p.min_p, 0.0f, 1.0f);
  check_range("typical_tau", p.typical_tau, 0.0f, 1.0f);
  check_range("mirostat_tau", p.mirostat_tau, 0.0f, 100.0f, /*lo_open=*/true);
  check_range("mirostat_rate", p.mirostat_rate, 0.0f, 1.0f, /*lo_open=*/true);
  check_range("presence_penalty", p.presence_penalty, -10.0f, 10.0f);
  check_range("frequency_penalty", p.frequency_penalty, -10.0f, 10.0f);
  check_range("penalty_decay", p.penalty_decay, 0.0f, 1.0f);
  check_range("repetition_penalty", p.repetition_penalty, 0.01f, 100.0f);
  validate_bias(p.logit_bias);
}

SamplerParams goose_preset(GoosePreset preset) {
  // seed 001, "Recommended Sampling Parameters"; ranges resolved to their middle (docs section 5).
  SamplerParams p;  // the chat preset, top_k 128
  switch (preset) {
    case GoosePreset::math:
      p.temperature = 0.3f;
      p.top_p = 0.3f;
      p.presence_penalty = 0.0f;
      p.frequency_penalty = 0.0f;
      p.penalty_decay = 0.996f;
      break;
    case GoosePreset::chat:
      break;
    case GoosePreset::creative:
      p.temperature = 0.6f;
      p.top_p = 0.7f;
      p.presence_penalty = 1.5f;
      p.frequency_penalty = 0.1f;
      p.penalty_decay = 0.99f;
      break;
  }
  return p;
}

SamplerParams ai00_server_defaults() {
  SamplerParams p;
  p.top_p = 0.5f;
  p.presence_penalty = 0.3f;
  p.frequency_penalty = 0.3f;
  p.penalty_decay = 0.99654026f;  // 0.5^(1/200)
  return p;
}

// ---------------------------------------------------------------------------------------------
// Vector-friendly helpers. Plain float code that g++ auto-vectorises at -O3; every lane does the
// same IEEE operations as the scalar tail, so results do not depend on vectorisation.

namespace {

inline uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// An int32 whose signed order is the order of the (non-NaN) float, with -0 equal to +0
// (f + 0 turns -0 into +0 and, unlike a select, keeps the loop vectorisable).
inline int32_t ordered_key(float f) {
  const float g = f + 0.0f;
  int32_t b;
  std::memcpy(&b, &g, 4);
  return b ^ ((b >> 31) & 0x7FFFFFFF);
}

// Number of i with x[i] - x_ref >= threshold.
size_t count_at_least(const float* x, size_t n, float x_ref, float threshold) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) count += (x[i] - x_ref) >= threshold ? 1 : 0;
  return count;
}

inline int ctz64(uint64_t v) {  // v != 0
#if defined(__GNUC__)
  return __builtin_ctzll(v);
#else
  int k = 0;
  for (; (v & 1u) == 0; v >>= 1) ++k;
  return k;
#endif
}

inline int popcount64(uint64_t v) {
#if defined(__GNUC__)
  return __builtin_popcountll(v);
#else
  int k = 0;
  for (; v != 0; v &= v - 1) ++k;
  return k;
#endif
}

// x[i] = -inf where bit i of the mask is clear; the bit loop runs over whichever is fewer.
void apply_mask(float* x, size_t n, const uint64_t* mask) {
  for (size_t w = 0; w * 64 < n; ++w) {
    const size_t base = w * 64;
    const size_t len = std::min<size_t>(64, n - base);
    const uint64_t valid = len == 64 ? ~uint64_t{0} : (uint64_t{1} << len) - 1;
    const uint64_t allowed = mask[w] & valid;
    if (allowed == valid) continue;
    float* xw = x + base;
    if (popcount64(allowed) < 32) {
      float keep[64];
      for (uint64_t b = allowed; b != 0; b &= b - 1) keep[ctz64(b)] = xw[ctz64(b)];
      std::fill(xw, xw + len, -kInf);
      for (uint64_t b = allowed; b != 0; b &= b - 1) xw[ctz64(b)] = keep[ctz64(b)];
    } else {
      for (uint64_t b = ~allowed & valid; b != 0; b &= b - 1) xw[ctz64(b)] = -kInf;
    }
  }
}

// Sorts u[0, n) ascending with an LSD radix sort (11-bit digits over the low `bits` bits; a
// digit that all values share costs no pass). Exact and library-independent.
void radix_sort(uint64_t* u, uint64_t* tmp, size_t n, unsigned bits) {
  constexpr unsigned kDigit = 11;
  constexpr size_t kBuckets = size_t{1} << kDigit;
  std::vector<uint32_t> count(kBuckets);
  for (unsigned shift = 0; shift < bits; shift += kDigit) {
    std::fill(count.begin(), count.end(), 0u);
    for (size_t i = 0; i < n; ++i) ++count[(u[i] >> shift) & (kBuckets - 1)];
    if (count[(u[0] >> shift) & (kBuckets - 1)] == n) continue;  // one bucket: nothing moves
    uint32_t sum = 0;
    for (uint32_t& c : count) {
      const uint32_t here = c;
      c = sum;
      sum += here;
    }
    for (size_t i = 0; i < n; ++i) tmp[count[(u[i] >> shift) & (kBuckets - 1)]++] = u[i];
    std::copy(tmp, tmp + n, u);
  }
}

// Moves the m smallest of u[0, n) (distinct values) to u[0, m), in no particular order: an MSD
// radix select on 11-bit digits from the top of the low `bits` bits. Each round keeps the
// buckets wholly below the m-th value and narrows to the bucket holding it; logits share their
// high bits, so two or three rounds usually suffice.
void radix_select(uint64_t* u, size_t n, size_t m, unsigned bits) {
  constexpr unsigned kDigit = 11;
  constexpr size_t kBuckets = size_t{1} << kDigit;
  std::vector<size_t> count(kBuckets);
  size_t lo = 0;
  size_t hi = n;
  int shift = static_cast<int>(bits) - static_cast<int>(kDigit);
  while (m > lo && hi - lo > m - lo) {
    const unsigned sh = shift > 0 ? static_cast<unsigned>(shift) : 0u;
    std::fill(count.begin(), count.end(), size_t{0});
    for (size_t i = lo; i < hi; ++i) ++count[(u[i] >> sh) & (kBuckets - 1)];
    size_t below = 0;
    size_t b = 0;
    while (below + count[b] < m - lo) below += count[b++];
    uint64_t* first = u + lo;
    uint64_t* mid =
        std::partition(first, u + hi, [&](uint64_t v) { return ((v >> sh) & (kBuckets - 1)) < b; });
    std::partition(mid, u + hi, [&](uint64_t v) { return ((v >> sh) & (kBuckets - 1)) == b; });
    lo += below;
    hi = lo + count[b];
    if (sh == 0) break;  // the last digit: one value per bucket, so the bucket is the m-th
    shift -= static_cast<int>(kDigit);
  }
}

// Maps a key to 32 bits whose ascending order is the key's descending order (-0 counts as +0,
// as in KeyOrder; keys are never NaN).
inline uint32_t descending_bits(float key) {
  uint32_t b = float_bits(key);
  if (b == 0x80000000u) b = 0;
  const uint32_t ascending = (b & 0x80000000u) != 0 ? ~b : (b | 0x80000000u);
  return ~ascending;
}

// Bits needed for a token id below n.
inline unsigned id_bits_for(size_t n) {
  unsigned bits = 1;
  while ((size_t{1} << bits) < n) ++bits;
  return bits;
}

// Strict total order of step 4: larger key first, ties by lower id. Being total, every partial
// sort gives the same sequence with any standard library.
struct KeyOrder {
  template <class C>
  bool operator()(const C& a, const C& b) const {
    return a.key > b.key || (a.key == b.key && a.id < b.id);
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Sampler: steps 1-3 (penalties, mask, bias)

void Sampler::check_input(const SamplerParams& params, const SamplerInput& in) const {
  const size_t n_vocab = in.n_vocab;
  if (in.logits == nullptr || n_vocab == 0) {
    throw InvalidArgument(
        "sampler: logits are null or empty (n_vocab = " + std::to_string(n_vocab) + ")");
  }
  if (n_vocab > (size_t{1} << 31)) {
    throw InvalidArgument("sampler: n_vocab = " + std::to_string(n_vocab) + " is too large");
  }
  if (in.mask == nullptr && in.mask_words != 0) {
    throw InvalidArgument("sampler: mask is null but mask_words = " +
                          std::to_string(in.mask_words));
  }
  if (in.mask != nullptr && in.mask_words < (n_vocab + 63) / 64) {
    throw InvalidArgument("sampler: mask has " + std::to_string(in.mask_words) + " words (" +
                          std::to_string(in.mask_words * 64) + " tokens) but the vocabulary has " +
                          std::to_string(n_vocab) + " tokens");
  }
  for (size_t i = 0; i < params.logit_bias.size(); ++i) {
    if (params.logit_bias[i].token >= n_vocab) {
      throw InvalidArgument("logit_bias[" + std::to_string(i) +
                            "].token = " + std::to_string(params.logit_bias[i].token) +
                            " is outside the vocabulary [0, " + std::to_string(n_vocab) + ")");
    }
  }
}

void Sampler::prepare(const SamplerParams& params, const SamplerState& state,
                      const SamplerInput& in) {
  check_input(params, in);
  const size_t n = in.n_vocab;
  work_.resize(n);
  float* x = work_.data();
  // +inf is clamped so that exp(l - l_max) stays defined; NaN becomes -inf (never drawn).
  for (size_t i = 0; i < n; ++i) {
    const float l = in.logits[i];
    x[i] = l == l ? (l < FLT_MAX ? l : FLT_MAX) : -kInf;
  }
  // Step 1: penalties (mirostat controls repetition through its surprise target instead).
  if (params.method != SamplerMethod::mirostat_v2) {
    const float rep = params.repetition_penalty;
    for (const PenaltyEntry& e : state.penalties()) {
      if (e.token >= n) continue;  // from a larger vocabulary: nothing to penalise
      float l = x[e.token];
      if (rep != 1.0f) {
        const float r = 1.0f + (rep - 1.0f) * e.weight;
        l = l > 0.0f ? l / r : l * r;
      }
      x[e.token] = l - e.penalty;
    }
  }
  // Step 2: the mask, the no-text ids and ban_eos.
  if (in.mask != nullptr) apply_mask(x, n, in.mask);
  for (size_t i = kFirstNoTextToken; i < n; ++i) x[i] = -kInf;
  if (params.ban_eos) x[0] = -kInf;
  // Step 3: bias. A masked token stays -inf whatever its bias.
  for (const LogitBias& b : params.logit_bias) {
    const float l = x[b.token] + b.bias;
    x[b.token] = l < FLT_MAX ? l : FLT_MAX;
  }
  scan(n);
}

// The largest logit, its lowest id and the number of drawable tokens. Float max does not
// vectorise in g++ without -ffinite-math-only, so the maximum is taken over order-preserving
// integer keys, per block of 64; the first block holding it is then searched.
void Sampler::scan(size_t n) {
  const float* x = work_.data();
  const int32_t no_key = ordered_key(-kInf);
  block_max_.resize((n + 63) / 64);
  int32_t m = no_key;
  size_t count = 0;
  for (size_t b = 0; b < block_max_.size(); ++b) {
    const float* xb = x + b * 64;
    const size_t len = std::min<size_t>(64, n - b * 64);
    int32_t bm = no_key;
    uint32_t c = 0;
    for (size_t t = 0; t < len; ++t) {
      const int32_t k = ordered_key(xb[t]);
      bm = k > bm ? k : bm;
      c += k > no_key ? 1u : 0u;
    }
    block_max_[b] = bm;
    m = bm > m ? bm : m;
    count += c;
  }
  if (count == 0) {
    throw InvalidArgument(
        "sampler: no token can be drawn: all " + std::to_string(n) +
        " logits are -inf or NaN after the mask, ban_eos, the no-text ids 65530-65535 and the "
        "logit bias");
  }
  size_t a =
      static_cast<size_t>(std::find(block_max_.begin(), block_max_.end(), m) - block_max_.begin()) *
      64;
  while (ordered_key(x[a]) != m) ++a;
  l_max_ = x[a];
  argmax_ = static_cast<uint32_t>(a);
  n_valid_ = count;
  sorted_ = 0;
  cands_.clear();
}

// ---------------------------------------------------------------------------------------------
// Sampler: the order of step 4, built lazily

// Fills cands_ with exactly the first m tokens of the order (unsorted), in one pass over the keys:
// a buffer of up to 2m entries is cut back to the best m whenever it fills, and its m-th key
// becomes the bar to beat. A token tying the bar loses (its id is larger), so the strict
// comparison is exact. Blocks of 16 whose largest key does not beat the bar are skipped whole.
void Sampler::select_top(size_t m) {
  if (m >= kRadixMin) {
    select_top_large(m);
    return;
  }
  const float* keys = typical_ ? keys_.data() : work_.data();
  const size_t n = work_.size();
  cands_.clear();
  cands_.reserve(2 * m);
  float bar = -kInf;
  auto consider = [&](size_t i) {
    if (!(keys[i] > bar)) return;
    cands_.push_back(Cand{keys[i], static_cast<uint32_t>(i)});
    if (cands_.size() == 2 * m) {
      std::nth_element(cands_.begin(), cands_.begin() + static_cast<std::ptrdiff_t>(m - 1),
                       cands_.end(), KeyOrder{});
      cands_.resize(m);
      bar = cands_[m - 1].key;
    }
  };
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    float top = keys[i];
    for (size_t j = 1; j < 16; ++j) top = keys[i + j] > top ? keys[i + j] : top;
    if (!(top > bar)) continue;
    for (size_t j = 0; j < 16; ++j) consider(i + j);
  }
  for (; i < n; ++i) consider(i);
  if (cands_.size() > m) {
    std::nth_element(cands_.begin(), cands_.begin() + static_cast<std::ptrdiff_t>(m - 1),
                     cands_.end(), KeyOrder{});
    cands_.resize(m);
  }
  sorted_ = 0;
}

// select_top for thousands of tokens: every drawable token as one integer (key, id) whose
// ascending order is the order of step 4, a radix select and a radix sort of the first m,
// which leaves cands_ fully sorted.
void Sampler::select_top_large(size_t m) {
  const float* keys = typical_ ? keys_.data() : work_.data();
  const size_t n = work_.size();
  const unsigned id_bits = id_bits_for(n);
  radix_.resize(n_valid_ + m);
  uint64_t* u = radix_.data();
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!(keys[i] > -kInf)) continue;
    u[k++] = (uint64_t{descending_bits(keys[i])} << id_bits) | i;
  }
  if (m < k) radix_select(u, k, m, 32 + id_bits);
  radix_sort(u, u + n_valid_, m, 32 + id_bits);
  decode(u, m, id_bits, 0);
  sorted_ = m;
}

// Makes cands_[0, count) the first `count` tokens of the order (count <= n_valid_). The
// collection grows by 4x at least (a pass over the vocabulary each time), the sorted prefix by
// 2x inside it, so a long walk sorts about what it reads.
void Sampler::ensure_sorted(size_t count) {
  if (count <= sorted_) return;
  if (count > cands_.size()) {
    select_top(std::min(n_valid_, std::max({count, cands_.size() * 4, size_t{64}})));
  }
  const size_t target = std::min(cands_.size(), std::max({count, sorted_ * 2, size_t{64}}));
  if (target - sorted_ >= kRadixMin) {
    sort_rest();
    return;
  }
  const auto first = cands_.begin() + static_cast<std::ptrdiff_t>(sorted_);
  const auto mid = cands_.begin() + static_cast<std::ptrdiff_t>(target);
  if (mid != cands_.end()) std::nth_element(first, mid, cands_.end(), KeyOrder{});
  std::sort(first, mid, KeyOrder{});
  sorted_ = target;
}

// Sorts all of cands_[sorted_, end) at once by radix on (key, id): for long walks, where a
// comparison sort of thousands of candidates would dominate.
void Sampler::sort_rest() {
  const size_t n = cands_.size() - sorted_;
  const unsigned id_bits = id_bits_for(work_.size());
  radix_.resize(2 * n);
  uint64_t* u = radix_.data();
  for (size_t i = 0; i < n; ++i) {
    const Cand& c = cands_[sorted_ + i];
    u[i] = (uint64_t{descending_bits(c.key)} << id_bits) | c.id;
  }
  radix_sort(u, u + n, n, 32 + id_bits);
  decode(u, n, id_bits, sorted_);
  sorted_ = cands_.size();
}

// cands_[first + i] = the token of composite u[i] (resizing cands_ to fit).
void Sampler::decode(const uint64_t* u, size_t n, unsigned id_bits, size_t first) {
  const uint64_t id_mask = (uint64_t{1} << id_bits) - 1;
  const float* keys = typical_ ? keys_.data() : work_.data();
  cands_.resize(first + n);
  for (size_t i = 0; i < n; ++i) {
    const auto id = static_cast<uint32_t>(u[i] & id_mask);
    cands_[first + i] = Cand{keys[id], id};
  }
}

float Sampler::logit(size_t i) const { return work_[cands_[i].id]; }

// ---------------------------------------------------------------------------------------------
// Sampler: step 4 (the cut) and step 5 (temperature)

double Sampler::weight(const Cut& c, size_t i) const {
  return static_cast<double>(exp_nonpos((logit(i) - c.l_ref) * c.inv_t));
}

// Keeps the smallest head of the order whose probability mass reaches p_cut * z, at most
// `limit` tokens and at least one.
size_t Sampler::mass_cut(double z, float p_cut, size_t limit) {
  if (p_cut >= 1.0f) return limit;
  const double target = static_cast<double>(p_cut) * z;
  double cum = 0.0;
  double w = 1.0;
  for (size_t i = 0; i < limit; ++i) {
    ensure_sorted(grow_hint(i, target - cum, w, limit));
    w = static_cast<double>(exp_nonpos(logit(i) - l_max_));
    cum += w;
    if (cum >= target) return i + 1;
  }
  return limit;
}

// How many tokens a walk at position i will read at least: with weights that never grow along
// the order (every order but typical's), reaching `remaining` more mass takes at least
// remaining / w_last more tokens. Only a sizing hint for ensure_sorted: results never depend
// on it.
size_t Sampler::grow_hint(size_t i, double remaining, double w_last, size_t cap) const {
  if (i < sorted_ || typical_ || !(w_last > 0.0)) return i + 1;
  const double more = remaining / w_last;
  if (!(more < static_cast<double>(cap))) return cap;
  return std::min(cap, std::max(i + 1, i + static_cast<size_t>(more)));
}

Sampler::Cut Sampler::cut(const SamplerParams& p, const SamplerState& state) {
  Cut c;
  c.l_ref = l_max_;
  typical_ = false;
  // A temperature so small that 1/T overflows acts as 0.
  const bool zero_t = p.temperature == 0.0f || !(1.0f / p.temperature < kInf);
  if (p.method == SamplerMethod::greedy || (p.method == SamplerMethod::nucleus && zero_t)) {
    cands_.assign(1, Cand{l_max_, argmax_});
    sorted_ = 1;
    c.kept = 1;
    c.argmax = true;
    return c;
  }
  const bool mirostat = p.method == SamplerMethod::mirostat_v2;
  const size_t n = work_.size();
  const bool typical = p.method == SamplerMethod::typical;
  const ExpSums sums = exp_sums(work_.data(), n, l_max_, 1.0f, typical);
  const double z = sums.e;  // the softmax normaliser, in id order
  if (typical) {
    // -log p - H = mean - d, with d = l - l_max and mean = E_p[d]: the key is -|mean - d|.
    const auto mean = static_cast<float>(sums.ed / z);
    keys_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      keys_[i] = -std::fabs(mean - (work_[i] - l_max_));  // -inf if masked
    }
    typical_ = true;
  }
  c.inv_t = (mirostat || zero_t) ? 1.0f : 1.0f / p.temperature;
  const size_t limit = (mirostat || p.top_k == 0) ? n_valid_ : std::min<size_t>(p.top_k, n_valid_);
  // When every token may be kept, the weight sum is taken now in id order: the walk never
  // needs the whole order, and a partial sort must not decide the summation order.
  double total_all = 0.0;
  if (limit == n_valid_) {
    total_all = c.inv_t != 1.0f ? exp_sums(work_.data(), n, l_max_, c.inv_t, false).e : z;
  }
  if (mirostat) {
    // Keep tokens whose surprise -log2 p is at most mu: d >= ln z - mu * ln 2.
    const double mu = state.has_mirostat_mu() ? state.mirostat_mu() : 2.0 * p.mirostat_tau;
    const auto threshold = static_cast<float>(std::log(z) - mu * std::log(2.0));
    c.kept = std::max<size_t>(count_at_least(work_.data(), n, l_max_, threshold), 1);
  } else if (typical_) {
    c.kept = mass_cut(z, p.typical_tau, limit);
  } else {
    c.kept = mass_cut(z, p.top_p, limit);
    if (p.min_p > 0.0f) {
      // p >= min_p * p_max  <=>  d >= ln min_p: a prefix of the order, since d grows with l.
      const size_t count = count_at_least(work_.data(), n, l_max_, std::log(p.min_p));
      c.kept = std::max<size_t>(std::min(c.kept, count), 1);
    }
  }
  finish(c, zero_t, total_all);
  return c;
}

// The weight sum of the kept head (and its reference logit), or for typical at T = 0 the most
// likely kept token (nucleus took the argmax path above).
void Sampler::finish(Cut& c, bool zero_t, double total_all) {
  const bool all = c.kept == n_valid_;
  if (!all) ensure_sorted(c.kept);
  if (zero_t) {
    size_t best = 0;
    for (size_t i = 1; i < c.kept && !all; ++i) {
      if (logit(i) > logit(best) || (logit(i) == logit(best) && cands_[i].id < cands_[best].id)) {
        best = i;
      }
    }
    const uint32_t id = all ? argmax_ : cands_[best].id;
    cands_.assign(1, Cand{work_[id], id});
    sorted_ = 1;
    c.kept = 1;
    c.argmax = true;
    c.total = 1.0;
    return;
  }
  if (all) {
    c.total = total_all;  // weights relative to l_max, as in total_all
    return;
  }
  // Typical may drop the most likely token: weights are relative to the kept maximum so that
  // the largest is exactly 1 and the sum never underflows.
  float l_ref = -kInf;
  for (size_t i = 0; i < c.kept; ++i) l_ref = std::max(l_ref, logit(i));
  c.l_ref = l_ref;
  double total = 0.0;
  for (size_t i = 0; i < c.kept; ++i) total += weight(c, i);
  c.total = total;
}

// ---------------------------------------------------------------------------------------------
// Sampler: steps 6 and 7

// Step 6: walks the cumulative weights in the order of step 4.
size_t Sampler::draw(const Cut& c, Rng& rng) {
  const double target = rng.next_double() * c.total;
  double cum = 0.0;
  size_t last_positive = 0;
  double w = 1.0;
  for (size_t i = 0; i < c.kept; ++i) {
    ensure_sorted(grow_hint(i, target - cum, w, c.kept));
    w = weight(c, i);
    cum += w;
    if (w > 0.0) last_positive = i;
    if (target < cum) return i;
  }
  // Rounding (a sum in id order walked in sorted order) can leave target >= cum at the end:
  // the last token with a positive weight is then the one the exact sum would reach.
  return last_positive;
}

SampleResult Sampler::sample(const SamplerParams& params, SamplerState& state,
                             const SamplerInput& in) {
  validate(params);
  prepare(params, state, in);
  const Cut c = cut(params, state);
  const size_t chosen = c.argmax ? 0 : draw(c, state.rng());
  const double w = c.argmax ? 1.0 : weight(c, chosen);
  SampleResult r;
  r.token = cands_[chosen].id;
  r.prob = static_cast<float>(w / c.total);
  r.n_candidates = static_cast<uint32_t>(c.kept);
  if (params.method == SamplerMethod::mirostat_v2) {
    // mu <- mu - rate * (surprise - tau), surprise = -log2 of the renormalised probability;
    // clamped at 4 tau (ai00).
    const double tau = params.mirostat_tau;
    const double mu = state.has_mirostat_mu() ? state.mirostat_mu() : 2.0 * tau;
    const double surprise = std::log2(c.total) - std::log2(w);
    const double next = std::min(mu - params.mirostat_rate * (surprise - tau), 4.0 * tau);
    state.set_mirostat_mu(static_cast<float>(next));
  }
  state.charge(r.token, params);  // params were validated above
  return r;
}

std::vector<Candidate> Sampler::distribution(const SamplerParams& params, const SamplerState& state,
                                             const SamplerInput& in) {
  validate(params);
  prepare(params, state, in);
  const Cut c = cut(params, state);
  ensure_sorted(c.kept);
  std::vector<Candidate> out(c.kept);
  for (size_t i = 0; i < c.kept; ++i) {
    out[i].token = cands_[i].id;
    out[i].prob = c.argmax ? 1.0f : static_cast<float>(weight(c, i) / c.total);
  }
  return out;
}

}  // namespace ai00::internal