// Shapes and indexing of 4-D NHWC tensors, as the convolution and pooling
// reference kernels see them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace microarena::reference {

// A 4-D tensor in NHWC order (batch, row, column, channel); channels vary fastest.
struct NhwcShape {
  int32_t batches = 1;
  int32_t height = 1;
  int32_t width = 1;
  int32_t channels = 1;
};

// Flat index of (i0, i1, i2, i3) in a row-major 4-D array whose last three
// dimensions are d1, d2, d3: NHWC tensors and OHWI CONV_2D filters alike.
inline size_t RowMajorOffset4d(int32_t d1, int32_t d2, int32_t d3, int32_t i0, int32_t i1, int32_t i2, int32_t i3) {
  const auto row = static_cast<size_t>(i0) * static_cast<size_t>(d1) + static_cast<size_t>(i1);
  const auto column = row * static_cast<size_t>(d2) + static_cast<size_t>(i2);
  return column * static_cast<size_t>(d3) + static_cast<size_t>(i3);
}

// Flat element index of (batch, y, x, channel).
inline size_t NhwcOffset(const NhwcShape& shape, int32_t batch, int32_t y, int32_t x, int32_t channel) {
  return RowMajorOffset4d(shape.height, shape.width, shape.channels, batch, y, x, channel);
}

// Calls visit(b, y, x) for every position of `shape`: batches, rows, columns.
template <typename Visit>
inline void ForEachNhwcPosition(const NhwcShape& shape, Visit&& visit) {
  for (int32_t b = 0; b < shape.batches; ++b) {
    for (int32_t y = 0; y < shape.height; ++y) {
      for (int32_t x = 0; x < shape.width; ++x) visit(b, y, x);
    }
  }
}

// An int32 result clamped to the int8 activation range [min, max] (max first,
// then min, as TFLite) and narrowed; min and max lie within int8.
inline int8_t ClampToInt8(int32_t value, int32_t min, int32_t max) {
  value = std::max(value, min);
  value = std::min(value, max);
  return static_cast<int8_t>(value);
}

// A float clamped to [min, max] exactly as TFLite's ActivationFunctionWithMinMax
// does (max first, then min, so NaN passes through).
inline float ClampFloat(float value, float min, float max) { return std::min(std::max(value, min), max); }

}  // namespace microarena::reference
