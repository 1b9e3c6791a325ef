// CONV_2D reference math, bit-exact with TFLite's reference kernels.
//
// For every output element (batch b, row y, column x, output channel o):
//   acc = sum over filter rows fy, columns fx, input channels i of
//         filter[o, fy, fx, i] * input[b, y*stride - pad + fy*dilation, ..., g*I + i]
//   (window positions outside the input contribute nothing: zero padding)
// where I is the filter's input depth and g = o / (O / groups) the group of o
// (groups = input depth / I; 1 for an ordinary convolution).
//   int8:  out = clamp(MultiplyByQuantizedMultiplier(acc + bias[o], M[o], s[o]) + zp_out)
//          with every input value offset by -zp_in before the multiply;
//   float: out = clamp(acc + bias[o]), summed in float in the loop order above.
// Cost: one multiply-add per output element per filter tap; no scratch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

// Window placement, shared by CONV_2D and DEPTHWISE_CONV_2D.
struct ConvParams {
  int32_t stride_height = 1;
  int32_t stride_width = 1;
  int32_t dilation_height = 1;
  int32_t dilation_width = 1;
  int32_t padding_height = 0;  // rows of zero padding above the input
  int32_t padding_width = 0;   // columns of zero padding left of the input
};

// Per-channel requantization of the int32 accumulators to int8.
struct QuantizedConvParams {
  int32_t input_offset = 0;    // -input zero point
  int32_t output_offset = 0;   // output zero point
  int32_t activation_min = -128;
  int32_t activation_max = 127;
  const int32_t* output_multiplier = nullptr;  // one per output channel, Q31 mantissa
  const int32_t* output_shift = nullptr;       // one per output channel, power-of-two exponent
};

// Clamp range of a float output.
struct FloatActivation {
  float min = 0.0f;
  float max = 0.0f;
};

// Filter of CONV_2D: [output channels, height, width, input channels].
struct ConvFilterShape {
  int32_t output_channels = 1;
  int32_t height = 1;
  int32_t width = 1;
  int32_t input_channels = 1;
};

inline size_t ConvFilterOffset(const ConvFilterShape& shape, int32_t o, int32_t y, int32_t x, int32_t i) {
  const auto row = static_cast<size_t>(o) * static_cast<size_t>(shape.height) + static_cast<size_t>(y);
  const auto column = row * static_cast<size_t>(shape.width) + static_cast<size_t>(x);
  return column * static_cast<size_t>(shape.input_channels) + static_cast<size_t>(i);
}

// Requantizes one accumulator of output channel `channel` to int8.
inline int8_t RequantizeToInt8(int32_t acc, const QuantizedConvParams& q, int32_t channel) {
  const auto c = static_cast<size_t>(channel);
  int32_t value = fixed_point::MultiplyByQuantizedMultiplier(acc, q.output_multiplier[c], q.output_shift[c]);
  value += q.output_offset;
  value = std::max(value, q.activation_min);
  value = std::min(value, q.activation_max);
  return static_cast<int8_t>(value);
}

// int8 input/filter/output, int32 bias (nullptr: no bias), per-channel scales.
inline void ConvPerChannelInt8(const ConvParams& params, const QuantizedConvParams& quant,
                               const NhwcShape& input_shape, const int8_t* input,
                               const ConvFilterShape& filter_shape, const int8_t* filter, const int32_t* bias,
                               const NhwcShape& output_shape, int8_t* output) {
  const int32_t filters_per_group =
      output_shape.channels / (input_shape.channels / filter_shape.input_channels);
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      const int32_t in_y_origin = out_y * params.stride_height - params.padding_height;
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x) {
        const int32_t in_x_origin = out_x * params.stride_width - params.padding_width;
        for (int32_t o = 0; o < output_shape.channels; ++o) {
          const int32_t first_input_channel = (o / filters_per_group) * filter_shape.input_channels;
          int32_t acc = 0;
          for (int32_t fy = 0; fy < filter_shape.height; ++fy) {
            const int32_t in_y = in_y_origin + params.dilation_height * fy;
            for (int32_t fx = 0; fx < filter_shape.width; ++fx) {
              const int32_t in_x = in_x_origin + params.dilation_width * fx;
              if (in_y < 0 || in_y >= input_shape.height || in_x < 0 || in_x >= input_shape.width) continue;
              for (int32_t i = 0; i < filter_shape.input_channels; ++i) {
                const int32_t input_value = input[NhwcOffset(input_shape, b, in_y, in_x, first_input_channel + i)];
                const int32_t filter_value = filter[ConvFilterOffset(filter_shape, o, fy, fx, i)];
                acc += filter_value * (input_value + quant.input_offset);
              }
            }
          }
          if (bias != nullptr) acc += bias[o];
          output[NhwcOffset(output_shape, b, out_y, out_x, o)] = RequantizeToInt8(acc, quant, o);
        }
      }
    }
  }
}

// float input/filter/output, float bias (nullptr: no bias).
inline void ConvFloat(const ConvParams& params, const FloatActivation& activation, const NhwcShape& input_shape,
                      const float* input, const ConvFilterShape& filter_shape, const float* filter,
                      const float* bias, const NhwcShape& output_shape, float* output) {
  const int32_t filters_per_group =
      output_shape.channels / (input_shape.channels / filter_shape.input_channels);
  for (int32_t b = 0; b < output_shape.batches; ++b) {
    for (int32_t out_y = 0; out_y < output_shape.height; ++out_y) {
      const int32_t in_y_origin = out_y * params.stride_height - params.padding_height;
      for (int32_t out_x = 0; out_x < output_shape.width; ++out_x) {
        const int32_t in_x_origin = out_x * params.stride_width - params.padding_width;
        for (int32_t o = 0; o < output_shape.channels; ++o) {
          const int32_t first_input_channel = (o / filters_per_group) * filter_shape.input_channels;
          float total = 0.0f;
          for (int32_t fy = 0; fy < filter_shape.height; ++fy) {
            const int32_t in_y = in_y_origin + params.dilation_height * fy;
            for (int32_t fx = 0; fx < filter_shape.width; ++fx) {
              const int32_t in_x = in_x_origin + params.dilation_width * fx;
              if (in_y < 0 || in_y >= input_shape.height || in_x < 0 || in_x >= input_shape.width) continue;
              for (int32_t i = 0; i < filter_shape.input_channels; ++i) {
                total += input[NhwcOffset(input_shape, b, in_y, in_x, first_input_channel + i)] *
                         filter[ConvFilterOffset(filter_shape, o, fy, fx, i)];
              }
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

}  // namespace microarena::reference
