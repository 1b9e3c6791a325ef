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

// Flat element index of (batch, y, x, channel).
inline size_t NhwcOffset(const NhwcShape& shape, int32_t batch, int32_t y, int32_t x, int32_t channel) {
  const auto row = static_cast<size_t>(batch) * static_cast<size_t>(shape.height) + static_cast<size_t>(y);
  const auto column = row * static_cast<size_t>(shape.width) + static_cast<size_t>(x);
  return column * static_cast<size_t>(shape.channels) + static_cast<size_t>(channel);
}

// A float clamped to [min, max] exactly as TFLite's ActivationFunctionWithMinMax
// does (max first, then min, so NaN passes through).
inline float ClampFloat(float value, float min, float max) { return std::min(std::max(value, min), max); }

}  // namespace microarena::reference
