#include "microarena/kernels/conv_common.h"

#include <limits>

#include "microarena/base/checked_math.h"
#include "microarena/kernels/activation_range.h"
#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/tensor_checks.h"
#include "microarena/model/window.h"

namespace microarena {

namespace {

// PrepareWindow's and PrepareQuantizedActivation's messages, each in a cold
// frame of its own: their many variadic arguments would otherwise widen the
// frames that AllocateTensors runs through when everything is valid.
[[gnu::noinline, gnu::cold]] Status WindowParameterError(const PrepareContext& context, const WindowOptions& window) {
  if (window.padding != tflite::Padding::SAME && window.padding != tflite::Padding::VALID) {
    return context.Error(ErrorCode::kInvalidArgument, "padding %d is neither SAME nor VALID",
                         static_cast<int>(window.padding));
  }
  return context.Error(ErrorCode::kInvalidArgument,
                       "stride %dx%d, dilation %dx%d and window %dx%d (height x width) must all be >= 1",
                       window.stride_height, window.stride_width, window.dilation_height, window.dilation_width,
                       window.filter_height, window.filter_width);
}

[[gnu::noinline, gnu::cold]] Status WindowOutputError(const PrepareContext& context, const WindowOptions& window,
                                                      const TensorView& input, const TensorView& output,
                                                      int64_t out_height, int64_t out_width) {
  return context.Error(ErrorCode::kInvalidArgument,
                       "output tensor %d '%s' is %dx%d (height x width) but a %dx%d window with stride %dx%d, "
                       "dilation %dx%d and %s padding over the %dx%d input gives %lldx%lld",
                       output.index(), output.name(), Dim(output, 1), Dim(output, 2), window.filter_height,
                       window.filter_width, window.stride_height, window.stride_width, window.dilation_height,
                       window.dilation_width, window.padding == tflite::Padding::SAME ? "SAME" : "VALID", Dim(input, 1),
                       Dim(input, 2), static_cast<long long>(out_height), static_cast<long long>(out_width));
}

[[gnu::noinline, gnu::cold]] Status WindowIndexingError(const PrepareContext& context, int64_t pad_h, int64_t pad_w) {
  return context.Error(ErrorCode::kUnsupported, "window geometry exceeds int32 indexing (padding %lldx%lld)",
                       static_cast<long long>(pad_h), static_cast<long long>(pad_w));
}

[[gnu::noinline, gnu::cold]] Status QuantizedActivationError(const PrepareContext& context,
                                                             tflite::ActivationFunctionType activation,
                                                             const TensorView& output, float scale,
                                                             int32_t zero_point) {
  return context.Error(ErrorCode::kInvalidArgument,
                       "fused activation %s cannot be quantized with output tensor %d '%s' scale %g zero point %d",
                       tflite::EnumNameActivationFunctionType(activation), output.index(), output.name(),
                       static_cast<double>(scale), zero_point);
}

}  // namespace

Status PrepareWindow(const PrepareContext& context, const WindowOptions& window, const TensorView& input,
                     const TensorView& output, int32_t* padding_height, int32_t* padding_width) {
  if ((window.padding != tflite::Padding::SAME && window.padding != tflite::Padding::VALID) ||
      window.stride_height < 1 || window.stride_width < 1 || window.dilation_height < 1 || window.dilation_width < 1 ||
      window.filter_height < 1 || window.filter_width < 1) {
    return WindowParameterError(context, window);
  }
  const int32_t input_height = Dim(input, 1);
  const int32_t input_width = Dim(input, 2);
  const int64_t out_height = WindowOutputSize(window.padding, input_height, window.filter_height,
                                              window.stride_height, window.dilation_height);
  const int64_t out_width = WindowOutputSize(window.padding, input_width, window.filter_width,
                                             window.stride_width, window.dilation_width);
  if (out_height < 1 || out_width < 1 || out_height != Dim(output, 1) || out_width != Dim(output, 2)) {
    return WindowOutputError(context, window, input, output, out_height, out_width);
  }
  // The reference loops index in int32: window origins (out * stride - pad)
  // and taps (origin + filter * dilation) must stay far from overflow.
  const int64_t pad_h =
      WindowPaddingBefore(input_height, window.filter_height, window.stride_height, window.dilation_height, out_height);
  const int64_t pad_w =
      WindowPaddingBefore(input_width, window.filter_width, window.stride_width, window.dilation_width, out_width);
  constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max() / 4;
  if (pad_h > kMaxIndex || pad_w > kMaxIndex || out_height * window.stride_height > kMaxIndex ||
      out_width * window.stride_width > kMaxIndex ||
      int64_t{window.filter_height} * window.dilation_height > kMaxIndex ||
      int64_t{window.filter_width} * window.dilation_width > kMaxIndex) {
    return WindowIndexingError(context, pad_h, pad_w);
  }
  *padding_height = static_cast<int32_t>(pad_h);
  *padding_width = static_cast<int32_t>(pad_w);
  return OkStatus();
}

Status PrepareInt8Activation(const PrepareContext& context, tflite::ActivationFunctionType activation,
                             const TensorView& output, int32_t* act_min, int32_t* act_max) {
  return PrepareQuantizedActivation(context, activation, output, std::numeric_limits<int8_t>::min(),
                                    std::numeric_limits<int8_t>::max(), act_min, act_max);
}

Status PrepareQuantizedActivation(const PrepareContext& context, tflite::ActivationFunctionType activation,
                                  const TensorView& output, int32_t qmin, int32_t qmax, int32_t* act_min,
                                  int32_t* act_max) {
  if (!IsClampActivation(activation)) {
    return context.Error(ErrorCode::kUnsupported, "fused activation %s is not supported (only NONE, RELU, RELU6, "
                         "RELU_N1_TO_1)", tflite::EnumNameActivationFunctionType(activation));
  }
  const QuantizationView quantization = output.quantization();
  const float scale = quantization.scale(0);
  const auto zero_point = static_cast<int32_t>(quantization.zero_point(0));
  if (!QuantizedActivationRange(activation, scale, zero_point, qmin, qmax, act_min, act_max)) {
    return QuantizedActivationError(context, activation, output, scale, zero_point);
  }
  return OkStatus();
}

Status PrepareFloatActivation(const PrepareContext& context, tflite::ActivationFunctionType activation,
                              float* act_min, float* act_max) {
  if (!FloatActivationRange(activation, act_min, act_max)) {
    return context.Error(ErrorCode::kUnsupported, "fused activation %s is not supported (only NONE, RELU, RELU6, "
                         "RELU_N1_TO_1)", tflite::EnumNameActivationFunctionType(activation));
  }
  return OkStatus();
}

Status RequireInt8PerTensorInputOutput(const PrepareContext& context, const TensorView& input,
                                       const TensorView& output) {
  constexpr int32_t kMin = std::numeric_limits<int8_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int8_t>::max();
  MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "input", input, kMin, kMax));
  return RequirePerTensorQuantization(context, "output", output, kMin, kMax);
}

