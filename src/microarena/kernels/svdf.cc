// SVDF glue: validates the op, precomputes the two rescaling multipliers and
// asks for the same scratch TFLM's reference kernel asks for, in the same
// order: integer: batches x filters int32, then batches x units int32;
// float: batches x filters float.
//
// Inputs: 0 input [batches, input_size], 1 weights_feature [filters,
// input_size], 2 weights_time [filters, memory_size], 3 bias [units]
// (optional), 4 state [batches, memory_size * filters] (variable).
// Output: [batches, units], units = filters / rank.
//
// The integer variant runs the fast path of optimized/recurrent_int8.h (the
// same bytes as reference::SvdfInteger); the float one the reference.
//
// Types: int8 input/weights_feature/output with int8 or int16
// weights_time and state (the same type for both) and int32 bias; or float32
// throughout.
#include <cmath>
#include <cstdint>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/recurrent_int8.h"
#include "microarena/kernels/reference/svdf.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

constexpr size_t kInput = 0;
constexpr size_t kWeightsFeature = 1;
constexpr size_t kWeightsTime = 2;
constexpr size_t kBias = 3;
constexpr size_t kState = 4;

struct SvdfOpData {
  reference::SvdfIntegerParams params;  // integer variant only
  int32_t scratch_index = -1;            // batches x filters
  int32_t scratch_output_index = -1;     // batches x units (integer variant only)
  TensorType state_type = TensorType::kFloat32;
  reference::SvdfActivation activation = reference::SvdfActivation::kNone;
};

bool ShapeIs(const TensorView& tensor, int32_t dim0, int32_t dim1) {
  return tensor.rank() == 2 && tensor.shape()[0] == dim0 && tensor.shape()[1] == dim1;
}

// Per-tensor scale and zero point of a quantized tensor; false when absent,
// per-channel, non-positive or out of the type's range.
bool PerTensorQuantization(const TensorView& tensor, float* scale, int32_t* zero_point) {
  const QuantizationView quantization = tensor.quantization();
  if (!quantization.is_quantized() || quantization.channel_count() != 1) return false;
  *scale = quantization.scale(0);
  const int64_t zp = quantization.zero_point(0);
  int64_t low = 0, high = 0;
  switch (tensor.type()) {
    case TensorType::kInt8: low = -128; high = 127; break;
    case TensorType::kInt16: low = -32768; high = 32767; break;
    default: low = INT32_MIN; high = INT32_MAX; break;
  }
  if (!(*scale > 0.0f) || !std::isfinite(*scale) || zp < low || zp > high) return false;
  *zero_point = static_cast<int32_t>(zp);
  return true;
}

