// QUANTIZE and DEQUANTIZE, as TFLite's reference kernels compute them.
//
//   float -> integer:  q = clamp(round_half_away(x / scale) + zero_point)
//                      (the division in float)
//   integer -> integer (requantize):
//                      q = clamp(MultiplyByQuantizedMultiplier(x - zp_in, M, shift) + zp_out)
//                      with M * 2^shift = in_scale / out_scale (split in double)
//   integer -> float:  x = (float)(scale * (q - zero_point)), scale in double
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"

namespace microarena::reference {

struct RequantizeParams {
  int32_t multiplier = 0;
  int32_t shift = 0;
  int32_t input_zero_point = 0;
  int32_t output_zero_point = 0;
};

// round(x) for a float already rounded to an integer value, saturated to
// int32 (NaN maps to the minimum, as the x86 conversion TFLM relies on does).
inline int64_t SaturatingRoundToInt64(float x) {
  const float rounded = std::round(x);
  if (rounded >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  if (!(rounded >= -2147483648.0f)) return std::numeric_limits<int32_t>::min();
  return static_cast<int64_t>(rounded);
}

// TFLite adds the zero point to the rounded value in int32, which wraps for a
// value within the zero point of INT32_MAX/MIN (an int16 zero point of 32767
// and x / scale = 2147483520, say); that wrap is reproduced. A value outside
// int32 has no TFLite answer (the conversion is undefined); it saturates to
// the output's range, NaN to the minimum.
template <typename OutputT>
void AffineQuantize(float scale, int32_t zero_point, size_t count, const float* input, OutputT* output) {
  constexpr int32_t kMin = std::numeric_limits<OutputT>::min();
  constexpr int32_t kMax = std::numeric_limits<OutputT>::max();
  for (size_t i = 0; i < count; ++i) {
    const float rounded = std::round(input[i] / scale);
    int32_t unclamped = rounded > 0.0f ? kMax : kMin;
    if (fixed_point::FitsInt32(rounded)) {
      unclamped = fixed_point::WrappingAdd(static_cast<int32_t>(rounded), zero_point);
    }
    output[i] = static_cast<OutputT>(std::clamp(unclamped, kMin, kMax));
  }
}

// Both zero point operations are int32 in TFLite and wrap (an int32 input's
// zero point may be anything; a rescaled value near INT32_MAX plus a zero
// point passes INT32_MAX): the Wrapping helpers wrap the same way, and the
// clamp comes after, as in TFLite.
template <typename InputT, typename OutputT>
void Requantize(const RequantizeParams& params, size_t count, const InputT* input, OutputT* output) {
  constexpr int32_t kMin = std::numeric_limits<OutputT>::min();
  constexpr int32_t kMax = std::numeric_limits<OutputT>::max();
  for (size_t i = 0; i < count; ++i) {
    const int32_t centered = fixed_point::WrappingSub(int32_t{input[i]}, params.input_zero_point);
    const int32_t unclamped = fixed_point::WrappingAdd(
        fixed_point::MultiplyByQuantizedMultiplier(centered, params.multiplier, params.shift),
        params.output_zero_point);
    output[i] = static_cast<OutputT>(std::clamp(unclamped, kMin, kMax));
  }
}

template <typename InputT>
void Dequantize(double scale, int32_t zero_point, size_t count, const InputT* input, float* output) {
  for (size_t i = 0; i < count; ++i) {
    // int32 in TFLite: an int32 input minus its zero point wraps.
    output[i] = static_cast<float>(scale * static_cast<double>(fixed_point::WrappingSub(input[i], zero_point)));
  }
}

}  // namespace microarena::reference
