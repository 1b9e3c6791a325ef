// DEPTHWISE_CONV_2D reference math, bit-exact with TFLite's reference kernels.
//
// Each input channel c feeds `depth_multiplier` output channels
// o = c * depth_multiplier + m, each with its own filter plane:
//   acc = sum over filter rows fy, columns fx of
//         filter[0, fy, fx, o] * input[b, y*stride - pad + fy*dilation, x*stride - pad + fx*dilation, c]
//   (window positions outside the input contribute nothing: zero padding)
//   int8:  out = clamp(MultiplyByQuantizedMultiplier(acc + bias[o], M[o], s[o]) + zp_out)
//          with every input value offset by -zp_in before the multiply;
//   float: out = clamp(acc + bias[o]), summed in float in the loop order above.
// Cost: one multiply-add per output element per filter tap; no scratch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

// int8 input/filter/output, int32 bias (nullptr: no bias), per-channel scales.
// The filter is [1, height, width, output channels].
inline void DepthwiseConvPerChannelInt8(const ConvParams& params, int32_t depth_multiplier,
                                        const QuantizedConvParams& quant, const NhwcShape& input_shape,
                                        const int8_t* input, const NhwcShape& filter_shape, const int8_t* filter,
                                        const int32_t* bias, const NhwcShape& output_shape, int8_t* output) {
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      const int32_t in_y_origin = out_y * params.stride_height - params.padding_height;
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x) {
        const int32_t in_x_origin = out_x * params.stride_width - params.padding_width;
        for (int32_t c = 0; c < input_shape.channels; ++c) {
          for (int32_t m = 0; m < depth_multiplier; ++m) {
            const int32_t o = c * depth_multiplier + m;
            int32_t acc = 0;
            for (int32_t fy = 0; fy < filter_shape.height; ++fy) {
              const int32_t in_y = in_y_origin + params.dilation_height * fy;
              for (int32_t fx = 0; fx < filter_shape.width; ++fx) {
                const int32_t in_x = in_x_origin + params.dilation_width * fx;
                if (in_y < 0 || in_y >= input_shape.height || in_x < 0 || in_x >= input_shape.width) continue;
                const int32_t input_value = input[NhwcOffset(input_shape, b, in_y, in_x, c)];
                const int32_t filter_value = filter[NhwcOffset(filter_shape, 0, fy, fx, o)];
                acc += filter_value * (input_value + quant.input_offset);
              }
            }
            if (bias != nullptr) acc += bias[o];
            output[NhwcOffset(output_shape, b, out_y, out_x, o)] = RequantizeToInt8(acc, quant, o);
          }
        }
      }
    }
  }
}

// float input/filter/output, float bias (nullptr: no bias).
inline void DepthwiseConvFloat(const ConvParams& params, int32_t depth_multiplier, const FloatActivation& activation,
                               const NhwcShape& input_shape, const float* input, const NhwcShape& filter_shape,
                               const float* filter, const float* bias, const NhwcShape& output_shape,
                               float* output) {
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      const int32_t in_y_origin = out_y * params.stride_height - params.padding_height;
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x) {
        const int32_t in_x_origin = out_x * params.stride_width - params.padding_width;
        for (int32_t c = 0; c < input_shape.channels; ++c) {
          for (int32_t m = 0; m < depth_multiplier; ++m) {
            const int32_t o = c * depth_multiplier + m;
            float total = 0.0f;
            for (int32_t fy = 0; fy < filter_shape.height; ++fy) {
              const int32_t in_y = in_y_origin + params.dilation_height * fy;
              for (int32_t fx = 0; fx < filter_shape.width; ++fx) {
                const int32_t in_x = in_x_origin + params.dilation_width * fx;
                if (in_y < 0 || in_y >= input_shape.height || in_x < 0 || in_x >= input_shape.width) continue;
                total += input[NhwcOffset(input_shape, b, in_y, in_x, c)] *
                         filter[NhwcOffset(filter_shape, 0, fy, fx, o)];
              }
            }
            const float bias_value = bias != nullptr ? bias[o] : 0.0f;
            output[NhwcOffset(output_shape, b, out_y, out_x, o)] =
                ClampFloat(total + bias_value, activation.min, activation.max);
          }
        }
      }
    }
  }
}

}  // namespace microarena::reference
