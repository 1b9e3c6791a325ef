// Fixed-point arithmetic of TFLite's integer kernels, bit for bit.
//
// Quantized kernels rescale int32 accumulators by a real multiplier M stored
// as a 31-bit mantissa and a power-of-two exponent: M = q * 2^(shift - 31),
// q in [2^30, 2^31). Rescaling is a rounding doubling high multiply followed
// by a rounding right shift, exactly as TFLite's reference kernels do, so that
// every output byte matches TFLM's.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "microarena/kernels/wrapping_math.h"

namespace microarena::fixed_point {

// (a * b * 2) >> 32, rounded to nearest (ties toward +infinity), saturating the
// single overflow case a == b == INT32_MIN.
inline int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
  const int64_t product = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int32_t nudge = product >= 0 ? (1 << 30) : (1 - (1 << 30));
  const auto high = static_cast<int32_t>((product + nudge) / (int64_t{1} << 31));
  return overflow ? std::numeric_limits<int32_t>::max() : high;
}

// x / 2^exponent rounded to nearest, ties away from zero. 0 <= exponent <= 31:
// callers guarantee it (a shift of 32 or more is undefined here as in TFLite).
inline int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// The largest shift MultiplyByQuantizedMultiplier accepts: TFLite computes
// x * (1 << shift), defined with wrap-around up to 31 bits; beyond that the
// shift itself is undefined (x86 uses shift % 32), so Prepare refuses it.
constexpr int kMaxMultiplierShift = 31;

// x * M for M = quantized_multiplier * 2^(shift - 31), TFLite's double
// rounding. -31 <= shift <= kMaxMultiplierShift.
inline int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t quantized_multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  // TFLite's x * (1 << left_shift) wraps; WrappingShiftLeft wraps the same way.
  const int32_t shifted = WrappingShiftLeft(x, left_shift);
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(shifted, quantized_multiplier), right_shift);
}

// For multipliers below one (shift <= 0).
inline int32_t MultiplyByQuantizedMultiplierSmallerThanOneExp(int32_t x, int32_t quantized_multiplier, int shift) {
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, quantized_multiplier), -shift);
}

// For multipliers of one or more (shift >= 0).
inline int32_t MultiplyByQuantizedMultiplierGreaterThanOne(int32_t x, int32_t quantized_multiplier, int shift) {
  return SaturatingRoundingDoublingHighMul(WrappingShiftLeft(x, shift), quantized_multiplier);
}

// 64-bit input form used by the int16 kernels: the multiplier is first
// reduced to 16 bits (rounded), then x * reduced is shifted right by
// 15 - shift with rounding half up, as TFLite's int64 overload does.
// TFLite assumes |x| < 2^47 and shift in [-31, 7]; outside that its
// product wraps, and so does ours (WrappingMul64/WrappingAdd64), and the
// result is truncated to int32 (modulo 2^32). The shift must keep
// 15 - shift in [1, 63], i.e. shift in [-48, 14]: callers guarantee it.
inline int32_t MultiplyByQuantizedMultiplier64(int64_t x, int32_t quantized_multiplier, int shift) {
  const int32_t reduced = quantized_multiplier < 0x7FFF0000 ? ((quantized_multiplier + (1 << 15)) >> 16) : 0x7FFF;
  const int total_shift = 15 - shift;
  const int64_t round = int64_t{1} << (total_shift - 1);
  const int64_t result = WrappingAdd64(WrappingMul64(x, reduced), round) >> total_shift;
  return static_cast<int32_t>(result);
}

// Splits a real multiplier into a 31-bit mantissa and an exponent, rounding
// the mantissa to nearest as TFLite's QuantizeMultiplier does.
//
// Defined for every double. A NaN or infinite multiplier (from a NaN or inf
// scale, or a division by a zero scale) gives mantissa 0 and shift 0, so the
// op outputs its zero point. That is what TFLM computes on x86-64: frexp
// leaves the exponent 0 and the undefined double -> int64 conversion yields
// INT64_MIN, whose low 32 bits are 0. A computed value rather than an error,
// because the multiplier is built in many Prepare functions and the model's
// scales are each op's own business (the ops that refuse such scales do so
// before calling this).
inline void QuantizeMultiplier(double double_multiplier, int32_t* quantized_multiplier, int* shift) {
  if (double_multiplier == 0.0 || !std::isfinite(double_multiplier)) {
    *quantized_multiplier = 0;
    *shift = 0;
    return;
  }
  const double mantissa = std::frexp(double_multiplier, shift);
  auto fixed = static_cast<int64_t>(std::round(mantissa * static_cast<double>(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    fixed = 0;
  }
  // No clamp above: TFLM's (double-rounding) build keeps shifts of 31 and
  // more, and a shift of 31 gives a defined, wrapped answer that we match.
  // Shifts above kMaxMultiplierShift are undefined in TFLM; Prepare refuses
  // them (RequireMultiplierShift in tensor_checks.h).
  *quantized_multiplier = static_cast<int32_t>(fixed);
}

// 16-bit forms (gemmlowp's int16 specializations), used by HARD_SWISH.

// (a * b * 2) >> 16 with the nudge 2^14 or 1 - 2^14 then truncation, so
// ties round toward +infinity (-0.5 -> 0, 0.5 -> 1) as in the 32-bit form;
// INT16_MIN * INT16_MIN saturates.
inline int16_t SaturatingRoundingDoublingHighMulInt16(int16_t a, int16_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int16_t>::min();
  const int32_t product = int32_t{a} * int32_t{b};
  const int32_t nudge = product >= 0 ? (1 << 14) : (1 - (1 << 14));
  const auto high = static_cast<int16_t>((product + nudge) / (1 << 15));
  return overflow ? std::numeric_limits<int16_t>::max() : high;
}

// x / 2^exponent rounded to nearest, ties away from zero, for 0 <= exponent
// <= 15. Like gemmlowp, the mask is truncated to 16 bits, so an exponent of
// 16..31 gives 1 for x >= 0 and -1 for x < 0.
inline int16_t RoundingDivideByPOTInt16(int16_t x, int exponent) {
  const auto mask = static_cast<int16_t>(static_cast<int32_t>((int64_t{1} << exponent) - 1));
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// A 31-bit mantissa (>= 0) rounded to 15 bits, saturating near 2^31.
inline int16_t DownScaleInt32ToInt16Multiplier(int32_t multiplier) {
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (multiplier >= std::numeric_limits<int32_t>::max() - kRoundingOffset) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((multiplier + kRoundingOffset) >> 16);
}

}  // namespace microarena::fixed_point
