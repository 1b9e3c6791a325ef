// HARD_SWISH: y = x * relu6(x + 3) / 6, as TFLite's reference kernels
// compute it.
//
// Float: x * min(6, max(0, x + 3)) / 6, in that order.
//
// Quantized (int8), all in 16-bit fixed point:
//   1. x = q - input_zero_point; hires = x * 2^7 (the input on a scale
//      s_in / 128, still exact in int16).
//   2. preshift = SRDHM16(hires, output_multiplier): hires on the output
//      scale, before the final right shift by -output_exponent (<= 0).
//   3. reluish: hires rescaled so that real 3.0 maps to 2^15 (multiplier
//      s_in / 128 / (3 / 32768) as a 15-bit mantissa and an exponent of
//      either sign): a left shift by exponent - 1 saturating, SRDHM16, the
//      last left shift by 1 saturating (the only saturation that counts),
//      or a rounding right shift for a negative exponent. Then [-1, 1] is
//      mapped to [0, 1]: reluish = (reluish + 2^15) >> 1.
//   4. product = SaturatingDoublingHighMul16(reluish, preshift): truncating,
//      not rounding, which cancels the bias of the roundings above.
//   5. q_out = clamp(int16(RoundingDivideByPOT16(product, -output_exponent)
//      + output_zero_point)) to [-128, 127].
// SRDHM16 is the 16-bit SaturatingRoundingDoublingHighMul.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"

namespace microarena::reference {

struct HardSwishInt8Params {
  int16_t input_zero_point = 0;
  int16_t output_zero_point = 0;
  int16_t reluish_multiplier = 0;  // 15-bit mantissa of s_in / 128 / (3 / 32768)
  int16_t output_multiplier = 0;   // 15-bit mantissa of s_in / 128 / s_out
  int32_t reluish_exponent = 0;    // any sign
  int32_t output_exponent = 0;     // <= 0
};

// value * 2^amount saturated to int16.
inline int16_t SaturatingLeftShiftInt16(int16_t value, int amount) {
  const int64_t shifted = int64_t{value} * (int64_t{1} << amount);
  return static_cast<int16_t>(std::clamp<int64_t>(shifted, std::numeric_limits<int16_t>::min(),
                                                  std::numeric_limits<int16_t>::max()));
}

// (a * b * 2) >> 16 truncated toward zero; INT16_MIN * INT16_MIN saturates.
inline int16_t SaturatingDoublingHighMulInt16(int16_t a, int16_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int16_t>::min();
  const auto high = static_cast<int16_t>(int32_t{a} * int32_t{b} / (1 << 15));
  return overflow ? std::numeric_limits<int16_t>::max() : high;
}

inline int8_t HardSwishInt8Element(const HardSwishInt8Params& p, int8_t q) {
  using fixed_point::RoundingDivideByPOTInt16;
  using fixed_point::SaturatingRoundingDoublingHighMulInt16;
  const auto x = static_cast<int16_t>(q - p.input_zero_point);
  const auto hires = static_cast<int16_t>(x * (1 << 7));
  const int16_t preshift = SaturatingRoundingDoublingHighMulInt16(hires, p.output_multiplier);

  int16_t reluish = hires;
  if (p.reluish_exponent > 0) reluish = SaturatingLeftShiftInt16(reluish, p.reluish_exponent - 1);
  reluish = SaturatingRoundingDoublingHighMulInt16(reluish, p.reluish_multiplier);
  if (p.reluish_exponent > 0) reluish = SaturatingLeftShiftInt16(reluish, 1);
  if (p.reluish_exponent < 0) reluish = RoundingDivideByPOTInt16(reluish, -p.reluish_exponent);
  reluish = static_cast<int16_t>((reluish + (1 << 15)) >> 1);

  const int16_t product = SaturatingDoublingHighMulInt16(reluish, preshift);
  const auto y = static_cast<int16_t>(RoundingDivideByPOTInt16(product, -p.output_exponent) + p.output_zero_point);
  return static_cast<int8_t>(std::clamp<int16_t>(y, -128, 127));
}

inline void HardSwishInt8(const HardSwishInt8Params& p, size_t count, const int8_t* input, int8_t* output) {
  for (size_t i = 0; i < count; ++i) output[i] = HardSwishInt8Element(p, input[i]);
}

inline void HardSwishFloat(size_t count, const float* input, float* output) {
  for (size_t i = 0; i < count; ++i) {
    const float x = input[i];
    output[i] = x * std::min(6.0f, std::max(0.0f, x + 3.0f)) / 6.0f;
  }
}

}  // namespace microarena::reference
