// FULLY_CONNECTED: int8 (optional int32 bias), 16x8 (int16 input and
// output, int8 filter, optional int32 or int64 bias) and float32 (optional
// float bias), with keep_num_dims and a fused clamp. kFullyConnectedInt8Kernel
// is the int8 path alone (int8_only.h).
//
// Per-tensor weights: the multiplier follows TFLite's
// GetQuantizedConvolutionMultipler: double(input scale * filter scale,
// multiplied in float) / double(output scale); unlike CONV_2D's per-channel
// multipliers, the product is rounded to float first. A bias must have scale
// close to input scale * filter scale (|difference| / output scale <= 0.02),
// as TFLite requires.
//
// Per-channel weights (more than one scale: one per unit, along dimension
// 0, as TFLM's fully_connected_common.cc takes them): each unit's multiplier
// is input x filter / output scale in double, as CONV_2D's, and TFLM checks
// no bias scale. TFLM's per-channel kernel reads the output as [rows, units],
// so an output of another rank (keep_num_dims) is refused.
//
// INT4 weights (int8 activations, per tensor): TFLM unpacks the whole
// matrix into an arena scratch buffer at every Invoke; here each row is
// unpacked 64 values at a time on the stack, so the arena holds no copy.
//
// Per-channel and INT4 weights are the general kernel's only: the int8-only
// kernel refuses them (FitsInt8Kernel), so models without them keep its
// flash.
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>

#include "microarena/base/checked_math.h"
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

struct FloatRange {
  float min;
  float max;
};

// No pointers (kernels/kernel.h): per-channel weights' multipliers and
// shifts follow the struct in its allocation, as CONV_2D's do.
struct FullyConnectedOpData {
  reference::QuantizedFullyConnectedParams quant;  // int8, int16
  // Shares the float path's clamp, which the integer paths never read, so
  // the struct keeps its size. Value initialisation sets the first member.
  union {
    struct {
      // Per-channel weights: the units whose int32 multipliers and then
      // int32 shifts follow the struct; 0: per-tensor weights (quant's pair).
      int32_t per_channel_units;
      int32_t int4_weights;  // 1: INT4 weights packed two per byte
    } weights;
    FloatRange activation;  // float32
  };
};

reference::UnitScales UnitScalesOf(const FullyConnectedOpData& data) {
  reference::UnitScales scales;
  if (data.weights.per_channel_units > 0) {
    scales.multiplier = reinterpret_cast<const int32_t*>(&data + 1);
    scales.shift = scales.multiplier + data.weights.per_channel_units;
  }
  return scales;
}

// Per-channel weights: TFLM's test, more than one scale (one per unit), of
// a quantization TFLM records (scales and zero points: is_affine). Scales
// alone take the per-tensor path, which refuses more than one.
bool HasPerChannelWeights(const TensorView& input, const TensorView& filter) {
  const QuantizationView q = filter.quantization();
  return input.type() != TensorType::kFloat32 && q.is_affine() && q.channel_count() > 1;
}

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

// What PreparePerChannel refused, named; a cold frame of its own. `unit` <
// 0: the scales' count or dimension, or the output's rank; `shift` > 0: unit
// `unit`'s multiplier needs a shift the 64-bit rescale cannot take.
[[gnu::noinline, gnu::cold]] Status PerChannelError(const PrepareContext& context, const TensorView& filter,
                                                    const TensorView& output, int32_t unit, double multiplier = 0.0,
                                                    int shift = 0) {
  const QuantizationView q = filter.quantization();
  if (shift > 0) {
    return context.Error(ErrorCode::kUnsupported,
                         "output tensor %d '%s': unit %d multiplier %g needs shift %d; the 64-bit rescale of this "
                         "16x8 op allows at most %d",
                         output.index(), output.name(), unit, multiplier, shift, kMaxMultiplierShift64);
  }
  if (output.rank() != 2) {
    return context.Error(ErrorCode::kUnsupported,
                         "output tensor %d '%s' has rank %zu; TFLM's per-channel kernel reads it as [rows, units] "
                         "(rank 2), so per-channel weights need keep_num_dims false or a rank-2 input",
                         output.index(), output.name(), output.rank());
  }
  if (unit < 0) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "filter tensor %d '%s' has %zu quantization scales along dimension %d; per-channel weights "
                         "need one per unit (%d) along dimension 0",
                         filter.index(), filter.name(), q.channel_count(), q.quantized_dimension(), Dim(filter, 0));
  }
  const auto u = static_cast<size_t>(unit);
  return context.Error(ErrorCode::kUnsupported,
                       "filter tensor %d '%s' unit %d has scale %g and zero point %lld; int8 weights need a finite "
                       "scale and zero point 0",
                       filter.index(), filter.name(), unit, static_cast<double>(q.scale(u)),
                       static_cast<long long>(q.zero_point(u)));
}

