// CONV_2D: int8 (per-channel or per-tensor filter scales, INT8 or INT4
// weights, int32 bias), 16x8
// (int16 input and output, int8 filter, int32 or int64 bias) and float32,
// with SAME/VALID padding, strides, dilation, groups and a fused clamp.
// kConv2dInt8Kernel is the int8 path alone (int8_only.h).
//
// Persistent op data: ConvOpData followed, when quantized, by one int32
// multiplier and one int8 shift per output channel (5 B per channel; TFLM
// keeps 8).
#include <cstdint>

#include "microarena/kernels/conv_common.h"
#include "microarena/kernels/int8_only.h"
#include "microarena/kernels/optimized/int16_kernels.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// The (input, filter, output) types TFLM's CONV_2D runs: float32, int8 (with
// INT8 or INT4 weights), and int16 activations with int8 weights.
Status RequireConvTypes(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                        const TensorView& output) {
  const TensorType type = input.type();
  if (type != TensorType::kInt8 && type != TensorType::kInt16 && type != TensorType::kFloat32) {
    return context.Error(ErrorCode::kUnsupported,
                         "input tensor %d '%s' is %s; CONV_2D supports INT8, INT16 and FLOAT32", input.index(),
                         input.name(), TensorTypeName(type));
  }
  if (type != TensorType::kInt8 || filter.type() != TensorType::kInt4) {
    MICROARENA_RETURN_IF_ERROR(
        RequireType(context, "filter", filter, type == TensorType::kInt16 ? TensorType::kInt8 : type));
  }
  return RequireType(context, "output", output, type);
}

struct ConvOpData {
  reference::ConvParams params;
  StoredConvQuantization quant;           // int8, int16: the arrays follow this struct
  reference::FloatActivation activation;  // float32
};

// Prepare's messages in cold frames of their own: their variadic arguments
// would otherwise widen Prepare's frame, which is on AllocateTensors' stack.
[[gnu::noinline, gnu::cold]] Status FilterChannelsError(const PrepareContext& context, const TensorView& filter,
                                                        const TensorView& output, int32_t channels) {
  return context.Error(ErrorCode::kInvalidArgument,
                       "filter tensor %d '%s' has %d output channels but output tensor %d '%s' has %d", filter.index(),
                       filter.name(), Dim(filter, 0), output.index(), output.name(), channels);
}

[[gnu::noinline, gnu::cold]] Status FilterDepthError(const PrepareContext& context, const TensorView& input,
                                                     const TensorView& filter, int32_t channels) {
  return context.Error(ErrorCode::kInvalidArgument,
                       "filter tensor %d '%s' depth %d does not divide input tensor %d depth %d into groups that "
                       "divide the %d output channels",
                       filter.index(), filter.name(), Dim(filter, 3), input.index(), Dim(input, 3), channels);
}

// kInt8Only: the Prepare of kConv2dInt8Kernel, which refuses all but INT8
// activations first; the int16 and float32 branches compile out.
template <bool kInt8Only>
Status PrepareOp(PrepareContext& context, const void** op_data) {
  if (kInt8Only) MICROARENA_RETURN_IF_ERROR(RequireInt8Activations(context, "kConv2dInt8Kernel", "kConv2dKernel"));
  MICROARENA_RETURN_IF_ERROR(RequireArity(context, 2, 3));
  if (!context.has_input(1)) return context.Error(ErrorCode::kInvalidArgument, "filter (input 1) is omitted");
  const tflite::Conv2DOptions* options = context.op().raw()->builtin_options_as_Conv2DOptions();
  if (options == nullptr) return context.Error(ErrorCode::kInvalidArgument, "has no Conv2DOptions");
  const TensorView input = context.input(0);
  const TensorView filter = context.input(1);
  const TensorView output = context.output(0);

  if (kInt8Only) {
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "filter", filter, TensorType::kInt8));
  } else {
    MICROARENA_RETURN_IF_ERROR(RequireConvTypes(context, input, filter, output));
  }
  MICROARENA_RETURN_IF_ERROR(RequireNhwcOperands(context, input, filter, output));

  const int32_t channels = Dim(output, 3);
  const int32_t filter_depth = Dim(filter, 3);
  if (Dim(filter, 0) != channels) return FilterChannelsError(context, filter, output, channels);
  // groups = input depth / filter depth must be a whole number >= 1 (an input
  // of depth 0, or shallower than the filter, has none) dividing the outputs.
  if (filter_depth < 1 || Dim(input, 3) < filter_depth || Dim(input, 3) % filter_depth != 0 ||
      channels % (Dim(input, 3) / filter_depth) != 0) {
    return FilterDepthError(context, input, filter, channels);
  }
  ConvOpData* data = nullptr;
  MICROARENA_RETURN_IF_ERROR((PrepareConvOpData<ConvOpData, kInt8Only>(context, *options, input, filter, output,
                                                                       channels, /*channel_dimension=*/0, &data)));
  *op_data = data;
  return OkStatus();
}

