// PACK, UNPACK, SPLIT and SPLIT_V: joining tensors along a new axis and
// cutting one along an axis; whole blocks are copied (reference/
// data_movement.h). Values move unchanged, quantization included, as in
// TFLM (which compares no quantization parameters either).
//
//   PACK(values_count, axis)  N inputs of one shape -> output with a new axis
//                             of extent N at `axis` (negative counts from the
//                             end of the output's rank)
//   UNPACK(num, axis)         the inverse: `num` outputs, one per index
//   SPLIT(num_splits)         inputs (axis, input); `axis` constant; equal parts
//   SPLIT_V                   inputs (input, size_splits, axis); `axis` constant;
//                             part sizes from the outputs' shapes
// Types as TFLM's kernels. No op data (TFLM keeps none).
#include <cstdint>
#include <cstring>

#include "microarena/kernels/reference/data_movement.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// PACK takes INT64 too; UNPACK, SPLIT and SPLIT_V do not (TFLM's lists).
bool PackTypeSupported(TensorType type) {
  return type == TensorType::kFloat32 || type == TensorType::kInt8 || type == TensorType::kInt16 ||
         type == TensorType::kInt32 || type == TensorType::kInt64;
}
constexpr const char* kPackTypes = "FLOAT32, INT8, INT16, INT32 or INT64";

bool SplitTypeSupported(TensorType type) {
  return type == TensorType::kFloat32 || type == TensorType::kInt8 || type == TensorType::kInt16 ||
         type == TensorType::kInt32;
}
constexpr const char* kSplitTypes = "FLOAT32, INT8, INT16 or INT32";

// Product of the tensor's extents [from, to).
size_t Product(const EvalTensor& tensor, size_t from, size_t to) {
  size_t product = 1;
  for (size_t d = from; d < to; ++d) product *= static_cast<size_t>(tensor.dims[d]);
  return product;
}

Status TypeError(const PrepareContext& context, const TensorView& tensor, const char* role, const char* supported) {
  return context.Error(ErrorCode::kUnsupported, "%s tensor %d '%s' is %s; supported: %s (all operands the same)", role,
                       tensor.index(), tensor.name(), TensorTypeName(tensor.type()), supported);
}

// The axis stored in op data for Eval (resolved, non-negative).
struct AxisData {
  int32_t axis;
};

// --- PACK -------------------------------------------------------------------

