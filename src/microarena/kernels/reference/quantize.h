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

template <typename OutputT>
void AffineQuantize(float scale, int32_t zero_point, size_t count, const float* input, OutputT* output) {
  constexpr int64_t kMin = std::numeric_limits<OutputT>::min();
  constexpr int64_t kMax = std::numeric_limits<OutputT>::max();
  for (size_t i = 0; i < count; ++i) {
    const int64_t unclamped = SaturatingRoundToInt64(input[i] / scale) + zero_point;
    output[i] = static_cast<OutputT>(std::clamp(unclamped, kMin, kMax));
  }
}

template <typename InputT, typename OutputT>
void Requantize(const RequantizeParams& params, size_t count, const InputT* input, OutputT* output) {
  constexpr int64_t kMin = std::numeric_limits<OutputT>::min();
  constexpr int64_t kMax = std::numeric_limits<OutputT>::max();
  for (size_t i = 0; i < count; ++i) {
    const auto centered = static_cast<int32_t>(int64_t{input[i]} - params.input_zero_point);
    const int64_t unclamped =
        int64_t{fixed_point::MultiplyByQuantizedMultiplier(centered, params.multiplier, params.shift)} +
        params.output_zero_point;
    output[i] = static_cast<OutputT>(std::clamp(unclamped, kMin, kMax));
  }
}

template <typename InputT>
void Dequantize(double scale, int32_t zero_point, size_t count, const InputT* input, float* output) {
  for (size_t i = 0; i < count; ++i) {
    output[i] = static_cast<float>(scale * static_cast<double>(int32_t{input[i]} - zero_point));
  }
}

}  // namespace microarena::reference
