// Random G1-shaped models (bench/model_gen.h).
#include "model_gen.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace ai00::bench {
namespace {

using internal::DType;
using internal::ModelConfig;
using internal::SourceSet;
using internal::SourceTensor;

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t hash_name(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// A tensor whose entries are uniform in [lo, hi), a function of (seed, name, row, column).
SourceTensor uniform(uint64_t seed, const std::string& name, std::vector<int64_t> shape, float lo,
                     float hi) {
  SourceTensor t;
  t.shape = std::move(shape);
  const uint64_t key = splitmix(seed ^ hash_name(name));
  const int64_t n = t.shape.back();
  t.rows = [key, n, lo, hi](int64_t r0, int64_t rows, float* out) {
    for (int64_t r = 0; r < rows; ++r) {
      uint64_t s = splitmix(key + static_cast<uint64_t>(r0 + r));
      for (int64_t c = 0; c < n; ++c) {
        s += 0x9e3779b97f4a7c15ull;  // one splitmix step per value
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        const float u = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
        out[r * n + c] = lo + (hi - lo) * u;
      }
    }
  };
  return t;
}

}  // namespace

ModelConfig g1_config(const std::string& size) {
  struct Row {
    const char* name;
    int64_t C, L, Dw, Da, Dv, Dg;
  };
  static const Row kRows[] = {{"0.1b", 768, 12, 64, 64, 32, 128},
                              {"0.4b", 1024, 24, 64, 64, 32, 128},
                              {"1.5b", 2048, 24, 96, 96, 64, 256},
                              {"2.9b", 2560, 32, 96, 96, 64, 320},
                              {"7.2b", 4096, 32, 128, 128, 96, 480}};
  for (const Row& r : kRows) {
    if (size == r.name) {
      ModelConfig c;
      c.n_embd = r.C, c.n_layer = r.L, c.head_size = 64, c.n_head = r.C / 64;
      c.ffn_size = 4 * r.C, c.vocab = 65536;
      c.d_w = r.Dw, c.d_a = r.Da, c.d_v = r.Dv, c.d_g = r.Dg;
      return c;
    }
  }
  throw std::invalid_argument("unknown G1 size '" + size + "' (0.1b, 0.4b, 1.5b, 2.9b, 7.2b)");
}

SourceSet random_model(const ModelConfig& c, uint64_t seed) {
  const int64_t C = c.n_embd, F = c.ffn_size, V = c.vocab;
  const float s = 1.0f / std::sqrt(static_cast<float>(C)), sf = 1.0f / std::sqrt(float(F));
  SourceSet m;
  auto put = [&](const std::string& n, std::vector<int64_t> shape, float lo, float hi) {
    m.emplace(n, uniform(seed, n, std::move(shape), lo, hi));
  };
  put("emb.weight", {V, C}, -1.0f, 1.0f);
  put("blocks.0.ln0.weight", {C}, 0.9f, 1.1f);
  put("blocks.0.ln0.bias", {C}, -0.1f, 0.1f);
  put("ln_out.weight", {C}, 0.9f, 1.1f);
  put("ln_out.bias", {C}, -0.1f, 0.1f);
  put("head.weight", {V, C}, -s, s);
  for (int64_t l = 0; l < c.n_layer; ++l) {
    auto b = [&](const char* n) { return internal::block_tensor(l, n); };
    for (const char* n : {"ln1.weight", "ln2.weight", "att.ln_x.weight"})
      put(b(n), {C}, 0.9f, 1.1f);
    for (const char* n : {"ln1.bias", "ln2.bias", "att.ln_x.bias"}) put(b(n), {C}, -0.1f, 0.1f);
    for (const char* n :
         {"att.x_r", "att.x_w", "att.x_k", "att.x_v", "att.x_a", "att.x_g", "ffn.x_k"}) {
      put(b(n), {C}, 0.0f, 1.0f);
    }
    for (const char* n : {"att.w0", "att.a0", "att.k_a"}) put(b(n), {C}, -0.5f, 0.5f);
    put(b("att.k_k"), {C}, 0.5f, 1.0f);
    put(b("att.r_k"), {c.n_head, c.head_size}, -0.1f, 0.1f);
    put(b("att.w1"), {c.d_w, C}, -s, s), put(b("att.w2"), {C, c.d_w}, -0.1f, 0.1f);
    put(b("att.a1"), {c.d_a, C}, -s, s), put(b("att.a2"), {C, c.d_a}, -0.1f, 0.1f);
    put(b("att.g1"), {c.d_g, C}, -s, s), put(b("att.g2"), {C, c.d_g}, -0.1f, 0.1f);
    if (l > 0) {
      put(b("att.v0"), {C}, -0.5f, 0.5f);
      put(b("att.v1"), {c.d_v, C}, -s, s), put(b("att.v2"), {C, c.d_v}, -0.1f, 0.1f);
    }
    for (const char* n :
         {"att.receptance.weight", "att.key.weight", "att.value.weight", "att.output.weight"}) {
      put(b(n), {C, C}, -s, s);
    }
    put(b("ffn.key.weight"), {F, C}, -s, s);
    put(b("ffn.value.weight"), {C, F}, -sf, sf);
  }
  return m;
}

void write_random_model(const std::string& path, const ModelConfig& c, uint64_t seed, DType type,
                        internal::OutputFormat format) {
  internal::ConvertOptions o;
  o.target = type;
  o.format = format;
  o.overwrite = true;
  const SourceSet src = random_model(c, seed);
  internal::write_model(path, c, src, {}, o);
}

}  // namespace ai00::bench
