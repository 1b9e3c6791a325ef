// Prepare-time work shared by CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and
// the 2-D pools: operand types and shapes, window geometry checked against the
// output shape, fused-activation clamps, and the per-channel requantization
// multipliers of the int8 and 16x8 convolutions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "microarena/base/status.h"
#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/kernel.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/tensor_checks.h"
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

// QuantizedConvParams as op data keeps it: no pointers (kernels/kernel.h),
// so the op data has one size on every target. The `channels` multipliers
// and then shifts follow the op data in its allocation.
struct StoredConvQuantization {
  int32_t input_offset = 0;
  int32_t output_offset = 0;
  int32_t activation_min = -128;
  int32_t activation_max = 127;
  int32_t channels = 0;

  void Store(const reference::QuantizedConvParams& quant, int32_t channel_count) {
    input_offset = quant.input_offset;
    output_offset = quant.output_offset;
    activation_min = quant.activation_min;
    activation_max = quant.activation_max;
    channels = channel_count;
  }
  // The params, with pointers to the arrays at `arrays` (the first byte
  // after the op data).
  reference::QuantizedConvParams Load(const void* arrays) const {
    reference::QuantizedConvParams quant;
    quant.input_offset = input_offset;
    quant.output_offset = output_offset;
    quant.activation_min = activation_min;
    quant.activation_max = activation_max;
    quant.output_multiplier = static_cast<const int32_t*>(arrays);
    quant.output_shift = reinterpret_cast<const int8_t*>(quant.output_multiplier + channels);
    return quant;
  }
};

// The clamp of `activation` for `output` within [qmin, qmax] (the output
// type's range; quantization already checked).
Status PrepareQuantizedActivation(const PrepareContext& context, tflite::ActivationFunctionType activation,
                                  const TensorView& output, int32_t qmin, int32_t qmax, int32_t* act_min,
                                  int32_t* act_max);
// The int8 clamp of `activation` for `output` (quantization already checked).
Status PrepareInt8Activation(const PrepareContext& context, tflite::ActivationFunctionType activation,
                             const TensorView& output, int32_t* act_min, int32_t* act_max);
// The float clamp of `activation`.
Status PrepareFloatActivation(const PrepareContext& context, tflite::ActivationFunctionType activation,
                              float* act_min, float* act_max);

// For int8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: the input and the
// output each have one scale and one zero point within int8.
Status RequireInt8PerTensorInputOutput(const PrepareContext& context, const TensorView& input,
                                       const TensorView& output);

// For int8 and 16x8 CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV: checks the
// input and output quantization (one scale and zero point each, within the
// input type's range) and the filter's (one scale, or
// one per output channel along `channel_dimension`; zero points all 0), then
// fills `quant` (offsets, clamp) and the `channels` multipliers and shifts it
// points to, each from double(input scale) * double(filter scale) /
// double(output scale) as TFLite's PopulateConvolutionQuantizationParams.
// `multipliers` and `shifts` must hold `channels` values and outlive `quant`.
// A shift is the power-of-two exponent of its multiplier (-31 for tiny
// scales, a few units above 0 for large ones), so it is kept in an int8
// (5 B per channel instead of TFLM's 8); one that does not fit is an error.
// `max_shift` is lower for the 64-bit rescale (kMaxMultiplierShift64).
Status PreparePerChannelQuantization(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                                     const TensorView& output, tflite::ActivationFunctionType activation,
                                     int32_t channels, int32_t channel_dimension, int32_t* multipliers, int8_t* shifts,
                                     reference::QuantizedConvParams* quant,
                                     int max_shift = fixed_point::kMaxMultiplierShift);

// The largest shift MultiplyByQuantizedMultiplier64 accepts: it shifts right
// by 15 - shift, which must stay >= 1.
constexpr int kMaxMultiplierShift64 = 14;

// For CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: the input is INT8 or
// FLOAT32 (`op_name` names the op in the error) and the filter and output
// have its type.
Status RequireInt8OrFloat32Operands(const PrepareContext& context, const char* op_name, const TensorView& input,
                                    const TensorView& filter, const TensorView& output);

