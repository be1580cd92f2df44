// The fast 2^u that the CPU's NL-means weights use (cpu/nlmeans' vectorized kernel and
// cpu/temporal_nlmeans' previous-frame loops): u = n + f with |f| <= 1/2, 2^f from a
// polynomial (Cephes exp2f, relative error about 2e-7) and 2^n from the exponent bits.
#pragma once

namespace fp::cpu {

// Added to u (>= -126), it rounds u to an integer n and leaves n + 127 in the low mantissa
// bits, which a shift by 23 moves into a float's exponent field: 1.5 * 2^23 + 127.
inline constexpr float kExp2Shift = 12583039.0f;

// 2^f for |f| <= 1/2, for a float or a GCC vector of floats. Always inlined, so no vector
// crosses a call and GCC's note on AVX vectors changing the ABI does not apply.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
template <class F>
__attribute__((always_inline)) inline F exp2_fraction(const F& f) {
  F p = f * 1.535336188319500e-4f + 1.339887440266574e-3f;
  p = p * f + 9.618437357674640e-3f;
  p = p * f + 5.550332471162809e-2f;
  p = p * f + 2.402264791363012e-1f;
  p = p * f + 6.931472028550421e-1f;
  return p * f + 1.0f;
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace fp::cpu
