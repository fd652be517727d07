// exp(x) for x <= 0 and sums of exponentials in a fixed order: the log-softmax of sampling
// (core/sampling/sampler.cpp) and of option scoring (core/model/score.cpp), one implementation.
//
// exp_nonpos is portable scalar code written so that the compiler vectorises the loops that call
// it (no libm call, no branch), and gives the same bits on every libm. The rounding trick
// (a + 1.5 * 2^23) - 1.5 * 2^23 needs IEEE arithmetic: never build a caller with -ffast-math.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ai00::internal {

// exp(x) for x <= 0 (Cephes expf: Cody-Waite reduction, degree-5 polynomial, about 1 ulp), and
// exactly 0 below -87.3 (so exp(-inf) = 0 and masked tokens weigh nothing).
inline float exp_nonpos(float x) {
  const float xc = x > -87.3f ? x : -87.3f;
  const float n = (xc * 1.44269504f + 12582912.0f) - 12582912.0f;  // round to nearest, exact
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  const float v = y * scale;  // computed unconditionally so that the select vectorises
  return x > -87.3f ? v : 0.0f;
}

// Sums of e_i = exp((x_i - x_ref) * inv_t) and, if asked, of e_i * (x_i - x_ref) over finite x_i
// (x_i <= x_ref), in a fixed order: blocks of 64 summed in 8 float lanes, the blocks added in
// double.
struct ExpSums {
  double e = 0.0;
  double ed = 0.0;
};
ExpSums exp_sums(const float* x, size_t n, float x_ref, float inv_t, bool with_ed);

}  // namespace ai00::internal
