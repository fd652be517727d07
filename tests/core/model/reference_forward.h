// A plain RWKV-7 forward pass written with Eigen, one token at a time, in double precision
// (docs/model.md "RWKV-7 math"; the same steps as shared/ref/rwkv7_ref.py). It shares nothing
// with the engine's forward or kernels: it copies every weight of a loaded Model into dense
// matrices (dequantizing the stored type row by row) and evaluates the formulas directly, so the
// engine's result on every ISA can be checked against it.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "core/model/model.h"

namespace ai00::test {

class ReferenceForward {
 public:
  using Vec = Eigen::VectorXd;
  using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  // Copies the weights of `model` (any file format, any stored type) and starts from the zero
  // state.
  explicit ReferenceForward(const internal::Model& model);

  // Feeds one token, advances the state, returns the V logits.
  Vec step(uint32_t token);

  // The state in the engine's layout: per layer att_shift[C], ffn_shift[C], wkv[H][N][N]
  // (S[h][i = value][j = key]).
  std::vector<float> state() const;

 private:
  struct Layer {
    Vec ln1_w, ln1_b, ln2_w, ln2_b, x_r, x_w, x_k, x_v, x_a, x_g;
    Vec w0, a0, v0, k_k, k_a, r_k, ln_x_w, ln_x_b, ffn_x_k;
    Mat w1, w2, a1, a2, v1, v2, g1, g2, receptance, key, value, output, ffn_key, ffn_value;
  };
  struct LayerState {
    Vec att_x, ffn_x;
    std::vector<Mat> wkv;  // per head: N x N, rows = value channel i, columns = key channel j
  };

  Vec time_mix(int64_t l, const Vec& x, Vec& v_first);
  Vec channel_mix(int64_t l, const Vec& x);
  Vec wkv_heads(int64_t l, const Vec& r, const Vec& w, const Vec& k, const Vec& v, const Vec& kk,
                const Vec& a);

  internal::ModelConfig cfg_;
  std::vector<Layer> layers_;
  Mat emb_, head_;
  Vec ln0_w_, ln0_b_, ln_out_w_, ln_out_b_;
  std::vector<LayerState> state_;
};

}  // namespace ai00::test
