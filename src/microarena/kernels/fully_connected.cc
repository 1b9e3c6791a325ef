// FULLY_CONNECTED: int8 (per-tensor filter scale, optional int32 bias), 16x8
// (int16 input and output, per-tensor int8 filter, optional int32 or int64
// bias) and float32 (optional float bias), with keep_num_dims and a fused
// clamp. kFullyConnectedInt8Kernel is the int8 path alone (int8_only.h).
//
// The int8 multiplier follows TFLite's GetQuantizedConvolutionMultipler:
// double(input scale * filter scale, multiplied in float) / double(output
// scale); unlike CONV_2D's per-channel multipliers, the product is rounded to
// float first. A bias must have scale close to input scale * filter scale
// (|difference| / output scale <= 0.02), as TFLite requires.
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>

#include "microarena/kernels/conv_common.h"
#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/int8_only.h"
#include "microarena/kernels/optimized/int16_kernels.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/reference/fully_connected.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

struct FullyConnectedOpData {
  reference::QuantizedFullyConnectedParams quant;  // int8, int16
  float activation_min = 0.0f;                     // float32
  float activation_max = 0.0f;
};

// Output shape as TFLite's FULLY_CONNECTED gives it: the input's shape with the
// last dimension replaced (keep_num_dims) or [input elements / accum_depth, units].
Status CheckShapes(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                   const TensorView& output, bool keep_num_dims) {
  const int32_t units = Dim(filter, 0);
  const int32_t accum_depth = Dim(filter, 1);
  if (units < 1 || accum_depth < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "filter tensor %d '%s' is [%d, %d]; both must be >= 1",
                         filter.index(), filter.name(), units, accum_depth);
  }
  if (input.rank() < 1 || input.element_count() % static_cast<size_t>(accum_depth) != 0) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "input tensor %d '%s' has %zu elements, not a multiple of filter tensor %d depth %d",
                         input.index(), input.name(), input.element_count(), filter.index(), accum_depth);
  }
  const size_t batches = input.element_count() / static_cast<size_t>(accum_depth);
  bool matches = output.rank() >= 1 && Dim(output, output.rank() - 1) == units;
  if (keep_num_dims) {
    matches = matches && output.rank() == input.rank() && Dim(input, input.rank() - 1) == accum_depth;
    for (size_t axis = 0; matches && axis + 1 < input.rank(); ++axis) matches = Dim(output, axis) == Dim(input, axis);
  } else {
    matches = matches && output.rank() == 2 && static_cast<size_t>(Dim(output, 0)) == batches;
  }
  if (!matches) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "output tensor %d '%s' (rank %zu, %zu elements) does not match %zu rows of %d units "
                         "(keep_num_dims %s)",
                         output.index(), output.name(), output.rank(), output.element_count(), batches, units,
                         keep_num_dims ? "true" : "false");
  }
  return OkStatus();
}

