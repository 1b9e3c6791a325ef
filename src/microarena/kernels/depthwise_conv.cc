// DEPTHWISE_CONV_2D: int8 (per-channel or per-tensor filter scales, int32
// bias) and float32, with depth multiplier, SAME/VALID padding, strides,
// dilation and a fused clamp.
//
// Persistent op data: DepthwiseConvOpData followed, for int8, by one int32
// multiplier and one int32 shift per output channel (8 B per channel, as TFLM).
#include <cstdint>
#include <new>

#include "microarena/base/checked_math.h"
#include "microarena/kernels/conv_common.h"
#include "microarena/kernels/reference/depthwise_conv.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

struct DepthwiseConvOpData {
  reference::ConvParams params;
  reference::QuantizedConvParams quant;   // int8: points at the arrays after this struct
  reference::FloatActivation activation;  // float32
  int32_t depth_multiplier = 1;
};

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireArity(context, 2, 3));
  if (!context.has_input(1)) return context.Error(ErrorCode::kInvalidArgument, "filter (input 1) is omitted");
  const tflite::DepthwiseConv2DOptions* options = context.op().raw()->builtin_options_as_DepthwiseConv2DOptions();
  if (options == nullptr) return context.Error(ErrorCode::kInvalidArgument, "has no DepthwiseConv2DOptions");
  const TensorView input = context.input(0);
  const TensorView filter = context.input(1);
  const TensorView output = context.output(0);

  const TensorType type = input.type();
  if (type != TensorType::kInt8 && type != TensorType::kFloat32) {
    return context.Error(ErrorCode::kUnsupported,
                         "input tensor %d '%s' is %s; DEPTHWISE_CONV_2D supports INT8 and FLOAT32", input.index(),
                         input.name(), TensorTypeName(type));
  }
  MICROARENA_RETURN_IF_ERROR(RequireType(context, "filter", filter, type));
  MICROARENA_RETURN_IF_ERROR(RequireType(context, "output", output, type));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "input", input, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "filter", filter, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "output", output, 4));

  const int32_t channels = Dim(output, 3);
  const int32_t depth_multiplier = options->depth_multiplier();
  if (Dim(input, 0) != Dim(output, 0)) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has batch %d but output tensor %d has %d",
                         input.index(), Dim(input, 0), output.index(), Dim(output, 0));
  }
  if (depth_multiplier < 1 || int64_t{Dim(input, 3)} * depth_multiplier != channels) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "output tensor %d '%s' has %d channels; expected input depth %d x depth multiplier %d",
                         output.index(), output.name(), channels, Dim(input, 3), depth_multiplier);
  }
  if (Dim(filter, 0) != 1 || Dim(filter, 3) != channels) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "filter tensor %d '%s' is [%d, %d, %d, %d]; expected [1, height, width, %d]", filter.index(),
                         filter.name(), Dim(filter, 0), Dim(filter, 1), Dim(filter, 2), Dim(filter, 3), channels);
  }
  bool has_bias = false;
  MICROARENA_RETURN_IF_ERROR(
      PrepareBias(context, type == TensorType::kInt8 ? TensorType::kInt32 : TensorType::kFloat32, channels, &has_bias));

  reference::ConvParams params;
  WindowOptions window;
  window.padding = options->padding();
  window.stride_height = options->stride_h();
  window.stride_width = options->stride_w();
  window.dilation_height = options->dilation_h_factor();
  window.dilation_width = options->dilation_w_factor();
  window.filter_height = Dim(filter, 1);
  window.filter_width = Dim(filter, 2);
  MICROARENA_RETURN_IF_ERROR(
      PrepareWindow(context, window, input, output, &params.padding_height, &params.padding_width));
  params.stride_height = window.stride_height;
  params.stride_width = window.stride_width;
  params.dilation_height = window.dilation_height;
  params.dilation_width = window.dilation_width;

  size_t bytes = sizeof(DepthwiseConvOpData);
  if (type == TensorType::kInt8) {
    size_t array_bytes = 0;
    if (!CheckedMul(static_cast<size_t>(channels), 2 * sizeof(int32_t), &array_bytes) ||
        !CheckedAdd(bytes, array_bytes, &bytes)) {
      return context.Error(ErrorCode::kOutOfMemory, "%d output channels overflow the op data size", channels);
    }
  }
  void* memory = context.AllocatePersistent(bytes, alignof(DepthwiseConvOpData));
  if (memory == nullptr) return context.OutOfMemory();
  auto* data = new (memory) DepthwiseConvOpData();
  data->params = params;
  data->depth_multiplier = depth_multiplier;
  const tflite::ActivationFunctionType activation = options->fused_activation_function();
  if (type == TensorType::kInt8) {
    auto* multipliers = reinterpret_cast<int32_t*>(data + 1);
    int32_t* shifts = multipliers + channels;
    MICROARENA_RETURN_IF_ERROR(PreparePerChannelQuantization(context, input, filter, output, activation, channels,
                                                             /*channel_dimension=*/3, multipliers, shifts,
                                                             &data->quant));
  } else {
    MICROARENA_RETURN_IF_ERROR(PrepareFloatActivation(context, activation, &data->activation.min,
                                                      &data->activation.max));
  }
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const DepthwiseConvOpData*>(op_data);
  const EvalTensor& input = *context.input(0);
  const EvalTensor& filter = *context.input(1);
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  EvalTensor& output = *context.output(0);
  if (input.type == TensorType::kInt8) {
    reference::DepthwiseConvPerChannelInt8(data->params, data->depth_multiplier, data->quant, NhwcShapeOf(input),
                                           input.As<const int8_t>(), NhwcShapeOf(filter), filter.As<const int8_t>(),
                                           bias != nullptr ? bias->As<const int32_t>() : nullptr,
                                           NhwcShapeOf(output), output.As<int8_t>());
  } else {
    reference::DepthwiseConvFloat(data->params, data->depth_multiplier, data->activation, NhwcShapeOf(input),
                                  input.As<const float>(), NhwcShapeOf(filter), filter.As<const float>(),
                                  bias != nullptr ? bias->As<const float>() : nullptr, NhwcShapeOf(output),
                                  output.As<float>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kDepthwiseConv2dKernel = {BuiltinOp::kDepthwiseConv2d, Prepare, Eval};

}  // namespace microarena