// Per-channel weights: each unit's multiplier (input x filter / output
// scale in double, as TFLM's) and shift, into the arrays that follow the op
// data. Input and output quantization are checked by the caller.
[[gnu::noinline]] Status PreparePerChannel(const PrepareContext& context, const TensorView& input,
                                           const TensorView& filter, const TensorView& output, bool rescale64,
                                           FullyConnectedOpData* data) {
  const QuantizationView q = filter.quantization();
  const int32_t units = Dim(filter, 0);
  if (output.rank() != 2 || q.channel_count() != static_cast<size_t>(units) || q.quantized_dimension() != 0) {
    return PerChannelError(context, filter, output, -1);
  }
  auto* multipliers = reinterpret_cast<int32_t*>(data + 1);
  int32_t* shifts = multipliers + units;
  const auto input_scale = static_cast<double>(input.quantization().scale(0));
  const auto output_scale = static_cast<double>(output.quantization().scale(0));
  for (int32_t u = 0; u < units; ++u) {
    const float scale = q.scale(static_cast<size_t>(u));
    if (!(scale >= 0.0f) || scale > std::numeric_limits<float>::max() || q.zero_point(static_cast<size_t>(u)) != 0) {
      return PerChannelError(context, filter, output, u);
    }
    const double multiplier = input_scale * static_cast<double>(scale) / output_scale;
    int shift = 0;
    fixed_point::QuantizeMultiplier(multiplier, &multipliers[u], &shift);
    MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, multiplier, shift));
    if (rescale64 && shift > kMaxMultiplierShift64) return PerChannelError(context, filter, output, u, multiplier, shift);
    shifts[u] = shift;
  }
  data->weights.per_channel_units = units;
  return OkStatus();
}

// int8 and 16x8: one multiplier for the tensor (or one per unit), and the
// zero points as offsets (TFLM applies them to int16 too). kInt8Only
// (kFullyConnectedInt8Kernel) compiles the 16x8 and per-channel paths out.
template <bool kInt8Only>
Status PrepareQuantized(const PrepareContext& context, const TensorView& input, const TensorView& filter,
                        const TensorView& output, tflite::ActivationFunctionType activation, bool per_channel,
                        FullyConnectedOpData* data) {
  reference::QuantizedFullyConnectedParams* quant = &data->quant;
  const bool is_int16 = !kInt8Only && input.type() == TensorType::kInt16;
  const int32_t qmin = is_int16 ? std::numeric_limits<int16_t>::min() : std::numeric_limits<int8_t>::min();
  const int32_t qmax = is_int16 ? std::numeric_limits<int16_t>::max() : std::numeric_limits<int8_t>::max();
  MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "input", input, qmin, qmax));
  MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "output", output, qmin, qmax));
  const QuantizationView filter_quantization = filter.quantization();
  const bool int32_bias = context.has_input(2) && context.input(2).type() == TensorType::kInt32;
  if (!kInt8Only && per_channel) {
    MICROARENA_RETURN_IF_ERROR(PreparePerChannel(context, input, filter, output, is_int16 && !int32_bias, data));
    quant->input_offset = -static_cast<int32_t>(input.quantization().zero_point(0));
    quant->output_offset = static_cast<int32_t>(output.quantization().zero_point(0));
    return PrepareQuantizedActivation(context, activation, output, qmin, qmax, &quant->activation_min,
                                      &quant->activation_max);
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

  // INT4 weights (int8 activations): the general kernel only. The int8-only
  // one refuses them and per-channel weights with the checks it already has
  // (the filter's type, then its one scale), adding no code.
  const bool int4_weights = !kInt8Only && input.type() == TensorType::kInt8 && filter.type() == TensorType::kInt4;
  const bool per_channel = !kInt8Only && HasPerChannelWeights(input, filter);
  if (!kInt8Only && input.type() == TensorType::kInt16) {
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "filter", filter, TensorType::kInt8));
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "output", output, TensorType::kInt16));
  } else if (int4_weights) {
    MICROARENA_RETURN_IF_ERROR(RequireType(context, "output", output, TensorType::kInt8));
    if (per_channel) {
      return context.Error(ErrorCode::kUnsupported,
                           "filter tensor %d '%s': INT4 weights must be quantized per tensor (TFLM refuses "
                           "per-channel INT4)",
                           filter.index(), filter.name());
    }
  } else {
    MICROARENA_RETURN_IF_ERROR(RequireInt8OrFloat32Operands(context, "FULLY_CONNECTED", input, filter, output));
  }
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "filter", filter, 2));
  MICROARENA_RETURN_IF_ERROR(CheckShapes(context, input, filter, output, keep_num_dims));
  MICROARENA_RETURN_IF_ERROR(PrepareBias(context, input.type(), Dim(filter, 0)));

  // Per-channel weights: the units' int32 multipliers and int32 shifts follow
  // (8 B per unit, as TFLM keeps them).
  size_t bytes = sizeof(FullyConnectedOpData);
  if (per_channel) {
    size_t array_bytes = 0;
    if (!CheckedMul(static_cast<size_t>(Dim(filter, 0)), 2 * sizeof(int32_t), &array_bytes) ||
        !CheckedAdd(bytes, array_bytes, &bytes)) {
      return context.Error(ErrorCode::kOutOfMemory, "%d units overflow the op data size", Dim(filter, 0));
    }
  }
  void* memory = context.AllocatePersistent(bytes, alignof(FullyConnectedOpData));
  if (memory == nullptr) return context.OutOfMemory();
  auto* data = new (memory) FullyConnectedOpData();
  if (int4_weights) data->weights.int4_weights = 1;
  if (kInt8Only || input.type() != TensorType::kFloat32) {
    MICROARENA_RETURN_IF_ERROR(PrepareQuantized<kInt8Only>(context, input, filter, output, activation, per_channel, data));
  } else {
    MICROARENA_RETURN_IF_ERROR(PrepareFloatActivation(context, activation, &data->activation.min,
                                                      &data->activation.max));
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
  optimized::FullyConnectedInt8(data->quant, shape, input, filter.As<const int8_t>(), bias_data, output.As<int8_t>());
  return OkStatus();
}