// int8 and 16x8: one multiplier for the tensor, and the zero points as
// offsets (TFLM applies them to int16 too). kInt8Only (kFullyConnectedInt8Kernel)
// compiles the 16x8 checks out.
template <bool kInt8Only>
Status PrepareQuantized(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                        const TensorView& output, tflite::ActivationFunctionType activation,
                        reference::QuantizedFullyConnectedParams* quant) {
  const bool is_int16 = !kInt8Only && input.type() == TensorType::kInt16;
  const int32_t qmin = is_int16 ? std::numeric_limits<int16_t>::min() : std::numeric_limits<int8_t>::min();
  const int32_t qmax = is_int16 ? std::numeric_limits<int16_t>::max() : std::numeric_limits<int8_t>::max();
  MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "input", input, qmin, qmax));
  MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "output", output, qmin, qmax));
  const QuantizationView filter_quantization = filter.quantization();
  if (filter_quantization.is_quantized() && filter_quantization.channel_count() > 1) {
    return context.Error(ErrorCode::kUnsupported,
                         "filter tensor %d '%s' has %zu per-channel scales; only per-tensor int8 weights are supported",
                         filter.index(), filter.name(), filter_quantization.channel_count());
  }
  MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "filter", filter, 0, 0));
  const float input_scale = input.quantization().scale(0);
  const float filter_scale = filter_quantization.scale(0);
  const float output_scale = output.quantization().scale(0);
  if (context.has_input(2)) {
    const TensorView bias = context.input(2);
    const QuantizationView bias_quantization = bias.quantization();
    const double bias_scale = bias_quantization.is_quantized() ? static_cast<double>(bias_quantization.scale(0)) : 0.0;
    const double product = static_cast<double>(input_scale) * static_cast<double>(filter_scale);
    if (!(std::abs(product - bias_scale) / static_cast<double>(output_scale) <= 0.02)) {
      return context.Error(ErrorCode::kInvalidArgument,
                           "bias tensor %d '%s' scale %g differs from input scale x filter scale %g by more than 0.02 "
                           "output steps (output scale %g)",
                           bias.index(), bias.name(), bias_scale, product, static_cast<double>(output_scale));
    }
  }
  const double multiplier = static_cast<double>(input_scale * filter_scale) / static_cast<double>(output_scale);
  int shift = 0;
  fixed_point::QuantizeMultiplier(multiplier, &quant->output_multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, multiplier, shift));
  const bool int32_bias = context.has_input(2) && context.input(2).type() == TensorType::kInt32;
  if (is_int16 && !int32_bias && shift > kMaxMultiplierShift64) {
    return context.Error(ErrorCode::kUnsupported,
                         "output tensor %d '%s': multiplier %g needs shift %d; the 64-bit rescale of this 16x8 op "
                         "allows at most %d",
                         output.index(), output.name(), multiplier, shift, kMaxMultiplierShift64);
  }
  quant->output_shift = shift;
  quant->input_offset = -static_cast<int32_t>(input.quantization().zero_point(0));
  quant->filter_offset = 0;
  quant->output_offset = static_cast<int32_t>(output.quantization().zero_point(0));
  return PrepareQuantizedActivation(context, activation, output, qmin, qmax, &quant->activation_min,
                                    &quant->activation_max);
}

// kInt8Only: the Prepare of kFullyConnectedInt8Kernel, which refuses all
// but INT8 activations first; the int16 and float32 branches compile out.
template <bool kInt8Only>
Status PrepareOp(PrepareContext& context, const void** op_data) {
  if (kInt8Only) MICROARENA_RETURN_IF_ERROR(RequireInt8Activations(context, "kFullyConnectedInt8Kernel", "kFullyConnectedKernel"));
  MICROARENA_RETURN_IF_ERROR(RequireArity(context, 2, 3));
  if (!context.has_input(1)) return context.Error(ErrorCode::kInvalidArgument, "filter (input 1) is omitted");
  // Absent options mean the defaults: no activation, keep_num_dims false.
  const tflite::FullyConnectedOptions* options = context.op().raw()->builtin_options_as_FullyConnectedOptions();
  const tflite::ActivationFunctionType activation =
      options != nullptr ? options->fused_activation_function() : tflite::ActivationFunctionType::NONE;
  const bool keep_num_dims = options != nullptr && options->keep_num_dims();
  if (options != nullptr && options->weights_format() != tflite::FullyConnectedOptionsWeightsFormat::DEFAULT) {
    return context.Error(ErrorCode::kUnsupported, "weights format %s is not supported (only DEFAULT)",
                         tflite::EnumNameFullyConnectedOptionsWeightsFormat(options->weights_format()));
  }
  const TensorView input = context.input(0);
  const TensorView filter = context.input(1);
  const TensorView output = context.output(0);

  if (!kInt8Only && input.type() == TensorType::kInt16) {
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "filter", filter, TensorType::kInt8));
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "output", output, TensorType::kInt16));
  } else {
    MICROARENA_RETURN_IF_ERROR(RequireInt8OrFloat32Operands(context, "FULLY_CONNECTED", input, filter, output));
  }
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "filter", filter, 2));
  MICROARENA_RETURN_IF_ERROR(CheckShapes(context, input, filter, output, keep_num_dims));
  MICROARENA_RETURN_IF_ERROR(PrepareBias(context, input.type(), Dim(filter, 0)));

  void* memory = context.AllocatePersistent(sizeof(FullyConnectedOpData), alignof(FullyConnectedOpData));
  if (memory == nullptr) return context.OutOfMemory();
  auto* data = new (memory) FullyConnectedOpData();
  if (kInt8Only || input.type() != TensorType::kFloat32) {
    MICROARENA_RETURN_IF_ERROR(PrepareQuantized<kInt8Only>(context, input, filter, output, activation, &data->quant));
  } else {
    MICROARENA_RETURN_IF_ERROR(PrepareFloatActivation(context, activation, &data->activation_min,
                                                      &data->activation_max));
  }
  *op_data = data;
  return OkStatus();
}

