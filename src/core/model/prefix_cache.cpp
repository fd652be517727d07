// PrefixCache: index, LRU eviction, bf16 packing and warming (prefix_cache.h).
#include "core/model/prefix_cache.h"

#include <algorithm>
#include <cstring>
#include <list>
#include <map>
#include <string>
#include <unordered_map>

#include "base/error.h"
#include "base/half.h"
#include "base/rng.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/tokenizer/tokenizer.h"

namespace ai00::internal {

// The megabytes of an entry, kept apart from it so that they can outlive it (prefix_cache.h
// "Memory").
struct PrefixCache::Payload {
  std::vector<float> floats;     // State floats (uncompressed) ...
  std::vector<uint16_t> halves;  // ... or their bf16 (compress_bf16)
  std::vector<float> logits;     // [V] after the prefix's last token
  // Bytes counted against max_bytes: entry_bytes() without the tokens.
  size_t bytes() const;
};

// What a payload must hold for a model: its State floats (as floats or as halves: one cache
// stores them one way) and V logits.
struct PrefixCache::Shape {
  size_t floats = 0;
  size_t vocab = 0;
  bool holds(const Payload& p) const {
    return p.floats.size() + p.halves.size() == floats && p.logits.size() == vocab;
  }
};

struct PrefixCache::Entry {
  uint64_t fingerprint = 0;
  uint64_t key = 0;
  std::vector<uint32_t> tokens;  // the prefix
  Payload payload;               // the State after it and the logits of its last token
  size_t bytes = 0;              // entry_bytes
};

struct PrefixCache::Index {
  using Lru = std::list<std::shared_ptr<Entry>>;
  Lru lru;  // front = most recently used
  std::unordered_multimap<uint64_t, Lru::iterator> by_key;
  // Prefix lengths stored per model fingerprint, with their entry counts: the lookup tries
  // these lengths only, longest first.
  std::map<uint64_t, std::map<size_t, size_t>> lengths;
  uint64_t bytes = 0;
  std::vector<Payload> spares;  // memory set aside for later entries
  uint64_t spare_bytes = 0;     // their bytes, and those of spares being allocated
};

namespace {

constexpr size_t kEntryOverhead = 256;

// h[i] is the hash of tokens[0..i), chained token by token (h[0] a constant).
std::vector<uint64_t> prefix_hashes(const uint32_t* tokens, size_t n) {
  std::vector<uint64_t> h(n + 1);
  h[0] = 0x243F6A8885A308D3ull;
  for (size_t i = 0; i < n; ++i) h[i + 1] = splitmix64(h[i] ^ (uint64_t{tokens[i]} + 1));
  return h;
}

uint64_t entry_key(uint64_t fingerprint, size_t length, uint64_t prefix_hash) {
  return splitmix64(fingerprint ^ splitmix64(prefix_hash + length));
}

}  // namespace

PrefixCache::PrefixCache(const PrefixCacheParams& params)
    : params_(params), index_(std::make_unique<Index>()) {
  stats_.max_bytes = params.max_bytes;
}

PrefixCache::~PrefixCache() = default;

size_t PrefixCache::Payload::bytes() const {
  return floats.size() * 4 + halves.size() * 2 + logits.size() * 4 + kEntryOverhead;
}

size_t PrefixCache::entry_bytes(const Model& model, size_t n, bool bf16) {
  const ModelConfig& c = model.config();
  const size_t floats = static_cast<size_t>(c.state_floats());
  return floats * (bf16 ? 2 : 4) + static_cast<size_t>(c.vocab) * 4 + n * 4 + kEntryOverhead;
}

std::shared_ptr<const PrefixCache::Entry> PrefixCache::find(uint64_t fingerprint,
                                                            const uint32_t* tokens, size_t n) {
  const std::vector<uint64_t> h = prefix_hashes(tokens, n);
  std::lock_guard<std::mutex> lock(mutex_);
  auto lens = index_->lengths.find(fingerprint);
  if (lens == index_->lengths.end()) return nullptr;
  for (auto it = lens->second.rbegin(); it != lens->second.rend(); ++it) {
    const size_t len = it->first;
    if (len > n) continue;
    auto range = index_->by_key.equal_range(entry_key(fingerprint, len, h[len]));
    for (auto k = range.first; k != range.second; ++k) {
      const Entry& e = **k->second;
      if (e.fingerprint != fingerprint || e.tokens.size() != len ||
          !std::equal(e.tokens.begin(), e.tokens.end(), tokens))
        continue;  // a hash collision: verified against the stored tokens
      index_->lru.splice(index_->lru.begin(), index_->lru, k->second);
      return *k->second;
    }
  }
  return nullptr;
}

void PrefixCache::copy_out(const Entry& e, State& state, std::vector<float>* logits) const {
  const Payload& p = e.payload;
  float* dst = state.data();  // clears State::pristine()
  if (!p.halves.empty()) {
    for (size_t i = 0; i < p.halves.size(); ++i) dst[i] = bf16_to_f32(p.halves[i]);
  } else {
    std::memcpy(dst, p.floats.data(), p.floats.size() * sizeof(float));
  }
  if (logits != nullptr) *logits = p.logits;
}

size_t PrefixCache::restore(const Model& model, State& state, const uint32_t* tokens, size_t n,
                            std::vector<float>* logits) {
  state.check_model(model);
  if (!state.pristine())
    throw InvalidArgument(
        "PrefixCache::restore: the State is not pristine (prompt tokens are relative to the "
        "State's content; only a new or reset State may start from a cached prefix)");
  if (tokens == nullptr && n > 0) throw InvalidArgument("PrefixCache::restore: tokens is null");
  std::shared_ptr<const Entry> e = find(model.fingerprint(), tokens, n);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (e) {
      ++stats_.hits;
      stats_.hit_tokens += e->tokens.size();
    } else {
      ++stats_.misses;
    }
  }
  if (!e) return 0;
  copy_out(*e, state, logits);
  return e->tokens.size();
}

