// L2_NORMALIZATION over the last axis, as TFLite's reference kernels
// compute it.
//
// Float: y = x / max(sqrt(sum of x^2 in float), 1e-6).
// Int8: d = q - zp_in; acc = sum of d^2 (int32); 1 / sqrt(acc) as a
// mantissa and shift (fixed_point::InvSqrtQuantizedMultiplier); then
// q_out = clamp(MultiplyByQuantizedMultiplier(d, mantissa, shift + 7)),
// i.e. the output is read with scale 1/128 and zero point 0 whatever the
// output tensor says (TFLM does not look at it).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/fixed_point_exp.h"

namespace microarena::reference {

// TFLM's fixed epsilon for the float kernel.
constexpr float kL2NormalizationEpsilon = 1e-6f;

inline void L2NormalizationFloat(size_t rows, size_t depth, const float* input, float* output) {
  for (size_t row = 0; row < rows; ++row) {
    const float* in = input + row * depth;
    float* out = output + row * depth;
    float squared = 0.0f;
    for (size_t c = 0; c < depth; ++c) squared += in[c] * in[c];
    const float norm = std::max(std::sqrt(squared), kL2NormalizationEpsilon);
    for (size_t c = 0; c < depth; ++c) out[c] = in[c] / norm;
  }
}

inline void L2NormalizationInt8(int32_t input_zero_point, size_t rows, size_t depth, const int8_t* input,
                                int8_t* output) {
  constexpr int kOutputShift = 7;  // output scale 1/128
  for (size_t row = 0; row < rows; ++row) {
    const int8_t* in = input + row * depth;
    int8_t* out = output + row * depth;
    // Each square is below 2^16; TFLite's int32 sum wraps past 2^15 of them.
    int32_t acc = 0;
    for (size_t c = 0; c < depth; ++c) {
      const int32_t d = int32_t{in[c]} - input_zero_point;
      acc = fixed_point::WrappingAdd(acc, d * d);
    }
    int32_t multiplier = 0;
    int32_t shift = 0;
    fixed_point::InvSqrtQuantizedMultiplier(acc, &multiplier, &shift);
    for (size_t c = 0; c < depth; ++c) {
      const int32_t d = int32_t{in[c]} - input_zero_point;
      const int32_t y = fixed_point::MultiplyByQuantizedMultiplier(d, multiplier, shift + kOutputShift);
      out[c] = static_cast<int8_t>(std::clamp<int32_t>(y, -128, 127));
    }
  }
}

}  // namespace microarena::reference