// int8 with INT4 weights (no scratch: rows unpacked on the stack as they
// are read) or per-channel ones; the general kernel only.
[[gnu::noinline]] Status EvalInt8OtherWeights(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const FullyConnectedOpData*>(op_data);
  const EvalTensor& filter = *context.input(1);
  const EvalTensor* bias = context.input_count() > 2 ? context.input(2) : nullptr;
  EvalTensor& output = *context.output(0);
  const reference::FullyConnectedShape shape = ShapeOf(filter, output);
  const int8_t* input = context.input(0)->As<const int8_t>();
  const int32_t* bias_data = bias != nullptr ? bias->As<const int32_t>() : nullptr;
  if (data->weights.int4_weights != 0) {
    optimized::FullyConnectedInt8PackedInt4(data->quant, shape, input, filter.As<const uint8_t>(), bias_data,
                                            output.As<int8_t>());
  } else {
    optimized::FullyConnectedInt8PerChannel(data->quant, shape, input, filter.As<const int8_t>(), bias_data,
                                            output.As<int8_t>(), UnitScalesOf(*data));
  }
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
                                   bias->As<const int32_t>(), output.As<int16_t>(),
                                   UnitScalesOf(*data));
  } else {
    optimized::FullyConnectedInt16(data->quant, shape, input.As<const int16_t>(), filter.As<const int8_t>(),
                                   bias != nullptr ? bias->As<const int64_t>() : nullptr, output.As<int16_t>(),
                                   UnitScalesOf(*data));
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
  reference::FullyConnectedFloat(data->activation.min, data->activation.max, shape,
                                 context.input(0)->As<const float>(), context.input(1)->As<const float>(),
                                 bias != nullptr ? bias->As<const float>() : nullptr, output.As<float>());
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const TensorType type = context.input(0)->type;
  if (type == TensorType::kInt8) {
    const auto& weights = static_cast<const FullyConnectedOpData*>(op_data)->weights;
    const bool other = weights.int4_weights != 0 || weights.per_channel_units > 0;
    return other ? EvalInt8OtherWeights(context, op_data) : EvalInt8(context, op_data);
  }
  if (type == TensorType::kInt16) return EvalInt16(context, op_data);
  return EvalFloat(context, op_data);
}

}  // namespace

const KernelRegistration kFullyConnectedKernel = {BuiltinOp::kFullyConnected, PrepareOp<false>, Eval};
const KernelRegistration kFullyConnectedInt8Kernel = {BuiltinOp::kFullyConnected, PrepareOp<true>, EvalInt8};

}  // namespace microarena
