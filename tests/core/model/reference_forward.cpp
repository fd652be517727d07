#include "reference_forward.h"

#include <algorithm>
#include <cmath>

#include "base/dequant.h"
#include "core/weights/weights.h"

namespace ai00::test {
namespace {

using Vec = ReferenceForward::Vec;
using Mat = ReferenceForward::Mat;

Vec vec(const float* p, int64_t n) {
  if (p == nullptr) return Vec();
  return Eigen::Map<const Eigen::VectorXf>(p, n).cast<double>();
}

// Dequantizes a stored matrix (Linear orientation, rows x cols) row by row; one transposed in
// blocks (Mat::t_block: the LoRA up-projections of a Model loaded with pack_weights) stored row
// by stored row, each the block's slice of one column.
Mat dense(const internal::Mat& m) {
  Mat out(m.rows, m.cols);
  const internal::DType dtype = m.type;
  if (m.t_block > 0) {
    const int64_t n = m.t_block;
    Eigen::VectorXf part(n);
    const size_t part_bytes = internal::dtype_row_bytes(dtype, n);
    for (int64_t b = 0; b < m.rows / n; ++b) {
      for (int64_t c = 0; c < m.cols; ++c) {
        internal::dequantize_row(dtype, m.data + part_bytes * static_cast<size_t>(b * m.cols + c),
                                 n, part.data());
        out.block(b * n, c, n, 1) = part.cast<double>();
      }
    }
    return out;
  }
  Eigen::VectorXf row(m.cols);
  for (int64_t r = 0; r < m.rows; ++r) {
    internal::dequantize_row(dtype, m.data + m.row_bytes * static_cast<size_t>(r), m.cols,
                             row.data());
    out.row(r) = row.cast<double>().transpose();
  }
  return out;
}

// LayerNorm with the biased variance.
Vec layer_norm(const Vec& x, const Vec& w, const Vec& b, double eps) {
  const Vec d = x.array() - x.mean();
  const double var = d.squaredNorm() / static_cast<double>(x.size());
  return (d / std::sqrt(var + eps)).cwiseProduct(w) + b;
}

Vec sigmoid(const Vec& x) { return (1.0 + (-x.array()).exp()).inverse().matrix(); }

// Token-shift mix: x + (x_prev - x) * m.
Vec mix(const Vec& x, const Vec& dx, const Vec& m) { return x + dx.cwiseProduct(m); }

}  // namespace

ReferenceForward::ReferenceForward(const internal::Model& model) : cfg_(model.config()) {
  const int64_t C = cfg_.n_embd;
  const internal::GlobalWeights& g = model.global();
  emb_ = Mat(cfg_.vocab, C);
  Eigen::VectorXf row(C);
  const size_t emb_row_bytes = internal::dtype_row_bytes(g.emb->dtype, C);
  for (int64_t t = 0; t < cfg_.vocab; ++t) {
    internal::dequantize_row(g.emb->dtype, g.emb->data + emb_row_bytes * static_cast<size_t>(t), C,
                             row.data());
    emb_.row(t) = row.cast<double>().transpose();
  }
  head_ = dense(g.head);
  ln0_w_ = vec(g.ln0_w, C);
  ln0_b_ = vec(g.ln0_b, C);
  ln_out_w_ = vec(g.ln_out_w, C);
  ln_out_b_ = vec(g.ln_out_b, C);
  for (int64_t l = 0; l < cfg_.n_layer; ++l) {
    const internal::LayerWeights& w = model.layer(l);
    Layer y;
    y.ln1_w = vec(w.ln1_w, C), y.ln1_b = vec(w.ln1_b, C), y.ln2_w = vec(w.ln2_w, C);
    y.ln2_b = vec(w.ln2_b, C), y.x_r = vec(w.x_r, C), y.x_w = vec(w.x_w, C);
    y.x_k = vec(w.x_k, C), y.x_v = vec(w.x_v, C), y.x_a = vec(w.x_a, C), y.x_g = vec(w.x_g, C);
    y.w0 = vec(w.w0, C), y.a0 = vec(w.a0, C), y.v0 = vec(w.v0, C), y.k_k = vec(w.k_k, C);
    y.k_a = vec(w.k_a, C), y.r_k = vec(w.r_k, C), y.ln_x_w = vec(w.ln_x_w, C);
    y.ln_x_b = vec(w.ln_x_b, C), y.ffn_x_k = vec(w.ffn_x_k, C);
    y.w1 = dense(w.w1), y.w2 = dense(w.w2), y.a1 = dense(w.a1), y.a2 = dense(w.a2);
    if (l > 0) y.v1 = dense(w.v1), y.v2 = dense(w.v2);
    y.g1 = dense(w.g1), y.g2 = dense(w.g2), y.receptance = dense(w.receptance);
    y.key = dense(w.key), y.value = dense(w.value), y.output = dense(w.output);
    y.ffn_key = dense(w.ffn_key), y.ffn_value = dense(w.ffn_value);
    layers_.push_back(std::move(y));
    LayerState s;
    s.att_x = Vec::Zero(C);
    s.ffn_x = Vec::Zero(C);
    s.wkv.assign(static_cast<size_t>(cfg_.n_head), Mat::Zero(cfg_.head_size, cfg_.head_size));
    state_.push_back(std::move(s));
  }
}

Vec ReferenceForward::step(uint32_t token) {
  Vec x = layer_norm(emb_.row(token).transpose(), ln0_w_, ln0_b_, 1e-5);
  Vec v_first;
  for (int64_t l = 0; l < cfg_.n_layer; ++l) {
    x += time_mix(l, x, v_first);
    x += channel_mix(l, x);
  }
  return head_ * layer_norm(x, ln_out_w_, ln_out_b_, 1e-5);
}

Vec ReferenceForward::time_mix(int64_t l, const Vec& x, Vec& v_first) {
  const Layer& p = layers_[static_cast<size_t>(l)];
  LayerState& s = state_[static_cast<size_t>(l)];
  const Vec xn = layer_norm(x, p.ln1_w, p.ln1_b, 1e-5);
  const Vec dx = s.att_x - xn;
  s.att_x = xn;
  const Vec r = p.receptance * mix(xn, dx, p.x_r);
  Vec k = p.key * mix(xn, dx, p.x_k);
  Vec v = p.value * mix(xn, dx, p.x_v);
  const Vec lora_w = p.w2 * (p.w1 * mix(xn, dx, p.x_w)).array().tanh().matrix();
  const Vec w = (-std::exp(-0.5) * sigmoid(p.w0 + lora_w).array()).exp().matrix();
  const Vec a = sigmoid(p.a0 + p.a2 * (p.a1 * mix(xn, dx, p.x_a)));
  const Vec g = p.g2 * sigmoid(p.g1 * mix(xn, dx, p.x_g));
  Vec kk = k.cwiseProduct(p.k_k);
  const int64_t N = cfg_.head_size;
  for (int64_t h = 0; h < cfg_.n_head; ++h) {
    auto kk_h = kk.segment(h * N, N);
    kk_h /= std::max(kk_h.norm(), 1e-12);
  }
  k = k.cwiseProduct(Vec::Ones(k.size()) + (a.array() - 1.0).matrix().cwiseProduct(p.k_a));
  if (l == 0) {
    v_first = v;
  } else {
    const Vec gate = sigmoid(p.v0 + p.v2 * (p.v1 * mix(xn, dx, p.x_v)));
    v += (v_first - v).cwiseProduct(gate);
  }
  const Vec y = wkv_heads(l, r, w, k, v, kk, a);
  return p.output * y.cwiseProduct(g);
}

// WKV-7 update and readout per head, then GroupNorm (eps 64e-5), affine and the r_k bonus.
Vec ReferenceForward::wkv_heads(int64_t l, const Vec& r, const Vec& w, const Vec& k, const Vec& v,
                                const Vec& kk, const Vec& a) {
  const Layer& p = layers_[static_cast<size_t>(l)];
  LayerState& s = state_[static_cast<size_t>(l)];
  const int64_t N = cfg_.head_size;
  Vec y(r.size());
  for (int64_t h = 0; h < cfg_.n_head; ++h) {
    Mat& S = s.wkv[static_cast<size_t>(h)];
    const Vec kk_h = kk.segment(h * N, N);
    const Vec sa = S * (-kk_h);
    S = S * w.segment(h * N, N).asDiagonal();
    S += sa * kk_h.cwiseProduct(a.segment(h * N, N)).transpose();
    S += v.segment(h * N, N) * k.segment(h * N, N).transpose();
    const Vec y_h = S * r.segment(h * N, N);
    const Vec d = y_h.array() - y_h.mean();
    y.segment(h * N, N) = d / std::sqrt(d.squaredNorm() / static_cast<double>(N) + 64e-5);
  }
  y = y.cwiseProduct(p.ln_x_w) + p.ln_x_b;
  for (int64_t h = 0; h < cfg_.n_head; ++h) {
    const double bonus =
        r.segment(h * N, N).cwiseProduct(k.segment(h * N, N)).dot(p.r_k.segment(h * N, N));
    y.segment(h * N, N) += bonus * v.segment(h * N, N);
  }
  return y;
}

Vec ReferenceForward::channel_mix(int64_t l, const Vec& x) {
  const Layer& p = layers_[static_cast<size_t>(l)];
  LayerState& s = state_[static_cast<size_t>(l)];
  const Vec xf = layer_norm(x, p.ln2_w, p.ln2_b, 1e-5);
  const Vec dx = s.ffn_x - xf;
  s.ffn_x = xf;
  const Vec hidden = (p.ffn_key * mix(xf, dx, p.ffn_x_k)).cwiseMax(0.0).array().square().matrix();
  return p.ffn_value * hidden;
}

std::vector<float> ReferenceForward::state() const {
  std::vector<float> out;
  out.reserve(static_cast<size_t>(cfg_.state_floats()));
  for (const LayerState& s : state_) {
    for (int64_t c = 0; c < s.att_x.size(); ++c) out.push_back(static_cast<float>(s.att_x[c]));
    for (int64_t c = 0; c < s.ffn_x.size(); ++c) out.push_back(static_cast<float>(s.ffn_x[c]));
    for (const Mat& S : s.wkv) {
      for (int64_t i = 0; i < S.rows(); ++i) {
        for (int64_t j = 0; j < S.cols(); ++j) out.push_back(static_cast<float>(S(i, j)));
      }
    }
  }
  return out;
}

}  // namespace ai00::test