// The int8 path, the whole Eval of kConv2dInt8Kernel: the fast loops of
// optimized/int8_kernels.h (reference/conv.h is their oracle). `params`: the
// op data's, or a band's copy (EvalConvBand, conv_common.h).
// `filter`: the caller's lookup of input 1 (a constant's lookup costs
// hundreds of instructions: it is done once per Eval).
[[gnu::always_inline]] inline Status EvalInt8Filter(EvalContext& context, const EvalTensor& filter,
                                                  const ConvOpData* data, const reference::ConvParams& params) {
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  optimized::ConvInt8(params, data->quant.Load(data + 1), *context.input(0), filter, bias, *context.output(0));
  return OkStatus();
}

[[gnu::always_inline]] inline Status EvalInt8With(EvalContext& context, const ConvOpData* data,
                                                const reference::ConvParams& params) {
  return EvalInt8Filter(context, *context.input(1), data, params);
}

// int8 with INT4 weights (the general kernel only): the reference loops
// read the nibbles in place, where TFLM unpacks the whole filter into an
// arena scratch buffer at every Invoke.
[[gnu::noinline]] Status EvalInt8PackedInt4(EvalContext& context, const EvalTensor& filter, const ConvOpData* data,
                                            const reference::ConvParams& params) {
  const EvalTensor& input = *context.input(0);
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  EvalTensor& output = *context.output(0);
  reference::ConvPerChannelInt8PackedInt4(
      params, data->quant.Load(data + 1), NhwcShapeOf(input), input.As<const int8_t>(),
      reference::ConvFilterShape{filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3)},
      filter.As<const uint8_t>(), bias != nullptr ? bias->As<const int32_t>() : nullptr, NhwcShapeOf(output),
      output.As<int8_t>());
  return OkStatus();
}

[[gnu::always_inline]] inline Status EvalInt8AnyWeights(EvalContext& context, const ConvOpData* data,
                                                      const reference::ConvParams& params) {
  const EvalTensor& filter = *context.input(1);
  if (filter.type == TensorType::kInt4) return EvalInt8PackedInt4(context, filter, data, params);
  return EvalInt8Filter(context, filter, data, params);
}

// The 16x8 path: the fast loops of optimized/int16_kernels.h. TFLM: an
// int32 bias takes int32 accumulators and the 32-bit rescale; an int64
// bias, or none, int64 ones and the 64-bit rescale.
[[gnu::noinline]] Status EvalInt16(EvalContext& context, const ConvOpData* data, const reference::ConvParams& params) {
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  optimized::ConvInt16(params, data->quant.Load(data + 1), *context.input(0), *context.input(1), bias,
                       *context.output(0));
  return OkStatus();
}

// float32, out of line: its inlined reference loops widen the frame, which
// the int8 and 16x8 paths' stack need not carry.
[[gnu::noinline]] Status EvalFloat(EvalContext& context, const ConvOpData* data, const reference::ConvParams& params) {
  const EvalTensor& input = *context.input(0);
  const EvalTensor& filter = *context.input(1);
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  EvalTensor& output = *context.output(0);
  const reference::ConvFilterShape filter_shape{filter.dim(0), filter.dim(1), filter.dim(2), filter.dim(3)};
  reference::ConvFloat(params, data->activation, NhwcShapeOf(input), input.As<const float>(), filter_shape,
                       filter.As<const float>(), bias != nullptr ? bias->As<const float>() : nullptr,
                       NhwcShapeOf(output), output.As<float>());
  return OkStatus();
}

// Every type, by the input's.
constexpr ConvBody<ConvOpData> kEvalByType = EvalConvByType<ConvOpData, EvalInt8AnyWeights, EvalInt16, EvalFloat>;

}  // namespace

const KernelRegistration kConv2dKernel = {BuiltinOp::kConv2d, PrepareOp<false>, EvalConv<ConvOpData, kEvalByType>,
                                          false, EvalConvBand<ConvOpData, kEvalByType>};
const KernelRegistration kConv2dInt8Kernel = {BuiltinOp::kConv2d, PrepareOp<true>, EvalConv<ConvOpData, EvalInt8With>,
                                              false, EvalConvBand<ConvOpData, EvalInt8With>};

}  // namespace microarena
