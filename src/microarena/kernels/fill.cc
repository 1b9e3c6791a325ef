// FILL and ZEROS_LIKE: outputs made of one repeated value.
//
// FILL(dims, value): every output element is the scalar `value`. The
// output's shape comes from the model; `dims` must be a constant 1-D integer
// tensor equal to that shape (TFLM's checks). Value types as
// TFLM's kernel: FLOAT32, INT32, INT8 (output the same type).
//
// ZEROS_LIKE(input): zeros of the input's type and element count; INT64,
// INT32, INT8 or FLOAT32 (TFLM's list). Zero is all-zero bytes in each.
// No op data for either (TFLM keeps none).
#include <cstdint>
#include <cstring>

#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

bool FillTypeSupported(TensorType type) {
  return type == TensorType::kFloat32 || type == TensorType::kInt32 || type == TensorType::kInt8;
}

// Element `i` of a constant 1-D integer tensor as int64; false for other types.
bool ReadInteger(const TensorView& tensor, size_t i, int64_t* value) {
  const uint8_t* bytes = tensor.data().data();
  switch (tensor.type()) {
    case TensorType::kInt8: *value = static_cast<int8_t>(bytes[i]); return true;
    case TensorType::kInt16: {
      int16_t v = 0;
      std::memcpy(&v, bytes + i * sizeof(v), sizeof(v));
      *value = v;
      return true;
    }
    case TensorType::kInt32: {
      int32_t v = 0;
      std::memcpy(&v, bytes + i * sizeof(v), sizeof(v));
      *value = v;
      return true;
    }
    case TensorType::kInt64: {
      std::memcpy(value, bytes + i * sizeof(int64_t), sizeof(int64_t));
      return true;
    }
    default: return false;
  }
}

Status PrepareFill(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView dims = context.input(0);
  const TensorView value = context.input(1);
  const TensorView output = context.output(0);
  if (value.rank() != 0) {
    return context.Error(ErrorCode::kInvalidArgument, "value tensor %d '%s' has rank %zu; it must be a scalar",
                         value.index(), value.name(), value.rank());
  }
  if (value.type() != output.type() || !FillTypeSupported(value.type())) {
    return context.Error(ErrorCode::kUnsupported, "value %s -> output %s not supported (FLOAT32, INT32 or INT8, same)",
                         TensorTypeName(value.type()), TensorTypeName(output.type()));
  }
  // TFLM refuses computed dims: the output's shape is fixed by the model.
  if (!dims.is_constant()) {
    return context.Error(ErrorCode::kUnsupported, "dims tensor %d '%s' must be constant (as in TFLM)", dims.index(),
                         dims.name());
  }
  char text[shape_op::kShapeTextBytes];
  bool matches = dims.rank() == 1 && dims.element_count() == output.rank();
  for (size_t i = 0; matches && i < output.rank(); ++i) {
    int64_t extent = 0;
    matches = ReadInteger(dims, i, &extent) && extent == output.shape()[i];
  }
  if (!matches) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "constant dims tensor %d '%s' (%s, %zu values) does not equal the output shape %s",
                         dims.index(), dims.name(), TensorTypeName(dims.type()), dims.element_count(),
                         shape_op::FormatShape(output.shape(), text, sizeof(text)));
  }
  *op_data = nullptr;
  return OkStatus();
}

Status EvalFill(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& value = *context.input(1);
  EvalTensor& output = *context.output(0);
  const size_t element_bytes = shape_op::ElementBytes(output.type);
  const size_t count = output.element_count();
  for (size_t i = 0; i < count; ++i) std::memcpy(output.data + i * element_bytes, value.data, element_bytes);
  return OkStatus();
}

Status PrepareZerosLike(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  const TensorType type = input.type();
  const bool supported = type == TensorType::kInt64 || type == TensorType::kInt32 || type == TensorType::kInt8 ||
                         type == TensorType::kFloat32;
  if (!supported || output.type() != type) {
    return context.Error(ErrorCode::kUnsupported,
                         "input %s -> output %s not supported (INT64, INT32, INT8 or FLOAT32, "
                         "same type)",
                         TensorTypeName(type), TensorTypeName(output.type()));
  }
  if (input.element_count() != output.element_count()) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has %zu elements, output tensor %d has %zu",
                         input.index(), input.element_count(), output.index(), output.element_count());
  }
  *op_data = nullptr;
  return OkStatus();
}

Status EvalZerosLike(EvalContext& context, const void* /*op_data*/) {
  EvalTensor& output = *context.output(0);
  std::memset(output.data, 0, output.element_count() * shape_op::ElementBytes(output.type));
  return OkStatus();
}

}  // namespace

const KernelRegistration kFillKernel = {BuiltinOp::kFill, PrepareFill, EvalFill};
const KernelRegistration kZerosLikeKernel = {BuiltinOp::kZerosLike, PrepareZerosLike, EvalZerosLike};

}  // namespace microarena
