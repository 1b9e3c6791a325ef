// DEPTHWISE_CONV_2D: int8 (per-channel or per-tensor filter scales, INT8 or
// INT4 weights, int32 bias), 16x8 (int16 input and output, int8 filter, int64 bias) and float32,
// with depth multiplier, SAME/VALID padding, strides, dilation and a fused
// clamp. kDepthwiseConv2dInt8Kernel is the int8 path alone (int8_only.h).
//
// Persistent op data: DepthwiseConvOpData followed, when quantized, by one
// int32 multiplier and one int8 shift per output channel (5 B per channel;
// TFLM keeps 8).
#include <cstdint>

#include "microarena/kernels/conv_common.h"
#include "microarena/kernels/int8_only.h"
#include "microarena/kernels/optimized/int16_kernels.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/reference/depthwise_conv.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

struct DepthwiseConvOpData {
  reference::ConvParams params;
  StoredConvQuantization quant;           // int8, int16: the arrays follow this struct
  reference::FloatActivation activation;  // float32
  int32_t depth_multiplier = 1;
};

// Prepare's messages in cold frames of their own: their variadic arguments
// would otherwise widen Prepare's frame, which is on AllocateTensors' stack.
[[gnu::noinline, gnu::cold]] Status ChannelsError(const PrepareContext& context, const TensorView& input,
                                                  const TensorView& output, int32_t depth_multiplier) {
  return context.Error(ErrorCode::kInvalidArgument,
                       "output tensor %d '%s' has %d channels; expected input depth %d x depth multiplier %d",
                       output.index(), output.name(), Dim(output, 3), Dim(input, 3), depth_multiplier);
}

[[gnu::noinline, gnu::cold]] Status FilterShapeError(const PrepareContext& context, const TensorView& filter,
                                                     int32_t channels) {
  return context.Error(ErrorCode::kInvalidArgument,
                       "filter tensor %d '%s' is [%d, %d, %d, %d]; expected [1, height, width, %d]", filter.index(),
                       filter.name(), Dim(filter, 0), Dim(filter, 1), Dim(filter, 2), Dim(filter, 3), channels);
}

// kInt8Only: the Prepare of kDepthwiseConv2dInt8Kernel, which refuses all
// but INT8 activations first; the int16 and float32 branches compile out.
template <bool kInt8Only>
Status PrepareOp(PrepareContext& context, const void** op_data) {
  if (kInt8Only) MICROARENA_RETURN_IF_ERROR(RequireInt8Activations(context, "kDepthwiseConv2dInt8Kernel", "kDepthwiseConv2dKernel"));
  MICROARENA_RETURN_IF_ERROR(RequireArity(context, 2, 3));
  if (!context.has_input(1)) return context.Error(ErrorCode::kInvalidArgument, "filter (input 1) is omitted");
  const tflite::DepthwiseConv2DOptions* options = context.op().raw()->builtin_options_as_DepthwiseConv2DOptions();
  if (options == nullptr) return context.Error(ErrorCode::kInvalidArgument, "has no DepthwiseConv2DOptions");
  const TensorView input = context.input(0);
  const TensorView filter = context.input(1);
  const TensorView output = context.output(0);

  if (kInt8Only) {
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "filter", filter, TensorType::kInt8));
  } else if (input.type() == TensorType::kInt16) {
    // 16x8, as TFLM: int8 weights, and a bias read as int64 whatever its type.
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "filter", filter, TensorType::kInt8));
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "output", output, TensorType::kInt16));
    if (context.has_input(2)) {
      MICROARENA_RETURN_IF_ERROR(RequireType(context, "bias", context.input(2), TensorType::kInt64));
    }
  } else if (input.type() == TensorType::kInt8 && filter.type() == TensorType::kInt4) {
    // INT4 weights, read in place (EvalInt8PackedInt4).
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "output", output, TensorType::kInt8));
  } else {
    MICROARENA_RETURN_IF_ERROR(RequireInt8OrFloat32Operands(context, "DEPTHWISE_CONV_2D", input, filter, output));
  }
  MICROARENA_RETURN_IF_ERROR(RequireNhwcOperands(context, input, filter, output));

  const int32_t channels = Dim(output, 3);
  const int32_t depth_multiplier = options->depth_multiplier();
  if (depth_multiplier < 1 || int64_t{Dim(input, 3)} * depth_multiplier != channels) {
    return ChannelsError(context, input, output, depth_multiplier);
  }
  if (Dim(filter, 0) != 1 || Dim(filter, 3) != channels) return FilterShapeError(context, filter, channels);
  DepthwiseConvOpData* data = nullptr;
  MICROARENA_RETURN_IF_ERROR((PrepareConvOpData<DepthwiseConvOpData, kInt8Only>(
      context, *options, input, filter, output, channels, /*channel_dimension=*/3, &data, /*int16_rescale64=*/true)));
  data->depth_multiplier = depth_multiplier;
  *op_data = data;
  return OkStatus();
}