Status PreparePack(PrepareContext& context, const void** op_data) {
  const auto* options = context.op().raw()->builtin_options_as_PackOptions();
  const size_t count = context.input_count();
  if (count == 0 || context.output_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "expects at least 1 input and 1 output, got %zu and %zu", count,
                         context.output_count());
  }
  for (size_t i = 0; i < count; ++i) {
    if (!context.has_input(i)) return context.Error(ErrorCode::kInvalidArgument, "input %zu is omitted", i);
  }
  // Absent options mean values_count 0, as TFLM parses them: TFLM then packs
  // nothing and leaves the output unwritten; refused here, as UNPACK's num.
  const int32_t values_count = options != nullptr ? options->values_count() : 0;
  if (values_count != static_cast<int32_t>(count)) {
    return context.Error(ErrorCode::kInvalidArgument, "values_count is %d but the op has %zu inputs%s", values_count,
                         count, options == nullptr ? " (the op has no PackOptions)" : "");
  }
  const TensorView first = context.input(0);
  const TensorView output = context.output(0);
  if (!PackTypeSupported(first.type())) return TypeError(context, first, "input", kPackTypes);
  const auto output_rank = static_cast<int32_t>(first.rank() + 1);
  int32_t axis = options != nullptr ? options->axis() : 0;
  if (axis < 0) axis += output_rank;
  if (axis < 0 || axis >= output_rank) {
    return context.Error(ErrorCode::kInvalidArgument, "axis %d is out of range for an output of rank %d",
                         options != nullptr ? options->axis() : 0, output_rank);
  }
  for (size_t i = 0; i < count; ++i) {
    const TensorView input = context.input(i);
    if (input.type() != first.type()) return TypeError(context, input, "input", kPackTypes);
    if (!shape_op::ShapeEquals(input.shape(), first.shape().data(), first.rank())) {
      return context.Error(ErrorCode::kInvalidArgument, "input %zu (tensor %d) has another shape than input 0", i,
                           input.index());
    }
  }
  if (output.type() != first.type()) return TypeError(context, output, "output", kPackTypes);
  int32_t expected[kMaxRank + 1] = {};
  if (first.rank() + 1 > kMaxRank) {
    return context.Error(ErrorCode::kUnsupported, "output rank %d is above %zu", output_rank, kMaxRank);
  }
  for (size_t d = 0, k = 0; d < static_cast<size_t>(output_rank); ++d) {
    expected[d] = d == static_cast<size_t>(axis) ? static_cast<int32_t>(count) : first.shape()[k++];
  }
  if (!shape_op::ShapeEquals(output.shape(), expected, static_cast<size_t>(output_rank))) {
    char text_a[shape_op::kShapeTextBytes];
    char text_b[shape_op::kShapeTextBytes];
    return context.Error(ErrorCode::kInvalidArgument, "output shape %s; packing %zu inputs at axis %d gives %s",
                         shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)), count, axis,
                         shape_op::FormatShape(expected, static_cast<size_t>(output_rank), text_b, sizeof(text_b)));
  }
  auto* data = static_cast<AxisData*>(context.AllocatePersistent(sizeof(AxisData), alignof(AxisData)));
  if (data == nullptr) return context.OutOfMemory();
  data->axis = axis;
  *op_data = data;
  return OkStatus();
}

Status EvalPack(EvalContext& context, const void* op_data) {
  const auto axis = static_cast<size_t>(static_cast<const AxisData*>(op_data)->axis);
  EvalTensor& output = *context.output(0);
  const size_t count = context.input_count();
  const size_t element_bytes = shape_op::ElementBytes(output.type);
  const size_t outer = Product(output, 0, axis);
  const size_t block_bytes = Product(output, axis + 1, output.rank) * element_bytes;
  for (size_t i = 0; i < count; ++i) {
    reference::CopyBlocks(context.input(i)->data, block_bytes, output.data + i * block_bytes, count * block_bytes,
                          block_bytes, outer);
  }
  return OkStatus();
}

// --- UNPACK -----------------------------------------------------------------

Status PrepareUnpack(PrepareContext& context, const void** op_data) {
  const auto* options = context.op().raw()->builtin_options_as_UnpackOptions();
  if (context.input_count() != 1 || !context.has_input(0) || context.output_count() == 0) {
    return context.Error(ErrorCode::kInvalidArgument, "expects 1 input and at least 1 output, got %zu and %zu",
                         context.input_count(), context.output_count());
  }
  const TensorView input = context.input(0);
  if (!SplitTypeSupported(input.type())) return TypeError(context, input, "input", kSplitTypes);
  const auto rank = static_cast<int32_t>(input.rank());
  int32_t axis = options != nullptr ? options->axis() : 0;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    return context.Error(ErrorCode::kInvalidArgument, "axis %d is out of range for an input of rank %d",
                         options != nullptr ? options->axis() : 0, rank);
  }
  const size_t count = context.output_count();
  const int32_t num = options != nullptr ? options->num() : 0;
  if (num != static_cast<int32_t>(count) || input.shape()[static_cast<size_t>(axis)] != num) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "num is %d, the op has %zu outputs and the input's axis %d has extent %d; all must agree", num,
                         count, axis, input.shape()[static_cast<size_t>(axis)]);
  }
  int32_t expected[kMaxRank] = {};
  for (size_t d = 0, k = 0; d < input.rank(); ++d) {
    if (d != static_cast<size_t>(axis)) expected[k++] = input.shape()[d];
  }
  for (size_t i = 0; i < count; ++i) {
    const TensorView output = context.output(i);
    if (output.type() != input.type()) return TypeError(context, output, "output", kSplitTypes);
    if (!shape_op::ShapeEquals(output.shape(), expected, input.rank() - 1)) {
      char text[shape_op::kShapeTextBytes];
      return context.Error(ErrorCode::kInvalidArgument, "output %zu (tensor %d) must have shape %s", i, output.index(),
                           shape_op::FormatShape(expected, input.rank() - 1, text, sizeof(text)));
    }
  }
  auto* data = static_cast<AxisData*>(context.AllocatePersistent(sizeof(AxisData), alignof(AxisData)));
  if (data == nullptr) return context.OutOfMemory();
  data->axis = axis;
  *op_data = data;
  return OkStatus();
}

