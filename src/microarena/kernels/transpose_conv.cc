// TRANSPOSE_CONV: float32, int8 (per-channel or per-tensor filter scales,
// int32 bias) and 16x8 (int16 input and output, int8 filter, int16 or int64
// bias), SAME/VALID padding, strides, optional bias, as TFLM's reference
// kernel.
//
// Inputs: 0 the output shape (ignored, as TFLM: the output tensor's shape is
// static), 1 the filter [output channels, height, width, input channels],
// 2 the input, 3 the optional bias.
//
// Memory: persistent TransposeConvOpData followed, when quantized, by one
// int32 multiplier and one int8 shift per output channel (TFLM: 8 B per
// channel). No scratch: TFLM asks for 4 (int8) or 8 (int16) bytes per output
// element, plus 8 per channel for an int16 bias; reference/transpose_conv.h
// gathers each output's sum instead (same bits).
#include "microarena/kernels/reference/transpose_conv.h"

#include <cstdint>
#include <limits>
#include <new>

#include "microarena/kernels/conv_common.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

constexpr size_t kFilterInput = 1;
constexpr size_t kDataInput = 2;
constexpr size_t kBiasInput = 3;

struct TransposeConvOpData {
  reference::TransposeConvParams params;
  StoredConvQuantization quant;           // int8, int16: the arrays follow this struct
  reference::FloatActivation activation;  // float32
};

// TFLM's ComputePaddingHeightWidth along one axis for TRANSPOSE_CONV, which
// passes the output size where a convolution has its input size: the output
// size of the matching convolution (C division, truncating toward zero even
// when negative), then half the total padding.
int64_t TransposeConvPadding(tflite::Padding padding, int64_t output_size, int64_t filter_size, int64_t stride) {
  const int64_t conv_size = padding == tflite::Padding::SAME ? (output_size + stride - 1) / stride
                                                             : (output_size + stride - filter_size) / stride;
  const int64_t total = (conv_size - 1) * stride + filter_size - output_size;
  return total > 0 ? total / 2 : 0;
}

// The (input, filter, output) types TFLM's TRANSPOSE_CONV runs.
Status RequireTransposeConvTypes(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                                 const TensorView& output) {
  const TensorType type = input.type();
  if (type != TensorType::kInt8 && type != TensorType::kInt16 && type != TensorType::kFloat32) {
    return context.Error(ErrorCode::kUnsupported,
                         "input tensor %d '%s' is %s; TRANSPOSE_CONV supports INT8, INT16 and FLOAT32", input.index(),
                         input.name(), TensorTypeName(type));
  }
  MICROARENA_RETURN_IF_ERROR(
      RequireType(context, "filter", filter, type == TensorType::kInt16 ? TensorType::kInt8 : type));
  return RequireType(context, "output", output, type);
}

// The bias TFLM reads for `type`: INT32 for INT8, INT16 or INT64 for INT16
// (an INT16 one is widened), FLOAT32 for FLOAT32; one per output channel.
Status PrepareTransposeConvBias(const PrepareContext& context, TensorType type, int32_t channels) {
  if (!context.has_input(kBiasInput)) return OkStatus();
  if (type != TensorType::kInt16) return PrepareBias(context, type, channels, kBiasInput);
  const TensorView bias = context.input(kBiasInput);
  if (bias.type() != TensorType::kInt16 && bias.type() != TensorType::kInt64) {
    return context.Error(ErrorCode::kUnsupported,
                         "bias tensor %d '%s' is %s; an INT16 TRANSPOSE_CONV takes an INT16 or INT64 bias",
                         bias.index(), bias.name(), TensorTypeName(bias.type()));
  }
  if (bias.element_count() != static_cast<size_t>(channels)) {
    return context.Error(ErrorCode::kInvalidArgument, "bias tensor %d '%s' has %zu elements; expected %d", bias.index(),
                         bias.name(), bias.element_count(), channels);
  }
  return OkStatus();
}

// Strides, padding and shapes; fills `params`.
Status PrepareGeometry(const PrepareContext& context, const tflite::TransposeConvOptions& options,
                       const TensorView& input, const TensorView& filter, const TensorView& output,
                       reference::TransposeConvParams* params) {
  if (options.padding() != tflite::Padding::SAME && options.padding() != tflite::Padding::VALID) {
    return context.Error(ErrorCode::kInvalidArgument, "padding %d is neither SAME nor VALID",
                         static_cast<int>(options.padding()));
  }
  if (options.stride_h() < 1 || options.stride_w() < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "stride %dx%d (height x width) must be >= 1", options.stride_h(),
                         options.stride_w());
  }
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "input", input, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "filter", filter, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "output", output, 4));
  if (Dim(input, 0) != Dim(output, 0)) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has batch %d but output tensor %d has %d",
                         input.index(), Dim(input, 0), output.index(), Dim(output, 0));
  }
  if (Dim(input, 3) != Dim(filter, 3)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "input tensor %d '%s' has %d channels but filter tensor %d '%s' takes %d", input.index(),
                         input.name(), Dim(input, 3), filter.index(), filter.name(), Dim(filter, 3));
  }
  if (Dim(filter, 0) != Dim(output, 3)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "filter tensor %d '%s' has %d output channels but output tensor %d '%s' has %d",
                         filter.index(), filter.name(), Dim(filter, 0), output.index(), output.name(), Dim(output, 3));
  }
  if (Dim(filter, 1) < 1 || Dim(filter, 2) < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "filter tensor %d '%s' is %dx%d (height x width); must be >= 1",
                         filter.index(), filter.name(), Dim(filter, 1), Dim(filter, 2));
  }
  const int64_t pad_h = TransposeConvPadding(options.padding(), Dim(output, 1), Dim(filter, 1), options.stride_h());
  const int64_t pad_w = TransposeConvPadding(options.padding(), Dim(output, 2), Dim(filter, 2), options.stride_w());
  // The reference loop forms output index + padding in int32.
  constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();
  if (pad_h + Dim(output, 1) > kMaxIndex || pad_w + Dim(output, 2) > kMaxIndex) {
    return context.Error(ErrorCode::kUnsupported, "padding %lldx%lld exceeds int32 indexing",
                         static_cast<long long>(pad_h), static_cast<long long>(pad_w));
  }
  params->stride_height = options.stride_h();
  params->stride_width = options.stride_w();
  params->padding_height = static_cast<int32_t>(pad_h);
  params->padding_width = static_cast<int32_t>(pad_w);
  return OkStatus();
}

