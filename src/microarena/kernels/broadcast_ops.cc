// SHAPE, BROADCAST_ARGS, BROADCAST_TO and SELECT_V2: the ops about shapes
// and their broadcasting (reference/broadcast_to.h).
//
//   SHAPE            the input's dimensions as an INT32 vector (any input type)
//   BROADCAST_ARGS   the broadcast of two INT32 or INT64 shape vectors; shapes
//                    that do not broadcast fail at Invoke (TFLM aborts)
//   BROADCAST_TO     the input repeated to a constant INT32/INT64 shape, rank
//                    up to 5 (TFLM's limit), any fixed-size type
//   SELECT_V2        condition ? x : y with the three broadcast to the output,
//                    rank up to 5; x, y FLOAT32, INT8 or INT16 (TFLM's list)
// None keeps op data: TFLM's SELECT_V2 keeps two flags, the others none.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/reference/broadcast_to.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// TFLM's rank limit for BROADCAST_TO and SELECT_V2.
constexpr size_t kMaxRank5 = 5;

// --- SHAPE ------------------------------------------------------------------

Status PrepareShape(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (output.type() != TensorType::kInt32) {
    return context.Error(ErrorCode::kUnsupported, "output %s not supported (INT32 only)",
                         TensorTypeName(output.type()));
  }
  if (output.element_count() != input.rank()) {
    return context.Error(ErrorCode::kInvalidArgument, "output tensor %d has %zu elements for an input of rank %zu",
                         output.index(), output.element_count(), input.rank());
  }
  *op_data = nullptr;
  return OkStatus();
}

Status EvalShape(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& input = *context.input(0);
  int32_t* out = context.output(0)->As<int32_t>();
  for (size_t i = 0; i < input.rank; ++i) out[i] = input.dims[i];
  return OkStatus();
}

// --- BROADCAST_ARGS ---------------------------------------------------------

Status PrepareBroadcastArgs(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView shape1 = context.input(0);
  const TensorView shape2 = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = shape1.type();
  if ((type != TensorType::kInt32 && type != TensorType::kInt64) || shape2.type() != type || output.type() != type) {
    return context.Error(ErrorCode::kUnsupported, "types %s, %s -> %s not supported (all INT32 or all INT64)",
                         TensorTypeName(type), TensorTypeName(shape2.type()), TensorTypeName(output.type()));
  }
  if (shape1.rank() != 1 || shape2.rank() != 1 || output.rank() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "inputs and output must be 1-D; ranks are %zu, %zu -> %zu",
                         shape1.rank(), shape2.rank(), output.rank());
  }
  const size_t length = std::max(shape1.element_count(), shape2.element_count());
  if (output.element_count() != length) {
    return context.Error(ErrorCode::kInvalidArgument, "output tensor %d has %zu elements; the broadcast shape has %zu",
                         output.index(), output.element_count(), length);
  }
  *op_data = nullptr;
  return OkStatus();
}

// Element `backward` places from the end of a shape vector; 1 before its start.
// TFLM reads each extent as an int.
template <typename T>
int32_t ExtentFromEnd(const EvalTensor& shape, size_t backward) {
  const size_t length = shape.element_count();
  return backward < length ? static_cast<int32_t>(shape.As<const T>()[length - 1 - backward]) : 1;
}

template <typename T>
Status RunBroadcastArgs(EvalContext& context) {
  const EvalTensor& shape1 = *context.input(0);
  const EvalTensor& shape2 = *context.input(1);
  EvalTensor& output = *context.output(0);
  const size_t length = output.element_count();
  T* out = output.As<T>();
  for (size_t i = 0; i < length; ++i) {
    const int32_t a = ExtentFromEnd<T>(shape1, i);
    const int32_t b = ExtentFromEnd<T>(shape2, i);
    if (a != 1 && b != 1 && a != b) {
      return Status::Error(ErrorCode::kInvalidArgument, "shapes do not broadcast: extents %d and %d at axis -%zu", a, b,
                           i + 1);
    }
    out[length - 1 - i] = static_cast<T>(a == 1 ? b : a);
  }
  return OkStatus();
}

Status EvalBroadcastArgs(EvalContext& context, const void* /*op_data*/) {
  return context.output(0)->type == TensorType::kInt32 ? RunBroadcastArgs<int32_t>(context)
                                                       : RunBroadcastArgs<int64_t>(context);
}

// --- BROADCAST_TO -----------------------------------------------------------