// For CONV_2D and DEPTHWISE_CONV_2D: input, filter and output are rank 4 and
// input and output have the same batch.
Status RequireNhwcOperands(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                           const TensorView& output);

// Checks an optional bias (input `bias_input`): INT32 for an INT8 op, INT32
// or INT64 for an INT16 one, FLOAT32 for a FLOAT32 one (`operand_type`),
// with `channels` elements.
Status PrepareBias(const PrepareContext& context, TensorType operand_type, int32_t channels, size_t bias_input = 2);

// For CONV_2D and DEPTHWISE_CONV_2D (`Options` is Conv2DOptions or
// DepthwiseConv2DOptions, which name these fields alike): checks the window of
// the filter's height and width (dims 1 and 2) and fills `params`.
template <typename Options>
[[gnu::noinline]] Status PrepareConvWindow(const PrepareContext& context, const Options& options,
                                           const TensorView& input, const TensorView& filter,
                                           const TensorView& output, reference::ConvParams* params) {
  WindowOptions window;
  window.padding = options.padding();
  window.stride_height = options.stride_h();
  window.stride_width = options.stride_w();
  window.dilation_height = options.dilation_h_factor();
  window.dilation_width = options.dilation_w_factor();
  window.filter_height = Dim(filter, 1);
  window.filter_width = Dim(filter, 2);
  MICROARENA_RETURN_IF_ERROR(
      PrepareWindow(context, window, input, output, &params->padding_height, &params->padding_width));
  params->stride_height = window.stride_height;
  params->stride_width = window.stride_width;
  params->dilation_height = window.dilation_height;
  params->dilation_width = window.dilation_width;
  return OkStatus();
}

// The range of `input`'s type: int16 for 16x8, else int8.
void QuantizedRange(const TensorView& input, int32_t* qmin, int32_t* qmax);

// The checks and the per-channel multipliers and shifts of
// PreparePerChannelQuantization, in a frame of its own that is gone before
// the clamp is computed (AllocateTensors' stack holds one, not both).
[[gnu::noinline]] Status PrepareChannelMultipliers(const PrepareContext& context, const TensorView& input,
                                                   const TensorView& filter, const TensorView& output, int32_t channels,
                                                   int32_t channel_dimension, int32_t* multipliers, int8_t* shifts,
                                                   int max_shift);

// The requantization of CONV_2D and DEPTHWISE_CONV_2D into `stored` and the
// arrays at `arrays`: PreparePerChannelQuantization's steps, written straight
// into the op data. Inline: one frame fewer under the kernel's Prepare.
inline Status PrepareConvRequantization(const PrepareContext& context, const TensorView& input,
                                        const TensorView& filter, const TensorView& output,
                                        tflite::ActivationFunctionType activation, int32_t channels,
                                        int32_t channel_dimension, bool int16_rescale64,
                                        StoredConvQuantization* stored, void* arrays) {
  auto* multipliers = static_cast<int32_t*>(arrays);
  auto* shifts = reinterpret_cast<int8_t*>(multipliers + channels);
  const bool int32_bias = context.has_input(2) && context.input(2).type() == TensorType::kInt32;
  const bool rescale64 = input.type() == TensorType::kInt16 && (int16_rescale64 || !int32_bias);
  MICROARENA_RETURN_IF_ERROR(PrepareChannelMultipliers(
      context, input, filter, output, channels, channel_dimension, multipliers, shifts,
      rescale64 ? kMaxMultiplierShift64 : fixed_point::kMaxMultiplierShift));
  int32_t qmin = 0;
  int32_t qmax = 0;
  QuantizedRange(input, &qmin, &qmax);
  stored->input_offset = -static_cast<int32_t>(input.quantization().zero_point(0));
  stored->output_offset = static_cast<int32_t>(output.quantization().zero_point(0));
  stored->channels = channels;
  return PrepareQuantizedActivation(context, activation, output, qmin, qmax, &stored->activation_min,
                                    &stored->activation_max);
}