Status Prepare(PrepareContext& context, const void** op_data) {
  if ((context.input_count() != 3 && context.input_count() != 4) || context.output_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "has %zu inputs and %zu outputs; expected 3 or 4 and 1",
                         context.input_count(), context.output_count());
  }
  if (!context.has_input(kFilterInput) || !context.has_input(kDataInput)) {
    return context.Error(ErrorCode::kInvalidArgument, "filter (input 1) and input (input 2) must be present");
  }
  const tflite::TransposeConvOptions* options = context.op().raw()->builtin_options_as_TransposeConvOptions();
  if (options == nullptr) return context.Error(ErrorCode::kInvalidArgument, "has no TransposeConvOptions");
  const TensorView input = context.input(kDataInput);
  const TensorView filter = context.input(kFilterInput);
  const TensorView output = context.output(0);
  MICROARENA_RETURN_IF_ERROR(RequireTransposeConvTypes(context, input, filter, output));
  reference::TransposeConvParams params;
  MICROARENA_RETURN_IF_ERROR(PrepareGeometry(context, *options, input, filter, output, &params));
  const int32_t channels = Dim(output, 3);
  MICROARENA_RETURN_IF_ERROR(PrepareTransposeConvBias(context, input.type(), channels));

  const bool is_quantized = input.type() != TensorType::kFloat32;
  void* memory = nullptr;
  MICROARENA_RETURN_IF_ERROR(AllocateWithChannelArrays(context, sizeof(TransposeConvOpData),
                                                       alignof(TransposeConvOpData), channels, is_quantized, &memory));
  auto* data = new (memory) TransposeConvOpData();
  data->params = params;
  const tflite::ActivationFunctionType activation = options->fused_activation_function();
  if (!is_quantized) {
    MICROARENA_RETURN_IF_ERROR(
        PrepareFloatActivation(context, activation, &data->activation.min, &data->activation.max));
  } else {
    // sizeof is a multiple of the struct's alignment (>= 4): the int32 multipliers after it are aligned.
    auto* multipliers = reinterpret_cast<int32_t*>(data + 1);
    auto* shifts = reinterpret_cast<int8_t*>(multipliers + channels);
    // TFLM's 16x8 kernel always accumulates in int64 and so always takes the 64-bit rescale.
    const int max_shift = input.type() == TensorType::kInt16 ? kMaxMultiplierShift64 : fixed_point::kMaxMultiplierShift;
    reference::QuantizedConvParams quant;
    MICROARENA_RETURN_IF_ERROR(PreparePerChannelQuantization(context, input, filter, output, activation, channels,
                                                             /*channel_dimension=*/0, multipliers, shifts, &quant,
                                                             max_shift));
    data->quant.Store(quant, channels);
  }
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const TransposeConvOpData*>(op_data);
  const EvalTensor& filter = *context.input(kFilterInput);
  const EvalTensor& input = *context.input(kDataInput);
  const EvalTensor* bias = context.input_count() > kBiasInput ? context.input(kBiasInput) : nullptr;
  EvalTensor& output = *context.output(0);
  const reference::ConvFilterShape filter_shape{filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3)};
  const reference::NhwcShape input_shape = NhwcShapeOf(input);
  const reference::NhwcShape output_shape = NhwcShapeOf(output);
  const reference::QuantizedConvParams quant = data->quant.Load(data + 1);
  switch (input.type) {
    case TensorType::kInt8: {
      const reference::Int8ConvMath math{quant, bias != nullptr ? bias->As<const int32_t>() : nullptr};
      reference::TransposeConv(data->params, math, input_shape, input.As<const int8_t>(), filter_shape,
                               filter.As<const int8_t>(), output_shape, output.As<int8_t>());
      break;
    }
    case TensorType::kInt16: {
      if (bias != nullptr && bias->type == TensorType::kInt16) {
        const reference::Int16ConvMath<int64_t, int16_t> math{quant, bias->As<const int16_t>()};
        reference::TransposeConv(data->params, math, input_shape, input.As<const int16_t>(), filter_shape,
                                 filter.As<const int8_t>(), output_shape, output.As<int16_t>());
      } else {
        const reference::Int16ConvMath<int64_t> math{quant,
                                                     bias != nullptr ? bias->As<const int64_t>() : nullptr};
        reference::TransposeConv(data->params, math, input_shape, input.As<const int16_t>(), filter_shape,
                                 filter.As<const int8_t>(), output_shape, output.As<int16_t>());
      }
      break;
    }
    default: {
      const reference::FloatConvMath math{data->activation, bias != nullptr ? bias->As<const float>() : nullptr};
      reference::TransposeConv(data->params, math, input_shape, input.As<const float>(), filter_shape,
                               filter.As<const float>(), output_shape, output.As<float>());
      break;
    }
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kTransposeConvKernel = {BuiltinOp::kTransposeConv, Prepare, Eval};

}  // namespace microarena