bool PrefixCache::insert(const Model& model, const State& state, const uint32_t* tokens, size_t n,
                         const float* logits) {
  state.check_model(model);
  if (n == 0 || tokens == nullptr)
    throw InvalidArgument("PrefixCache::insert: the prefix is empty");
  if (logits == nullptr)
    throw InvalidArgument("PrefixCache::insert: logits is null (the " +
                          std::to_string(model.config().vocab) + " logits of the last token)");
  const uint64_t fp = model.fingerprint();
  const uint64_t key = entry_key(fp, n, prefix_hashes(tokens, n).back());
  const size_t bytes = entry_bytes(model, n, params_.compress_bf16);
  if (bytes > params_.max_bytes) return false;
  if (auto stored = find(fp, tokens, n); stored && stored->tokens.size() == n)
    return false;  // already stored: find() made it most recent
  const Shape shape{state.size(), static_cast<size_t>(model.config().vocab)};
  auto e = std::make_shared<Entry>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    e->payload = take_payload(shape, bytes);
  }
  // Fill the entry outside the lock (the copies are the expensive part); assign() into memory
  // of the right size reuses it.
  e->fingerprint = fp;
  e->key = key;
  e->tokens.assign(tokens, tokens + n);
  const float* src = state.data();
  Payload& p = e->payload;
  if (params_.compress_bf16) {
    p.halves.resize(state.size());
    for (size_t i = 0; i < state.size(); ++i) p.halves[i] = f32_to_bf16(src[i]);
  } else {
    p.floats.assign(src, src + state.size());
  }
  p.logits.assign(logits, logits + model.config().vocab);
  e->bytes = bytes;

  std::lock_guard<std::mutex> lock(mutex_);
  // Another thread may have stored the same prefix meanwhile: keep the memory if it fits.
  auto range = index_->by_key.equal_range(key);
  for (auto k = range.first; k != range.second; ++k) {
    if ((*k->second)->tokens == e->tokens && (*k->second)->fingerprint == fp) {
      const size_t pb = p.bytes();
      if (index_->bytes + index_->spare_bytes + pb <= params_.max_bytes) {
        index_->spare_bytes += pb;
        index_->spares.push_back(std::move(p));
      }
      return false;
    }
  }
  make_room(bytes, nullptr, nullptr);
  index_->lru.push_front(std::move(e));
  index_->by_key.emplace(key, index_->lru.begin());
  ++index_->lengths[fp][n];
  index_->bytes += bytes;
  ++stats_.inserts;
  return true;
}

PrefixCache::Payload PrefixCache::take_payload(const Shape& shape, size_t bytes) {
  Payload p;
  auto& spares = index_->spares;
  for (size_t i = 0; i < spares.size(); ++i) {
    if (!shape.holds(spares[i])) continue;
    index_->spare_bytes -= spares[i].bytes();
    p = std::move(spares[i]);
    spares.erase(spares.begin() + static_cast<std::ptrdiff_t>(i));
    return p;
  }
  // None set aside: make the room now, so that an evicted entry's memory serves this insert (a
  // full cache then reuses memory instead of faulting in fresh pages for every insert).
  make_room(bytes, &shape, &p);
  return p;
}

