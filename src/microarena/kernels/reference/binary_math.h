// Per-element math of the binary ops MAXIMUM, MINIMUM, SQUARED_DIFFERENCE,
// DIV, FLOOR_DIV and FLOOR_MOD, as TFLite's reference kernels compute it.
// The broadcasting loop is reference/broadcast.h; the functions here take
// one element of each input.
//
//   MAXIMUM / MINIMUM    a > b ? a : b / a < b ? a : b (raw values, also for
//                        int8/int16: TFLM does not rescale; NaN rules follow
//                        from the comparison: max(NaN, 1) = 1, max(1, NaN) = NaN)
//   SQUARED_DIFFERENCE   (a - b)^2; int32 wraps; int8/int16 bring both inputs
//                        to a common scale (2 * max input scale, after a left
//                        shift of 7 bits for int8, 0 for int16), square the
//                        difference and rescale it to the output
//   DIV                  float / int32: a / b clamped to the activation range;
//                        int8: (a - zp1) / (b - zp2) by a fixed-point
//                        reciprocal of the divisor, rescaled to the output
//   FLOOR_DIV            float(floor(double(a) / double(b)))
//   FLOOR_MOD            fmod(a, b), plus b when the remainder is non-zero
//                        and its sign differs from b's
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/fixed_point_exp.h"
#include "microarena/kernels/wrapping_math.h"

namespace microarena::reference {

template <typename T>
inline T Maximum(T a, T b) {
  return a > b ? a : b;
}

template <typename T>
inline T Minimum(T a, T b) {
  return a < b ? a : b;
}

inline float SquaredDifference(float a, float b) {
  const float difference = a - b;
  return difference * difference;
}

inline int32_t SquaredDifference(int32_t a, int32_t b) {
  const int32_t difference = fixed_point::WrappingSub(a, b);
  return fixed_point::WrappingMul(difference, difference);
}

// Quantized SQUARED_DIFFERENCE parameters (TFLite's ArithmeticParams subset).
struct SquaredDifferenceParams {
  int32_t input1_offset = 0;  // -zero point
  int32_t input2_offset = 0;
  int32_t output_offset = 0;  // +zero point
  int32_t left_shift = 0;
  int32_t input1_multiplier = 0;  // below one
  int32_t input1_shift = 0;       // <= 0
  int32_t input2_multiplier = 0;
  int32_t input2_shift = 0;
  int32_t output_multiplier = 0;
  int32_t output_shift = 0;
  int32_t activation_min = 0;  // the output type's range
  int32_t activation_max = 0;
};

template <typename T>
inline T SquaredDifferenceQuantized(T a, T b, const SquaredDifferenceParams& p) {
  const int32_t shifted1 = fixed_point::WrappingShiftLeft(p.input1_offset + static_cast<int32_t>(a), p.left_shift);
  const int32_t shifted2 = fixed_point::WrappingShiftLeft(p.input2_offset + static_cast<int32_t>(b), p.left_shift);
  const int32_t scaled1 =
      fixed_point::MultiplyByQuantizedMultiplierSmallerThanOneExp(shifted1, p.input1_multiplier, p.input1_shift);
  const int32_t scaled2 =
      fixed_point::MultiplyByQuantizedMultiplierSmallerThanOneExp(shifted2, p.input2_multiplier, p.input2_shift);
  const int32_t difference = fixed_point::WrappingSub(scaled1, scaled2);
  const int32_t squared = fixed_point::WrappingMul(difference, difference);
  const int32_t raw = fixed_point::WrappingAdd(
      fixed_point::MultiplyByQuantizedMultiplier(squared, p.output_multiplier, p.output_shift), p.output_offset);
  return static_cast<T>(std::min(p.activation_max, std::max(p.activation_min, raw)));
}

// a / b clamped, for float and int32. For int32 the caller rules out b == 0;
// INT32_MIN / -1 wraps to INT32_MIN instead of trapping.
inline float DivClamped(float a, float b, float act_min, float act_max) {
  return std::min(std::max(a / b, act_min), act_max);
}

inline int32_t DivClamped(int32_t a, int32_t b, int32_t act_min, int32_t act_max) {
  const int32_t quotient = b == -1 ? fixed_point::WrappingNegate(a) : a / b;
  return std::min(std::max(quotient, act_min), act_max);
}

// Quantized DIV parameters.
struct DivQuantizedParams {
  int32_t input1_offset = 0;  // -zero point
  int32_t input2_offset = 0;
  int32_t output_offset = 0;      // +zero point
  int32_t output_multiplier = 0;  // input1_scale / (input2_scale * output_scale)
  int32_t output_shift = 0;
  int32_t activation_min = 0;
  int32_t activation_max = 0;
};

// x / 2^exponent rounded as fixed_point::RoundingDivideByPOT, for any
// exponent >= 0. The int8 DIV path asks for exponents above 31 (a small
// numerator over a large divisor); TFLite then shifts an int32 by 32 or more
// bits, which x86-64 (the oracle's host) performs modulo 32, with the mask
// (2^exponent - 1 truncated to 32 bits) all ones. Reproduced here without
// the undefined shift.
inline int32_t RoundingDivideByPOTAnyExponent(int32_t x, int exponent) {
  if (exponent <= 31) return fixed_point::RoundingDivideByPOT(x, exponent);
  const int32_t threshold = -1 + (x < 0 ? 1 : 0);
  return (x >> (exponent & 31)) + (x > threshold ? 1 : 0);
}

// TFLite's CountLeadingSignBits (g++ build): 31 for 0.
inline int CountLeadingSignBits(int32_t x) { return x == 0 ? 31 : __builtin_clrsb(x); }

template <typename T>
inline T DivQuantized(T a, T b, const DivQuantizedParams& p) {
  int32_t numerator = p.input1_offset + static_cast<int32_t>(a);
  int32_t denominator = p.input2_offset + static_cast<int32_t>(b);
  // The reciprocal is taken of a positive value: move the sign to the numerator.
  if (denominator < 0) {
    numerator = -numerator;
    denominator = -denominator;
  }
  // A zero denominator (b == zero point) is not refused by TFLM: the
  // reciprocal's arithmetic runs on 0 and gives a finite, saturated answer.
  int reciprocal_shift = 0;
  const int32_t reciprocal = fixed_point::GetReciprocal(denominator, 31, &reciprocal_shift);
  const int headroom = CountLeadingSignBits(numerator);
  const int32_t unscaled = fixed_point::MultiplyByQuantizedMultiplierGreaterThanOne(numerator, reciprocal, headroom);
  const int total_shift = p.output_shift - reciprocal_shift - headroom;
  const int32_t scaled = RoundingDivideByPOTAnyExponent(
      fixed_point::SaturatingRoundingDoublingHighMul(unscaled, p.output_multiplier), -total_shift);
  const int32_t result = fixed_point::WrappingAdd(p.output_offset, scaled);
  return static_cast<T>(std::min(p.activation_max, std::max(p.activation_min, result)));
}

// The caller rules out b == 0 (TFLM fails the op on any zero divisor).
inline float FloorDiv(float a, float b) {
  return static_cast<float>(std::floor(static_cast<double>(a) / static_cast<double>(b)));
}

inline float FloorMod(float a, float b) {
  const float truncated = std::fmod(a, b);
  return truncated != 0.0f && ((b < 0.0f) != (truncated < 0.0f)) ? truncated + b : truncated;
}

}  // namespace microarena::reference
