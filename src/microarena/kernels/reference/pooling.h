// AVERAGE_POOL_2D and MAX_POOL_2D reference math, bit-exact with TFLite's
// reference kernels.
//
// For every output element (b, y, x, c) the window is the part of
// rows [y*stride - pad, + filter_height) and columns [x*stride - pad, + filter_width)
// that lies inside the input (padding is not counted):
//   average int8:  sum / count rounded half away from zero, then clamped;
//   average float: clamp(sum / count), summed in float row by row;
//   max:           clamp(max over the window).
// Cost: one add or compare per output element per window tap; no scratch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

struct PoolParams {
  int32_t stride_height = 1;
  int32_t stride_width = 1;
  int32_t filter_height = 1;
  int32_t filter_width = 1;
  int32_t padding_height = 0;  // rows of padding above the input
  int32_t padding_width = 0;   // columns of padding left of the input
  int32_t activation_min = -128;  // int8 clamp
  int32_t activation_max = 127;
  float float_activation_min = 0.0f;  // float clamp
  float float_activation_max = 0.0f;
};

// The window of one output position, clipped to the input.
struct PoolWindow {
  int32_t y_origin, x_origin;  // input coordinates of filter tap (0, 0)
  int32_t y_begin, y_end;      // filter rows inside the input, half-open
  int32_t x_begin, x_end;      // filter columns inside the input, half-open
};

inline PoolWindow ClipPoolWindow(const PoolParams& params, const NhwcShape& input_shape, int32_t out_y,
                                 int32_t out_x) {
  PoolWindow w{};
  w.y_origin = out_y * params.stride_height - params.padding_height;
  w.x_origin = out_x * params.stride_width - params.padding_width;
  w.y_begin = std::max(0, -w.y_origin);
  w.y_end = std::min(params.filter_height, input_shape.height - w.y_origin);
  w.x_begin = std::max(0, -w.x_origin);
  w.x_end = std::min(params.filter_width, input_shape.width - w.x_origin);
  return w;
}

// Returns false (output incomplete) if some window has no input element,
// which valid padding never produces.
inline bool AveragePoolInt8(const PoolParams& params, const NhwcShape& input_shape, const int8_t* input,
                            const NhwcShape& output_shape, int8_t* output) {
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x) {
        const PoolWindow w = ClipPoolWindow(params, input_shape, out_y, out_x);
        for (int32_t c = 0; c < output_shape.channels; ++c) {
          int32_t sum = 0;
          int32_t count = 0;
          for (int32_t fy = w.y_begin; fy < w.y_end; ++fy) {
            for (int32_t fx = w.x_begin; fx < w.x_end; ++fx) {
              sum += input[NhwcOffset(input_shape, b, w.y_origin + fy, w.x_origin + fx, c)];
              ++count;
            }
          }
          if (count == 0) return false;
          // Integer division truncates toward zero, so adding or subtracting
          // half the count first rounds ties away from zero.
          int32_t average = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
          average = std::max(average, params.activation_min);
          average = std::min(average, params.activation_max);
          output[NhwcOffset(output_shape, b, out_y, out_x, c)] = static_cast<int8_t>(average);
        }
      }
    }
  }
  return true;
}

inline bool AveragePoolFloat(const PoolParams& params, const NhwcShape& input_shape, const float* input,
                             const NhwcShape& output_shape, float* output) {
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x) {
        const PoolWindow w = ClipPoolWindow(params, input_shape, out_y, out_x);
        for (int32_t c = 0; c < output_shape.channels; ++c) {
          float sum = 0.0f;
          int32_t count = 0;
          for (int32_t fy = w.y_begin; fy < w.y_end; ++fy) {
            for (int32_t fx = w.x_begin; fx < w.x_end; ++fx) {
              sum += input[NhwcOffset(input_shape, b, w.y_origin + fy, w.x_origin + fx, c)];
              ++count;
            }
          }
          if (count == 0) return false;
          const float average = sum / static_cast<float>(count);
          output[NhwcOffset(output_shape, b, out_y, out_x, c)] =
              ClampFloat(average, params.float_activation_min, params.float_activation_max);
        }
      }
    }
  }
  return true;
}

inline void MaxPoolInt8(const PoolParams& params, const NhwcShape& input_shape, const int8_t* input,
                        const NhwcShape& output_shape, int8_t* output) {
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x) {
        const PoolWindow w = ClipPoolWindow(params, input_shape, out_y, out_x);
        for (int32_t c = 0; c < output_shape.channels; ++c) {
          int32_t max = std::numeric_limits<int8_t>::lowest();
          for (int32_t fy = w.y_begin; fy < w.y_end; ++fy) {
            for (int32_t fx = w.x_begin; fx < w.x_end; ++fx) {
              max = std::max<int32_t>(max, input[NhwcOffset(input_shape, b, w.y_origin + fy, w.x_origin + fx, c)]);
            }
          }
          max = std::max(max, params.activation_min);
          max = std::min(max, params.activation_max);
          output[NhwcOffset(output_shape, b, out_y, out_x, c)] = static_cast<int8_t>(max);
        }
      }
    }
  }
}

inline void MaxPoolFloat(const PoolParams& params, const NhwcShape& input_shape, const float* input,
                         const NhwcShape& output_shape, float* output) {
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x) {
        const PoolWindow w = ClipPoolWindow(params, input_shape, out_y, out_x);
        for (int32_t c = 0; c < output_shape.channels; ++c) {
          float max = std::numeric_limits<float>::lowest();
          for (int32_t fy = w.y_begin; fy < w.y_end; ++fy) {
            for (int32_t fx = w.x_begin; fx < w.x_end; ++fx) {
              max = std::max(max, input[NhwcOffset(input_shape, b, w.y_origin + fy, w.x_origin + fx, c)]);
            }
          }
          output[NhwcOffset(output_shape, b, out_y, out_x, c)] =
              ClampFloat(max, params.float_activation_min, params.float_activation_max);
        }
      }
    }
  }
}

}  // namespace microarena::reference
