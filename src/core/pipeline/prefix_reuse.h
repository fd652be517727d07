// PrefixReuse: how a Generator uses a PrefixCache during one turn (docs/prefix-cache.md
// "Generators").
//
// At the first prefill chunk, when the turn has a cache and the State is pristine (so the prompt
// starts from the zero state), the longest cached prefix of the prompt is copied into the State
// and skipped; the State's sampler state stays the caller's. The prefill is then cut at every
// store point, and the State after each store point is stored with the logits of its last token:
//   * the end of the prompt, always;
//   * chat turns: every message boundary of the rendered conversation that falls on a token
//     boundary (chat_store_points), so a new conversation sharing the persona or system prompt,
//     or the next turn of this one, starts from a stored State.
// Cutting the prefill at the store points makes a turn that hits and one that misses run the
// same forward calls on the tokens after the prefix: their logits are equal bit for bit.
// A State that is not pristine uses no cache (its prompt is relative to what it already holds).
//
// Threading: one per Generator, used by its thread only; the cache itself is shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model/prefix_cache.h"
#include "format/format.h"
#include "format/message.h"

namespace ai00::internal {

class Model;
class State;
class Tokenizer;

// Token counts after the message boundaries of `conversation` whose rendering (without the
// generation prompt) is a prefix of `prompt` and encodes to a prefix of `prompt_tokens` (after
// token 0 when `prepend_token0`; `prompt_tokens` must be the encoding of `prompt`). Boundaries
// that split a token are skipped. Only the boundaries after the first kChatStorePointsHead and
// the last kChatStorePointsTail messages are candidates: the head holds a persona, system prompt
// or few-shot examples another conversation may share, the tail the previous turns the next turn
// continues; a middle boundary of a long conversation is rarely asked for again.
// Cost: at most head + tail renderings of the conversation (linear in its bytes), no encoding:
// the greedy tokenizer's boundaries are read off prompt_tokens.
inline constexpr size_t kChatStorePointsHead = 8;
inline constexpr size_t kChatStorePointsTail = 8;
std::vector<size_t> chat_store_points(const format::ChatFormat& format,
                                      const std::vector<format::Message>& conversation,
                                      const format::RenderOptions& render,
                                      const std::string& prompt, bool prepend_token0,
                                      const Tokenizer& tokenizer,
                                      const std::vector<uint32_t>& prompt_tokens);

class PrefixReuse {
 public:
  // `points`: store points besides the end of the prompt (chat_store_points); may be empty.
  void configure(std::shared_ptr<PrefixCache> cache, std::vector<size_t> points);
  // At the first prefill chunk: restores the longest cached prefix of `prompt` into `state`
  // (pristine only) and its logits into `logits`; returns the prompt tokens it covers (0: none,
  // or no cache, or a State that is not pristine, which also turns storing off).
  size_t begin(const Model& model, State& state, const std::vector<uint32_t>& prompt,
               std::vector<float>& logits);
  // The next chunk's length: `n` cut so that it does not cross a store point after `done`.
  size_t chunk(size_t done, size_t n) const;
  // Scratch for the logits of a chunk ending at `end` when `end` is a store point before the end
  // of the prompt; nullptr otherwise.
  float* logits_for(size_t end, size_t vocab);
  // After a chunk ending at `end` (logits: of its last token, or nullptr): stores the State when
  // `end` is a store point past the restored prefix.
  void after_chunk(const Model& model, const State& state, const std::vector<uint32_t>& prompt,
                   size_t end, const float* logits);

 private:
  bool is_point(size_t end, size_t prompt_size) const;

  std::shared_ptr<PrefixCache> cache_;
  std::vector<size_t> points_;  // sorted, unique
  bool active_ = false;         // a cache and a pristine State at begin()
  size_t restored_ = 0;
  std::vector<float> scratch_;  // [V] logits at an intermediate store point
};

}  // namespace ai00::internal
