// Sliding-window geometry of CONV_2D, DEPTHWISE_CONV_2D and the 2-D pools,
// computed as TFLite does (ComputeOutSize / ComputePaddingHeightWidth).
//
// Along one axis, with effective filter size e = (filter - 1) * dilation + 1:
//   SAME:  out = ceil(in / stride)
//   VALID: out = floor((in - e) / stride) + 1   (0 or less: no valid output)
//   padding before the first element = max(0, (out - 1) * stride + e - in) / 2
//   (the odd element of the total padding goes after the last element).
// Sizes are computed in 64 bits so that untrusted options cannot overflow.
#pragma once

#include <cstdint>

#include "microarena/schema/tflite_schema_generated.h"

namespace microarena {

// Output size along one axis. Preconditions: stride >= 1, dilation >= 1, filter >= 1.
inline int64_t WindowOutputSize(tflite::Padding padding, int64_t input_size, int64_t filter_size, int64_t stride,
                                int64_t dilation) {
  const int64_t effective_filter_size = (filter_size - 1) * dilation + 1;
  if (padding == tflite::Padding::SAME) return (input_size + stride - 1) / stride;
  // C++ division truncates toward zero; a window larger than the input gives <= 0.
  const int64_t numerator = input_size + stride - effective_filter_size;
  return numerator > 0 ? numerator / stride : 0;
}

// Padding before the first element along one axis, for `output_size` outputs.
inline int64_t WindowPaddingBefore(int64_t input_size, int64_t filter_size, int64_t stride, int64_t dilation,
                                   int64_t output_size) {
  const int64_t effective_filter_size = (filter_size - 1) * dilation + 1;
  const int64_t total = (output_size - 1) * stride + effective_filter_size - input_size;
  return total > 0 ? total / 2 : 0;
}

}  // namespace microarena
