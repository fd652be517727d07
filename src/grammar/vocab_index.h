// The vocabulary as the grammar engine sees it (docs/grammar.md "Token masks",
// "Performance targets"): token byte strings indexed by id, a byte trie over them (116,078 nodes
// for RWKV World), and tokens in trie (lexicographic byte) order so that tokens sharing a prefix
// are neighbours.
//
// Ownership and threading: built once per process (VocabIndex::build), immutable afterwards and
// shared as std::shared_ptr<const VocabIndex> by every compiled grammar; any number of threads may
// use it at once. src/grammar never includes src/core: callers pass the token bytes
// (core's Tokenizer::token_bytes(id) for id < vocab_size()).
// Errors: build() throws InvalidArgument for an empty list or a non-empty token 0.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ai00::internal::grammar {

class VocabIndex {
 public:
  // tokens[id] = bytes of token id; tokens[0] must be empty (end of text). Tokens without text
  // (empty strings at other ids) are never allowed by a mask. `mask_size` (>= tokens.size(), e.g.
  // 65536 for a model padded past the 65,530-entry World vocabulary) sets the mask width.
  static std::shared_ptr<const VocabIndex> build(std::vector<std::string> tokens,
                                                 size_t mask_size = 0);

  size_t size() const { return tokens_.size(); }         // ids with an entry
  size_t mask_bits() const { return mask_words_ * 64; }  // >= size(), multiple of 64
  size_t mask_words() const { return mask_words_; }      // uint64_t words per mask
  std::string_view token(uint32_t id) const { return tokens_[id]; }
  size_t trie_nodes() const { return nodes_.size(); }

  // Greedy longest-match tokenization (RWKV World's rule). Bytes no token covers are skipped.
  std::vector<uint32_t> greedy_encode(std::string_view bytes) const;

  // ---- trie, for the compiler (compiler.cpp) ----
  // Nodes in depth-first preorder, node 0 = root (empty prefix); a node's children follow it in
  // byte order and its subtree is [n, subtree_end).
  struct Node {
    uint32_t subtree_end;  // preorder index one past this node's subtree
    uint32_t token;        // token ending exactly here, or kNoToken
    uint32_t parent;       // parent node (root: 0)
    uint16_t depth;        // bytes from the root
    uint8_t byte;          // byte on the edge from the parent
  };
  static constexpr uint32_t kNoToken = 0xffffffffu;
  const std::vector<Node>& nodes() const { return nodes_; }
  // Child of `node` along `byte`, or kNoToken.
  uint32_t child(uint32_t node, uint8_t byte) const;
  // Trie node of each token; ids with no bytes get kNoToken.
  uint32_t token_node(uint32_t id) const { return node_of_[id]; }
  // Tokens in preorder get consecutive ranks: the tokens of n's subtree have the ranks
  // [rank_begin(n), rank_begin(nodes()[n].subtree_end)). rank_begin(trie_nodes()) = num_ranked().
  uint32_t rank_begin(uint32_t node) const { return rank_begin_[node]; }
  size_t num_ranked() const { return rank_begin_.back(); }
  size_t rank_words() const { return (num_ranked() + 63) / 64; }

 private:
  VocabIndex() { std::fill(root_child_, root_child_ + 256, kNoToken); }
  std::vector<std::string> tokens_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> node_of_;
  std::vector<uint32_t> rank_begin_;  // [nodes + 1]
  uint32_t root_child_[256];
  size_t mask_words_ = 0;
};

}  // namespace ai00::internal::grammar