reference::FullyConnectedShape ShapeOf(const EvalTensor& filter, const EvalTensor& output) {
  reference::FullyConnectedShape shape;
  shape.output_depth = filter.dim(0);
  shape.accum_depth = filter.dim(1);
  shape.batches = static_cast<int32_t>(output.element_count() / static_cast<size_t>(shape.output_depth));
  return shape;
}

// The int8 path, the whole Eval of kFullyConnectedInt8Kernel: the fast loops
// of optimized/int8_kernels.h (reference/fully_connected.h is their oracle).
Status EvalInt8(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const FullyConnectedOpData*>(op_data);
  const EvalTensor& filter = *context.input(1);
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  EvalTensor& output = *context.output(0);
  const reference::FullyConnectedShape shape = ShapeOf(filter, output);
  const int8_t* input = context.input(0)->As<const int8_t>();
  const int32_t* bias_data = bias != nullptr ? bias->As<const int32_t>() : nullptr;
  optimized::FullyConnectedInt8(data->quant, shape, input, filter.As<const int8_t>(), bias_data,
                                output.As<int8_t>());
  return OkStatus();
}

// The 16x8 path: the fast loops of optimized/int16_kernels.h. TFLM: an
// int32 bias takes int32 accumulators; an int64 bias, or none, int64 ones.
[[gnu::noinline]] Status EvalInt16(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const FullyConnectedOpData*>(op_data);
  const EvalTensor& input = *context.input(0);
  const EvalTensor& filter = *context.input(1);
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  EvalTensor& output = *context.output(0);
  const reference::FullyConnectedShape shape = ShapeOf(filter, output);
  if (bias != nullptr && bias->type == TensorType::kInt32) {
    optimized::FullyConnectedInt16(data->quant, shape, input.As<const int16_t>(), filter.As<const int8_t>(),
                                   bias->As<const int32_t>(), output.As<int16_t>());
  } else {
    optimized::FullyConnectedInt16(data->quant, shape, input.As<const int16_t>(), filter.As<const int8_t>(),
                                   bias != nullptr ? bias->As<const int64_t>() : nullptr, output.As<int16_t>());
  }
  return OkStatus();
}

// float32, out of line: its inlined reference loops widen the frame, which
// the int8 and 16x8 paths' stack need not carry.
[[gnu::noinline]] Status EvalFloat(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const FullyConnectedOpData*>(op_data);
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  EvalTensor& output = *context.output(0);
  const reference::FullyConnectedShape shape = ShapeOf(*context.input(1), output);
  reference::FullyConnectedFloat(data->activation_min, data->activation_max, shape,
                                 context.input(0)->As<const float>(), context.input(1)->As<const float>(),
                                 bias != nullptr ? bias->As<const float>() : nullptr, output.As<float>());
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const TensorType type = context.input(0)->type;
  if (type == TensorType::kInt8) return EvalInt8(context, op_data);
  if (type == TensorType::kInt16) return EvalInt16(context, op_data);
  return EvalFloat(context, op_data);
}

}  // namespace

const KernelRegistration kFullyConnectedKernel = {BuiltinOp::kFullyConnected, PrepareOp<false>, Eval};
const KernelRegistration kFullyConnectedInt8Kernel = {BuiltinOp::kFullyConnected, PrepareOp<true>, EvalInt8};

}  // namespace microarena
