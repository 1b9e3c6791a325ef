// EXPAND_DIMS: inserts a dimension of size 1 at a constant axis in
// [-(rank+1), rank] (negative counts from the end of the output). Data is
// copied unchanged, so input and output share type and quantization.
#include <cstring>

#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"

namespace microarena {
namespace {

Status Prepare(PrepareContext& context, const void** /*op_data*/) {
  if (context.input_count() != 2 || context.output_count() != 1 || !context.has_input(0) || !context.has_input(1)) {
    return context.Error(ErrorCode::kInvalidArgument, "expects 2 inputs (tensor, axis) and 1 output, got %zu and %zu",
                         context.input_count(), context.output_count());
  }
  const TensorView input = context.input(0);
  const TensorView axis_tensor = context.input(1);
  const TensorView output = context.output(0);
  if (shape_op::ElementBytes(input.type()) == 0) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has type %s, which is not whole bytes per element",
                         input.name(), TensorTypeName(input.type()));
  }
  if (output.type() != input.type() || !shape_op::SameQuantization(input, output)) {
    return context.Error(ErrorCode::kUnsupported,
                         "output '%s' (%s) must have the type and quantization of input '%s' (%s)", output.name(),
                         TensorTypeName(output.type()), input.name(), TensorTypeName(input.type()));
  }
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

Status Eval(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  if (input.data != output.data) {
    std::memmove(output.data, input.data, input.element_count() * shape_op::ElementBytes(input.type));
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kExpandDimsKernel = {BuiltinOp::kExpandDims, Prepare, Eval};

}  // namespace microarena
