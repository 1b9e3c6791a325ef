// DYNAMIC_UPDATE_SLICE(operand, update, start_indices): the operand with the
// update written over it at start_indices, as TFLM's kernel does it:
//   - each start index is clamped to [0, operand dim - update dim], so the
//     update always lies inside the operand;
//   - when the update has as many elements as the operand, the output is the
//     update (whatever the indices say);
//   - bytes are copied, so int8 tensors keep their raw values whatever their
//     quantization (TFLM checks none).
// Types as TFLM's Prepare and Eval: operand, update and output FLOAT32, INT8,
// INT16 or INT32, one type; start_indices INT32 or INT64, one per operand
// dimension, read at Eval (they may be computed). Ranks up to 6 (TFLM's
// limit), except when the update replaces the whole operand.
#include <cstdint>
#include <cstring>

#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

constexpr size_t kMaxRank = 6;

bool TypeSupported(TensorType type) {
  return type == TensorType::kFloat32 || type == TensorType::kInt8 || type == TensorType::kInt16 ||
         type == TensorType::kInt32;
}

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 3, 1));
  const TensorView operand = context.input(0);
  const TensorView update = context.input(1);
  const TensorView indices = context.input(2);
  const TensorView output = context.output(0);
  if (!TypeSupported(operand.type()) || update.type() != operand.type() || output.type() != operand.type()) {
    return context.Error(ErrorCode::kUnsupported,
                         "operand %d '%s' %s, update %d '%s' %s, output %d '%s' %s not supported (FLOAT32, INT8, "
                         "INT16 or INT32, one type)",
                         operand.index(), operand.name(), TensorTypeName(operand.type()), update.index(),
                         update.name(), TensorTypeName(update.type()), output.index(), output.name(),
                         TensorTypeName(output.type()));
  }
  if (indices.type() != TensorType::kInt32 && indices.type() != TensorType::kInt64) {
    return context.Error(ErrorCode::kUnsupported, "start_indices tensor %d '%s' is %s; INT32 or INT64 is required",
                         indices.index(), indices.name(), TensorTypeName(indices.type()));
  }
  const size_t rank = operand.rank();
  if (indices.rank() != 1 || static_cast<size_t>(indices.shape()[0]) != rank) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "start_indices tensor %d '%s' must be 1-D with %zu values (one per operand dimension)",
                         indices.index(), indices.name(), rank);
  }
  char operand_text[shape_op::kShapeTextBytes];
  char other_text[shape_op::kShapeTextBytes];
  bool fits = update.rank() == rank;
  for (size_t i = 0; fits && i < rank; ++i) fits = update.shape()[i] <= operand.shape()[i];
  if (!fits) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "update %d '%s' %s does not fit in operand %d '%s' %s (same rank, no larger)", update.index(),
                         update.name(), shape_op::FormatShape(update.shape(), other_text, sizeof(other_text)),
                         operand.index(), operand.name(),
                         shape_op::FormatShape(operand.shape(), operand_text, sizeof(operand_text)));
  }
  if (!shape_op::ShapeEquals(output.shape(), operand.shape().data(), operand.rank())) {
    return context.Error(ErrorCode::kInvalidArgument, "output %d '%s' %s must have the shape of operand %d '%s', %s",
                         output.index(), output.name(),
                         shape_op::FormatShape(output.shape(), other_text, sizeof(other_text)), operand.index(),
                         operand.name(), shape_op::FormatShape(operand.shape(), operand_text, sizeof(operand_text)));
  }
  if (rank > kMaxRank && update.element_count() != operand.element_count()) {
    return context.Error(ErrorCode::kUnsupported, "operand %d '%s' has rank %zu; at most %zu is supported (as in TFLM)",
                         operand.index(), operand.name(), rank, kMaxRank);
  }
  *op_data = nullptr;
  return OkStatus();
}

int64_t StartIndex(const EvalTensor& indices, size_t i) {
  if (indices.type == TensorType::kInt32) {
    int32_t value = 0;
    std::memcpy(&value, indices.data + i * sizeof(value), sizeof(value));
    return value;
  }
  int64_t value = 0;
  std::memcpy(&value, indices.data + i * sizeof(value), sizeof(value));
  return value;
}

Status Eval(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& operand = *context.input(0);
  const EvalTensor& update = *context.input(1);
  const EvalTensor& indices = *context.input(2);
  EvalTensor& output = *context.output(0);
  const size_t element = shape_op::ElementBytes(operand.type);
  const size_t count = operand.element_count();
  const size_t update_count = update.element_count();
  if (update_count == count) {
    std::memmove(output.data, update.data, count * element);
    return OkStatus();
  }
  if (output.data != operand.data) std::memmove(output.data, operand.data, count * element);
  if (update_count == 0) return OkStatus();

  // Clamped start, and the operand's strides in elements.
  const size_t rank = operand.rank;
  size_t start[kMaxRank] = {};
  size_t output_stride[kMaxRank] = {};
  for (size_t i = 0; i < rank; ++i) {
    const int64_t limit = int64_t{operand.dims[i]} - update.dims[i];
    const int64_t index = StartIndex(indices, i);
    start[i] = static_cast<size_t>(index < 0 ? 0 : index > limit ? limit : index);
  }
  output_stride[rank - 1] = 1;
  for (size_t i = rank - 1; i > 0; --i) output_stride[i - 1] = output_stride[i] * static_cast<size_t>(operand.dims[i]);
  // One row (the last dimension) of the update at a time; `at` counts the
  // row's position in the update's leading dimensions.
  const size_t row_bytes = static_cast<size_t>(update.dims[rank - 1]) * element;
  const size_t rows = update_count / static_cast<size_t>(update.dims[rank - 1]);
  size_t at[kMaxRank] = {};
  for (size_t row = 0; row < rows; ++row) {
    size_t offset = start[rank - 1];
    for (size_t i = 0; i + 1 < rank; ++i) offset += (start[i] + at[i]) * output_stride[i];
    std::memcpy(output.data + offset * element, update.data + row * row_bytes, row_bytes);
    for (size_t i = rank - 1; i-- > 0;) {
      if (++at[i] < static_cast<size_t>(update.dims[i])) break;
      at[i] = 0;
    }
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kDynamicUpdateSliceKernel = {BuiltinOp::kDynamicUpdateSlice, Prepare, Eval};

}  // namespace microarena
