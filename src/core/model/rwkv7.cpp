// The RWKV-7 forward pass as a list of named kernel calls. Each step names its counterpart in
// shared/ref/rwkv7_ref.py (class RWKV7: forward_seq, _time_mix_projections, _wkv_scan,
// _time_mix_output, _channel_mix). Rows are tokens: every buffer below is [T][width].
#include "core/model/rwkv7.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/state.h"

namespace ai00::internal {
namespace {

constexpr float kLnEps = 1e-5f;    // ln0, ln1, ln2, ln_out
constexpr float kGnEps = 64e-5f;   // ln_x GroupNorm (head_size_divisor 8)
constexpr float kL2Eps = 1e-12f;   // kk normalisation
constexpr int64_t kRowBlock = 64;  // rows of W per matmul task (fixed: thread-count free)
constexpr size_t kDefaultChunk = 64;

// Scratch for T rows, carved from one allocation. Widths in the comments.
struct Workspace {
  std::vector<float> mem;
  float *x, *xn, *dx;                  // [T][C] residual, normed input, shift difference
  float *xr, *xw, *xk, *xv, *xa, *xg;  // [T][C] token-shift mixes
  float *r, *k, *v, *w, *a, *g;        // [T][C] receptance, key, value, decay, rate, gate
  float *kk, *b, *y, *tmp, *v_first;   // [T][C]
  float* h;                            // [T][max(Dw, Da, Dv, Dg, F)] LoRA / FFN hidden
  bool fp32_act = false;               // ForwardOptions::fp32_activations
  std::vector<cpu::BlockQ8> xq;        // [T][max width / 32] int8 activations (matmul_q8)
  std::vector<uint16_t> xs;            // [T][2 * max width] bf16 hi/lo activations (matmul_bf16)
  Workspace(int64_t T, const ModelConfig& c) {
    const size_t C = static_cast<size_t>(c.n_embd), rows = static_cast<size_t>(T);
    const size_t hw = static_cast<size_t>(std::max({c.d_w, c.d_a, c.d_v, c.d_g, c.ffn_size}));
    float** vecs[] = {&x, &xn, &dx, &xr, &xw, &xk, &xv, &xa, &xg,  &r,
                      &k, &v,  &w,  &a,  &g,  &kk, &b,  &y,  &tmp, &v_first};
    const size_t n_vec = sizeof(vecs) / sizeof(vecs[0]);
    const size_t pad = 16;  // keep every buffer 64-byte aligned relative to the base
    const size_t slab = (rows * C + pad - 1) / pad * pad;
    mem.assign(n_vec * slab + rows * hw + pad, 0.0f);
    float* base = mem.data();
    for (size_t i = 0; i < n_vec; ++i) *vecs[i] = base + i * slab;
    h = base + n_vec * slab;
    const size_t width = std::max(C, hw);
    xq.resize(rows * (width / 32 + 1));
    xs.resize(rows * 2 * width);
  }
};

// Everything one pass needs; T rows.
struct Pass {
  const Model& m;
  const cpu::KernelTable& kt;
  Workspace& ws;
  int64_t T, C, N, H;
};

// y[T][W.rows] = x[T][W.cols] . W^T, split into fixed blocks of rows. Quantized weights take
// the int8 path and BF16 weights the bf16 dot where the table has it: x is converted once per
// call, then every row block uses it (docs/model.md "Integer and BF16 dot products").
void matmul(const Pass& p, const Mat& W, const float* x, float* y) {
  if (cpu::matmul_q8_supports(W.type) && !p.ws.fp32_act) {
    const int64_t nb = W.cols / 32;
    cpu::BlockQ8* xq = p.ws.xq.data();
    for (int64_t t = 0; t < p.T; ++t) p.kt.quantize_q8(x + t * W.cols, xq + t * nb, W.cols);
    p.m.parallel_blocks(W.rows, kRowBlock, [&](int64_t begin, int64_t end) {
      cpu::MatmulQ8Args a;
      a.w = W.data, a.wtype = W.type, a.w_row_bytes = W.row_bytes, a.cols = W.cols;
      a.x = xq, a.x_stride = nb, a.y = y, a.y_stride = W.rows, a.T = p.T;
      a.row_begin = begin, a.row_end = end;
      p.kt.matmul_q8(a);
    });
    return;
  }
  if (W.type == DType::BF16 && p.kt.matmul_bf16 != nullptr && !p.ws.fp32_act) {
    uint16_t* xs = p.ws.xs.data();
    for (int64_t t = 0; t < p.T; ++t) p.kt.split_bf16(x + t * W.cols, xs + t * 2 * W.cols, W.cols);
    p.m.parallel_blocks(W.rows, kRowBlock, [&](int64_t begin, int64_t end) {
      cpu::MatmulBf16Args a;
      a.w = W.data, a.w_row_bytes = W.row_bytes, a.cols = W.cols, a.x = xs, a.x_stride = 2 * W.cols;
      a.xf = x, a.xf_stride = W.cols, a.y = y, a.y_stride = W.rows, a.T = p.T;
      a.row_begin = begin, a.row_end = end;
      p.kt.matmul_bf16(a);
    });
    return;
  }
  p.m.parallel_blocks(W.rows, kRowBlock, [&](int64_t begin, int64_t end) {
    cpu::MatmulArgs a;
    a.w = W.data, a.wtype = W.type, a.w_row_bytes = W.row_bytes, a.cols = W.cols;
    a.x = x, a.x_stride = W.cols, a.y = y, a.y_stride = W.rows, a.T = p.T;
    a.row_begin = begin, a.row_end = end;
    p.kt.matmul(a);
  });
}

// LayerNorm (group = 0) or per-head GroupNorm (group = N) of T rows of C.
void norm(const Pass& p, const float* x, float* y, const float* wt, const float* bias,
          int64_t group, float eps, int64_t rows) {
  cpu::NormArgs a;
  a.x = x, a.y = y, a.weight = wt, a.bias = bias, a.rows = rows, a.n = p.C;
  a.group_size = group, a.eps = eps;
  p.kt.norm(a);
}

// y[t] += vec for every row t.
void add_rows(const Pass& p, float* y, const float* vec) {
  for (int64_t t = 0; t < p.T; ++t) p.kt.add(y + t * p.C, vec, y + t * p.C, p.C);
}

// dx[t] = xn[t-1] - xn[t] with xn[-1] = shift; then shift = xn[T-1] (the state update).
void token_shift(const Pass& p, const float* xn, float* shift, float* dx) {
  const int64_t C = p.C;
  for (int64_t t = 0; t < p.T; ++t) {
    const float* prev = t == 0 ? shift : xn + (t - 1) * C;
    for (int64_t c = 0; c < C; ++c) dx[t * C + c] = prev[c] - xn[t * C + c];
  }
  std::memcpy(shift, xn + (p.T - 1) * C, static_cast<size_t>(C) * sizeof(float));
}

// Per row: y = x + d * m for the C-vector m.
void lerp_rows(const Pass& p, const float* x, const float* d, const float* m, float* y) {
  for (int64_t t = 0; t < p.T; ++t) p.kt.lerp(x + t * p.C, d + t * p.C, m, y + t * p.C, p.C);
}

// kk = normalize_per_head(k * k_k); k = k * (1 + (a - 1) * k_a); then the WKV arguments
// b = kk * a (in ws.b) and a_arg = -kk (in ws.kk, overwriting kk).
void keys(const Pass& p, const LayerWeights& w) {
  Workspace& s = p.ws;
  for (int64_t t = 0; t < p.T; ++t) {
    float* kk = s.kk + t * p.C;
    float* k = s.k + t * p.C;
    const float* a = s.a + t * p.C;
    float* b = s.b + t * p.C;
    p.kt.mul(k, w.k_k, kk, p.C);
    for (int64_t h = 0; h < p.H; ++h) {
      float* kh = kk + h * p.N;
      const float inv = 1.0f / std::max(std::sqrt(p.kt.dot(kh, kh, p.N)), kL2Eps);
      for (int64_t j = 0; j < p.N; ++j) kh[j] *= inv;
    }
    for (int64_t c = 0; c < p.C; ++c) {
      k[c] = k[c] * (1.0f + (a[c] - 1.0f) * w.k_a[c]);
      b[c] = kk[c] * a[c];
      kk[c] = -kk[c];
    }
  }
}

// v = v + (v_first - v) * gate, with gate = sigmoid(v0 + (xv . v1) . v2) precomputed in ws.tmp.
void value_residual(const Pass& p) {
  Workspace& s = p.ws;
  for (int64_t i = 0; i < p.T * p.C; ++i) s.v[i] += (s.v_first[i] - s.v[i]) * s.tmp[i];
}

// y_h += (sum_j r_h[j] * k_h[j] * r_k[h][j]) * v_h, per row and head.
void bonus(const Pass& p, const float* r_k) {
  Workspace& s = p.ws;
  for (int64_t t = 0; t < p.T; ++t) {
    for (int64_t h = 0; h < p.H; ++h) {
      const int64_t o = t * p.C + h * p.N;
      float sum = 0.0f;
      for (int64_t j = 0; j < p.N; ++j) sum += s.r[o + j] * s.k[o + j] * r_k[h * p.N + j];
      for (int64_t i = 0; i < p.N; ++i) s.y[o + i] += sum * s.v[o + i];
    }
  }
}

// The sequential part: per head, over the T tokens in order (kernel wkv7).
void wkv(const Pass& p, float* S) {
  Workspace& s = p.ws;
  p.m.parallel_blocks(p.H, 1, [&](int64_t begin, int64_t end) {
    cpu::Wkv7Args a;
    a.state = S, a.r = s.r, a.w = s.w, a.k = s.k, a.v = s.v, a.a = s.kk, a.b = s.b, a.y = s.y;
    a.T = p.T, a.C = p.C, a.N = p.N, a.head_begin = begin, a.head_end = end;
    p.kt.wkv7(a);
  });
}

// Time-mix of block l on the T rows of ws.x (docs/model.md "Time mix").
void time_mix(const Pass& p, const LayerWeights& w, int64_t l, State& st) {
  Workspace& s = p.ws;
  const cpu::KernelTable& k = p.kt;
  const int64_t TC = p.T * p.C;
  norm(p, s.x, s.xn, w.ln1_w, w.ln1_b, 0, kLnEps, p.T);  // xn = layer_norm(x, ln1)
  token_shift(p, s.xn, st.att_shift(l), s.dx);           // xx = x_prev - x; att_x <- xn[-1]
  lerp_rows(p, s.xn, s.dx, w.x_r, s.xr);                 // xr = x + xx * x_r
  lerp_rows(p, s.xn, s.dx, w.x_w, s.xw);                 // xw
  lerp_rows(p, s.xn, s.dx, w.x_k, s.xk);                 // xk
  lerp_rows(p, s.xn, s.dx, w.x_v, s.xv);                 // xv
  lerp_rows(p, s.xn, s.dx, w.x_a, s.xa);                 // xa
  lerp_rows(p, s.xn, s.dx, w.x_g, s.xg);                 // xg
  matmul(p, w.receptance, s.xr, s.r);                    // r = xr @ Wr.T
  matmul(p, w.key, s.xk, s.k);                           // k = xk @ Wk.T
  matmul(p, w.value, s.xv, s.v);                         // v = xv @ Wv.T
  matmul(p, w.w1, s.xw, s.h);                            // w_raw = w0 + tanh(xw @ w1) @ w2
  k.tanh(s.h, s.h, p.T * w.w1.rows);
  matmul(p, w.w2, s.h, s.w);
  add_rows(p, s.w, w.w0);
  k.decay(s.w, s.w, TC);       // w = exp(-0.606531 * sigmoid(w_raw))
  matmul(p, w.a1, s.xa, s.h);  // a = sigmoid(a0 + (xa @ a1) @ a2)
  matmul(p, w.a2, s.h, s.a);
  add_rows(p, s.a, w.a0);
  k.sigmoid(s.a, s.a, TC);
  matmul(p, w.g1, s.xg, s.h);  // g = sigmoid(xg @ g1) @ g2
  k.sigmoid(s.h, s.h, p.T * w.g1.rows);
  matmul(p, w.g2, s.h, s.g);
  keys(p, w);    // kk = l2_normalize_heads(k * k_k); k *= 1 + (a-1) * k_a
  if (l == 0) {  // v_first = v
    std::memcpy(s.v_first, s.v, static_cast<size_t>(TC) * sizeof(float));
  } else {  // v += (v_first - v) * sigmoid(v0 + (xv @ v1) @ v2)
    matmul(p, w.v1, s.xv, s.h);
    matmul(p, w.v2, s.h, s.tmp);
    add_rows(p, s.tmp, w.v0);
    k.sigmoid(s.tmp, s.tmp, TC);
    value_residual(p);
  }
  wkv(p, st.wkv(l));                                        // _wkv_scan: y = S @ r after the update
  norm(p, s.y, s.y, w.ln_x_w, w.ln_x_b, p.N, kGnEps, p.T);  // group_norm_heads(y, ln_x)
  bonus(p, w.r_k);                                          // y += (r * k * r_k).sum() * v
  k.mul(s.y, s.g, s.y, TC);                                 // (y * g)
  matmul(p, w.output, s.y, s.tmp);                          // @ Wo.T
  k.add(s.x, s.tmp, s.x, TC);                               // x = x + time_mix
}

// Channel-mix of block l (docs/model.md "Channel mix"; rwkv7_ref.py _channel_mix).
void channel_mix(const Pass& p, const LayerWeights& w, int64_t l, State& st) {
  Workspace& s = p.ws;
  const int64_t TC = p.T * p.C;
  norm(p, s.x, s.xn, w.ln2_w, w.ln2_b, 0, kLnEps, p.T);  // xn2 = layer_norm(x, ln2)
  token_shift(p, s.xn, st.ffn_shift(l), s.dx);           // x_prev2 - xn2; ffn_x <- xn2[-1]
  lerp_rows(p, s.xn, s.dx, w.ffn_x_k, s.xk);             // kx = x + (x_prev - x) * ffn_x_k
  matmul(p, w.ffn_key, s.xk, s.h);                       // h = relu(kx @ ffn_K.T) ** 2
  p.kt.relu_sq(s.h, s.h, p.T * w.ffn_key.rows);
  matmul(p, w.ffn_value, s.h, s.tmp);  // h @ ffn_V.T
  p.kt.add(s.x, s.tmp, s.x, TC);       // x = x + channel_mix
}

// One pass over T <= chunk tokens; writes logits of the rows asked for.
void forward_pass(const Model& m, State& st, const uint32_t* tokens, int64_t T, float* logits,
                  bool all_logits, Workspace& ws) {
  const ModelConfig& c = m.config();
  Pass p{m, m.kernels(), ws, T, c.n_embd, c.head_size, c.n_head};
  for (int64_t t = 0; t < T; ++t) m.embed(tokens[t], ws.x + t * c.n_embd);  // layer_norm(emb, ln0)
  for (int64_t l = 0; l < c.n_layer; ++l) {
    time_mix(p, m.layer(l), l, st);
    channel_mix(p, m.layer(l), l, st);
  }
  if (logits == nullptr) return;
  // logits = layer_norm(x, ln_out) @ head.T, for the last row only unless all are asked.
  const int64_t first = all_logits ? 0 : T - 1;
  Pass out = p;
  out.T = T - first;
  const GlobalWeights& g = m.global();
  norm(out, ws.x + first * c.n_embd, ws.xn, g.ln_out_w, g.ln_out_b, 0, kLnEps, out.T);
  matmul(out, g.head, ws.xn, logits);
}

void check_tokens(const Model& m, const uint32_t* tokens, size_t n) {
  if (tokens == nullptr || n == 0) throw InvalidArgument("forward: empty token list");
  const uint64_t V = static_cast<uint64_t>(m.config().vocab);
  for (size_t i = 0; i < n; ++i) {
    if (tokens[i] >= V) {
      throw InvalidArgument("forward: token id " + std::to_string(tokens[i]) + " at position " +
                            std::to_string(i) + " is out of range (vocab size " +
                            std::to_string(V) + ")");
    }
  }
}

}  // namespace

void forward(const Model& model, State& state, const uint32_t* tokens, size_t n, float* logits,
             const ForwardOptions& options) {
  check_tokens(model, tokens, n);
  state.check_model(model);
  const size_t chunk = options.chunk == 0 ? kDefaultChunk : options.chunk;
  const int64_t V = model.config().vocab;
  Workspace ws(static_cast<int64_t>(std::min(n, chunk)), model.config());
  ws.fp32_act = options.fp32_activations;
  model.execute([&] {
    for (size_t begin = 0; begin < n; begin += chunk) {
      const size_t len = std::min(chunk, n - begin);
      const bool last = begin + len == n;
      float* out = nullptr;
      if (logits != nullptr && options.all_logits) out = logits + begin * static_cast<size_t>(V);
      if (logits != nullptr && !options.all_logits && last) out = logits;
      forward_pass(model, state, tokens + begin, static_cast<int64_t>(len), out, options.all_logits,
                   ws);
    }
  });
}

size_t decode_weight_bytes(const Model& model) {
  auto bytes = [](const Mat& w) { return w.row_bytes * static_cast<size_t>(w.rows); };
  size_t total = bytes(model.global().head);
  const TensorView& e = *model.global().emb;
  total += e.nbytes / static_cast<size_t>(model.config().vocab);
  for (int64_t l = 0; l < model.config().n_layer; ++l) {
    const LayerWeights& w = model.layer(l);
    for (const Mat* m : {&w.w1, &w.w2, &w.a1, &w.a2, &w.v1, &w.v2, &w.g1, &w.g2, &w.receptance,
                         &w.key, &w.value, &w.output, &w.ffn_key, &w.ffn_value}) {
      total += bytes(*m);
    }
  }
  return total;
}

}  // namespace ai00::internal