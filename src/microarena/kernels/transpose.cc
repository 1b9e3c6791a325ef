// TRANSPOSE: permutes dimensions (rank <= 6) of any 1-, 2- or 4-byte type.
//
// Inputs: the tensor and a constant INT32/INT64 permutation of 0..rank-1.
// Output dimension i is input dimension perm[i]. Data is copied, so input and
// output share type and quantization.
#include "microarena/kernels/reference/transpose.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"

namespace microarena {
namespace {

// Persistent op data: 32 bytes.
using TransposeData = reference::TransposeParams;

Status Prepare(PrepareContext& context, const void** op_data) {
  if (context.input_count() != 2 || context.output_count() != 1 || !context.has_input(0) || !context.has_input(1)) {
    return context.Error(ErrorCode::kInvalidArgument, "expects 2 inputs (tensor, perm) and 1 output, got %zu and %zu",
                         context.input_count(), context.output_count());
  }
  const TensorView input = context.input(0);
  const TensorView perm = context.input(1);
  const TensorView output = context.output(0);
  const size_t bytes = shape_op::ElementBytes(input.type());
  if (bytes != 1 && bytes != 2 && bytes != 4) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has type %s; supported: 1-, 2- and 4-byte types",
                         input.name(), TensorTypeName(input.type()));
  }
  if (output.type() != input.type() || !shape_op::SameQuantization(input, output)) {
    return context.Error(ErrorCode::kUnsupported,
                         "output '%s' (%s) must have the type and quantization of input '%s' (%s)", output.name(),
                         TensorTypeName(output.type()), input.name(), TensorTypeName(input.type()));
  }
  const size_t rank = input.rank();
  if (rank > reference::kTransposeMaxRank) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has rank %zu; at most %zu is supported", input.name(),
                         rank, reference::kTransposeMaxRank);
  }
  char text_a[shape_op::kShapeTextBytes];
  char text_b[shape_op::kShapeTextBytes];
  auto* data = static_cast<TransposeData*>(context.AllocatePersistent(sizeof(TransposeData)));
  if (data == nullptr) return context.OutOfMemory();
  *data = TransposeData{};
  size_t count = 0;
  if (!shape_op::ReadConstantIndices(perm, data->perm, reference::kTransposeMaxRank, &count)) {
    return context.Error(ErrorCode::kUnsupported,
                         "perm '%s' must be a constant INT32 or INT64 tensor of at most %zu values (type %s, %zu "
                         "values, %s)", perm.name(), reference::kTransposeMaxRank, TensorTypeName(perm.type()), count,
                         perm.is_constant() ? "constant" : "not constant");
  }
  if (count != rank) {
    return context.Error(ErrorCode::kInvalidArgument, "perm '%s' has %zu values but input '%s' has rank %zu",
                         perm.name(), count, input.name(), rank);
  }
  bool seen[reference::kTransposeMaxRank] = {};
  int32_t expected[reference::kTransposeMaxRank] = {};
  for (size_t i = 0; i < rank; ++i) {
    const int32_t p = data->perm[i];
    if (p < 0 || p >= static_cast<int32_t>(rank) || seen[p]) {
      return context.Error(ErrorCode::kInvalidArgument, "perm '%s' is not a permutation of 0..%zu (value %d at %zu)",
                           perm.name(), rank - 1, p, i);
    }
    seen[p] = true;
    expected[i] = input.shape()[static_cast<size_t>(p)];
  }
  if (!shape_op::ShapeEquals(output.shape(), expected, rank)) {
    return context.Error(ErrorCode::kInvalidArgument, "output '%s' has shape %s; the permutation gives %s",
                         output.name(), shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)),
                         shape_op::FormatShape(expected, rank, text_b, sizeof(text_b)));
  }
  data->rank = rank;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& params = *static_cast<const TransposeData*>(op_data);
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  switch (shape_op::ElementBytes(input.type)) {
    case 1:
      reference::Transpose(params, input.dims, input.As<const uint8_t>(), output.As<uint8_t>());
      break;
    case 2:
      reference::Transpose(params, input.dims, input.As<const uint16_t>(), output.As<uint16_t>());
      break;
    default:
      reference::Transpose(params, input.dims, input.As<const uint32_t>(), output.As<uint32_t>());
      break;
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kTransposeKernel = {BuiltinOp::kTranspose, Prepare, Eval};

}  // namespace microarena