Status EvalUnpack(EvalContext& context, const void* op_data) {
  const auto axis = static_cast<size_t>(static_cast<const AxisData*>(op_data)->axis);
  const EvalTensor& input = *context.input(0);
  const size_t count = context.output_count();
  const size_t element_bytes = shape_op::ElementBytes(input.type);
  const size_t outer = Product(input, 0, axis);
  const size_t block_bytes = Product(input, axis + 1, input.rank) * element_bytes;
  for (size_t i = 0; i < count; ++i) {
    reference::CopyBlocks(input.data + i * block_bytes, count * block_bytes, context.output(i)->data, block_bytes,
                          block_bytes, outer);
  }
  return OkStatus();
}

// --- SPLIT, SPLIT_V ---------------------------------------------------------

// Checks the outputs of a split of `input` along `axis`: each of the input's
// type and shape except along the axis, where their extents sum to the
// input's (and are all equal for SPLIT).
Status CheckSplitOutputs(const PrepareContext& context, const TensorView& input, size_t axis, bool equal_parts) {
  const size_t count = context.output_count();
  const int32_t extent = input.shape()[axis];
  if (equal_parts && (count == 0 || extent % static_cast<int32_t>(count) != 0)) {
    return context.Error(ErrorCode::kInvalidArgument, "axis %zu of extent %d does not split into %zu equal parts", axis,
                         extent, count);
  }
  int64_t sum = 0;
  for (size_t i = 0; i < count; ++i) {
    const TensorView output = context.output(i);
    if (output.type() != input.type()) return TypeError(context, output, "output", kSplitTypes);
    bool ok = output.rank() == input.rank();
    for (size_t d = 0; ok && d < input.rank(); ++d) {
      if (d == axis) {
        ok = equal_parts ? output.shape()[d] == extent / static_cast<int32_t>(count) : output.shape()[d] >= 0;
      } else {
        ok = output.shape()[d] == input.shape()[d];
      }
    }
    if (!ok) {
      char text_a[shape_op::kShapeTextBytes];
      char text_b[shape_op::kShapeTextBytes];
      return context.Error(ErrorCode::kInvalidArgument,
                           "output %zu (tensor %d) has shape %s; not a part of input %s along "
                           "axis %zu",
                           i, output.index(), shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)),
                           shape_op::FormatShape(input.shape(), text_b, sizeof(text_b)), axis);
    }
    sum += output.shape()[axis];
  }
  if (sum != extent) {
    return context.Error(ErrorCode::kInvalidArgument, "the outputs' extents along axis %zu sum to %lld, not %d", axis,
                         static_cast<long long>(sum), extent);
  }
  return OkStatus();
}