void PrefixCache::make_room(size_t bytes, const Shape* shape, Payload* keep) {
  Index& ix = *index_;
  while (ix.bytes + ix.spare_bytes + bytes > params_.max_bytes) {
    if (!ix.spares.empty()) {
      ix.spare_bytes -= ix.spares.back().bytes();
      ix.spares.pop_back();
    } else if (!ix.lru.empty()) {
      evict_last(shape, keep);
    } else {
      break;  // only spares still being allocated by reserve(): the bound is theirs to keep
    }
  }
}

void PrefixCache::evict_last(const Shape* shape, Payload* keep) {
  auto last = std::prev(index_->lru.end());
  Entry& old = **last;
  auto r = index_->by_key.equal_range(old.key);
  for (auto k = r.first; k != r.second; ++k)
    if (k->second == last) {
      index_->by_key.erase(k);
      break;
    }
  auto& lens = index_->lengths[old.fingerprint];
  if (--lens[old.tokens.size()] == 0) lens.erase(old.tokens.size());
  if (lens.empty()) index_->lengths.erase(old.fingerprint);
  index_->bytes -= old.bytes;
  // A reader copying out of it holds another reference: then its memory goes with it.
  const bool kept = keep != nullptr && shape != nullptr && last->use_count() == 1 &&
                    keep->logits.empty() && shape->holds(old.payload);
  if (kept) *keep = std::move(old.payload);
  index_->lru.pop_back();
  ++stats_.evictions;
}

size_t PrefixCache::reserve(const Model& model, size_t entries) {
  const Shape shape{static_cast<size_t>(model.config().state_floats()),
                    static_cast<size_t>(model.config().vocab)};
  const size_t pb = entry_bytes(model, 0, params_.compress_bf16);
  size_t made = 0;
  for (; made < entries; ++made) {
    uint64_t clears = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (index_->bytes + index_->spare_bytes + pb > params_.max_bytes) break;
      index_->spare_bytes += pb;  // booked first, so that other threads keep within the bound
      clears = clears_;
    }
    Payload p;
    try {
      // Written, not only allocated: the point is to take the page faults now.
      if (params_.compress_bf16) {
        p.halves.assign(shape.floats, 0);
      } else {
        p.floats.assign(shape.floats, 0.0f);
      }
      p.logits.assign(shape.vocab, 0.0f);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (clears_ == clears) index_->spare_bytes -= pb;
      throw;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (clears_ != clears) return made;  // cleared meanwhile: this spare goes too
    index_->spares.push_back(std::move(p));
  }
  return made;
}

size_t PrefixCache::warm(const Model& model, const uint32_t* tokens, size_t n) {
  if (n == 0 || tokens == nullptr) throw InvalidArgument("PrefixCache::warm: the prefix is empty");
  const size_t vocab = static_cast<size_t>(model.config().vocab);
  for (size_t i = 0; i < n; ++i)
    if (tokens[i] >= vocab)
      throw InvalidArgument("PrefixCache::warm: token " + std::to_string(tokens[i]) +
                            " at position " + std::to_string(i) + " is outside the vocabulary (" +
                            std::to_string(vocab) + ")");
  State state(model);
  std::vector<float> logits;
  size_t done = 0;
  if (std::shared_ptr<const Entry> e = find(model.fingerprint(), tokens, n)) {
    copy_out(*e, state, &logits);
    done = e->tokens.size();
  }
  if (done == n) return 0;
  logits.resize(vocab);
  forward(model, state, tokens + done, n - done, logits.data());
  insert(model, state, tokens, n, logits.data());
  return n - done;
}

size_t PrefixCache::warm_text(const Model& model, std::string_view text) {
  const Tokenizer* tok = model.tokenizer();
  if (tok == nullptr) throw InvalidArgument("PrefixCache::warm_text: the model has no tokenizer");
  std::vector<uint32_t> ids = tok->encode(text);
  if (ids.empty()) throw InvalidArgument("PrefixCache::warm_text: the text is empty");
  return warm(model, ids.data(), ids.size());
}

PrefixCacheStats PrefixCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  PrefixCacheStats s = stats_;
  s.entries = index_->lru.size();
  s.bytes = index_->bytes;
  s.spare_bytes = index_->spare_bytes;
  return s;
}

void PrefixCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  index_ = std::make_unique<Index>();
  ++clears_;
}

}  // namespace ai00::internal
