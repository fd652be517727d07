// derive_config: every dimension from tensor shapes (docs/model.md "Symbols and hyper-parameters"),
// then a check that every tensor the forward pass reads exists in every block with the expected
// shape.
#include "core/model/model_config.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "base/error.h"

namespace ai00::internal {

std::string block_tensor(int64_t layer, const char* suffix) {
  return "blocks." + std::to_string(layer) + "." + suffix;
}

namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  TensorView t;
  t.shape = s;
  return t.shape_string();
}

[[noreturn]] void reject(const WeightFile& w, const std::string& what) {
  throw ModelFileError(w.path + ": " + what);
}

// Tensors of research variants and other architectures that this library does not run.
void reject_out_of_scope(const WeightFile& w) {
  auto arch = w.metadata.find("general.architecture");
  if (arch != w.metadata.end() && arch->second != "rwkv7") {
    reject(w, "unsupported architecture '" + arch->second +
                  "' (general.architecture); only RWKV-7 (rwkv7) is supported");
  }
  static const char* kDeepEmbed[] = {".ffn.s_emb", ".ffn.s0", ".ffn.s1", ".ffn.s2", ".qkv."};
  for (const TensorView& t : w.tensors()) {
    for (const char* marker : kDeepEmbed) {
      if (t.name.find(marker) != std::string::npos) {
        reject(w, "tensor " + t.name +
                      ": RWKV-7 variant with DeepEmbed (v7a/v7b) tensors is not supported");
      }
    }
  }
  if (w.find("blocks.0.att.r_k") == nullptr) {
    if (w.find("blocks.0.att.time_first") != nullptr ||
        w.find("blocks.0.att.time_faaaa") != nullptr ||
        w.find("blocks.0.att.time_decay") != nullptr) {
      reject(w,
             "this is an RWKV-4/5/6 model (blocks.0.att.time_* tensors); only RWKV-7 is supported");
    }
    reject(w, "missing tensor blocks.0.att.r_k: not an RWKV-7 model");
  }
}

const TensorView& need_dims(const WeightFile& w, const std::string& name, size_t ndim) {
  const TensorView& t = w.get(name);
  if (t.shape.size() != ndim) {
    reject(w, "tensor " + name + ": expected " + std::to_string(ndim) + " dimensions, found " +
                  t.shape_string());
  }
  return t;
}

void expect(const WeightFile& w, const std::string& name, std::vector<int64_t> shape) {
  const TensorView* t = w.find(name);
  if (t == nullptr)
    reject(w, "missing tensor " + name + " (expected shape " + shape_str(shape) + ")");
  if (t->shape != shape) {
    reject(w, "tensor " + name + ": expected shape " + shape_str(shape) + ", found " +
                  t->shape_string());
  }
  const bool is_vector = shape.size() == 1 || name.find(".r_k") != std::string::npos;
  if (is_vector && dtype_block_size(t->dtype) != 1) {
    reject(w, std::string("tensor ") + name + ": vector stored as " + dtype_name(t->dtype) +
                  "; expected F32, F16 or BF16");
  }
}

int64_t count_layers(const WeightFile& w) {
  int64_t n = 0;
  while (w.find(block_tensor(n, "ln1.weight")) != nullptr) ++n;
  // A block index beyond the contiguous range means a missing ln1 in the middle.
  for (const TensorView& t : w.tensors()) {
    if (t.name.compare(0, 7, "blocks.") != 0) continue;
    int64_t idx = std::strtoll(t.name.c_str() + 7, nullptr, 10);
    if (idx >= n)
      reject(w, "tensor " + t.name + " belongs to block " + std::to_string(idx) + " but " +
                    block_tensor(n, "ln1.weight") + " is missing");
  }
  if (n == 0) reject(w, "missing tensor blocks.0.ln1.weight: no blocks");
  return n;
}

void check_block(const WeightFile& w, const ModelConfig& m, int64_t l) {
  const int64_t C = m.n_embd;
  auto b = [l](const char* s) { return block_tensor(l, s); };
  for (const char* s : {"ln1.weight", "ln1.bias", "ln2.weight", "ln2.bias", "att.x_r", "att.x_w",
                        "att.x_k", "att.x_v", "att.x_a", "att.x_g", "att.w0", "att.a0", "att.k_k",
                        "att.k_a", "att.ln_x.weight", "att.ln_x.bias", "ffn.x_k"}) {
    expect(w, b(s), {C});
  }
  expect(w, b("att.w1"), {m.d_w, C});
  expect(w, b("att.w2"), {C, m.d_w});
  expect(w, b("att.a1"), {m.d_a, C});
  expect(w, b("att.a2"), {C, m.d_a});
  expect(w, b("att.g1"), {m.d_g, C});
  expect(w, b("att.g2"), {C, m.d_g});
  if (l >= 1) {
    expect(w, b("att.v0"), {C});
    expect(w, b("att.v1"), {m.d_v, C});
    expect(w, b("att.v2"), {C, m.d_v});
  }
  expect(w, b("att.r_k"), {m.n_head, m.head_size});
  for (const char* s :
       {"att.receptance.weight", "att.key.weight", "att.value.weight", "att.output.weight"}) {
    expect(w, b(s), {C, C});
  }
  expect(w, b("ffn.key.weight"), {m.ffn_size, C});
  expect(w, b("ffn.value.weight"), {C, m.ffn_size});
}

}  // namespace

ModelConfig derive_config(const WeightFile& w) {
  reject_out_of_scope(w);
  ModelConfig m;
  const TensorView& emb = need_dims(w, "emb.weight", 2);
  m.vocab = emb.shape[0];
  m.n_embd = emb.shape[1];
  m.n_layer = count_layers(w);
  const TensorView& rk = need_dims(w, "blocks.0.att.r_k", 2);
  m.n_head = rk.shape[0];
  m.head_size = rk.shape[1];
  if (m.n_head * m.head_size != m.n_embd) {
    reject(w, "tensor blocks.0.att.r_k: shape " + rk.shape_string() +
                  " does not give H*N = C = " + std::to_string(m.n_embd));
  }
  m.ffn_size = need_dims(w, "blocks.0.ffn.key.weight", 2).shape[0];
  m.d_w = need_dims(w, "blocks.0.att.w1", 2).shape[0];
  m.d_a = need_dims(w, "blocks.0.att.a1", 2).shape[0];
  m.d_g = need_dims(w, "blocks.0.att.g1", 2).shape[0];
  m.d_v = m.n_layer > 1 ? need_dims(w, "blocks.1.att.v1", 2).shape[0] : 0;
  expect(w, "blocks.0.ln0.weight", {m.n_embd});
  expect(w, "blocks.0.ln0.bias", {m.n_embd});
  expect(w, "ln_out.weight", {m.n_embd});
  expect(w, "ln_out.bias", {m.n_embd});
  expect(w, "emb.weight", {m.vocab, m.n_embd});
  expect(w, "head.weight", {m.vocab, m.n_embd});
  for (int64_t l = 0; l < m.n_layer; ++l) check_block(w, m, l);
  return m;
}

}  // namespace ai00::internal