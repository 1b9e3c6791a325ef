// ELU, as TFLite's reference kernels compute it.
//
// Float: y = x < 0 ? expm1(x) : x.
// Int8: a 256-entry lookup table built at prepare, entry by entry in float:
//   x = s_in * (q - zp_in);  f = x < 0 ? exp(x) - 1 : x;
//   q_out = clamp(trunc(round(f * (1 / s_out)) + zp_out)).
// (TFLM's table uses exp(x) - 1, not expm1, so the two paths differ near 0.)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "microarena/kernels/wrapping_math.h"

namespace microarena::reference {

inline void EluFloat(size_t count, const float* input, float* output) {
  for (size_t i = 0; i < count; ++i) {
    const float x = input[i];
    output[i] = x < 0.0f ? std::expm1(x) : x;
  }
}

// table[uint8_t(q)] for every int8 q.
inline void PopulateEluTableInt8(float input_scale, int32_t input_zero_point, float output_scale,
                                 int32_t output_zero_point, int8_t* table) {
  const float inverse_scale = 1.0f / output_scale;
  for (int32_t q = -128; q <= 127; ++q) {
    const float x = input_scale * static_cast<float>(q - input_zero_point);
    const float f = x < 0.0f ? std::exp(x) - 1.0f : x;
    const float rescaled = std::round(f * inverse_scale);
    // Out-of-range or NaN sums give INT32_MIN, as the x86 conversion does.
    const int32_t quantized = fixed_point::TruncateToInt32(rescaled + static_cast<float>(output_zero_point));
    table[static_cast<uint8_t>(q)] = static_cast<int8_t>(std::clamp<int32_t>(quantized, -128, 127));
  }
}

inline void LookupInt8(const int8_t* table, size_t count, const int8_t* input, int8_t* output) {
  for (size_t i = 0; i < count; ++i) output[i] = table[static_cast<uint8_t>(input[i])];
}

}  // namespace microarena::reference
