// Vocabulary byte trie in preorder (vocab_index.h).
#include "grammar/vocab_index.h"

#include <algorithm>
#include <numeric>

#include "base/error.h"

namespace ai00::internal::grammar {

std::shared_ptr<const VocabIndex> VocabIndex::build(std::vector<std::string> tokens,
                                                    size_t mask_size) {
  if (tokens.empty()) throw InvalidArgument("VocabIndex::build: empty vocabulary");
  if (!tokens[0].empty()) throw InvalidArgument("VocabIndex::build: token 0 must be empty (EOS)");
  if (tokens.size() > 0xfffffff0u) throw InvalidArgument("VocabIndex::build: vocabulary too large");
  std::shared_ptr<VocabIndex> v(new VocabIndex());
  size_t bits = std::max(mask_size, tokens.size());
  v->mask_words_ = (bits + 63) / 64;
  v->tokens_ = std::move(tokens);
  const auto& t = v->tokens_;

  std::vector<uint32_t> order;
  order.reserve(t.size());
  for (uint32_t id = 1; id < t.size(); ++id)
    if (!t[id].empty()) order.push_back(id);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return t[a] < t[b]; });

  v->node_of_.assign(t.size(), kNoToken);
  auto& nodes = v->nodes_;
  nodes.reserve(order.size() * 2);
  nodes.push_back(Node{0, kNoToken, 0, 0, 0});
  std::vector<uint32_t> path{0};  // node index per depth along the current token
  std::string_view prev;
  for (uint32_t id : order) {
    std::string_view s = t[id];
    size_t lcp = 0;
    while (lcp < prev.size() && lcp < s.size() && prev[lcp] == s[lcp]) ++lcp;
    while (path.size() > lcp + 1) {
      nodes[path.back()].subtree_end = static_cast<uint32_t>(nodes.size());
      path.pop_back();
    }
    for (size_t d = lcp; d < s.size(); ++d) {
      nodes.push_back(
          Node{0, kNoToken, path.back(), static_cast<uint16_t>(d + 1), static_cast<uint8_t>(s[d])});
      path.push_back(static_cast<uint32_t>(nodes.size() - 1));
    }
    // Duplicate byte strings keep the first id in sort order; the trie has one token per node.
    if (nodes[path.back()].token == kNoToken) nodes[path.back()].token = id;
    v->node_of_[id] = path.back();
    prev = s;
  }
  while (!path.empty()) {
    nodes[path.back()].subtree_end = static_cast<uint32_t>(nodes.size());
    path.pop_back();
  }
  for (uint32_t c = 1; c < nodes.size(); c = nodes[c].subtree_end)
    v->root_child_[nodes[c].byte] = c;
  v->rank_begin_.resize(nodes.size() + 1);
  uint32_t rank = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    v->rank_begin_[n] = rank;
    rank += nodes[n].token != kNoToken;
  }
  v->rank_begin_[nodes.size()] = rank;
  return v;
}

uint32_t VocabIndex::child(uint32_t node, uint8_t byte) const {
  if (node == 0) return root_child_[byte];
  for (uint32_t c = node + 1; c < nodes_[node].subtree_end; c = nodes_[c].subtree_end) {
    if (nodes_[c].byte == byte) return c;
    if (nodes_[c].byte > byte) break;
  }
  return kNoToken;
}

std::vector<uint32_t> VocabIndex::greedy_encode(std::string_view bytes) const {
  std::vector<uint32_t> out;
  size_t i = 0;
  while (i < bytes.size()) {
    uint32_t node = 0, best = kNoToken;
    size_t best_len = 0;
    for (size_t j = i; j < bytes.size(); ++j) {
      node = child(node, static_cast<uint8_t>(bytes[j]));
      if (node == kNoToken) break;
      if (nodes_[node].token != kNoToken) best = nodes_[node].token, best_len = j - i + 1;
    }
    if (best == kNoToken) {
      ++i;  // no token covers this byte (not the case for RWKV World)
      continue;
    }
    out.push_back(best);
    i += best_len;
  }
  return out;
}

}  // namespace ai00::internal::grammar
