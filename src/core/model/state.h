// State: the recurrent state of one sequence (docs/model.md "State layout").
//
// Layout: ONE contiguous, 64-byte aligned fp32 block of L * C * (N + 2) floats; per layer l,
// at offset l * C * (N + 2):
//   att_shift  [C]        LayerNorm(x; ln1) of the previous token (time-mix token shift)
//   ffn_shift  [C]        LayerNorm(x; ln2) of the previous token (channel-mix token shift)
//   wkv        [H][N][N]  S[h][i][j], i = value channel, j = key channel (rwkv.cpp's orientation)
// so serializing is a memcpy. A new State is all zeros, which is the correct initial state.
//
// Ownership and threading: a State belongs to one sequence and is used by one thread at a time.
// It is movable; copying is explicit (clone()) because a State of a 7B model is 33 MiB. A State
// records the fingerprint of the Model it was made for; forward() and deserialize() refuse a
// State of another model with MismatchError.
//
// Pristine: a State is pristine while its floats are known to be the initial zeros: set by
// construction and reset(), copied by clone(), cleared by every mutable access to the floats
// (data(), att_shift(), ffn_shift(), wkv(): forward goes through them), by import_rwkv_cpp()
// and on every deserialized State. It is conservative (a mutable access that writes nothing
// still clears it) and the sampler state never touches it. The prefix cache
// (core/model/prefix_cache.h) trusts a prompt's tokens to start from zero only on a pristine
// State (docs/prefix-cache.md "Validity").
//
// The State also carries the per-sequence sampler state (sampler(): seed, RNG, penalty table,
// mirostat mu; docs/generation.md "Sampler state"), so a saved and
// restored or cloned State continues generating exactly as the original would.
//
// Serialized form (little-endian), version 2:
//   0  char[8]  magic "AI00STAT"
//   8  u32      version (2; 1 = without the sampler section)
//  12  u32      header bytes (64)
//  16  u64      model fingerprint (Model::fingerprint())
//  24  u32 x4   n_layer, n_embd, n_head, head_size
//  40  u64      number of floats (L * C * (N + 2))
//  48  u64      FNV-1a 64 hash of the float payload
//  56  u64      reserved (0)
//  64  f32[n]   the block above
//  64+4n  u64    m, bytes of the sampler section
//  72+4n  u8[m]  SamplerState::serialize() (its own magic, version and checksum)
// Version 1 buffers (no sampler section) still load, with a fresh SamplerState (seed 0).
// Errors: deserialize() throws ModelFileError naming the byte offset for a truncated or corrupt
// buffer and MismatchError for a State of another model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/sampling/sampler.h"

namespace ai00::internal {

class Model;
struct ModelConfig;

class State {
 public:
  // A zero state for `model`.
  explicit State(const Model& model);
  State(State&&) noexcept = default;
  State& operator=(State&&) noexcept = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() = default;

  // An independent copy (the explicit, costly copy).
  State clone() const;
  // Back to all zeros (pristine again). The sampler state is kept (sampler().reset(seed)
  // forgets it too).
  void reset();
  // True while the floats are the initial zeros (header comment "Pristine").
  bool pristine() const { return pristine_; }

  int64_t n_layer() const { return n_layer_; }
  int64_t n_embd() const { return n_embd_; }
  int64_t n_head() const { return n_head_; }
  int64_t head_size() const { return head_size_; }
  uint64_t fingerprint() const { return fingerprint_; }

  // The whole block: size() floats. The mutable accessors clear pristine().
  float* data() {
    // Written only when set: forward_batch takes wkv() from several threads of one pass, after
    // the token shift (on the calling thread) has cleared it, so they only read it.
    if (pristine_) pristine_ = false;
    return data_.get();
  }
  const float* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t size_bytes() const { return size_ * sizeof(float); }

  float* att_shift(int64_t l) { return data() + l * per_layer(); }       // [C]
  float* ffn_shift(int64_t l) { return att_shift(l) + n_embd_; }         // [C]
  float* wkv(int64_t l) { return att_shift(l) + 2 * n_embd_; }           // [H,N,N]
  const float* att_shift(int64_t l) const { return data_.get() + l * per_layer(); }
  const float* ffn_shift(int64_t l) const { return att_shift(l) + n_embd_; }
  const float* wkv(int64_t l) const { return att_shift(l) + 2 * n_embd_; }

  // Throws MismatchError unless this State was made for `model` (same fingerprint).
  void check_model(const Model& model) const;

  // Serialization (format in the header comment).
  size_t serialized_size() const;
  // Writes serialized_size() bytes; throws InvalidArgument if `capacity` is smaller.
  void serialize_into(uint8_t* out, size_t capacity) const;
  std::vector<uint8_t> serialize() const;
  static State deserialize(const Model& model, const uint8_t* bytes, size_t size);

  // rwkv.cpp flat layout: per layer ffn_x[C], att_x[C], wkv[H][N][N] (same floats, reordered).
  void export_rwkv_cpp(float* out, size_t n) const;
  void import_rwkv_cpp(const float* in, size_t n);

  // Seed, RNG and penalty table of this sequence. The Generator samples with it; cloned by
  // clone() and saved by serialize(). A plain value: one thread at a time, like the State.
  SamplerState& sampler() { return sampler_; }
  const SamplerState& sampler() const { return sampler_; }

 private:
  struct FreeAligned {
    void operator()(float* p) const noexcept;
  };
  State() = default;
  void allocate();
  int64_t per_layer() const { return n_embd_ * (head_size_ + 2); }

  int64_t n_layer_ = 0, n_embd_ = 0, n_head_ = 0, head_size_ = 0;
  uint64_t fingerprint_ = 0;
  size_t size_ = 0;
  std::unique_ptr<float[], FreeAligned> data_;
  SamplerState sampler_;  // see sampler()
  bool pristine_ = true;  // see pristine()
};

}  // namespace ai00::internal