namespace {

// The filter's quantization is valid for `channels` output channels along
// `channel_dimension`: one scale, or one per channel; each finite and >= 0,
// with zero point 0. Writes the number of scales.
bool FilterQuantizationValid(const TensorView& filter, int32_t channels, int32_t channel_dimension,
                             size_t* scale_count) {
  const QuantizationView quantization = filter.quantization();
  const size_t count = quantization.is_quantized() ? quantization.channel_count() : 0;
  *scale_count = count;
  if (count != 1 && count != static_cast<size_t>(channels)) return false;
  if (count > 1 && quantization.quantized_dimension() != channel_dimension) return false;
  for (size_t c = 0; c < count; ++c) {
    const float scale = quantization.scale(c);
    if (!(scale >= 0.0f) || scale > std::numeric_limits<float>::max()) return false;
    if (quantization.zero_point(c) != 0) return false;
  }
  return true;
}

// What FilterQuantizationValid refused, named. The messages are formatted in
// cold frames of their own, off AllocateTensors' stack when all is valid.
[[gnu::noinline, gnu::cold]] Status FilterQuantizationError(const PrepareContext& context, const TensorView& filter,
                                                            int32_t channels, int32_t channel_dimension) {
  const QuantizationView filter_quantization = filter.quantization();
  const size_t scale_count = filter_quantization.is_quantized() ? filter_quantization.channel_count() : 0;
  if (scale_count != 1 && scale_count != static_cast<size_t>(channels)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "filter tensor %d '%s' has %zu quantization scales; expected 1 or %d (one per output channel)",
                         filter.index(), filter.name(), scale_count, channels);
  }
  if (scale_count > 1 && filter_quantization.quantized_dimension() != channel_dimension) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "filter tensor %d '%s' is quantized along dimension %d; expected %d (output channels)",
                         filter.index(), filter.name(), filter_quantization.quantized_dimension(), channel_dimension);
  }
  for (size_t c = 0; c < scale_count; ++c) {
    const float scale = filter_quantization.scale(c);
    if (!(scale >= 0.0f) || scale > std::numeric_limits<float>::max()) {
      return context.Error(ErrorCode::kInvalidArgument, "filter tensor %d '%s' channel %zu has scale %g",
                           filter.index(), filter.name(), c, static_cast<double>(scale));
    }
    if (filter_quantization.zero_point(c) != 0) {
      return context.Error(ErrorCode::kUnsupported,
                           "filter tensor %d '%s' channel %zu has zero point %lld; int8 filters must be symmetric (0)",
                           filter.index(), filter.name(), c, static_cast<long long>(filter_quantization.zero_point(c)));
    }
  }
  return Status::Error(ErrorCode::kInternal, "filter quantization refused without a reason");
}

