// TRANSPOSE_CONV reference math, bit-exact with TFLite's reference kernels.
//
// Each input element (b, in_y, in_x, i) adds input * filter[o, fy, fx, i] to
// output (b, in_y*stride - pad + fy, in_x*stride - pad + fx, o) for every
// filter tap and output channel o; taps landing outside the output add
// nothing. Then, per output element:
//   int8:  out = clamp(MultiplyByQuantizedMultiplier(acc + bias[o], M[o], s[o]) + zp_out)
//          with every input value offset by -zp_in before the multiply;
//   16x8:  int64 acc, out = clamp(MultiplyByQuantizedMultiplier64(acc + bias[o], M[o], s[o]))
//          (no offsets: TFLM ignores the int16 zero points);
//   float: out = clamp(acc + bias[o]).
//
// TFLite scatters (loops over the input, adding into a zeroed accumulator
// array the size of the output: scratch in the arena for the integer types).
// This gathers instead: each output element sums its own contributions, so
// no accumulator array is needed. The sums are equal: integer sums wrap
// modulo 2^32 (or 2^64) in any order, and for float the terms are taken in
// TFLite's order for that element, which is in_y, then in_x, then i
// ascending, i.e. fy and fx descending (in_y = (out_y + pad - fy) / stride).
// Cost: one multiply-add per output element per filter tap that reaches an
// input element; no scratch.
#pragma once

#include <cstdint>

#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

// Where the filter's taps land: output position = input position * stride -
// padding + tap. Prepare bounds output size + padding within int32.
struct TransposeConvParams {
  int32_t stride_height = 1;
  int32_t stride_width = 1;
  int32_t padding_height = 0;  // output rows cut above the full transposed result
  int32_t padding_width = 0;   // output columns cut left of it
};

// The input index along one axis that tap `f` of output position `out`
// reads, or -1 when the tap lands between input elements or outside them.
inline int32_t TransposeConvSource(int32_t out, int32_t padding, int32_t f, int32_t stride, int32_t input_size) {
  const int32_t scaled = out + padding - f;  // = input index * stride
  if (scaled < 0 || scaled % stride != 0) return -1;
  const int32_t in = scaled / stride;
  return in < input_size ? in : -1;
}

// TRANSPOSE_CONV with the arithmetic of `math` (Int8ConvMath,
// Int16ConvMath<int64_t, Bias> or FloatConvMath, conv.h). The filter is
// [output channels, height, width, input channels]; the input's channels
// equal the filter's (Prepare checks).
template <typename Math>
inline void TransposeConv(const TransposeConvParams& params, const Math& math, const NhwcShape& input_shape,
                          const typename Math::Value* input, const ConvFilterShape& filter_shape,
                          const typename Math::Filter* filter, const NhwcShape& output_shape,
                          typename Math::Value* output) {
  ForEachNhwcPosition(output_shape, [&](int32_t b, int32_t out_y, int32_t out_x) {
    for (int32_t o = 0; o < output_shape.channels; ++o) {
      typename Math::Accumulator acc{};
      for (int32_t fy = filter_shape.height - 1; fy >= 0; --fy) {
        const int32_t in_y =
            TransposeConvSource(out_y, params.padding_height, fy, params.stride_height, input_shape.height);
        if (in_y < 0) continue;
        for (int32_t fx = filter_shape.width - 1; fx >= 0; --fx) {
          const int32_t in_x =
              TransposeConvSource(out_x, params.padding_width, fx, params.stride_width, input_shape.width);
          if (in_x < 0) continue;
          for (int32_t i = 0; i < filter_shape.input_channels; ++i) {
            math.Accumulate(acc, input[NhwcOffset(input_shape, b, in_y, in_x, i)],
                            filter[ConvFilterOffset(filter_shape, o, fy, fx, i)]);
          }
        }
      }
      // FloatConvMath adds 0.0f when there is no bias, where TFLite adds
      // nothing: the same, as a sum started at +0.0f is never -0.0f.
      output[NhwcOffset(output_shape, b, out_y, out_x, o)] = math.Output(acc, o);
    }
  });
}

}  // namespace microarena::reference
