// AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D reference math, bit-exact with
// TFLite's reference kernels.
//
// For every output element (b, y, x, c) the window is the part of
// rows [y*stride - pad, + filter_height) and columns [x*stride - pad, + filter_width)
// that lies inside the input (padding is not counted):
//   average int8/int16: sum / count rounded half away from zero, clamped;
//   average float: clamp(sum / count), summed in float row by row;
//   max:           clamp(max over the window).
//   l2 float:      clamp(sqrt(sum of squares / count)), summed in float.
// Cost: one add or compare per output element per window tap; no scratch.
//
// Read/write order: output rows y ascending (batch outermost), columns, then
// channels; row y reads input rows from max(0, y*stride - pad_top) on (the
// clipped window starts there). So with batch 1 the output may start
// D = max over y of ((y + 1) R_out - max(0, y*stride - pad_top) R_in) bytes
// below the input and overwrite rows no later output row reads
// (kernels/overlap.h). Keep this order when changing the loops.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

struct PoolParams {
  int32_t stride_height = 1;
  int32_t stride_width = 1;
  int32_t filter_height = 1;
  int32_t filter_width = 1;
  int32_t padding_height = 0;  // rows of padding above the input
  int32_t padding_width = 0;   // columns of padding left of the input
  int32_t activation_min = -128;  // int8 or int16 clamp
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
  w.y_begin = std::max<int32_t>(0, -w.y_origin);
  w.y_end = std::min(params.filter_height, input_shape.height - w.y_origin);
  w.x_begin = std::max<int32_t>(0, -w.x_origin);
  w.x_end = std::min(params.filter_width, input_shape.width - w.x_origin);
  return w;
}

// Reduces the clipped window of every output element, channel by channel:
// acc = init, then reduce(acc, value) for each tap (rows, then columns), then
// finish(acc, tap count, &output element). Returns false if finish does
// (an empty window the op cannot average); no later element is written then.
template <typename T, typename Acc, typename Reduce, typename Finish>
inline bool PoolReduce(const PoolParams& params, const NhwcShape& input_shape, const T* input,
                       const NhwcShape& output_shape, T* output, Acc init, Reduce reduce, Finish finish) {
  bool complete = true;
  ForEachNhwcPosition(output_shape, [&](int32_t b, int32_t out_y, int32_t out_x) {
    if (!complete) return;
    const PoolWindow w = ClipPoolWindow(params, input_shape, out_y, out_x);
    for (int32_t c = 0; c < output_shape.channels; ++c) {
      Acc acc = init;
      int32_t count = 0;
      for (int32_t fy = w.y_begin; fy < w.y_end; ++fy) {
        for (int32_t fx = w.x_begin; fx < w.x_end; ++fx) {
          reduce(acc, input[NhwcOffset(input_shape, b, w.y_origin + fy, w.x_origin + fx, c)]);
          ++count;
        }
      }
      if (!finish(acc, count, &output[NhwcOffset(output_shape, b, out_y, out_x, c)])) {
        complete = false;
        return;
      }
    }
  });
  return complete;
}

// Returns false (output incomplete) if some window has no input element,
// which valid padding never produces. T is int8_t or int16_t (TFLite's two
// integer forms are the same code).
template <typename T>
inline bool AveragePoolQuantized(const PoolParams& params, const NhwcShape& input_shape, const T* input,
                                 const NhwcShape& output_shape, T* output) {
  return PoolReduce(
      params, input_shape, input, output_shape, output, int32_t{0},
      [](int32_t& sum, T value) { sum = fixed_point::WrappingAdd(sum, value); },
      [&](int32_t sum, int32_t count, T* out) {
        if (count == 0) return false;
        // Integer division truncates toward zero, so adding or subtracting
        // half the count first rounds ties away from zero. A window of more
        // than 2^24 (int8) or 2^16 (int16) taps can wrap the sum and the
        // rounding add in TFLite; WrappingAdd/Sub wrap the same way (count >
        // 0, so the division is defined for every sum).
        int32_t average = sum > 0 ? fixed_point::WrappingAdd(sum, count / 2) / count
                                  : fixed_point::WrappingSub(sum, count / 2) / count;
        average = std::min(std::max(average, params.activation_min), params.activation_max);
        *out = static_cast<T>(average);
        return true;
      });
}

inline bool AveragePoolInt8(const PoolParams& params, const NhwcShape& input_shape, const int8_t* input,
                            const NhwcShape& output_shape, int8_t* output) {
  return AveragePoolQuantized(params, input_shape, input, output_shape, output);
}

inline bool AveragePoolFloat(const PoolParams& params, const NhwcShape& input_shape, const float* input,
                             const NhwcShape& output_shape, float* output) {
  return PoolReduce(
      params, input_shape, input, output_shape, output, 0.0f, [](float& sum, float value) { sum += value; },
      [&](float sum, int32_t count, float* out) {
        if (count == 0) return false;
        const float average = sum / static_cast<float>(count);
        *out = ClampFloat(average, params.float_activation_min, params.float_activation_max);
        return true;
      });
}

// An empty window (never produced by valid padding) yields the clamped
// lowest value. T is int8_t or int16_t.
template <typename T>
inline void MaxPoolQuantized(const PoolParams& params, const NhwcShape& input_shape, const T* input,
                             const NhwcShape& output_shape, T* output) {
  PoolReduce(
      params, input_shape, input, output_shape, output, int32_t{std::numeric_limits<T>::lowest()},
      [](int32_t& max, T value) { max = std::max<int32_t>(max, value); },
      [&](int32_t max, int32_t /*count*/, T* out) {
        *out = static_cast<T>(std::min(std::max(max, params.activation_min), params.activation_max));
        return true;
      });
}

inline void MaxPoolInt8(const PoolParams& params, const NhwcShape& input_shape, const int8_t* input,
                        const NhwcShape& output_shape, int8_t* output) {
  MaxPoolQuantized(params, input_shape, input, output_shape, output);
}

inline void MaxPoolFloat(const PoolParams& params, const NhwcShape& input_shape, const float* input,
                         const NhwcShape& output_shape, float* output) {
  PoolReduce(
      params, input_shape, input, output_shape, output, std::numeric_limits<float>::lowest(),
      [](float& max, float value) { max = std::max(max, value); },
      [&](float max, int32_t /*count*/, float* out) {
        *out = ClampFloat(max, params.float_activation_min, params.float_activation_max);
        return true;
      });
}

// A window with no input element gives sqrt(0 / 0), NaN, as in TFLite
// (valid padding never produces one).
inline void L2PoolFloat(const PoolParams& params, const NhwcShape& input_shape, const float* input,
                        const NhwcShape& output_shape, float* output) {
  PoolReduce(
      params, input_shape, input, output_shape, output, 0.0f, [](float& sum, float value) { sum += value * value; },
      [&](float sum, int32_t count, float* out) {
        *out = ClampFloat(std::sqrt(sum / static_cast<float>(count)), params.float_activation_min,
                          params.float_activation_max);
        return true;
      });
}

}  // namespace microarena::reference