// Allocates `header_bytes` of persistent op data followed, when
// `channel_arrays` is true, by the int32 multipliers and the int8 shifts of
// `channels` output channels (5 B per channel; TFLM keeps 8).
Status AllocateWithChannelArrays(PrepareContext& context, size_t header_bytes, size_t alignment, int32_t channels,
                                 bool channel_arrays, void** memory);

// The rest of CONV_2D's and DEPTHWISE_CONV_2D's prepare once their own shape
// checks pass: checks the bias and the window, allocates the persistent
// `OpData` (with `params`, `quant` and `activation` members) followed, for
// int8 and int16, by its multiplier and shift arrays, and fills it: the
// requantization (PreparePerChannelQuantization, filter scales along
// `channel_dimension`; an int16 op takes the 64-bit rescale unless it has an
// int32 bias and `int16_rescale64` is false) or the float clamp.
// kInt8Only (the int8-only kernels, whose input the caller has checked is
// INT8) compiles the float clamp out.
template <typename OpData, bool kInt8Only = false, typename Options>
Status PrepareConvOpData(PrepareContext& context, const Options& options, const TensorView& input,
                         const TensorView& filter, const TensorView& output, int32_t channels,
                         int32_t channel_dimension, OpData** data, bool int16_rescale64 = false) {
  MICROARENA_RETURN_IF_ERROR(PrepareBias(context, input.type(), channels));
  // The op data first, so that the window and requantization are written in
  // place rather than through copies on AllocateTensors' stack.
  const bool is_quantized = kInt8Only || input.type() != TensorType::kFloat32;
  void* memory = nullptr;
  MICROARENA_RETURN_IF_ERROR(
      AllocateWithChannelArrays(context, sizeof(OpData), alignof(OpData), channels, is_quantized, &memory));
  *data = new (memory) OpData();
  MICROARENA_RETURN_IF_ERROR(PrepareConvWindow(context, options, input, filter, output, &(*data)->params));
  const tflite::ActivationFunctionType activation = options.fused_activation_function();
  if (!is_quantized) {
    MICROARENA_RETURN_IF_ERROR(
        PrepareFloatActivation(context, activation, &(*data)->activation.min, &(*data)->activation.max));
  } else {
    // OpData holds int32 fields, so the multipliers right after it are aligned.
    MICROARENA_RETURN_IF_ERROR(PrepareConvRequantization(context, input, filter, output, activation, channels,
                                                         channel_dimension, int16_rescale64, &(*data)->quant,
                                                         *data + 1));
  }
  // The loops write output rows in ascending order (reference/conv.h,
  // reference/depthwise_conv.h): the output may trail the input by a row lag.
  return DeclareRowLagOverlap(context, (*data)->params.stride_height, (*data)->params.padding_height);
}

// The Eval of CONV_2D and DEPTHWISE_CONV_2D (op data starting with their
// ConvParams `params`) around a body that takes the params separately: the
// op data's for a whole run, a copy with the padding above shifted to the
// views for a band of rows (kernel.h, eval_band).
template <typename OpData>
using ConvBody = Status (*)(EvalContext& context, const OpData* data, const reference::ConvParams& params);

template <typename OpData, ConvBody<OpData> kInt8, ConvBody<OpData> kInt16, ConvBody<OpData> kFloat>
Status EvalConvByType(EvalContext& context, const OpData* data, const reference::ConvParams& params) {
  const TensorType type = context.input(0)->type;
  if (type == TensorType::kInt8) return kInt8(context, data, params);
  if (type == TensorType::kInt16) return kInt16(context, data, params);
  return kFloat(context, data, params);
}

template <typename OpData, ConvBody<OpData> kBody>
Status EvalConv(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const OpData*>(op_data);
  return kBody(context, data, data->params);
}

template <typename OpData, ConvBody<OpData> kBody>
Status EvalConvBand(EvalContext& context, const void* op_data, int32_t output_first_row, int32_t input_first_row) {
  const auto* data = static_cast<const OpData*>(op_data);
  reference::ConvParams params = data->params;
  params.padding_height += input_first_row - output_first_row * params.stride_height;
  return kBody(context, data, params);
}

}  // namespace microarena
