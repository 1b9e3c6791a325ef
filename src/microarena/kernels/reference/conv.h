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
//   16x8 (int16 input and output, int8 filter): no offsets (TFLM ignores
//          both zero points), acc and bias int32 (int32 bias: the 32-bit
//          rescale) or int64 (int64 bias or none: the 64-bit rescale),
//          out = clamp(MultiplyByQuantizedMultiplier(acc + bias[o], M[o], s[o]));
//   float: out = clamp(acc + bias[o]), summed in float in the loop order above.
// Cost: one multiply-add per output element per filter tap; no scratch.
//
// Read/write order (what lets the output overlap the input, kernels/overlap.h):
// output rows y ascending (batch outermost), columns, then channels; output
// row y is written while row y is computed and reads input rows from
// max(0, y*stride - pad_top) on only. So with batch 1 the output may start
// D = max over y of ((y + 1) R_out - max(0, y*stride - pad_top) R_in) bytes
// below the input (R = bytes per row) and overwrite input rows no later
// output row reads. Keep this order when changing the loops.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/int4.h"
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
  const int8_t* output_shift = nullptr;        // one per output channel, power-of-two exponent
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
  return RowMajorOffset4d(shape.height, shape.width, shape.input_channels, o, y, x, i);
}

// Requantizes one accumulator of output channel `channel` to int8. The
// rescaled value may be near INT32_MIN/MAX; adding the zero point then wraps
// in TFLite before the clamp, and WrappingAdd wraps the same way.
inline int8_t RequantizeToInt8(int32_t acc, const QuantizedConvParams& q, int32_t channel) {
  const auto c = static_cast<size_t>(channel);
  const int32_t value = fixed_point::MultiplyByQuantizedMultiplier(acc, q.output_multiplier[c], q.output_shift[c]);
  return ClampToInt8(fixed_point::WrappingAdd(value, q.output_offset), q.activation_min, q.activation_max);
}

// The arithmetic that differs between the int8 and float convolutions; the
// loops in Conv and DepthwiseConv (depthwise_conv.h) are shared.
//
// int8: int32 sum of filter * (input - zp_in), plus the bias, requantized with
// the output channel's multiplier and clamped. Each product fits easily
// (|filter| <= 128, |input - zp_in| <= 255 as Prepare checks zp_in), but the
// sum of many taps and the bias add wrap in TFLite: WrappingAdd does the same.
struct Int8ConvMath {
  using Value = int8_t;
  using Filter = int8_t;
  using Accumulator = int32_t;
  const QuantizedConvParams& quant;
  const int32_t* bias;  // nullptr: no bias

  void Accumulate(int32_t& acc, int8_t input, int8_t filter) const {
    const int32_t input_value = input;
    const int32_t filter_value = filter;
    acc = fixed_point::WrappingAdd(acc, filter_value * (input_value + quant.input_offset));
  }
  int8_t Output(int32_t acc, int32_t o) const {
    if (bias != nullptr) acc = fixed_point::WrappingAdd(acc, bias[o]);
    return RequantizeToInt8(acc, quant, o);
  }
};

// 16x8: int16 input and output, int8 filter, `Acc` int32_t or int64_t, as
// TFLite's 16-bit reference kernels: CONV_2D accumulates in the bias's type,
// in int64 without a bias (an int32 sum wraps, as TFLite's does);
// DEPTHWISE_CONV_2D and TRANSPOSE_CONV always in int64 (TRANSPOSE_CONV
// widens an int16 bias). The rescale is the 32-bit
// MultiplyByQuantizedMultiplier for an int32 accumulator and the 64-bit one
// (multiplier rounded to 16 bits) for an int64 accumulator. Neither zero
// point is applied; only the clamp bounds, computed at Prepare from the
// output zero point, reflect it.
template <typename Acc, typename Bias = Acc>
struct Int16ConvMath {
  using Value = int16_t;
  using Filter = int8_t;
  using Accumulator = Acc;
  const QuantizedConvParams& quant;
  const Bias* bias;  // nullptr: no bias

  static Acc Add(Acc a, Acc b) {
    if constexpr (sizeof(Acc) == sizeof(int64_t)) {
      return fixed_point::WrappingAdd64(a, b);
    } else {
      return fixed_point::WrappingAdd(a, b);
    }
  }
  void Accumulate(Acc& acc, int16_t input, int8_t filter) const {
    // |product| < 2^22: exact in int32.
    acc = Add(acc, static_cast<Acc>(int32_t{filter} * int32_t{input}));
  }
  int16_t Output(Acc acc, int32_t o) const {
    if (bias != nullptr) {
      // A model's int64 bias may sit at a 4-byte offset: read it by bytes.
      Bias value;
      std::memcpy(&value, bias + o, sizeof(value));
      acc = Add(acc, static_cast<Acc>(value));
    }
    const auto c = static_cast<size_t>(o);
    int32_t value = 0;
    if constexpr (sizeof(Acc) == sizeof(int64_t)) {
      value = fixed_point::MultiplyByQuantizedMultiplier64(acc, quant.output_multiplier[c], quant.output_shift[c]);
    } else {
      value = fixed_point::MultiplyByQuantizedMultiplier(acc, quant.output_multiplier[c], quant.output_shift[c]);
    }
    value = std::max(value, quant.activation_min);
    value = std::min(value, quant.activation_max);
    return static_cast<int16_t>(value);
  }
};

