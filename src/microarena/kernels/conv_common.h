// Prepare-time work shared by CONV_2D, DEPTHWISE_CONV_2D and the 2-D pools:
// window geometry checked against the output shape, fused-activation clamps,
// and the per-channel requantization multipliers of the int8 convolutions.
#pragma once

#include <cstdint>

#include "microarena/base/status.h"
#include "microarena/kernels/kernel.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/model/model_view.h"
#include "microarena/schema/tflite_schema_generated.h"

namespace microarena {

// A sliding window as the op's options give it.
struct WindowOptions {
  tflite::Padding padding = tflite::Padding::SAME;
  int32_t stride_height = 1;
  int32_t stride_width = 1;
  int32_t dilation_height = 1;
  int32_t dilation_width = 1;
  int32_t filter_height = 1;
  int32_t filter_width = 1;
};

// Checks the options (strides, dilations and filter sizes >= 1, SAME or VALID),
// computes the output height and width as TFLite does and requires the rank-4
// output tensor to have them; writes the padding above and left of the input.
Status PrepareWindow(const PrepareContext& context, const WindowOptions& window, const TensorView& input,
                     const TensorView& output, int32_t* padding_height, int32_t* padding_width);

// The int8 clamp of `activation` for `output` (quantization already checked).
Status PrepareInt8Activation(const PrepareContext& context, tflite::ActivationFunctionType activation,
                             const TensorView& output, int32_t* act_min, int32_t* act_max);
// The float clamp of `activation`.
Status PrepareFloatActivation(const PrepareContext& context, tflite::ActivationFunctionType activation,
                              float* act_min, float* act_max);

// For int8 CONV_2D and DEPTHWISE_CONV_2D: checks the input and output
// quantization (one scale and zero point each) and the filter's (one scale, or
// one per output channel along `channel_dimension`; zero points all 0), then
// fills `quant` (offsets, clamp) and the `channels` multipliers and shifts it
// points to, each from double(input scale) * double(filter scale) /
// double(output scale) as TFLite's PopulateConvolutionQuantizationParams.
// `multipliers` and `shifts` must hold `channels` values and outlive `quant`.
Status PreparePerChannelQuantization(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                                     const TensorView& output, tflite::ActivationFunctionType activation,
                                     int32_t channels, int32_t channel_dimension, int32_t* multipliers,
                                     int32_t* shifts, reference::QuantizedConvParams* quant);

// Checks an optional bias (input 2): `type` and `channels` elements.
// Writes whether it is present.
Status PrepareBias(const PrepareContext& context, TensorType type, int32_t channels, bool* has_bias);

}  // namespace microarena
