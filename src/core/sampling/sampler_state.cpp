// SamplerState: the per-sequence penalty table, seed, RNG and mirostat mu, and their bytes
// (format documented in sampler.h). Split from sampler.cpp, which holds the sampling pipeline.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "core/sampling/sampler.h"

namespace ai00::internal {

// ---------------------------------------------------------------------------------------------
// SamplerState: penalty table

void SamplerState::set_seed(uint64_t seed) noexcept {
  seed_ = seed;
  rng_.reseed(seed);
}

void SamplerState::reset(uint64_t seed) noexcept {
  set_seed(seed);
  table_.clear();
  has_mu_ = false;
  mu_ = 0.0f;
}

void SamplerState::accept(uint32_t token, const SamplerParams& params) {
  validate(params);
  charge(token, params);
}

void SamplerState::charge(uint32_t token, const SamplerParams& params) {
  const float decay = params.penalty_decay;
  for (PenaltyEntry& e : table_) {
    e.penalty *= decay;
    e.weight *= decay;
  }
  auto it = std::lower_bound(table_.begin(), table_.end(), token,
                             [](const PenaltyEntry& e, uint32_t t) { return e.token < t; });
  if (it != table_.end() && it->token == token) {
    it->penalty += params.frequency_penalty;
    it->weight = 1.0f;
  } else {
    table_.insert(it, PenaltyEntry{token, params.presence_penalty, 1.0f});
  }
}

void SamplerState::accept(const uint32_t* tokens, size_t count, const SamplerParams& params) {
  if (count != 0 && tokens == nullptr) throw InvalidArgument("accept: tokens is null");
  validate(params);
  for (size_t i = 0; i < count; ++i) charge(tokens[i], params);
}

void SamplerState::set_mirostat_mu(float mu) {
  if (!std::isfinite(mu)) {
    throw InvalidArgument("mirostat mu = " + std::to_string(mu) + " is not finite");
  }
  mu_ = mu;
  has_mu_ = true;
}

float SamplerState::penalty(uint32_t token) const noexcept {
  auto it = std::lower_bound(table_.begin(), table_.end(), token,
                             [](const PenaltyEntry& e, uint32_t t) { return e.token < t; });
  return (it != table_.end() && it->token == token) ? it->penalty : 0.0f;
}

bool SamplerState::operator==(const SamplerState& o) const noexcept {
  if (seed_ != o.seed_ || rng_.words() != o.rng_.words() || has_mu_ != o.has_mu_) return false;
  if (has_mu_ && std::memcmp(&mu_, &o.mu_, sizeof mu_) != 0) return false;
  if (table_.size() != o.table_.size()) return false;
  for (size_t i = 0; i < table_.size(); ++i) {
    const PenaltyEntry& a = table_[i];
    const PenaltyEntry& b = o.table_[i];
    if (a.token != b.token || std::memcmp(&a.penalty, &b.penalty, 4) != 0 ||
        std::memcmp(&a.weight, &b.weight, 4) != 0) {
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// SamplerState: bytes

namespace {

constexpr uint8_t kMagic[4] = {'A', 'I', 'S', 'S'};
constexpr uint32_t kStateVersion = 1;
// magic, version, size, seed, rng[4], flags, mu, n
constexpr size_t kHeaderBytes = 4 + 4 + 4 + 8 + 32 + 4 + 4 + 4;
constexpr size_t kEntryBytes = 12;
constexpr size_t kChecksumBytes = 8;

struct Writer {
  uint8_t* p;
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) *p++ = static_cast<uint8_t>(v >> (8 * i));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) *p++ = static_cast<uint8_t>(v >> (8 * i));
  }
  void f32(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    u32(b);
  }
};

struct Reader {
  const uint8_t* base;
  size_t pos;
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(base[pos++]) << (8 * i);
    return v;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(base[pos++]) << (8 * i);
    return v;
  }
  float f32() {
    const uint32_t b = u32();
    float v;
    std::memcpy(&v, &b, 4);
    return v;
  }
};

[[noreturn]] void bad_bytes(size_t offset, const std::string& what) {
  throw ModelFileError("sampler state: " + what + " at byte " + std::to_string(offset));
}

}  // namespace