[[gnu::noinline, gnu::cold]] Status Shift64Error(const PrepareContext& context, const TensorView& output, int32_t c,
                                                 double multiplier, int shift, int max_shift) {
  return context.Error(ErrorCode::kUnsupported,
                       "output tensor %d '%s': channel %d multiplier %g (input scale x filter scale / output "
                       "scale) needs shift %d; the 64-bit rescale of this 16x8 op allows at most %d",
                       output.index(), output.name(), c, multiplier, shift, max_shift);
}

}  // namespace

void QuantizedRange(const TensorView& input, int32_t* qmin, int32_t* qmax) {
  const bool is_int16 = input.type() == TensorType::kInt16;
  *qmin = is_int16 ? std::numeric_limits<int16_t>::min() : std::numeric_limits<int8_t>::min();
  *qmax = is_int16 ? std::numeric_limits<int16_t>::max() : std::numeric_limits<int8_t>::max();
}

Status PrepareChannelMultipliers(const PrepareContext& context, const TensorView& input,
                                                   const TensorView& filter, const TensorView& output, int32_t channels,
                                                   int32_t channel_dimension, int32_t* multipliers, int8_t* shifts,
                                                   int max_shift) {
  int32_t qmin = 0;
  int32_t qmax = 0;
  QuantizedRange(input, &qmin, &qmax);
  MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "input", input, qmin, qmax));
  MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "output", output, qmin, qmax));
  size_t scale_count = 0;
  if (!FilterQuantizationValid(filter, channels, channel_dimension, &scale_count)) {
    return FilterQuantizationError(context, filter, channels, channel_dimension);
  }
  const QuantizationView filter_quantization = filter.quantization();
  const auto input_scale = static_cast<double>(input.quantization().scale(0));
  const auto output_scale = static_cast<double>(output.quantization().scale(0));
  for (int32_t c = 0; c < channels; ++c) {
    const size_t scale_index = scale_count == 1 ? 0 : static_cast<size_t>(c);
    const auto filter_scale = static_cast<double>(filter_quantization.scale(scale_index));
    int shift = 0;
    const double multiplier = input_scale * filter_scale / output_scale;
    fixed_point::QuantizeMultiplier(multiplier, &multipliers[c], &shift);
    // In [-31, 31] once checked, so it fits the int8 array.
    MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, multiplier, shift));
    if (shift > max_shift) return Shift64Error(context, output, c, multiplier, shift, max_shift);
    shifts[c] = static_cast<int8_t>(shift);
  }
  return OkStatus();
}

