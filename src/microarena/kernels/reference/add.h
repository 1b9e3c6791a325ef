// Quantized and float ADD and SUB, elementwise, as TFLite's reference kernels.
//
// Quantized (int8, int16): both inputs are brought to a common scale with
// extra precision before they are added:
//   1. x = (q - zero_point) << left_shift       (20 for int8, 15 for int16)
//   2. x_scaled = x * input_multiplier          (each < 1: input scale over
//                                                twice the larger input scale)
//   3. sum = x1_scaled +/- x2_scaled
//   4. q_out = sum * output_multiplier + output_zero_point, clamped to the
//      fused activation range.
// Every multiply is MultiplyByQuantizedMultiplierSmallerThanOneExp (rounding
// doubling high multiply, then rounding right shift).
// Float: clamp(a +/- b, activation_min, activation_max).
#pragma once

#include <algorithm>
#include <cstdint>

#include "microarena/kernels/fixed_point.h"

namespace microarena::reference {

struct AddQuantizedParams {
  int32_t input1_offset = 0;  // -input1 zero point
  int32_t input2_offset = 0;  // -input2 zero point
  int32_t output_offset = 0;  // output zero point
  int32_t left_shift = 0;
  int32_t input1_multiplier = 0;
  int32_t input1_shift = 0;  // <= 0
  int32_t input2_multiplier = 0;
  int32_t input2_shift = 0;  // <= 0
  int32_t output_multiplier = 0;
  int32_t output_shift = 0;  // <= 0
  int32_t activation_min = 0;
  int32_t activation_max = 0;
};

struct FloatActivationRange {
  float min = 0.0f;
  float max = 0.0f;
};

// One quantized ADD (kSubtract = false) or SUB (kSubtract = true) element.
// Plain int32 arithmetic is safe here, unlike in the other kernels: Prepare
// keeps zero points within the type (int8: |q - zp| <= 255, 255 * 2^20 <
// 2^28; int16: |q - zp| <= 65535, 65535 * 2^15 < 2^31) and every multiplier
// below one, so each scaled input stays below 2^30 and their sum below 2^31.
template <bool kSubtract, typename T>
inline T AddQuantizedElement(T x, T y, const AddQuantizedParams& p) {
  using fixed_point::MultiplyByQuantizedMultiplierSmallerThanOneExp;
  const int32_t shifted1 = (p.input1_offset + int32_t{x}) * (int32_t{1} << p.left_shift);
  const int32_t shifted2 = (p.input2_offset + int32_t{y}) * (int32_t{1} << p.left_shift);
  const int32_t scaled1 = MultiplyByQuantizedMultiplierSmallerThanOneExp(shifted1, p.input1_multiplier, p.input1_shift);
  const int32_t scaled2 = MultiplyByQuantizedMultiplierSmallerThanOneExp(shifted2, p.input2_multiplier, p.input2_shift);
  const int32_t raw = kSubtract ? scaled1 - scaled2 : scaled1 + scaled2;
  const int32_t output =
      MultiplyByQuantizedMultiplierSmallerThanOneExp(raw, p.output_multiplier, p.output_shift) + p.output_offset;
  return static_cast<T>(std::min(p.activation_max, std::max(p.activation_min, output)));
}

// One float ADD or SUB element.
template <bool kSubtract>
inline float AddFloatElement(float x, float y, const FloatActivationRange& range) {
  const float raw = kSubtract ? x - y : x + y;
  return std::min(std::max(raw, range.min), range.max);
}

}  // namespace microarena::reference
