// CUMSUM along one axis, as TFLite's reference kernels compute it.
//
// The tensor is [outer, depth, inner] around the axis; each line along the
// axis is summed from its start (or its end when `reverse`), writing the
// running sum after (inclusive) or before (exclusive) adding each element.
// Float sums in float. Int8 works in a 2^20-scaled domain:
//   y = round_half_up((q - zp_in) * 2^20 / 2)           (input multiplier 1/2)
//   out = clamp(MultiplyByQuantizedMultiplierSmallerThanOneExp(sum, M, shift) + zp_out)
// with M * 2^shift = 2 s_in / (2^20 s_out). TFLite starts each line's sum
// at y(0), i.e. the rescaled -zp_in, not at 0; that is kept here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "microarena/kernels/fixed_point.h"

namespace microarena::reference {

struct CumsumShape {
  size_t outer = 1;  // product of the dimensions before the axis
  size_t depth = 1;  // the axis
  size_t inner = 1;  // product of the dimensions after the axis
};

inline CumsumShape MakeCumsumShape(const int32_t* dims, size_t rank, size_t axis) {
  CumsumShape shape;
  for (size_t i = 0; i < rank; ++i) {
    const auto extent = static_cast<size_t>(dims[i]);
    if (i < axis) {
      shape.outer *= extent;
    } else if (i > axis) {
      shape.inner *= extent;
    } else {
      shape.depth = extent;
    }
  }
  return shape;
}

// Calls step(index, first) for every element of every line, in summing
// order; `first` starts a new line.
template <typename Step>
void ForEachCumsumElement(const CumsumShape& shape, bool reverse, Step step) {
  for (size_t o = 0; o < shape.outer; ++o) {
    for (size_t i = 0; i < shape.inner; ++i) {
      for (size_t d = 0; d < shape.depth; ++d) {
        const size_t depth_index = reverse ? shape.depth - 1 - d : d;
        step((o * shape.depth + depth_index) * shape.inner + i, d == 0);
      }
    }
  }
}

template <typename T>
void CumsumPlain(const CumsumShape& shape, bool exclusive, bool reverse, const T* input, T* output) {
  T sum = 0;
  ForEachCumsumElement(shape, reverse, [&](size_t index, bool first) {
    if (first) sum = 0;
    if (exclusive) {
      output[index] = sum;
      sum += input[index];
    } else {
      sum += input[index];
      output[index] = sum;
    }
  });
}

struct CumsumInt8Params {
  int32_t input_zero_point = 0;
  int32_t output_zero_point = 0;
  int32_t input_multiplier = 0;  // 1/2 as mantissa and shift
  int32_t input_shift = 0;
  int32_t output_multiplier = 0;  // 2 s_in / (2^20 s_out)
  int32_t output_shift = 0;
};

constexpr int kCumsumIntegerShift = 20;

inline void CumsumInt8(const CumsumInt8Params& p, const CumsumShape& shape, bool exclusive, bool reverse,
                       const int8_t* input, int8_t* output) {
  using fixed_point::MultiplyByQuantizedMultiplierSmallerThanOneExp;
  auto rescale_input = [&p](int32_t q) {
    // |q - zp| <= 255: the shift stays below 2^28.
    return MultiplyByQuantizedMultiplierSmallerThanOneExp(
        (q - p.input_zero_point) * (int32_t{1} << kCumsumIntegerShift), p.input_multiplier, p.input_shift);
  };
  const int32_t line_start = rescale_input(0);
  int32_t sum = 0;
  ForEachCumsumElement(shape, reverse, [&](size_t index, bool first) {
    if (first) sum = line_start;
    const int32_t y = rescale_input(input[index]);
    int32_t value = 0;
    // Long lines wrap the int32 sum, as TFLite's does on its targets.
    if (exclusive) {
      value = sum;
      sum = fixed_point::WrappingAdd(sum, y);
    } else {
      sum = fixed_point::WrappingAdd(sum, y);
      value = sum;
    }
    const int32_t out = fixed_point::WrappingAdd(
        MultiplyByQuantizedMultiplierSmallerThanOneExp(value, p.output_multiplier, p.output_shift),
        p.output_zero_point);
    output[index] = static_cast<int8_t>(std::clamp<int32_t>(out, -128, 127));
  });
}

}  // namespace microarena::reference