Status PreparePerChannelQuantization(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                                     const TensorView& output, tflite::ActivationFunctionType activation,
                                     int32_t channels, int32_t channel_dimension, int32_t* multipliers, int8_t* shifts,
                                     reference::QuantizedConvParams* quant, int max_shift) {
  MICROARENA_RETURN_IF_ERROR(PrepareChannelMultipliers(context, input, filter, output, channels, channel_dimension,
                                                       multipliers, shifts, max_shift));
  int32_t qmin = 0;
  int32_t qmax = 0;
  QuantizedRange(input, &qmin, &qmax);
  quant->input_offset = -static_cast<int32_t>(input.quantization().zero_point(0));
  quant->output_offset = static_cast<int32_t>(output.quantization().zero_point(0));
  quant->output_multiplier = multipliers;
  quant->output_shift = shifts;
  return PrepareQuantizedActivation(context, activation, output, qmin, qmax, &quant->activation_min,
                                    &quant->activation_max);
}

Status RequireInt8OrFloat32Operands(const PrepareContext& context, const char* op_name, const TensorView& input,
                                    const TensorView& filter, const TensorView& output) {
  const TensorType type = input.type();
  if (type != TensorType::kInt8 && type != TensorType::kFloat32) {
    return context.Error(ErrorCode::kUnsupported, "input tensor %d '%s' is %s; %s supports INT8 and FLOAT32",
                         input.index(), input.name(), TensorTypeName(type), op_name);
  }
  MICROARENA_RETURN_IF_ERROR(RequireType(context, "filter", filter, type));
  return RequireType(context, "output", output, type);
}

Status RequireNhwcOperands(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                           const TensorView& output) {
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "input", input, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "filter", filter, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "output", output, 4));
  if (Dim(input, 0) != Dim(output, 0)) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has batch %d but output tensor %d has %d",
                         input.index(), Dim(input, 0), output.index(), Dim(output, 0));
  }
  return OkStatus();
}

Status PrepareBias(const PrepareContext& context, TensorType operand_type, int32_t channels, size_t bias_input) {
  if (!context.has_input(bias_input)) return OkStatus();
  const TensorView bias = context.input(bias_input);
  if (operand_type == TensorType::kInt16) {
    if (bias.type() != TensorType::kInt32 && bias.type() != TensorType::kInt64) {
      return context.Error(ErrorCode::kUnsupported,
                           "bias tensor %d '%s' is %s; an INT16 op takes an INT32 or INT64 bias", bias.index(),
                           bias.name(), TensorTypeName(bias.type()));
    }
  } else {
    const TensorType type = operand_type == TensorType::kInt8 ? TensorType::kInt32 : TensorType::kFloat32;
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "bias", bias, type));
  }
  if (bias.element_count() != static_cast<size_t>(channels)) {
    return context.Error(ErrorCode::kInvalidArgument, "bias tensor %d '%s' has %zu elements; expected %d",
                         bias.index(), bias.name(), bias.element_count(), channels);
  }
  return OkStatus();
}

Status AllocateWithChannelArrays(PrepareContext& context, size_t header_bytes, size_t alignment, int32_t channels,
                                 bool channel_arrays, void** memory) {
  size_t bytes = header_bytes;
  if (channel_arrays) {
    size_t array_bytes = 0;
    if (!CheckedMul(static_cast<size_t>(channels), sizeof(int32_t) + sizeof(int8_t), &array_bytes) ||
        !CheckedAdd(bytes, array_bytes, &bytes)) {
      return context.Error(ErrorCode::kOutOfMemory, "%d output channels overflow the op data size", channels);
    }
  }
  *memory = context.AllocatePersistent(bytes, alignment);
  if (*memory == nullptr) return context.OutOfMemory();
  return OkStatus();
}

}  // namespace microarena
