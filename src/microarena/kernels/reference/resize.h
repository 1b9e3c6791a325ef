// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR reference math over NHWC
// tensors (batch and channels kept, height and width resized), with TFLM's
// exact arithmetic: source coordinates in float32 for the float path and
// the nearest neighbour, in 10-bit fixed point for the integer bilinear path
// (rounded half away from zero, TFLM's double-rounding build).
//
//   align_corners        the corner pixels of input and output line up:
//                        scale (in - 1) / (out - 1) when out > 1, else in / out
//   half_pixel_centers   pixels are sampled at their centres (x + 0.5)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

struct ResizeParams {
  bool align_corners = false;
  bool half_pixel_centers = false;
};

// --- nearest neighbour ---------------------------------------------------------

// The input index output index `i` of one axis copies.
inline int32_t NearestSource(int32_t i, int32_t input_size, int32_t output_size, const ResizeParams& params) {
  const float scale = params.align_corners && output_size > 1
                          ? static_cast<float>(input_size - 1) / static_cast<float>(output_size - 1)
                          : static_cast<float>(input_size) / static_cast<float>(output_size);
  const float offset = params.half_pixel_centers ? 0.5f : 0.0f;
  const float position = (static_cast<float>(i) + offset) * scale;
  const auto source = static_cast<int32_t>(params.align_corners ? std::round(position) : std::floor(position));
  int32_t clamped = std::min<int32_t>(source, input_size - 1);
  if (params.half_pixel_centers) clamped = std::max<int32_t>(clamped, 0);
  return clamped;
}

// Any element size; whole channel rows are copied.
inline void ResizeNearestNeighbor(const ResizeParams& params, const NhwcShape& input_shape, const uint8_t* input,
                                  const NhwcShape& output_shape, uint8_t* output, size_t element_bytes) {
  const size_t row_bytes = static_cast<size_t>(output_shape.channels) * element_bytes;
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t y = 0; y < output_shape.height; ++y) {
      const int32_t in_y = NearestSource(y, input_shape.height, output_shape.height, params);
      for (int32_t x = 0; x < output_shape.width; ++x) {
        const int32_t in_x = NearestSource(x, input_shape.width, output_shape.width, params);
        std::memcpy(output, input + NhwcOffset(input_shape, b, in_y, in_x, 0) * element_bytes, row_bytes);
        output += row_bytes;
      }
    }
  }
}

// --- bilinear, float32 -----------------------------------------------------------

inline float BilinearScale(int32_t input_size, int32_t output_size, bool align_corners) {
  if (align_corners && output_size > 1) {
    return static_cast<float>(input_size - 1) / static_cast<float>(output_size - 1);
  }
  return static_cast<float>(input_size) / static_cast<float>(output_size);
}

// The float source coordinate of output index `i` and its two neighbours.
inline void BilinearSource(int32_t i, float scale, bool half_pixel_centers, int32_t input_size, float* position,
                           int32_t* lower, int32_t* upper) {
  const auto value = static_cast<float>(i);
  *position = half_pixel_centers ? (value + 0.5f) * scale - 0.5f : value * scale;
  *lower = std::max<int32_t>(static_cast<int32_t>(std::floor(*position)), 0);
  *upper = std::min<int32_t>(static_cast<int32_t>(std::ceil(*position)), input_size - 1);
}

