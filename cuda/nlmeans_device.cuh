// What the NL-means kernels share (cuda/nlmeans.cu, cuda/temporal_nlmeans.cu): reflect-101,
// the unaligned load of a patch row's words, the hardware exp2, and how a weight's exponent
// is formed from an exact integer SSD. For .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/ops/nlmeans_params.hpp"

namespace fp::cuda::nlmeans_device {

// The float bits of 2^23: an SSD below 2^23 carried with them added is, read as a float,
// exactly 2^23 + SSD (see WeightExponent).
inline constexpr std::uint32_t kTwoPow23Bits = 0x4B000000u;

// Reflect-101 into [0, n) for any i (n >= 1), as cpu::reflect101.
__device__ inline int reflect101(int i, int n) {
  if (static_cast<unsigned>(i) < static_cast<unsigned>(n)) return i;
  if (n == 1) return 0;
  const int period = 2 * (n - 1);
  int m = i % period;
  if (m < 0) m += period;
  return m < n ? m : period - m;
}

// NW words of a row starting `shift / 8` bytes into the word at p.
template <int NW>
__device__ __forceinline__ void load_window(const std::uint32_t* p, unsigned shift, std::uint32_t (&w)[NW]) {
  std::uint32_t raw[NW + 1];
#pragma unroll
  for (int j = 0; j <= NW; ++j) raw[j] = p[j];
#pragma unroll
  for (int j = 0; j < NW; ++j) w[j] = __funnelshift_r(raw[j], raw[j + 1], shift);
}

// 2^x by the special function unit; subnormal results (weights below 2^-126, negligible next
// to the centre weight 1) flush to 0, and -inf gives 0.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// A weight is 2^(neg_scale * SSD), neg_scale = -c, c = log2(e) / (patch^2 h^2), held at 1e30
// for a tiny h: c * 2^23 stays finite, a zero SSD still gets exponent exactly 0 and any other
// a weight of 0, as the exact reference. When patch^2 * 255^2 < 2^23 (`magic`) the kernels
// carry the SSD with kTwoPow23Bits added and form the exponent as one fma of its float bits
// with neg_scale and `offset` = c * 2^23, exact in float (a power-of-two multiple), so the
// bias cancels exactly; otherwise they convert the SSD and `offset` is 0.
struct WeightExponent {
  float neg_scale;
  float offset;
};

inline WeightExponent weight_exponent(const ops::NlmeansParams& params) {
  const double c =
      std::min(1.4426950408889634 / (static_cast<double>(params.patch) * params.patch * params.h * params.h), 1e30);
  const float scale = static_cast<float>(c);
  const bool magic = params.patch * params.patch * 255 * 255 < (1 << 23);
  return {-scale, magic ? scale * 8388608.0f : 0.0f};
}

}  // namespace fp::cuda::nlmeans_device