// float: sum of input * filter in tap order, plus the bias (0 when absent, as
// TFLite adds it unconditionally), clamped.
struct FloatConvMath {
  using Value = float;
  using Filter = float;
  using Accumulator = float;
  const FloatActivation& activation;
  const float* bias;  // nullptr: no bias

  void Accumulate(float& total, float input, float filter) const { total += input * filter; }
  float Output(float total, int32_t o) const {
    const float bias_value = bias != nullptr ? bias[o] : 0.0f;
    return ClampFloat(total + bias_value, activation.min, activation.max);
  }
};

// Calls tap(fy, fx, in_y, in_x) for each tap of a filter_height x filter_width
// window (rows, then columns) at output position (out_y, out_x) that lands
// inside the input; taps outside read zero padding, which adds nothing.
template <typename Tap>
inline void ForEachConvTap(const ConvParams& params, const NhwcShape& input_shape, int32_t filter_height,
                           int32_t filter_width, int32_t out_y, int32_t out_x, Tap&& tap) {
  const int32_t in_y_origin = out_y * params.stride_height - params.padding_height;
  const int32_t in_x_origin = out_x * params.stride_width - params.padding_width;
  for (int32_t fy = 0; fy < filter_height; ++fy) {
    const int32_t in_y = in_y_origin + params.dilation_height * fy;
    for (int32_t fx = 0; fx < filter_width; ++fx) {
      const int32_t in_x = in_x_origin + params.dilation_width * fx;
      if (in_y < 0 || in_y >= input_shape.height || in_x < 0 || in_x >= input_shape.width) continue;
      tap(fy, fx, in_y, in_x);
    }
  }
}

// CONV_2D with the arithmetic of `math` (Int8ConvMath, Int16ConvMath or FloatConvMath);
// taps are summed in (fy, fx, i) order, as TFLite's reference loops do.
// `Filter`: a pointer to Math::Filter values, or PackedInt4 (int4.h).
template <typename Math, typename Filter>
inline void Conv(const ConvParams& params, const Math& math, const NhwcShape& input_shape,
                 const typename Math::Value* input, const ConvFilterShape& filter_shape, Filter filter,
                 const NhwcShape& output_shape, typename Math::Value* output) {
  const int32_t filters_per_group =
      output_shape.channels / (input_shape.channels / filter_shape.input_channels);
  ForEachNhwcPosition(output_shape, [&](int32_t b, int32_t out_y, int32_t out_x) {
    for (int32_t o = 0; o < output_shape.channels; ++o) {
      const int32_t first_input_channel = (o / filters_per_group) * filter_shape.input_channels;
      typename Math::Accumulator acc{};
      ForEachConvTap(params, input_shape, filter_shape.height, filter_shape.width, out_y, out_x,
                     [&](int32_t fy, int32_t fx, int32_t in_y, int32_t in_x) {
                       for (int32_t i = 0; i < filter_shape.input_channels; ++i) {
                         math.Accumulate(acc, input[NhwcOffset(input_shape, b, in_y, in_x, first_input_channel + i)],
                                         filter[ConvFilterOffset(filter_shape, o, fy, fx, i)]);
                       }
                     });
      output[NhwcOffset(output_shape, b, out_y, out_x, o)] = math.Output(acc, o);
    }
  });
}

// int8 input/filter/output, int32 bias (nullptr: no bias), per-channel scales.
inline void ConvPerChannelInt8(const ConvParams& params, const QuantizedConvParams& quant,
                               const NhwcShape& input_shape, const int8_t* input,
                               const ConvFilterShape& filter_shape, const int8_t* filter, const int32_t* bias,
                               const NhwcShape& output_shape, int8_t* output) {
  Conv(params, Int8ConvMath{quant, bias}, input_shape, input, filter_shape, filter, output_shape, output);
}

// int8 input/output, INT4 filter packed two per byte (`filter`), int32 bias
// (nullptr: no bias): TFLM unpacks the filter into scratch and runs
// ConvPerChannelInt8; the sums here are the same, read from the nibbles.
inline void ConvPerChannelInt8PackedInt4(const ConvParams& params, const QuantizedConvParams& quant,
                                         const NhwcShape& input_shape, const int8_t* input,
                                         const ConvFilterShape& filter_shape, const uint8_t* filter,
                                         const int32_t* bias, const NhwcShape& output_shape, int8_t* output) {
  Conv(params, Int8ConvMath{quant, bias}, input_shape, input, filter_shape, PackedInt4{filter}, output_shape, output);
}

// int16 input/output, int8 filter, int32 or int64 bias (nullptr: no bias,
// which TFLM computes as int64), per-channel scales.
template <typename Bias>
inline void ConvPerChannelInt16(const ConvParams& params, const QuantizedConvParams& quant,
                                const NhwcShape& input_shape, const int16_t* input, const ConvFilterShape& filter_shape,
                                const int8_t* filter, const Bias* bias, const NhwcShape& output_shape,
                                int16_t* output) {
  Conv(params, Int16ConvMath<Bias>{quant, bias}, input_shape, input, filter_shape, filter, output_shape, output);
}

// float input/filter/output, float bias (nullptr: no bias).
inline void ConvFloat(const ConvParams& params, const FloatActivation& activation, const NhwcShape& input_shape,
                      const float* input, const ConvFilterShape& filter_shape, const float* filter,
                      const float* bias, const NhwcShape& output_shape, float* output) {
  Conv(params, FloatConvMath{activation, bias}, input_shape, input, filter_shape, filter, output_shape, output);
}

}  // namespace microarena::reference
