// EXPAND_DIMS: inserts a dimension of size 1 at a constant axis in
// [-(rank+1), rank] (negative counts from the end of the output). Data is
// copied unchanged, so input and output share type and quantization;
// FLOAT32, INT8 and INT16 only, as TFLM.
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"

namespace microarena {
namespace {

Status Prepare(PrepareContext& context, const void** /*op_data*/) {
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireInputsAndOneOutput(context, 2, "tensor, axis"));
  const TensorView input = context.input(0);
  const TensorView axis_tensor = context.input(1);
  const TensorView output = context.output(0);
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireFloat32Int8OrInt16(context, input));
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireSameTypeAndQuantization(context, input, output));
  int32_t axis = 0;
  size_t count = 0;
  if (!shape_op::ReadConstantIndices(axis_tensor, &axis, 1, &count) || count != 1) {
    return context.Error(ErrorCode::kUnsupported,
                         "axis '%s' must be one constant INT32 or INT64 value (type %s, %zu values, %s)",
                         axis_tensor.name(), TensorTypeName(axis_tensor.type()), count,
                         axis_tensor.is_constant() ? "constant" : "not constant");
  }
  const auto rank = static_cast<int32_t>(input.rank());
  const int32_t resolved = axis < 0 ? axis + rank + 1 : axis;
  if (resolved < 0 || resolved > rank || input.rank() + 1 > kMaxRank) {
    return context.Error(ErrorCode::kInvalidArgument, "axis %d is out of range for input '%s' of rank %d", axis,
                         input.name(), rank);
  }
  int32_t expected[kMaxRank] = {};
  for (int32_t d = 0, in = 0; d <= rank; ++d) {
    expected[d] = d == resolved ? 1 : input.shape()[static_cast<size_t>(in++)];
  }
  char text_a[shape_op::kShapeTextBytes];
  char text_b[shape_op::kShapeTextBytes];
  const auto expected_rank = static_cast<size_t>(rank + 1);
  if (!shape_op::ShapeEquals(output.shape(), expected, expected_rank)) {
    return context.Error(ErrorCode::kInvalidArgument, "output '%s' has shape %s; axis %d gives %s", output.name(),
                         shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)), axis,
                         shape_op::FormatShape(expected, expected_rank, text_b, sizeof(text_b)));
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kExpandDimsKernel = {BuiltinOp::kExpandDims, PrepareWithElementwiseOverlap<Prepare, 1>, shape_op::EvalCopy};

}  // namespace microarena