Status PrepareBroadcastTo(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input = context.input(0);
  const TensorView shape = context.input(1);
  const TensorView output = context.output(0);
  if (input.type() != output.type() || shape_op::ElementBytes(input.type()) == 0) {
    return context.Error(ErrorCode::kUnsupported, "input %s -> output %s not supported (one fixed-size type)",
                         TensorTypeName(input.type()), TensorTypeName(output.type()));
  }
  if (shape.type() != TensorType::kInt32 && shape.type() != TensorType::kInt64) {
    return context.Error(ErrorCode::kUnsupported, "shape tensor %d '%s' is %s; INT32 or INT64 expected", shape.index(),
                         shape.name(), TensorTypeName(shape.type()));
  }
  if (input.rank() > kMaxRank5 || output.rank() > kMaxRank5) {
    return context.Error(ErrorCode::kUnsupported, "ranks %zu -> %zu; at most %zu is supported (as in TFLM)",
                         input.rank(), output.rank(), kMaxRank5);
  }
  int32_t extents[kMaxRank5] = {};
  size_t count = 0;
  if (shape.rank() != 1 || !shape_op::ReadConstantIndices(shape, extents, kMaxRank5, &count)) {
    return context.Error(ErrorCode::kUnsupported,
                         "shape tensor %d '%s' must be constant, 1-D, with at most %zu int32 values", shape.index(),
                         shape.name(), kMaxRank5);
  }
  char text_a[shape_op::kShapeTextBytes];
  char text_b[shape_op::kShapeTextBytes];
  bool broadcastable = input.rank() <= count && shape_op::ShapeEquals(output.shape(), extents, count);
  for (size_t axis = 0; broadcastable && axis < input.rank(); ++axis) {
    const int32_t extent = input.shape()[axis];
    broadcastable = extent == 1 || extent == extents[count - input.rank() + axis];
  }
  if (!broadcastable) {
    return context.Error(ErrorCode::kInvalidArgument, "input shape %s does not broadcast to shape %s of output %d '%s'",
                         shape_op::FormatShape(input.shape(), text_a, sizeof(text_a)),
                         shape_op::FormatShape(extents, count, text_b, sizeof(text_b)), output.index(), output.name());
  }
  *op_data = nullptr;
  return OkStatus();
}

Status EvalBroadcastTo(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  reference::BroadcastTo(input.dims, input.rank, input.data, output.dims, output.rank, output.data,
                         shape_op::ElementBytes(output.type));
  return OkStatus();
}

// --- SELECT_V2 --------------------------------------------------------------

Status PrepareSelectV2(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 3, 1));
  const TensorView condition = context.input(0);
  const TensorView x = context.input(1);
  const TensorView y = context.input(2);
  const TensorView output = context.output(0);
  if (condition.type() != TensorType::kBool) {
    return context.Error(ErrorCode::kUnsupported, "condition tensor %d is %s; it must be BOOL", condition.index(),
                         TensorTypeName(condition.type()));
  }
  const TensorType type = x.type();
  const bool supported = type == TensorType::kFloat32 || type == TensorType::kInt8 || type == TensorType::kInt16;
  if (!supported || y.type() != type || output.type() != type) {
    return context.Error(ErrorCode::kUnsupported,
                         "types %s, %s -> %s not supported (FLOAT32, INT8 or INT16, all the "
                         "same)",
                         TensorTypeName(type), TensorTypeName(y.type()), TensorTypeName(output.type()));
  }
  // All single elements: one choice whatever the ranks (TFLM's special case).
  if (condition.element_count() == 1 && x.element_count() == 1 && y.element_count() == 1 &&
      output.element_count() == 1) {
    *op_data = nullptr;
    return OkStatus();
  }
  // The broadcast of the three shapes, aligned at the last axis.
  const size_t rank = std::max(condition.rank(), std::max(x.rank(), y.rank()));
  bool ok = rank <= kMaxRank5 && output.rank() == rank;
  for (size_t i = 0; ok && i < rank; ++i) {
    int32_t extent = 1;
    for (const TensorView* t : {&condition, &x, &y}) {
      const int32_t e = i < t->rank() ? t->shape()[t->rank() - 1 - i] : 1;
      if (e == 1) continue;
      ok = extent == 1 || extent == e;
      extent = e;
    }
    ok = ok && output.shape()[rank - 1 - i] == extent;
  }
  if (!ok) {
    char text[shape_op::kShapeTextBytes];
    return context.Error(ErrorCode::kInvalidArgument,
                         "condition, x and y (ranks %zu, %zu, %zu) do not broadcast to the output shape %s (ranks up "
                         "to %zu)",
                         condition.rank(), x.rank(), y.rank(),
                         shape_op::FormatShape(output.shape(), text, sizeof(text)), kMaxRank5);
  }
  *op_data = nullptr;
  return OkStatus();
}

Status EvalSelectV2(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& condition = *context.input(0);
  const EvalTensor& x = *context.input(1);
  const EvalTensor& y = *context.input(2);
  EvalTensor& output = *context.output(0);
  const size_t element_bytes = shape_op::ElementBytes(output.type);
  if (output.element_count() == 1 && condition.element_count() == 1 && x.element_count() == 1 &&
      y.element_count() == 1) {
    std::memcpy(output.data, condition.data[0] != 0 ? x.data : y.data, element_bytes);
    return OkStatus();
  }
  reference::SelectBroadcast({condition.data, condition.dims, condition.rank}, {x.data, x.dims, x.rank},
                             {y.data, y.dims, y.rank}, output.dims, output.rank, output.data, element_bytes);
  return OkStatus();
}

}  // namespace

const KernelRegistration kShapeKernel = {BuiltinOp::kShape, PrepareShape, EvalShape};
const KernelRegistration kBroadcastArgsKernel = {BuiltinOp::kBroadcastArgs, PrepareBroadcastArgs, EvalBroadcastArgs};
const KernelRegistration kBroadcastToKernel = {BuiltinOp::kBroadcastTo, PrepareBroadcastTo, EvalBroadcastTo};
const KernelRegistration kSelectV2Kernel = {BuiltinOp::kSelectV2, PrepareSelectV2, EvalSelectV2};

}  // namespace microarena