// Reads the constant scalar axis (INT32) of a split; resolves negative values.
Status ReadSplitAxis(const PrepareContext& context, const TensorView& axis_tensor, const TensorView& input,
                     int32_t* axis) {
  int32_t values[1] = {};
  size_t count = 0;
  if (axis_tensor.type() != TensorType::kInt32 || !shape_op::ReadConstantIndices(axis_tensor, values, 1, &count) ||
      count != 1) {
    return context.Error(ErrorCode::kUnsupported,
                         "axis tensor %d '%s' must be a constant INT32 scalar (%s, %zu values)", axis_tensor.index(),
                         axis_tensor.name(), TensorTypeName(axis_tensor.type()), axis_tensor.element_count());
  }
  const auto rank = static_cast<int32_t>(input.rank());
  *axis = values[0] < 0 ? values[0] + rank : values[0];
  if (*axis < 0 || *axis >= rank) {
    return context.Error(ErrorCode::kInvalidArgument, "axis %d is out of range for input tensor %d of rank %d",
                         values[0], input.index(), rank);
  }
  return OkStatus();
}

template <bool kSplitV>
Status PrepareSplit(PrepareContext& context, const void** op_data) {
  const size_t expected_inputs = kSplitV ? 3 : 2;
  if (context.input_count() != expected_inputs || context.output_count() == 0) {
    return context.Error(ErrorCode::kInvalidArgument, "expects %zu inputs and at least 1 output, got %zu and %zu",
                         expected_inputs, context.input_count(), context.output_count());
  }
  for (size_t i = 0; i < expected_inputs; ++i) {
    if (!context.has_input(i)) return context.Error(ErrorCode::kInvalidArgument, "input %zu is omitted", i);
  }
  const TensorView input = context.input(kSplitV ? 0 : 1);
  const TensorView axis_tensor = context.input(kSplitV ? 2 : 0);
  if (!SplitTypeSupported(input.type())) return TypeError(context, input, "input", kSplitTypes);
  if (!kSplitV) {
    const auto* options = context.op().raw()->builtin_options_as_SplitOptions();
    if (options != nullptr && options->num_splits() != static_cast<int32_t>(context.output_count())) {
      return context.Error(ErrorCode::kInvalidArgument, "num_splits is %d but the op has %zu outputs",
                           options->num_splits(), context.output_count());
    }
  }
  int32_t axis = 0;
  MICROARENA_RETURN_IF_ERROR(ReadSplitAxis(context, axis_tensor, input, &axis));
  MICROARENA_RETURN_IF_ERROR(CheckSplitOutputs(context, input, static_cast<size_t>(axis), !kSplitV));
  auto* data = static_cast<AxisData*>(context.AllocatePersistent(sizeof(AxisData), alignof(AxisData)));
  if (data == nullptr) return context.OutOfMemory();
  data->axis = axis;
  *op_data = data;
  return OkStatus();
}

template <bool kSplitV>
Status EvalSplit(EvalContext& context, const void* op_data) {
  const auto axis = static_cast<size_t>(static_cast<const AxisData*>(op_data)->axis);
  const EvalTensor& input = *context.input(kSplitV ? 0 : 1);
  const size_t element_bytes = shape_op::ElementBytes(input.type);
  const size_t outer = Product(input, 0, axis);
  const size_t inner_bytes = Product(input, axis + 1, input.rank) * element_bytes;
  const size_t row_bytes = static_cast<size_t>(input.dims[axis]) * inner_bytes;
  size_t offset_bytes = 0;
  for (size_t i = 0; i < context.output_count(); ++i) {
    EvalTensor& output = *context.output(i);
    const size_t block_bytes = static_cast<size_t>(output.dims[axis]) * inner_bytes;
    reference::CopyBlocks(input.data + offset_bytes, row_bytes, output.data, block_bytes, block_bytes, outer);
    offset_bytes += block_bytes;
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kPackKernel = {BuiltinOp::kPack, PreparePack, EvalPack};
const KernelRegistration kUnpackKernel = {BuiltinOp::kUnpack, PrepareUnpack, EvalUnpack};
const KernelRegistration kSplitKernel = {BuiltinOp::kSplit, PrepareSplit<false>, EvalSplit<false>};
const KernelRegistration kSplitVKernel = {BuiltinOp::kSplitV, PrepareSplit<true>, EvalSplit<true>};

}  // namespace microarena
