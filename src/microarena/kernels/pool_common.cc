#include "microarena/kernels/pool_common.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <new>

#include "microarena/kernels/conv_common.h"
#include "microarena/kernels/int8_only.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/reference/pooling.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Prepare's messages in cold frames of their own: their variadic arguments
// would otherwise widen PreparePool's frame, which is on AllocateTensors' stack.
[[gnu::noinline, gnu::cold]] Status TypeError(const PrepareContext& context, const TensorView& input) {
  return context.Error(ErrorCode::kUnsupported, "input tensor %d '%s' is %s; %s supports INT8, INT16 and FLOAT32",
                       input.index(), input.name(), TensorTypeName(input.type()), context.op().name());
}

[[gnu::noinline, gnu::cold]] Status BatchDepthError(const PrepareContext& context, const TensorView& input,
                                                    const TensorView& output) {
  return context.Error(ErrorCode::kInvalidArgument,
                       "input tensor %d '%s' has batch %d depth %d but output tensor %d '%s' has batch %d depth %d",
                       input.index(), input.name(), Dim(input, 0), Dim(input, 3), output.index(), output.name(),
                       Dim(output, 0), Dim(output, 3));
}

[[gnu::noinline, gnu::cold]] Status QuantizationMismatchError(const PrepareContext& context, const TensorView& input,
                                                              const TensorView& output) {
  const QuantizationView in_q = input.quantization();
  const QuantizationView out_q = output.quantization();
  return context.Error(ErrorCode::kUnsupported,
                       "input tensor %d (scale %g, zero point %lld) and output tensor %d (scale %g, zero point "
                       "%lld) must share quantization",
                       input.index(), static_cast<double>(in_q.scale(0)), static_cast<long long>(in_q.zero_point(0)),
                       output.index(), static_cast<double>(out_q.scale(0)), static_cast<long long>(out_q.zero_point(0)));
}

}  // namespace

template <bool kInt8Only>
Status PreparePool(PrepareContext& context, const void** op_data) {
  if (kInt8Only) {
    const bool average = context.op().code() == BuiltinOp::kAveragePool2d;
    MICROARENA_RETURN_IF_ERROR(
        RequireInt8Activations(context, average ? "kAveragePool2dInt8Kernel" : "kMaxPool2dInt8Kernel",
                               average ? "kAveragePool2dKernel" : "kMaxPool2dKernel"));
  }
  MICROARENA_RETURN_IF_ERROR(RequireArity(context, 1, 1));
  const tflite::Pool2DOptions* options = context.op().raw()->builtin_options_as_Pool2DOptions();
  if (options == nullptr) return context.Error(ErrorCode::kInvalidArgument, "has no Pool2DOptions");
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  const TensorType type = kInt8Only ? TensorType::kInt8 : input.type();
  if (type != TensorType::kInt8 && type != TensorType::kInt16 && type != TensorType::kFloat32) {
    return TypeError(context, input);
  }
  MICROARENA_RETURN_IF_ERROR(RequireType(context, "output", output, type));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "input", input, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "output", output, 4));
  if (Dim(input, 0) != Dim(output, 0) || Dim(input, 3) != Dim(output, 3)) {
    return BatchDepthError(context, input, output);
  }
  reference::PoolParams params;
  WindowOptions window;
  window.padding = options->padding();
  window.stride_height = options->stride_h();
  window.stride_width = options->stride_w();
  window.filter_height = options->filter_height();
  window.filter_width = options->filter_width();
  MICROARENA_RETURN_IF_ERROR(
      PrepareWindow(context, window, input, output, &params.padding_height, &params.padding_width));
  params.stride_height = window.stride_height;
  params.stride_width = window.stride_width;
  params.filter_height = window.filter_height;
  params.filter_width = window.filter_width;

  const tflite::ActivationFunctionType activation = options->fused_activation_function();
  if (type != TensorType::kFloat32) {
    const bool int8 = type == TensorType::kInt8;
    const int32_t kMin = int8 ? std::numeric_limits<int8_t>::min() : std::numeric_limits<int16_t>::min();
    const int32_t kMax = int8 ? std::numeric_limits<int8_t>::max() : std::numeric_limits<int16_t>::max();
    MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "input", input, kMin, kMax));
    MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "output", output, kMin, kMax));
    const QuantizationView in_q = input.quantization();
    const QuantizationView out_q = output.quantization();
    // TFLM compares the scales in double with a tolerance of 1e-6.
    const double scale_diff = std::fabs(static_cast<double>(in_q.scale(0)) - static_cast<double>(out_q.scale(0)));
    if (!(scale_diff <= 1.0e-6) || in_q.zero_point(0) != out_q.zero_point(0)) {
      return QuantizationMismatchError(context, input, output);
    }
    MICROARENA_RETURN_IF_ERROR(PrepareQuantizedActivation(context, activation, output, kMin, kMax,
                                                          &params.activation_min, &params.activation_max));
  } else {
    MICROARENA_RETURN_IF_ERROR(
        PrepareFloatActivation(context, activation, &params.float_activation_min, &params.float_activation_max));
  }
  void* memory = context.AllocatePersistent(sizeof(reference::PoolParams), alignof(reference::PoolParams));
  if (memory == nullptr) return context.OutOfMemory();
  *op_data = new (memory) reference::PoolParams(params);
  // The loops write output rows in ascending order (reference/pooling.h):
  // the output may trail the input by a row lag.
  return DeclareRowLagOverlap(context, params.stride_height, params.padding_height);
}

template Status PreparePool<false>(PrepareContext& context, const void** op_data);
template Status PreparePool<true>(PrepareContext& context, const void** op_data);

}  // namespace microarena
