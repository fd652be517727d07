// PrefixReuse and the store points of chat prompts (prefix_reuse.h).
#include "core/pipeline/prefix_reuse.h"

#include <algorithm>

#include "core/model/model.h"
#include "core/model/state.h"
#include "core/tokenizer/tokenizer.h"

namespace ai00::internal {

// The tokenizer is a greedy longest match (tokenizer.h): a prefix of the prompt that ends where
// one of the prompt's tokens ends encodes to exactly the tokens before it (each greedy choice
// inside the prefix is the one made in the whole prompt), and one that ends inside a token
// encodes differently. So a boundary's tokens are read off the prompt's own tokenization: one
// pass over it, where encoding every rendered prefix again cost O(messages x prompt bytes).
std::vector<size_t> chat_store_points(const format::ChatFormat& format,
                                      const std::vector<format::Message>& conversation,
                                      const format::RenderOptions& render,
                                      const std::string& prompt, bool prepend_token0,
                                      const Tokenizer& tokenizer,
                                      const std::vector<uint32_t>& prompt_tokens) {
  // token_end[j] = bytes of the prompt covered by its first j + 1 text tokens.
  const size_t first = prepend_token0 && !prompt_tokens.empty() ? 1 : 0;
  std::vector<size_t> token_end;
  token_end.reserve(prompt_tokens.size());
  size_t bytes = 0;
  for (size_t j = first; j < prompt_tokens.size(); ++j)
    token_end.push_back(bytes += tokenizer.token_bytes(prompt_tokens[j]).size());
  format::RenderOptions ro = render;
  ro.add_generation_prompt = false;
  std::vector<size_t> points;
  std::vector<format::Message> head;
  const size_t n = conversation.size();
  for (size_t i = 0; i < n; ++i) {
    head.push_back(conversation[i]);
    // Only the first and last few boundaries (prefix_reuse.h): rendering every prefix of a long
    // conversation was quadratic, and a point per message cut its prefill into one chunk and one
    // stored State per message, which also evicted the cache's other entries.
    if (i >= kChatStorePointsHead && i + kChatStorePointsTail < n) continue;
    auto r = format.render(head, ro);
    if (!r.ok()) continue;  // e.g. a format that needs a later message: no point here
    const std::string& text = r.value().prompt;
    if (text.empty() || text.size() > prompt.size() || prompt.compare(0, text.size(), text) != 0)
      continue;  // rendered differently alone than inside the whole conversation
    // A boundary inside a token, or at the end of the prompt (stored anyway), is no point.
    auto it = std::lower_bound(token_end.begin(), token_end.end(), text.size());
    if (it != token_end.end() && *it == text.size() && it + 1 != token_end.end())
      points.push_back(first + static_cast<size_t>(it - token_end.begin()) + 1);
  }
  return points;
}

void PrefixReuse::configure(std::shared_ptr<PrefixCache> cache, std::vector<size_t> points) {
  cache_ = std::move(cache);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  points_ = std::move(points);
}

size_t PrefixReuse::begin(const Model& model, State& state, const std::vector<uint32_t>& prompt,
                          std::vector<float>& logits) {
  active_ = cache_ != nullptr && state.pristine() && !prompt.empty();
  if (!active_) return 0;
  restored_ = cache_->restore(model, state, prompt.data(), prompt.size(), &logits);
  return restored_;
}

size_t PrefixReuse::chunk(size_t done, size_t n) const {
  if (!active_) return n;
  auto next = std::upper_bound(points_.begin(), points_.end(), done);
  if (next != points_.end() && *next < done + n) return *next - done;
  return n;
}

bool PrefixReuse::is_point(size_t end, size_t prompt_size) const {
  return end == prompt_size || std::binary_search(points_.begin(), points_.end(), end);
}

float* PrefixReuse::logits_for(size_t end, size_t vocab) {
  if (!active_ || !std::binary_search(points_.begin(), points_.end(), end)) return nullptr;
  scratch_.resize(vocab);
  return scratch_.data();
}

void PrefixReuse::after_chunk(const Model& model, const State& state,
                              const std::vector<uint32_t>& prompt, size_t end,
                              const float* logits) {
  if (!active_ || logits == nullptr || end <= restored_ || !is_point(end, prompt.size())) return;
  cache_->insert(model, state, prompt.data(), end, logits);
}

}  // namespace ai00::internal
