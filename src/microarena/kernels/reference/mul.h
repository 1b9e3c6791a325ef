// Quantized and float MUL, one element at a time, as TFLite's reference
// kernels compute it (broadcasting is reference/broadcast.h's job).
//
// Quantized (int8, and int16 with zero points 0):
//   1. x1 = q1 - zero_point1, x2 = q2 - zero_point2   (int8: each in [-255, 255])
//   2. product = x1 * x2                               (exact in int32)
//   3. q_out = MultiplyByQuantizedMultiplier(product, M, shift) + zero_point_out,
//      with M * 2^shift = s1 * s2 / s_out (computed in double; may exceed 1),
//      clamped to the fused activation range.
// Float: clamp(a * b, activation_min, activation_max).
#pragma once

#include <algorithm>
#include <cstdint>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/add.h"

namespace microarena::reference {

struct MulQuantizedParams {
  int32_t input1_offset = 0;  // -input1 zero point
  int32_t input2_offset = 0;  // -input2 zero point
  int32_t output_offset = 0;  // output zero point
  int32_t output_multiplier = 0;
  int32_t output_shift = 0;  // any sign
  int32_t activation_min = 0;
  int32_t activation_max = 0;
};

// One quantized MUL element.
template <typename T>
inline T MulQuantizedElement(T x, T y, const MulQuantizedParams& p) {
  const int32_t product = (p.input1_offset + int32_t{x}) * (p.input2_offset + int32_t{y});
  // |product| <= 255 * 255 (int8; int16: <= 2^30, zero points 0), but a multiplier
  // up to 2^30 can rescale it near INT32_MIN/MAX, where adding the zero point
  // wraps in TFLite: WrappingAdd wraps the same way.
  const int32_t output = fixed_point::WrappingAdd(
      p.output_offset, fixed_point::MultiplyByQuantizedMultiplier(product, p.output_multiplier, p.output_shift));
  return static_cast<T>(std::min(p.activation_max, std::max(p.activation_min, output)));
}

// One float MUL element.
inline float MulFloatElement(float x, float y, const FloatActivationRange& range) {
  return std::min(std::max(x * y, range.min), range.max);
}

}  // namespace microarena::reference
