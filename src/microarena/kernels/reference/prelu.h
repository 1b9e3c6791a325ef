// PRELU, as TFLite's reference kernels compute it, with alpha broadcast
// against the input (numpy rules, see broadcast.h).
//
// Float: y = x >= 0 ? x : x * alpha.
// Quantized (int8 input and alpha; int16 input with int8 alpha):
//   x = q_in - zp_in;  a = q_alpha - zp_alpha
//   x >= 0:  y = MultiplyByQuantizedMultiplier(x, M1, shift1)      M1 = s_in / s_out
//   x <  0:  y = MultiplyByQuantizedMultiplier(x * a, M2, shift2)  M2 = s_in * s_alpha / s_out
//   q_out = clamp(y + zp_out) to the type's range.
// Both multipliers are computed in double from the float scales.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/broadcast.h"

namespace microarena::reference {

struct PreluQuantizedParams {
  int32_t input_zero_point = 0;
  int32_t alpha_zero_point = 0;
  int32_t output_zero_point = 0;
  int32_t identity_multiplier = 0;  // s_in / s_out
  int32_t identity_shift = 0;
  int32_t alpha_multiplier = 0;  // s_in * s_alpha / s_out
  int32_t alpha_shift = 0;
};

template <typename T>
void PreluQuantized(const PreluQuantizedParams& p, const BroadcastShape& shape, const T* input, const int8_t* alpha,
                    T* output) {
  BroadcastBinary(shape, input, alpha, output, [&p](T q, int8_t q_alpha) {
    const int32_t x = int32_t{q} - p.input_zero_point;
    int32_t y = 0;
    if (x >= 0) {
      y = fixed_point::MultiplyByQuantizedMultiplier(x, p.identity_multiplier, p.identity_shift);
    } else {
      // |x| <= 65535 and |a| <= 255: the product fits int32.
      const int32_t a = int32_t{q_alpha} - p.alpha_zero_point;
      y = fixed_point::MultiplyByQuantizedMultiplier(x * a, p.alpha_multiplier, p.alpha_shift);
    }
    y = fixed_point::WrappingAdd(y, p.output_zero_point);
    return static_cast<T>(std::clamp<int32_t>(y, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  });
}

inline void PreluFloat(const BroadcastShape& shape, const float* input, const float* alpha, float* output) {
  BroadcastBinary(shape, input, alpha, output, [](float x, float a) { return x >= 0.0f ? x : x * a; });
}

}  // namespace microarena::reference
