// PrefixCache: States after token prefixes, kept for reuse (docs/prefix-cache.md).
//
// An RWKV State has a fixed size whatever the context length, so the State after a prefix of a
// prompt (system prompt, persona, each finished turn) can be kept and copied into a fresh State
// instead of running those tokens again. An entry is
//   key:   the model fingerprint and the token prefix t[0..L)
//   value: the State's floats after t[0..L) from the zero state (fp32, or bf16 when compressed)
//          and the logits of t[L-1] ([V] fp32, always exact), so a prompt that is entirely
//          cached samples at once.
// Lookup is longest-prefix: for every prefix length L stored for the model (longest first) the
// prompt's prefix hash at L (a hash chained token by token, computed once per lookup) selects
// candidates, which are verified against the stored tokens, so a hash collision can never
// return a wrong State.
//
// Validity: prompt tokens are relative to the State they are fed to, so an entry stands for
// "these tokens from the zero state" only. restore() therefore requires a pristine State
// (State::pristine(): constructed or reset, no mutable access since) and copies the floats only:
// the State's sampler state (seed, RNG, penalty table) stays the caller's.
//
// Bounds: the bytes of all entries and of the memory set aside for later ones (spares) stay
// <= max_bytes; inserting evicts the least recently used entries (a hit or a repeated insert
// makes an entry most recent). An entry larger than max_bytes is not stored. Bytes of one entry:
// entry_bytes().
//
// Memory: an entry's State floats and logits are megabytes, and fresh pages cost a fault each
// (about 1 ms per 2.4 MB on the VM we measure on, where the copy itself takes 0.2 ms). So an
// insert copies into memory that is already there when it can: a spare set aside by reserve(),
// or the memory of the entries it evicts. Memory of another shape (another model's sizes) is
// freed when room is needed.
//
// One cache may serve several models (the fingerprint is part of the key, so entries of one
// model are invisible to another, and one byte budget covers them all).
//
// Ownership and threading: shared through std::shared_ptr by any number of Generators and
// threads; every method may be called concurrently (one mutex guards the index; State copies run
// outside it, on the entry kept alive by its shared_ptr, so an entry being copied while it is
// evicted stays valid until the copy ends, briefly above max_bytes).
//
// Errors: MismatchError when the State and the Model given to a call differ; InvalidArgument for
// a State that is not pristine (restore), logits of the wrong count, a token >= vocab (warm) and
// an empty prefix (insert, warm).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace ai00::internal {

class Model;
class State;

struct PrefixCacheParams {
  size_t max_bytes = size_t{256} << 20;  // bound of the entries' bytes (entry_bytes); >= 0
  // Store the State floats as bf16 (round to nearest even; half the bytes). A restored State is
  // then within bf16 rounding of the original; the stored logits stay exact (accuracy measured
  // in docs/prefix-cache.md "Compression").
  bool compress_bf16 = false;
};

struct PrefixCacheStats {
  uint64_t hits = 0;         // restore() calls that found a prefix
  uint64_t misses = 0;       // restore() calls that found none
  uint64_t hit_tokens = 0;   // prompt tokens the hits skipped
  uint64_t inserts = 0;      // entries stored (a repeated insert of a stored prefix is not one)
  uint64_t evictions = 0;    // entries dropped to stay within max_bytes
  uint64_t entries = 0;      // entries now
  uint64_t bytes = 0;        // their bytes now (entry_bytes summed)
  uint64_t max_bytes = 0;    // PrefixCacheParams::max_bytes
  uint64_t spare_bytes = 0;  // memory set aside for later entries (entry_bytes with no tokens)
};

class PrefixCache {
 public:
  explicit PrefixCache(const PrefixCacheParams& params = {});
  ~PrefixCache();
  PrefixCache(const PrefixCache&) = delete;
  PrefixCache& operator=(const PrefixCache&) = delete;

  // Longest cached prefix of tokens[0..n) for `model`. On a hit copies the entry's floats into
  // `state` (which must be pristine and of `model`), its logits into *logits (resized to V) when
  // logits is not null, and returns the prefix length; 0 on a miss (state untouched). Counts a
  // hit or a miss.
  size_t restore(const Model& model, State& state, const uint32_t* tokens, size_t n,
                 std::vector<float>* logits);
  // Stores the State after tokens[0..n) from the zero state (the caller vouches for that) with
  // the logits of tokens[n-1] ([V]). Returns true when a new entry was stored; false when the
  // prefix was already stored (it becomes most recent) or the entry exceeds max_bytes.
  bool insert(const Model& model, const State& state, const uint32_t* tokens, size_t n,
              const float* logits);
  // Warms the cache with tokens[0..n): from the longest cached prefix (or zero) runs the rest
  // through the model on a private State and stores the end. Returns the tokens it ran (0 when
  // the whole prefix was cached). Does not count hits or misses.
  size_t warm(const Model& model, const uint32_t* tokens, size_t n);
  // warm() on the encoding of `text` by the model's tokenizer (InvalidArgument without one).
  size_t warm_text(const Model& model, std::string_view text);

  // Sets aside memory for `entries` more entries of `model` now (allocated and written, so its
  // pages are in), for inserts that must not wait on fresh pages (a frame loop). Spares count
  // against max_bytes: fewer are set aside when it is reached. Returns how many were.
  size_t reserve(const Model& model, size_t entries);
  PrefixCacheStats stats() const;
  // Drops every entry and every spare (statistics other than entries and bytes are kept).
  void clear();
  const PrefixCacheParams& params() const { return params_; }

  // Bytes one entry of `model` with n prefix tokens counts against max_bytes: the State floats
  // (4 bytes each, 2 with bf16), the logits (4 * V), the tokens (4 * n) and 256 for bookkeeping.
  static size_t entry_bytes(const Model& model, size_t n, bool bf16);

 private:
  struct Payload;
  struct Shape;
  struct Entry;
  struct Index;
  // The longest stored prefix (shared_ptr keeps it alive outside the lock); nullptr if none.
  std::shared_ptr<const Entry> find(uint64_t fingerprint, const uint32_t* tokens, size_t n);
  void copy_out(const Entry& e, State& state, std::vector<float>* logits) const;
  // Under mutex_: memory for an entry of `shape` and `bytes`, from the spares or from the entries
  // evicted to make room (empty when neither has one of that shape).
  Payload take_payload(const Shape& shape, size_t bytes);
  // Under mutex_: frees spares, then evicts least recently used entries, until `bytes` more fit
  // (or nothing is left). An evicted entry's memory of `shape` that no reader holds goes to
  // *keep when keep is not null and still empty.
  void make_room(size_t bytes, const Shape* shape, Payload* keep);
  // Under mutex_: the least recently used entry out (its memory as make_room says).
  void evict_last(const Shape* shape, Payload* keep);

  PrefixCacheParams params_;
  mutable std::mutex mutex_;
  std::unique_ptr<Index> index_;  // guarded by mutex_
  uint64_t clears_ = 0;           // guarded by mutex_: a reserve() across a clear() keeps nothing
  PrefixCacheStats stats_;        // guarded by mutex_
};

}  // namespace ai00::internal
