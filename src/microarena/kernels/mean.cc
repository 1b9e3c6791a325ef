// MEAN over constant axes, FLOAT32, INT8 or INT16, input rank <= 5, at most 2
// distinct reduced axes (TFLM's limit), keep_dims or not.
//
// INT8 and INT16 follow TFLM: the sum is rescaled by input_scale / output_scale with
// 1/count folded into the multiplier (reference/mean.h), even when input and
// output share scale and zero point (no truncating sum / count shortcut, which
// TFLM dropped to align with TFLite: it would differ by one in about a third
// of the outputs). It needs int32 head scratch, one value per output element,
// as TFLM requests.
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/mean.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

enum class MeanMode : uint8_t { kFloat, kInt8Requantize, kInt16Requantize };

// Persistent op data: 28 bytes.
struct MeanData {
  reference::MeanQuantization quantization;
  int32_t scratch_index;
  uint8_t axis_count;
  uint8_t axes[reference::kMeanMaxAxes];
  MeanMode mode;
};

Status Prepare(PrepareContext& context, const void** op_data) {
  if (context.input_count() != 2 || context.output_count() != 1 || !context.has_input(0) || !context.has_input(1)) {
    return context.Error(ErrorCode::kInvalidArgument, "expects 2 inputs (tensor, axis) and 1 output, got %zu and %zu",
                         context.input_count(), context.output_count());
  }
  const TensorView input = context.input(0);
  const TensorView axis_tensor = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = input.type();
  if ((type != TensorType::kFloat32 && type != TensorType::kInt8 && type != TensorType::kInt16) ||
      output.type() != type) {
    return context.Error(ErrorCode::kUnsupported,
                         "input '%s' is %s and output '%s' is %s; supported: FLOAT32 -> FLOAT32, INT8 -> INT8, "
                         "INT16 -> INT16",
                         input.name(), TensorTypeName(type), output.name(), TensorTypeName(output.type()));
  }
  if (type == TensorType::kInt8 &&
      (!shape_op::HasInt8PerTensorQuantization(input) || !shape_op::HasInt8PerTensorQuantization(output))) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "int8 input '%s' and output '%s' need one positive scale and an int8 zero point each",
                         input.name(), output.name());
  }
  if (type == TensorType::kInt16) {
    MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "input", input, -32768, 32767));
    MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "output", output, -32768, 32767));
  }
  const size_t rank = input.rank();
  if (rank > reference::kMeanMaxRank) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has rank %zu; at most %zu is supported", input.name(),
                         rank, reference::kMeanMaxRank);
  }
  if (axis_tensor.type() != TensorType::kInt32) {
    return context.Error(ErrorCode::kUnsupported, "axis '%s' has type %s; expected INT32", axis_tensor.name(),
                         TensorTypeName(axis_tensor.type()));
  }
  int32_t axis_values[2 * kMaxRank] = {};
  size_t axis_value_count = 0;
  if (!shape_op::ReadConstantIndices(axis_tensor, axis_values, 2 * kMaxRank, &axis_value_count)) {
    return context.Error(ErrorCode::kUnsupported, "axis '%s' must be constant with at most %zu values (%zu values, %s)",
                         axis_tensor.name(), 2 * kMaxRank, axis_value_count,
                         axis_tensor.is_constant() ? "constant" : "not constant");
  }
  auto* data = static_cast<MeanData*>(context.AllocatePersistent(sizeof(MeanData)));
  if (data == nullptr) return context.OutOfMemory();
  *data = MeanData{};
  bool reduced[reference::kMeanMaxRank] = {};
  size_t distinct = 0;
  for (size_t i = 0; i < axis_value_count && rank > 0; ++i) {
    const int32_t given = axis_values[i];
    const int32_t axis = given < 0 ? given + static_cast<int32_t>(rank) : given;
    if (axis < 0 || axis >= static_cast<int32_t>(rank)) {
      return context.Error(ErrorCode::kInvalidArgument, "axis value %d is out of range for input '%s' of rank %zu",
                           given, input.name(), rank);
    }
    if (reduced[axis]) continue;
    if (distinct == reference::kMeanMaxAxes) {
      return context.Error(ErrorCode::kUnsupported, "axis '%s' names more than %zu distinct axes", axis_tensor.name(),
                           reference::kMeanMaxAxes);
    }
    reduced[axis] = true;
    data->axes[distinct++] = static_cast<uint8_t>(axis);
  }
  data->axis_count = static_cast<uint8_t>(distinct);
  // The quantized paths divide int32 sums by the reduced count as an int32.
  int64_t reduced_count = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (reduced[d]) reduced_count *= input.shape()[d];
  }
  if (type != TensorType::kFloat32 && reduced_count > std::numeric_limits<int32_t>::max()) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' reduces %lld values into each output; at most %d",
                         input.name(), static_cast<long long>(reduced_count), std::numeric_limits<int32_t>::max());
  }

  const auto* options = context.op().raw()->builtin_options_as_ReducerOptions();
  const bool keep_dims = options != nullptr && options->keep_dims();
  int32_t expected[reference::kMeanMaxRank] = {};
  size_t expected_rank = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      expected[expected_rank++] = input.shape()[d];
    } else if (keep_dims) {
      expected[expected_rank++] = 1;
    }
  }
  char text_a[shape_op::kShapeTextBytes];
  char text_b[shape_op::kShapeTextBytes];
  if (!shape_op::ShapeEquals(output.shape(), expected, expected_rank)) {
    return context.Error(ErrorCode::kInvalidArgument, "output '%s' has shape %s; keep_dims=%d over the axes gives %s",
                         output.name(), shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)),
                         keep_dims ? 1 : 0, shape_op::FormatShape(expected, expected_rank, text_b, sizeof(text_b)));
  }

  data->mode = MeanMode::kFloat;
  data->scratch_index = -1;
  if (type != TensorType::kFloat32) {
    const float input_scale = input.quantization().scale(0);
    const float output_scale = output.quantization().scale(0);
    auto& q = data->quantization;
    q.input_zero_point = static_cast<int32_t>(input.quantization().zero_point(0));
    q.output_zero_point = static_cast<int32_t>(output.quantization().zero_point(0));
    const double ratio = static_cast<double>(input_scale) / static_cast<double>(output_scale);
    fixed_point::QuantizeMultiplier(ratio, &q.multiplier, &q.shift);
    MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(
        context, "output", output, ratio, q.shift - reference::MeanLog2Count(reduced_count, q.shift)));
    data->mode = type == TensorType::kInt8 ? MeanMode::kInt8Requantize : MeanMode::kInt16Requantize;
    MICROARENA_RETURN_IF_ERROR(
        context.RequestScratch(output.element_count() * sizeof(int32_t), &data->scratch_index));
  }
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const MeanData*>(op_data);
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  reference::MeanShape shape;
  shape.rank = input.rank;
  for (size_t d = 0; d < input.rank; ++d) shape.input_dims[d] = input.dims[d];
  shape.axis_count = data.axis_count;
  for (size_t a = 0; a < data.axis_count; ++a) shape.axes[a] = data.axes[a];
  const size_t output_count = output.element_count();
  switch (data.mode) {
    case MeanMode::kFloat:
      reference::MeanFloat(shape, input.As<const float>(), output.As<float>(), output_count);
      break;
    case MeanMode::kInt8Requantize:
      reference::MeanInt8Requantize(shape, data.quantization, input.As<const int8_t>(), output.As<int8_t>(),
                                    output_count, static_cast<int32_t*>(context.scratch(data.scratch_index)));
      break;
    case MeanMode::kInt16Requantize:
      reference::MeanQuantizedRequantize(shape, data.quantization, input.As<const int16_t>(), output.As<int16_t>(),
                                         output_count, static_cast<int32_t*>(context.scratch(data.scratch_index)));
      break;
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kMeanKernel = {BuiltinOp::kMean, Prepare, Eval};

}  // namespace microarena