inline void ResizeBilinearFloat(const ResizeParams& params, const NhwcShape& input_shape, const float* input,
                                const NhwcShape& output_shape, float* output) {
  const float height_scale = BilinearScale(input_shape.height, output_shape.height, params.align_corners);
  const float width_scale = BilinearScale(input_shape.width, output_shape.width, params.align_corners);
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t y = 0; y < output_shape.height; ++y) {
      float in_y = 0.0f;
      int32_t y0 = 0;
      int32_t y1 = 0;
      BilinearSource(y, height_scale, params.half_pixel_centers, input_shape.height, &in_y, &y0, &y1);
      for (int32_t x = 0; x < output_shape.width; ++x) {
        float in_x = 0.0f;
        int32_t x0 = 0;
        int32_t x1 = 0;
        BilinearSource(x, width_scale, params.half_pixel_centers, input_shape.width, &in_x, &x0, &x1);
        // TFLM's order of float operations (and its final + 0, which turns -0 into +0).
        const float dy = in_y - static_cast<float>(y0);
        const float dx = in_x - static_cast<float>(x0);
        for (int32_t c = 0; c < output_shape.channels; ++c) {
          const float value = input[NhwcOffset(input_shape, b, y0, x0, c)] * (1.0f - dy) * (1.0f - dx) +
                              input[NhwcOffset(input_shape, b, y1, x0, c)] * dy * (1.0f - dx) +
                              input[NhwcOffset(input_shape, b, y0, x1, c)] * (1.0f - dy) * dx +
                              input[NhwcOffset(input_shape, b, y1, x1, c)] * dy * dx + 0.0f;
          output[NhwcOffset(output_shape, b, y, x, c)] = value;
        }
      }
    }
  }
}

// --- bilinear, integer (10-bit fixed-point coordinates) ----------------------------

inline int32_t BilinearScale10(int32_t input_size, int32_t output_size, bool align_corners) {
  if (align_corners && output_size > 1) {
    return ((1 << 10) * (input_size - 1) + (output_size - 1) / 2) / (output_size - 1);
  }
  return ((1 << 10) * input_size + output_size / 2) / output_size;
}

inline void BilinearSource10(int32_t i, int32_t scale_10, bool half_pixel_centers, int32_t input_size,
                             int32_t* position, int32_t* lower, int32_t* upper) {
  *position = half_pixel_centers ? i * scale_10 + scale_10 / 2 - (1 << 9) : i * scale_10;
  *lower = std::max<int32_t>(*position / (1 << 10), 0);
  *upper = std::min<int32_t>((*position + (1 << 10) - 1) / (1 << 10), input_size - 1);
}

template <typename T>
inline void ResizeBilinearInteger(const ResizeParams& params, const NhwcShape& input_shape, const T* input,
                                  const NhwcShape& output_shape, T* output) {
  const int32_t height_scale_10 = BilinearScale10(input_shape.height, output_shape.height, params.align_corners);
  const int32_t width_scale_10 = BilinearScale10(input_shape.width, output_shape.width, params.align_corners);
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t y = 0; y < output_shape.height; ++y) {
      int32_t in_y = 0;
      int32_t y0 = 0;
      int32_t y1 = 0;
      BilinearSource10(y, height_scale_10, params.half_pixel_centers, input_shape.height, &in_y, &y0, &y1);
      const int64_t wy1 = in_y - (1 << 10) * y0;  // weight of row y1, in 1/1024
      const int64_t wy0 = (1 << 10) - wy1;
      for (int32_t x = 0; x < output_shape.width; ++x) {
        int32_t in_x = 0;
        int32_t x0 = 0;
        int32_t x1 = 0;
        BilinearSource10(x, width_scale_10, params.half_pixel_centers, input_shape.width, &in_x, &x0, &x1);
        const int64_t wx1 = in_x - (1 << 10) * x0;
        const int64_t wx0 = (1 << 10) - wx1;
        for (int32_t c = 0; c < output_shape.channels; ++c) {
          const int64_t sum = int64_t{input[NhwcOffset(input_shape, b, y0, x0, c)]} * wy0 * wx0 +
                              int64_t{input[NhwcOffset(input_shape, b, y1, x0, c)]} * wy1 * wx0 +
                              int64_t{input[NhwcOffset(input_shape, b, y0, x1, c)]} * wy0 * wx1 +
                              int64_t{input[NhwcOffset(input_shape, b, y1, x1, c)]} * wy1 * wx1;
          const int64_t half = sum > 0 ? (int64_t{1} << 19) : -(int64_t{1} << 19);
          output[NhwcOffset(output_shape, b, y, x, c)] = static_cast<T>((sum + half) / (int64_t{1} << 20));
        }
      }
    }
  }
}

}  // namespace microarena::reference
