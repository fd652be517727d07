// Sums of exponentials in a fixed order (exp_sum.h).
#include "base/exp_sum.h"

#include <algorithm>
#include <limits>

namespace ai00::internal {
namespace {

inline double lane_total(const float (&lane)[8]) {
  return static_cast<double>((lane[0] + lane[1]) + (lane[2] + lane[3])) +
         static_cast<double>((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

template <bool kWithEd>
ExpSums exp_sums_impl(const float* x, size_t n, float x_ref, float inv_t) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  ExpSums out;
  for (size_t i = 0; i < n; i += 64) {
    const size_t len = std::min<size_t>(64, n - i);
    float e[64];
    float d[64];
    for (size_t t = 0; t < len; ++t) {
      const float dt = x[i + t] - x_ref;
      if (kWithEd) d[t] = dt > -kInf ? dt : 0.0f;  // masked: e = 0, and 0 * -inf is NaN
      e[t] = exp_nonpos(dt * inv_t);
    }
    for (size_t t = len; t < 64; ++t) e[t] = d[t] = 0.0f;
    float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < 64; k += 8) {
      for (size_t j = 0; j < 8; ++j) lane[j] += e[k + j];
    }
    out.e += lane_total(lane);
    if (!kWithEd) continue;
    float lane_ed[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < 64; k += 8) {
      for (size_t j = 0; j < 8; ++j) lane_ed[j] += e[k + j] * d[k + j];
    }
    out.ed += lane_total(lane_ed);
  }
  return out;
}

}  // namespace

ExpSums exp_sums(const float* x, size_t n, float x_ref, float inv_t, bool with_ed) {
  return with_ed ? exp_sums_impl<true>(x, n, x_ref, inv_t)
                 : exp_sums_impl<false>(x, n, x_ref, inv_t);
}

}  // namespace ai00::internal
