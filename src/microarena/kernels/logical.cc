// LOGICAL_NOT, LOGICAL_AND, LOGICAL_OR on BOOL tensors, as TFLM's reference
// kernels (elementwise.cc, logical.cc). AND and OR broadcast: equal shapes go
// element by element, others through TFLM's 4-D broadcast loop, which only
// handles ranks up to 4, so larger ranks with different shapes are refused.
// TFLM checks no types for AND/OR; here every tensor must be BOOL.
#include <algorithm>
#include <new>

#include "microarena/kernels/overlap.h"
#include "microarena/kernels/reference/broadcast.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

constexpr size_t kMaxLogicalBroadcastRank = 4;

Status RequireBool(const PrepareContext& context, const TensorView& tensor, const char* role) {
  if (tensor.type() == TensorType::kBool) return OkStatus();
  return context.Error(ErrorCode::kUnsupported, "%s tensor %d '%s' is %s; only BOOL is supported", role,
                       tensor.index(), tensor.name(), TensorTypeName(tensor.type()));
}

Status PrepareNot(PrepareContext& context, const void** op_data) {
  (void)op_data;
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  MICROARENA_RETURN_IF_ERROR(RequireBool(context, input, "input"));
  MICROARENA_RETURN_IF_ERROR(RequireBool(context, output, "output"));
  if (input.element_count() != output.element_count()) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has %zu elements, output tensor %d has %zu",
                         input.index(), input.element_count(), output.index(), output.element_count());
  }
  return OkStatus();
}

Status EvalNot(EvalContext& context, const void* op_data) {
  (void)op_data;
  const EvalTensor* input = context.input(0);
  const bool* in = input->As<const bool>();
  bool* out = context.output(0)->As<bool>();
  const size_t count = input->element_count();
  for (size_t i = 0; i < count; ++i) out[i] = !in[i];
  return OkStatus();
}

bool SameDims(const int32_t* a, size_t a_rank, const int32_t* b, size_t b_rank) {
  if (a_rank != b_rank) return false;
  for (size_t axis = 0; axis < a_rank; ++axis) {
    if (a[axis] != b[axis]) return false;
  }
  return true;
}

Status PrepareBinary(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input1 = context.input(0);
  const TensorView input2 = context.input(1);
  const TensorView output = context.output(0);
  MICROARENA_RETURN_IF_ERROR(RequireBool(context, input1, "input 0"));
  MICROARENA_RETURN_IF_ERROR(RequireBool(context, input2, "input 1"));
  MICROARENA_RETURN_IF_ERROR(RequireBool(context, output, "output"));
  // No op data (as TFLM): Eval reads the shapes from the tensors.
  (void)op_data;
  if (SameDims(input1.shape().data(), input1.rank(), input2.shape().data(), input2.rank())) {
    if (output.element_count() != input1.element_count()) {
      return context.Error(ErrorCode::kInvalidArgument, "inputs have %zu elements but output tensor %d has %zu",
                           input1.element_count(), output.index(), output.element_count());
    }
    return OkStatus();
  }
  reference::BroadcastShape shape;
  const size_t max_rank = std::max(std::max(input1.rank(), input2.rank()), output.rank());
  if (max_rank > kMaxLogicalBroadcastRank ||
      !reference::MakeBroadcastShape(input1.shape().data(), input1.rank(), input2.shape().data(), input2.rank(),
                                     &shape)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "input tensors %d (rank %zu) and %d (rank %zu) do not broadcast (ranks up to %zu)",
                         input1.index(), input1.rank(), input2.index(), input2.rank(), kMaxLogicalBroadcastRank);
  }
  // TFLM walks the output's own (4-D extended) shape: it must be the
  // broadcast shape, up to leading 1s.
  bool matches = true;
  for (size_t i = 0; i < kMaxLogicalBroadcastRank; ++i) {
    const int32_t want = i < shape.rank ? shape.output_dims[shape.rank - 1 - i] : 1;
    const int32_t have = i < output.rank() ? output.shape()[output.rank() - 1 - i] : 1;
    matches = matches && want == have;
  }
  if (!matches) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "input tensors %d and %d do not broadcast to the shape of output tensor %d", input1.index(),
                         input2.index(), output.index());
  }
  return OkStatus();
}

template <bool kAnd>
Status EvalBinary(EvalContext& context, const void* op_data) {
  (void)op_data;
  const EvalTensor* input1 = context.input(0);
  const EvalTensor* input2 = context.input(1);
  const bool* a = input1->As<const bool>();
  const bool* b = input2->As<const bool>();
  bool* out = context.output(0)->As<bool>();
  auto func = [](bool x, bool y) { return kAnd ? (x && y) : (x || y); };
  if (SameDims(input1->dims, input1->rank, input2->dims, input2->rank)) {
    reference::ElementwiseBinary(input1->element_count(), a, b, out, func);
  } else {
    reference::BroadcastShape shape;  // checked at Prepare
    (void)reference::MakeBroadcastShape(input1->dims, input1->rank, input2->dims, input2->rank, &shape);
    reference::BroadcastBinary(shape, a, b, out, func);
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kLogicalNotKernel = {BuiltinOp::kLogicalNot, PrepareWithElementwiseOverlap<PrepareNot, 1>,
                                              EvalNot};
const KernelRegistration kLogicalAndKernel = {BuiltinOp::kLogicalAnd, PrepareWithElementwiseOverlap<PrepareBinary, 2>,
                                              EvalBinary<true>};
const KernelRegistration kLogicalOrKernel = {BuiltinOp::kLogicalOr, PrepareWithElementwiseOverlap<PrepareBinary, 2>,
                                             EvalBinary<false>};

}  // namespace microarena