Status Prepare(PrepareContext& context, const void** op_data) {
  if (context.input_count() != 5 || context.output_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "SVDF takes 5 inputs and 1 output, got %zu and %zu",
                         context.input_count(), context.output_count());
  }
  for (size_t i : {kInput, kWeightsFeature, kWeightsTime, kState}) {
    if (!context.has_input(i)) return context.Error(ErrorCode::kInvalidArgument, "input %zu is required", i);
  }
  const tflite::SVDFOptions* options = context.op().raw()->builtin_options_as_SVDFOptions();
  if (options == nullptr) return context.Error(ErrorCode::kInvalidArgument, "SVDFOptions missing");
  const int32_t rank = options->rank();

  const TensorView input = context.input(kInput);
  const TensorView weights_feature = context.input(kWeightsFeature);
  const TensorView weights_time = context.input(kWeightsTime);
  const TensorView state = context.input(kState);
  const TensorView output = context.output(0);

  if (input.rank() != 2) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d '%s' must have rank 2, has %zu",
                         input.index(), input.name(), input.rank());
  }
  if (weights_feature.rank() != 2 || weights_time.rank() != 2) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "weights_feature tensor %d (rank %zu) and weights_time tensor %d (rank %zu) must have rank 2",
                         weights_feature.index(), weights_feature.rank(), weights_time.index(), weights_time.rank());
  }
  const int32_t batches = input.shape()[0];
  const int32_t input_size = input.shape()[1];
  const int32_t filters = weights_feature.shape()[0];
  const int32_t memory_size = weights_time.shape()[1];
  if (rank <= 0 || filters <= 0 || filters % rank != 0) {
    return context.Error(ErrorCode::kInvalidArgument, "rank %d must be positive and divide the %d filters", rank,
                         filters);
  }
  const int32_t units = filters / rank;
  if (weights_feature.shape()[1] != input_size) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "weights_feature tensor %d is %dx%d, input tensor %d has %d features",
                         weights_feature.index(), filters, weights_feature.shape()[1], input.index(), input_size);
  }
  if (weights_time.shape()[0] != filters || memory_size <= 0) {
    return context.Error(ErrorCode::kInvalidArgument, "weights_time tensor %d is %dx%d, expected %d x memory_size > 0",
                         weights_time.index(), weights_time.shape()[0], memory_size, filters);
  }
  if (!state.is_variable() || !ShapeIs(state, batches, memory_size * filters)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "state tensor %d '%s' must be a variable tensor of shape %dx%d (variable: %d, rank %zu)",
                         state.index(), state.name(), batches, memory_size * filters, state.is_variable() ? 1 : 0,
                         state.rank());
  }
  if (!ShapeIs(output, batches, units)) {
    return context.Error(ErrorCode::kInvalidArgument, "output tensor %d '%s' must have shape %dx%d",
                         output.index(), output.name(), batches, units);
  }
  const bool has_bias = context.has_input(kBias);
  if (has_bias) {
    const TensorView bias = context.input(kBias);
    if (bias.rank() != 1 || bias.shape()[0] != units) {
      return context.Error(ErrorCode::kInvalidArgument, "bias tensor %d must have shape [%d] (rank %zu)",
                           bias.index(), units, bias.rank());
    }
  }

  auto* data = static_cast<SvdfOpData*>(context.AllocatePersistent(sizeof(SvdfOpData), alignof(SvdfOpData)));
  if (data == nullptr) return context.OutOfMemory();
  *data = SvdfOpData{};
  data->state_type = state.type();
  const size_t batch_filters = static_cast<size_t>(batches) * static_cast<size_t>(filters);
  const size_t batch_units = static_cast<size_t>(batches) * static_cast<size_t>(units);

  if (input.type() == TensorType::kInt8) {
    const TensorType time_type = weights_time.type();
    if (weights_feature.type() != TensorType::kInt8 || output.type() != TensorType::kInt8 ||
        (time_type != TensorType::kInt8 && time_type != TensorType::kInt16) || state.type() != time_type ||
        (has_bias && context.input(kBias).type() != TensorType::kInt32)) {
      return context.Error(ErrorCode::kUnsupported,
                           "int8 SVDF needs int8 weights_feature and output, int8 or int16 weights_time and state of "
                           "the same type, int32 bias; got weights_feature %s, weights_time %s, state %s, output %s",
                           TensorTypeName(weights_feature.type()), TensorTypeName(time_type),
                           TensorTypeName(state.type()), TensorTypeName(output.type()));
    }
    float input_scale = 0, feature_scale = 0, time_scale = 0, state_scale = 0, output_scale = 0;
    int32_t feature_zp = 0, time_zp = 0;
    reference::SvdfIntegerParams& params = data->params;
    if (!PerTensorQuantization(input, &input_scale, &params.input_zero_point) ||
        !PerTensorQuantization(weights_feature, &feature_scale, &feature_zp) ||
        !PerTensorQuantization(weights_time, &time_scale, &time_zp) ||
        !PerTensorQuantization(state, &state_scale, &params.state_zero_point) ||
        !PerTensorQuantization(output, &output_scale, &params.output_zero_point)) {
      return context.Error(ErrorCode::kUnsupported,
                           "int8 SVDF needs per-tensor quantization with positive scales on input %d, weights_feature "
                           "%d, weights_time %d, state %d and output %d",
                           input.index(), weights_feature.index(), weights_time.index(), state.index(),
                           output.index());
    }
    if (feature_zp != 0 || time_zp != 0) {
      return context.Error(ErrorCode::kUnsupported,
                           "weights_feature tensor %d (zero point %d) and weights_time tensor %d (zero point %d) must "
                           "be symmetric",
                           weights_feature.index(), feature_zp, weights_time.index(), time_zp);
    }
    if (has_bias) {
      // TFLM's check: the bias scale must equal state_scale * weights_time_scale.
      const TensorView bias = context.input(kBias);
      const QuantizationView bias_quantization = bias.quantization();
      const double expected = static_cast<double>(state_scale * time_scale);
      if (!bias_quantization.is_quantized() || bias_quantization.channel_count() != 1 ||
          !(std::abs(static_cast<double>(bias_quantization.scale(0)) - expected) < 1e-5)) {
        return context.Error(ErrorCode::kInvalidArgument,
                             "bias tensor %d scale %g must equal state scale * weights_time scale = %g", bias.index(),
                             bias_quantization.is_quantized() ? static_cast<double>(bias_quantization.scale(0)) : 0.0,
                             expected);
      }
    }
    // As TFLM: the scale ratios are formed in float, then widened to double.
    const double feature_scale_ratio = static_cast<double>(input_scale * feature_scale / state_scale);
    const double output_scale_ratio = static_cast<double>(state_scale * time_scale / output_scale);
    int shift = 0;
    fixed_point::QuantizeMultiplier(feature_scale_ratio, &params.feature_multiplier, &shift);
    MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "state", state, feature_scale_ratio, shift));
    params.feature_shift = shift;
    fixed_point::QuantizeMultiplier(output_scale_ratio, &params.output_multiplier, &shift);
    MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, output_scale_ratio, shift));
    params.output_shift = shift;

    MICROARENA_RETURN_IF_ERROR(context.RequestScratch(batch_filters * sizeof(int32_t), &data->scratch_index));
    MICROARENA_RETURN_IF_ERROR(context.RequestScratch(batch_units * sizeof(int32_t), &data->scratch_output_index));
  } else if (input.type() == TensorType::kFloat32) {
    if (weights_feature.type() != TensorType::kFloat32 || weights_time.type() != TensorType::kFloat32 ||
        state.type() != TensorType::kFloat32 || output.type() != TensorType::kFloat32 ||
        (has_bias && context.input(kBias).type() != TensorType::kFloat32)) {
      return context.Error(ErrorCode::kUnsupported,
                           "float32 SVDF needs float32 weights, bias, state and output; got weights_feature %s, "
                           "weights_time %s, state %s, output %s",
                           TensorTypeName(weights_feature.type()), TensorTypeName(weights_time.type()),
                           TensorTypeName(state.type()), TensorTypeName(output.type()));
    }
    switch (options->fused_activation_function()) {
      case tflite::ActivationFunctionType::NONE: data->activation = reference::SvdfActivation::kNone; break;
      case tflite::ActivationFunctionType::RELU: data->activation = reference::SvdfActivation::kRelu; break;
      case tflite::ActivationFunctionType::RELU_N1_TO_1:
        data->activation = reference::SvdfActivation::kReluN1To1;
        break;
      case tflite::ActivationFunctionType::RELU6: data->activation = reference::SvdfActivation::kRelu6; break;
      case tflite::ActivationFunctionType::TANH: data->activation = reference::SvdfActivation::kTanh; break;
      default:
        return context.Error(ErrorCode::kUnsupported, "fused activation %d is not supported by float32 SVDF",
                             static_cast<int>(options->fused_activation_function()));
    }
    MICROARENA_RETURN_IF_ERROR(context.RequestScratch(batch_filters * sizeof(float), &data->scratch_index));
  } else {
    return context.Error(ErrorCode::kUnsupported, "SVDF input tensor %d has type %s; int8 or float32 expected",
                         input.index(), TensorTypeName(input.type()));
  }
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const SvdfOpData*>(op_data);
  const EvalTensor& input = *context.input(kInput);
  const EvalTensor& weights_feature = *context.input(kWeightsFeature);
  const EvalTensor& weights_time = *context.input(kWeightsTime);
  const EvalTensor* bias = context.input(kBias);
  EvalTensor& state = *context.input(kState);
  EvalTensor& output = *context.output(0);

  reference::SvdfShape shape;
  shape.batches = input.dim(0);
  shape.input_size = input.dim(1);
  shape.filters = weights_feature.dim(0);
  shape.units = output.dim(1);
  shape.rank = shape.filters / shape.units;  // prepare checked units = filters / rank
  shape.memory_size = weights_time.dim(1);

  if (input.type == TensorType::kFloat32) {
    reference::SvdfFloat(data.activation, shape, input.As<const float>(), weights_feature.As<const float>(),
                         weights_time.As<const float>(), bias != nullptr ? bias->As<const float>() : nullptr,
                         state.As<float>(), static_cast<float*>(context.scratch(data.scratch_index)),
                         output.As<float>());
    return OkStatus();
  }
  auto* scratch = static_cast<int32_t*>(context.scratch(data.scratch_index));
  auto* scratch_output = static_cast<int32_t*>(context.scratch(data.scratch_output_index));
  const int32_t* bias_data = bias != nullptr ? bias->As<const int32_t>() : nullptr;
  if (data.state_type == TensorType::kInt16) {
    optimized::SvdfInteger<int16_t>(data.params, shape, input.As<const int8_t>(), weights_feature.As<const int8_t>(),
                                    weights_time.As<const int16_t>(), bias_data, state.As<int16_t>(), scratch,
                                    scratch_output, output.As<int8_t>());
  } else {
    optimized::SvdfInteger<int8_t>(data.params, shape, input.As<const int8_t>(), weights_feature.As<const int8_t>(),
                                   weights_time.As<const int8_t>(), bias_data, state.As<int8_t>(), scratch,
                                   scratch_output, output.As<int8_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kSvdfKernel = {BuiltinOp::kSvdf, Prepare, Eval};

}  // namespace microarena
