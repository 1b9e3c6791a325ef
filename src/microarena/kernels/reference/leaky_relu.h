// LEAKY_RELU, as TFLite's reference kernels compute it.
//
// Float: y = x > 0 ? x : x * alpha (alpha may be negative or above 1, so
// this is not max(x, alpha * x)).
// Quantized (int8, int16): x = q - input_zero_point, then one of two
// requantizations
//   x >= 0:  y = MultiplyByQuantizedMultiplier(x, M_identity, shift_identity)
//   x <  0:  y = +-MultiplyByQuantizedMultiplier(x, |M_alpha|, shift_alpha)
// with M_identity * 2^shift = s_in / s_out and M_alpha * 2^shift =
// s_in * alpha / s_out (both in float, then split in double). A negative
// alpha gives a negative M_alpha; TFLM multiplies by its magnitude and
// negates the result, which differs from multiplying by M_alpha at ties.
// Finally q_out = clamp(output_zero_point + y) to the type's range.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"

namespace microarena::reference {

struct LeakyReluQuantizedParams {
  int32_t input_zero_point = 0;
  int32_t output_zero_point = 0;
  int32_t identity_multiplier = 0;  // s_in / s_out as mantissa ...
  int32_t identity_shift = 0;       // ... and shift
  int32_t alpha_multiplier = 0;     // s_in * alpha / s_out (negative for alpha < 0)
  int32_t alpha_shift = 0;
};

template <typename T>
inline void LeakyReluQuantized(const LeakyReluQuantizedParams& p, size_t count, const T* input, T* output) {
  const bool alpha_negative = p.alpha_multiplier < 0;
  const int32_t alpha_magnitude = alpha_negative ? -p.alpha_multiplier : p.alpha_multiplier;
  for (size_t i = 0; i < count; ++i) {
    const int32_t x = int32_t{input[i]} - p.input_zero_point;
    // The rescaled value may be INT32_MIN (negated) or near INT32_MIN/MAX
    // (plus the zero point); TFLite wraps there, as the Wrapping* helpers do.
    int32_t y = p.output_zero_point;
    if (x >= 0) {
      y = fixed_point::WrappingAdd(y, fixed_point::MultiplyByQuantizedMultiplier(x, p.identity_multiplier,
                                                                                 p.identity_shift));
    } else {
      const int32_t scaled = fixed_point::MultiplyByQuantizedMultiplier(x, alpha_magnitude, p.alpha_shift);
      y = fixed_point::WrappingAdd(y, alpha_negative ? fixed_point::WrappingNegate(scaled) : scaled);
    }
    output[i] = static_cast<T>(
        std::clamp<int32_t>(y, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  }
}

inline void LeakyReluFloat(float alpha, size_t count, const float* input, float* output) {
  for (size_t i = 0; i < count; ++i) {
    const float x = input[i];
    output[i] = x > 0.0f ? x : x * alpha;
  }
}

}  // namespace microarena::reference
