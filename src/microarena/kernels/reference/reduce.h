// The walk shared by the reductions (MEAN, SUM, REDUCE_MAX, REDUCE_MIN), as
// TFLite's reduce kernels do it: every input element, in row-major input
// order, is folded into the accumulator of its output element (the input's
// index with the reduced axes dropped):
//
//   input [2, 3, 4], reduce axis 1  ->  output [2, 4]
//   acc[i0 * 4 + i2] = reducer(acc[i0 * 4 + i2], input[i0][i1][i2])
//
// The order matters for float sums (they are not associative); TFLM's is
// kept. Also SUM's int8/int16 requantization.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"

namespace microarena::reference {

constexpr size_t kMaxReduceRank = 8;

struct ReduceShape {
  size_t rank = 0;
  int32_t dims[kMaxReduceRank] = {};
  bool reduced[kMaxReduceRank] = {};  // true on the axes folded away
};

// acc[output index of i] = reducer(acc[...], input[i]) for every input
// element i; the caller initialises `accumulators` (one per output element).
template <typename In, typename Acc, typename Reducer>
void ReduceInto(const ReduceShape& shape, const In* input, Acc* accumulators, Reducer reducer) {
  size_t count = 1;
  for (size_t d = 0; d < shape.rank; ++d) count *= static_cast<size_t>(shape.dims[d]);
  if (count == 0) return;
  // Output stride of each input axis (0 for reduced axes).
  size_t output_stride[kMaxReduceRank] = {};
  size_t stride = 1;
  for (size_t d = shape.rank; d-- > 0;) {
    if (shape.reduced[d]) continue;
    output_stride[d] = stride;
    stride *= static_cast<size_t>(shape.dims[d]);
  }
  size_t index[kMaxReduceRank] = {};
  size_t output_offset = 0;
  for (size_t i = 0; i < count; ++i) {
    accumulators[output_offset] = reducer(accumulators[output_offset], input[i]);
    for (size_t d = shape.rank; d-- > 0;) {
      ++index[d];
      output_offset += output_stride[d];
      if (index[d] < static_cast<size_t>(shape.dims[d])) break;
      output_offset -= output_stride[d] * index[d];
      index[d] = 0;
    }
  }
}

// Product of the reduced extents.
inline int64_t ReducedCount(const ReduceShape& shape) {
  int64_t count = 1;
  for (size_t d = 0; d < shape.rank; ++d) {
    if (shape.reduced[d]) count *= shape.dims[d];
  }
  return count;
}

// Quantized SUM: out = clamp(MBQM(sum - zp_in * count, M, shift) + zp_out),
// M = input_scale / output_scale; int32 sums wrap as TFLite's do.
// `sums` holds output_count int32 values (scratch). An empty input gives
// zeros.
template <typename T>
void SumQuantized(const ReduceShape& shape, int32_t input_zero_point, int32_t output_zero_point, int32_t multiplier,
                  int shift, const T* input, T* output, size_t output_count, int32_t* sums) {
  for (size_t o = 0; o < output_count; ++o) {
    output[o] = 0;
    sums[o] = 0;
  }
  for (size_t d = 0; d < shape.rank; ++d) {
    if (shape.dims[d] == 0) return;
  }
  ReduceInto(shape, input, sums,
             [](int32_t acc, T value) { return fixed_point::WrappingAdd(acc, static_cast<int32_t>(value)); });
  const int64_t count = ReducedCount(shape);
  if (count == 0) return;
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  for (size_t o = 0; o < output_count; ++o) {
    const auto centered = static_cast<int32_t>(sums[o] - static_cast<int64_t>(input_zero_point) * count);
    const int32_t value = fixed_point::WrappingAdd(
        fixed_point::MultiplyByQuantizedMultiplier(centered, multiplier, shift), output_zero_point);
    output[o] = static_cast<T>(std::min(kMax, std::max(kMin, value)));
  }
}

}  // namespace microarena::reference
