// Hyper-parameters of an RWKV-7 model, derived from tensor shapes (docs/model.md
// "Symbols and hyper-parameters"), never from a table or from file metadata alone.
#pragma once

#include <cstdint>
#include <string>

#include "core/weights/weights.h"

namespace ai00::internal {

struct ModelConfig {
  // Each field names the tensor whose shape gives it.
  int64_t n_embd = 0;     // C, residual width: emb.weight (V, C)
  int64_t n_layer = 0;    // L, blocks: count of blocks.{l}.ln1.weight
  int64_t head_size = 0;  // N, 64 in every released model: blocks.0.att.r_k (H, N)
  int64_t n_head = 0;     // H = C / N
  int64_t ffn_size = 0;   // F: blocks.0.ffn.key.weight (F, C)
  int64_t vocab = 0;      // V: emb.weight, head.weight
  int64_t d_w = 0;        // decay LoRA rank: att.w1 (Dw, C)
  int64_t d_a = 0;        // in-context-rate LoRA rank: att.a1 (Da, C)
  int64_t d_v = 0;        // value-residual LoRA rank: blocks.1.att.v1 (Dv, C); 0 if L == 1
  int64_t d_g = 0;        // output-gate LoRA rank: att.g1 (Dg, C)

  // Floats in one State: L * C * (N + 2).
  int64_t state_floats() const { return n_layer * n_embd * (head_size + 2); }
};

// Derives the configuration and checks that every tensor the forward pass reads is present with
// the expected shape in every block. Throws ModelFileError naming the file, the tensor, and the
// expected and found shapes (or the unsupported variant, e.g. v7a DeepEmbed tensors).
ModelConfig derive_config(const WeightFile& weights);

// Canonical tensor names of block l, e.g. block_tensor(3, "att.key.weight").
std::string block_tensor(int64_t layer, const char* suffix);

}  // namespace ai00::internal