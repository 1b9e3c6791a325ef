// DEPTHWISE_CONV_2D reference math, bit-exact with TFLite's reference kernels.
//
// Each input channel c feeds `depth_multiplier` output channels
// o = c * depth_multiplier + m, each with its own filter plane:
//   acc = sum over filter rows fy, columns fx of
//         filter[0, fy, fx, o] * input[b, y*stride - pad + fy*dilation, x*stride - pad + fx*dilation, c]
//   (window positions outside the input contribute nothing: zero padding)
//   int8:  out = clamp(MultiplyByQuantizedMultiplier(acc + bias[o], M[o], s[o]) + zp_out)
//          with every input value offset by -zp_in before the multiply;
//   16x8:  int64 acc and int64 bias, the 64-bit rescale, no offsets
//          (Int16ConvMath<int64_t>, conv.h), as TFLite's 16-bit kernel;
//   float: out = clamp(acc + bias[o]), summed in float in the loop order above.
// Cost: one multiply-add per output element per filter tap; no scratch.
//
// Read/write order: as Conv (conv.h): output rows ascending, each reading
// input rows from max(0, y*stride - pad_top) on, so the same row lag D lets
// the output start below and run into the input (kernels/overlap.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

// DEPTHWISE_CONV_2D with the arithmetic of `math` (Int8ConvMath,
// Int16ConvMath<int64_t> or FloatConvMath, conv.h). The filter is [1, height, width, output channels]:
// a pointer to Math::Filter values, or PackedInt4 (int4.h).
template <typename Math, typename Filter>
inline void DepthwiseConv(const ConvParams& params, int32_t depth_multiplier, const Math& math,
                          const NhwcShape& input_shape, const typename Math::Value* input,
                          const NhwcShape& filter_shape, Filter filter,
                          const NhwcShape& output_shape, typename Math::Value* output) {
  ForEachNhwcPosition(output_shape, [&](int32_t b, int32_t out_y, int32_t out_x) {
    for (int32_t c = 0; c < input_shape.channels; ++c) {
      for (int32_t m = 0; m < depth_multiplier; ++m) {
        const int32_t o = c * depth_multiplier + m;
        typename Math::Accumulator acc{};
        ForEachConvTap(params, input_shape, filter_shape.height, filter_shape.width, out_y, out_x,
                       [&](int32_t fy, int32_t fx, int32_t in_y, int32_t in_x) {
                         math.Accumulate(acc, input[NhwcOffset(input_shape, b, in_y, in_x, c)],
                                         filter[NhwcOffset(filter_shape, 0, fy, fx, o)]);
                       });
        output[NhwcOffset(output_shape, b, out_y, out_x, o)] = math.Output(acc, o);
      }
    }
  });
}

// int8 input/filter/output, int32 bias (nullptr: no bias), per-channel scales.
inline void DepthwiseConvPerChannelInt8(const ConvParams& params, int32_t depth_multiplier,
                                        const QuantizedConvParams& quant, const NhwcShape& input_shape,
                                        const int8_t* input, const NhwcShape& filter_shape, const int8_t* filter,
                                        const int32_t* bias, const NhwcShape& output_shape, int8_t* output) {
  DepthwiseConv(params, depth_multiplier, Int8ConvMath{quant, bias}, input_shape, input, filter_shape, filter,
                output_shape, output);
}

// int8 input/output, INT4 filter packed two per byte (reference/int4.h).
inline void DepthwiseConvPerChannelInt8PackedInt4(const ConvParams& params, int32_t depth_multiplier,
                                                  const QuantizedConvParams& quant, const NhwcShape& input_shape,
                                                  const int8_t* input, const NhwcShape& filter_shape,
                                                  const uint8_t* filter, const int32_t* bias,
                                                  const NhwcShape& output_shape, int8_t* output) {
  DepthwiseConv(params, depth_multiplier, Int8ConvMath{quant, bias}, input_shape, input, filter_shape,
                PackedInt4{filter}, output_shape, output);
}

// int16 input/output, int8 filter, int64 bias (nullptr: no bias), per-channel scales.
inline void DepthwiseConvPerChannelInt16(const ConvParams& params, int32_t depth_multiplier,
                                         const QuantizedConvParams& quant, const NhwcShape& input_shape,
                                         const int16_t* input, const NhwcShape& filter_shape, const int8_t* filter,
                                         const int64_t* bias, const NhwcShape& output_shape, int16_t* output) {
  DepthwiseConv(params, depth_multiplier, Int16ConvMath<int64_t>{quant, bias}, input_shape, input, filter_shape, filter,
                output_shape, output);
}

// float input/filter/output, float bias (nullptr: no bias).
inline void DepthwiseConvFloat(const ConvParams& params, int32_t depth_multiplier, const FloatActivation& activation,
                               const NhwcShape& input_shape, const float* input, const NhwcShape& filter_shape,
                               const float* filter, const float* bias, const NhwcShape& output_shape,
                               float* output) {
  DepthwiseConv(params, depth_multiplier, FloatConvMath{activation, bias}, input_shape, input, filter_shape, filter,
                output_shape, output);
}

}  // namespace microarena::reference