size_t SamplerState::serialized_size() const noexcept {
  return kHeaderBytes + table_.size() * kEntryBytes + kChecksumBytes;
}

void SamplerState::serialize(uint8_t* out, size_t size) const {
  const size_t need = serialized_size();
  if (out == nullptr || size < need) {
    throw InvalidArgument("sampler state: output buffer of " + std::to_string(size) +
                          " bytes is smaller than the " + std::to_string(need) + " needed");
  }
  Writer w{out};
  std::memcpy(w.p, kMagic, 4);
  w.p += 4;
  w.u32(kStateVersion);
  w.u32(static_cast<uint32_t>(need));
  w.u64(seed_);
  for (uint64_t word : rng_.words()) w.u64(word);
  w.u32(has_mu_ ? 1u : 0u);
  w.f32(has_mu_ ? mu_ : 0.0f);
  w.u32(static_cast<uint32_t>(table_.size()));
  for (const PenaltyEntry& e : table_) {
    w.u32(e.token);
    w.f32(e.penalty);
    w.f32(e.weight);
  }
  w.u64(fnv1a64(out, need - kChecksumBytes));
}

std::vector<uint8_t> SamplerState::serialize() const {
  std::vector<uint8_t> bytes(serialized_size());
  serialize(bytes.data(), bytes.size());
  return bytes;
}

SamplerState SamplerState::deserialize(const uint8_t* data, size_t size) {
  if (data == nullptr && size != 0) throw InvalidArgument("sampler state: data is null");
  if (size < kHeaderBytes + kChecksumBytes) {
    throw ModelFileError("sampler state: truncated: " + std::to_string(size) +
                         " bytes given, at least " + std::to_string(kHeaderBytes + kChecksumBytes) +
                         " needed");
  }
  if (std::memcmp(data, kMagic, 4) != 0) bad_bytes(0, "bad magic (expected \"AISS\")");
  Reader r{data, 4};
  const uint32_t version = r.u32();
  if (version != kStateVersion) {
    throw UnsupportedError("sampler state: version " + std::to_string(version) +
                           " is not supported (this library reads version " +
                           std::to_string(kStateVersion) + ")");
  }
  const uint32_t total = r.u32();
  if (total != size) {
    bad_bytes(8, "size field says " + std::to_string(total) + " bytes but " + std::to_string(size) +
                     " were given");
  }
  const uint64_t stored_sum = Reader{data, size - kChecksumBytes}.u64();
  if (stored_sum != fnv1a64(data, size - kChecksumBytes)) {
    bad_bytes(size - kChecksumBytes, "checksum mismatch (corrupted data)");
  }
  SamplerState s;
  s.seed_ = r.u64();
  Rng::Words words;
  for (uint64_t& word : words) word = r.u64();
  if (words == Rng::Words{}) bad_bytes(20, "RNG state is all zero");
  s.rng_.set_words(words);
  const size_t flags_at = r.pos;
  const uint32_t flags = r.u32();
  if (flags > 1u) bad_bytes(flags_at, "unknown flags " + std::to_string(flags));
  s.has_mu_ = flags == 1u;
  s.mu_ = r.f32();
  if (!std::isfinite(s.mu_)) bad_bytes(flags_at + 4, "mirostat mu is not finite");
  const uint32_t n = r.u32();
  if (size != kHeaderBytes + size_t{n} * kEntryBytes + kChecksumBytes) {
    bad_bytes(kHeaderBytes - 4, std::to_string(n) + " penalty entries do not fit in " +
                                    std::to_string(size) + " bytes");
  }
  s.table_.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t at = r.pos;
    PenaltyEntry& e = s.table_[i];
    e.token = r.u32();
    e.penalty = r.f32();
    e.weight = r.f32();
    if (i > 0 && e.token <= s.table_[i - 1].token) {
      bad_bytes(at, "penalty entry " + std::to_string(i) + " (token " + std::to_string(e.token) +
                        ") is not in increasing token order");
    }
    if (!std::isfinite(e.penalty) || !std::isfinite(e.weight)) {
      bad_bytes(at + 4, "penalty entry " + std::to_string(i) + " is not finite");
    }
  }
  return s;
}

}  // namespace ai00::internal