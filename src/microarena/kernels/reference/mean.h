// MEAN reference math, as TFLite's reduce kernels compute it.
//
// The input (rank <= kMeanMaxRank) is summed over `axis_count` resolved,
// distinct axes in row-major input order into one accumulator per output
// element; the reduced count is the product of the reduced dimensions.
//
//   float: out = sum / float(count)
//   int8/int16: out = clamp(MBQM(sum - zp_in * count, M', s') + zp_out), also when
//          input and output share scale and zero point (TFLM at the pinned
//          commit has no truncating sum / count shortcut: the mean rounds)
//     where M = input_scale / output_scale = m * 2^(shift-31) and the 1/count
//     factor is folded in: k = min(floor(log2 count), 32, 31 + shift),
//     m' = (m << k) / count (64-bit, toward zero), s' = shift - k.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/reduce.h"

namespace microarena::reference {

constexpr size_t kMeanMaxRank = 5;
constexpr size_t kMeanMaxAxes = 2;

struct MeanShape {
  size_t rank = 0;
  int32_t input_dims[kMeanMaxRank] = {};
  size_t axis_count = 0;                 // distinct reduced axes
  int32_t axes[kMeanMaxAxes] = {};       // in [0, rank)
};

struct MeanQuantization {
  int32_t input_zero_point = 0;
  int32_t output_zero_point = 0;
  int32_t multiplier = 0;  // input_scale / output_scale, QuantizeMultiplier form
  int shift = 0;
};

inline bool MeanIsReduced(const MeanShape& shape, size_t d) {
  for (size_t a = 0; a < shape.axis_count; ++a) {
    if (static_cast<size_t>(shape.axes[a]) == d) return true;
  }
  return false;
}

// Product of the reduced dimensions (1 when nothing is reduced).
inline int64_t MeanReducedCount(const MeanShape& shape) {
  int64_t count = 1;
  for (size_t a = 0; a < shape.axis_count; ++a) count *= shape.input_dims[shape.axes[a]];
  return count;
}

// The power of two folded into the multiplier with 1/count:
// min(floor(log2(count)), 32, 31 + shift); 0 for no elements. The kernel
// rescales with shift - MeanLog2Count(count, shift).
inline int MeanLog2Count(int64_t count, int shift) {
  if (count <= 0) return 0;
  const int log2_count = 63 - __builtin_clzll(static_cast<unsigned long long>(count));
  return std::min(std::min(log2_count, 32), 31 + shift);
}

// acc + value: float for float, wrapping for int32 (TFLite's int32 sums wrap
// when more than 2^24 int8 values are reduced into one output).
inline float AddInto(float acc, float value) { return acc + value; }
inline int32_t AddInto(int32_t acc, int32_t value) { return fixed_point::WrappingAdd(acc, value); }

// Adds every input element to accumulator[output offset], walking the input
// in row-major order (reference/reduce.h). `accumulators` must be zeroed by
// the caller.
template <typename In, typename Acc>
void MeanAccumulate(const MeanShape& shape, const In* input, Acc* accumulators) {
  ReduceShape reduce;
  reduce.rank = shape.rank;
  for (size_t d = 0; d < shape.rank; ++d) {
    reduce.dims[d] = shape.input_dims[d];
    reduce.reduced[d] = MeanIsReduced(shape, d);
  }
  ReduceInto(reduce, input, accumulators, [](Acc acc, In value) { return AddInto(acc, static_cast<Acc>(value)); });
}

// Float mean; `output` (output_count elements) doubles as the accumulator.
inline void MeanFloat(const MeanShape& shape, const float* input, float* output, size_t output_count) {
  for (size_t o = 0; o < output_count; ++o) output[o] = 0.0f;
  MeanAccumulate(shape, input, output);
  const int64_t count = MeanReducedCount(shape);
  if (count <= 0) return;
  const auto divisor = static_cast<float>(count);
  for (size_t o = 0; o < output_count; ++o) output[o] = output[o] / divisor;
}

// Int8 or int16 mean with requantization (see the header comment); T is
// int8_t or int16_t, the result saturates to T's range.
template <typename T>
inline void MeanQuantizedRequantize(const MeanShape& shape, const MeanQuantization& q, const T* input, T* output,
                                    size_t output_count, int32_t* sums) {
  for (size_t o = 0; o < output_count; ++o) {
    output[o] = 0;
    sums[o] = 0;
  }
  for (size_t d = 0; d < shape.rank; ++d) {
    if (shape.input_dims[d] == 0) return;
  }
  MeanAccumulate(shape, input, sums);
  const int64_t count = MeanReducedCount(shape);
  if (count == 0) return;
  const int log2_count = MeanLog2Count(count, q.shift);
  const auto multiplier =
      static_cast<int32_t>((static_cast<int64_t>(q.multiplier) << log2_count) / count);
  const int shift = q.shift - log2_count;
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  for (size_t o = 0; o < output_count; ++o) {
    const auto centered = static_cast<int32_t>(sums[o] - static_cast<int64_t>(q.input_zero_point) * count);
    int32_t value = fixed_point::WrappingAdd(fixed_point::MultiplyByQuantizedMultiplier(centered, multiplier, shift),
                                             q.output_zero_point);
    value = std::min<int32_t>(kMax, std::max<int32_t>(kMin, value));
    output[o] = static_cast<T>(value);
  }
}

inline void MeanInt8Requantize(const MeanShape& shape, const MeanQuantization& q, const int8_t* input,
                               int8_t* output, size_t output_count, int32_t* sums) {
  MeanQuantizedRequantize(shape, q, input, output, output_count, sums);
}

}  // namespace microarena::reference