// The int8 path, the whole Eval of kDepthwiseConv2dInt8Kernel: the fast loops
// of optimized/int8_kernels.h (reference/depthwise_conv.h is their oracle).
// `params`: the op data's, or a band's copy (EvalConvBand, conv_common.h).
// `filter`: the caller's lookup of input 1 (a constant's lookup costs
// hundreds of instructions: it is done once per Eval).
[[gnu::always_inline]] inline Status EvalInt8Filter(EvalContext& context, const EvalTensor& filter,
                                                  const DepthwiseConvOpData* data,
                                                  const reference::ConvParams& params) {
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  optimized::DepthwiseConvInt8(params, data->depth_multiplier, data->quant.Load(data + 1), *context.input(0), filter,
                               bias, *context.output(0));
  return OkStatus();
}

[[gnu::always_inline]] inline Status EvalInt8With(EvalContext& context, const DepthwiseConvOpData* data,
                                                const reference::ConvParams& params) {
  return EvalInt8Filter(context, *context.input(1), data, params);
}

// int8 with INT4 weights (the general kernel only): the reference loops
// read the nibbles in place, where TFLM unpacks the whole filter into an
// arena scratch buffer at every Invoke.
[[gnu::noinline]] Status EvalInt8PackedInt4(EvalContext& context, const EvalTensor& filter,
                                            const DepthwiseConvOpData* data, const reference::ConvParams& params) {
  const EvalTensor& input = *context.input(0);
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  EvalTensor& output = *context.output(0);
  reference::DepthwiseConvPerChannelInt8PackedInt4(
      params, data->depth_multiplier, data->quant.Load(data + 1), NhwcShapeOf(input), input.As<const int8_t>(),
      NhwcShapeOf(filter), filter.As<const uint8_t>(), bias != nullptr ? bias->As<const int32_t>() : nullptr,
      NhwcShapeOf(output), output.As<int8_t>());
  return OkStatus();
}

[[gnu::always_inline]] inline Status EvalInt8AnyWeights(EvalContext& context, const DepthwiseConvOpData* data,
                                                      const reference::ConvParams& params) {
  const EvalTensor& filter = *context.input(1);
  if (filter.type == TensorType::kInt4) return EvalInt8PackedInt4(context, filter, data, params);
  return EvalInt8Filter(context, filter, data, params);
}

// The 16x8 path: the fast loops of optimized/int16_kernels.h (int64 sums).
[[gnu::noinline]] Status EvalInt16(EvalContext& context, const DepthwiseConvOpData* data,
                                   const reference::ConvParams& params) {
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  optimized::DepthwiseConvInt16(params, data->depth_multiplier, data->quant.Load(data + 1), *context.input(0),
                                *context.input(1), bias, *context.output(0));
  return OkStatus();
}

// float32, out of line: its inlined reference loops widen the frame, which
// the int8 and 16x8 paths' stack need not carry.
[[gnu::noinline]] Status EvalFloat(EvalContext& context, const DepthwiseConvOpData* data,
                                   const reference::ConvParams& params) {
  const EvalTensor& input = *context.input(0);
  const EvalTensor& filter = *context.input(1);
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  EvalTensor& output = *context.output(0);
  reference::DepthwiseConvFloat(params, data->depth_multiplier, data->activation, NhwcShapeOf(input),
                                input.As<const float>(), NhwcShapeOf(filter), filter.As<const float>(),
                                bias != nullptr ? bias->As<const float>() : nullptr, NhwcShapeOf(output),
                                output.As<float>());
  return OkStatus();
}

// Every type, by the input's.
constexpr ConvBody<DepthwiseConvOpData> kEvalByType = EvalConvByType<DepthwiseConvOpData, EvalInt8AnyWeights, EvalInt16, EvalFloat>;

}  // namespace

const KernelRegistration kDepthwiseConv2dKernel = {BuiltinOp::kDepthwiseConv2d, PrepareOp<false>,
                                                   EvalConv<DepthwiseConvOpData, kEvalByType>, false,
                                                   EvalConvBand<DepthwiseConvOpData, kEvalByType>};
const KernelRegistration kDepthwiseConv2dInt8Kernel = {BuiltinOp::kDepthwiseConv2d, PrepareOp<true>,
                                                       EvalConv<DepthwiseConvOpData, EvalInt8With>, false,
                                                       EvalConvBand<DepthwiseConvOpData, EvalInt8With>};

}  // namespace microarena
