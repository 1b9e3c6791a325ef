// Requantization of an int32 accumulator to int8 for the fast paths: the
// bits of fixed_point::MultiplyByQuantizedMultiplier followed by the zero
// point and the clamp (reference::RequantizeToInt8), in fewer instructions.
//
// Why the shortcuts are exact (tests/fast_kernels_test.cc checks them
// against fixed_point on edge and random values):
//   - SaturatingRoundingDoublingHighMul(a, m) is trunc((a*m + nudge) / 2^31)
//     with nudge 2^30 for a*m >= 0 and 1 - 2^30 below. For a*m < 0 that
//     truncation is ceil((a*m + 1 - 2^30) / 2^31) = floor((a*m + 2^30) / 2^31),
//     the same as for a*m >= 0: one arithmetic shift of a*m + 2^30. It
//     saturates only for a == m == INT32_MIN, and multipliers are >= 0.
//   - RoundingDivideByPOT(x, e), e >= 1, adds 1 to x >> e when the low e
//     bits exceed 2^(e-1) - 1 (x >= 0) or 2^(e-1) (x < 0), which is the
//     carry out of (x & mask) + 2^(e-1) - (x < 0), computed unsigned.
#pragma once

#include <cstdint>

#include "microarena/kernels/optimized/int8_dot.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/fully_connected.h"
#include "microarena/kernels/wrapping_math.h"

namespace microarena::optimized {

// fixed_point::MultiplyByQuantizedMultiplier(x, multiplier, shift) for
// multiplier >= 0 and -31 <= shift <= 31.
MICROARENA_ALWAYS_INLINE int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
  const int64_t product = static_cast<int64_t>(shifted) * multiplier + (int64_t{1} << 30);
  const auto high = static_cast<int32_t>(product >> 31);
  // Branch-free for every right shift, 0 included: mask and half are 0
  // then, and so is the carry.
  const uint32_t mask = (uint32_t{1} << right) - 1U;
  const uint32_t half = mask - (mask >> 1);  // 2^(right - 1), or 0
  const uint32_t negative = (static_cast<uint32_t>(high) >> 31) & mask;  // 1 if high < 0 and right > 0
  const uint32_t carry = ((static_cast<uint32_t>(high) & mask) + half - negative) >> right;
  return (high >> right) + static_cast<int32_t>(carry);
}

MICROARENA_ALWAYS_INLINE int8_t ClampOutput(int32_t value, int32_t output_offset, int32_t min, int32_t max) {
  value = fixed_point::WrappingAdd(value, output_offset);
  value = value > min ? value : min;
  value = value < max ? value : max;
  return static_cast<int8_t>(value);
}

// The per-op constants of the output stage as locals: read through the
// params in a loop that stores int8 outputs, they would be reloaded after
// every store (an int8 store may alias anything).
struct OutputStage {
  int32_t offset;
  int32_t min;
  int32_t max;

  explicit OutputStage(const reference::QuantizedConvParams& quant)
      : offset(quant.output_offset), min(quant.activation_min), max(quant.activation_max) {}
  MICROARENA_ALWAYS_INLINE int8_t operator()(uint32_t acc, int32_t multiplier, int shift) const {
    return ClampOutput(MultiplyByQuantizedMultiplier(static_cast<int32_t>(acc), multiplier, shift), offset, min, max);
  }
};

// A per-channel convolution's output `channel` from its sum (bias included).
inline int8_t RequantizeToInt8(uint32_t acc, const reference::QuantizedConvParams& quant, int32_t channel) {
  const int32_t value = MultiplyByQuantizedMultiplier(static_cast<int32_t>(acc), quant.output_multiplier[channel],
                                                      quant.output_shift[channel]);
  return ClampOutput(value, quant.output_offset, quant.activation_min, quant.activation_max);
}

// A fully connected output from its sum (bias included); one scale for all.
inline int8_t RequantizeToInt8(uint32_t acc, const reference::QuantizedFullyConnectedParams& params, int32_t) {
  const int32_t value =
      MultiplyByQuantizedMultiplier(static_cast<int32_t>(acc), params.output_multiplier, params.output_shift);
  return ClampOutput(value, params.output_offset, params.activation_min, params.activation_max);
}

}  // namespace microarena::optimized
