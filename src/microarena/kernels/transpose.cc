// TRANSPOSE: permutes dimensions (rank <= 6) of FLOAT32, INT8 or INT16 (as
// TFLM, which refuses other types).
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
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireInputsAndOneOutput(context, 2, "tensor, perm"));
  const TensorView input = context.input(0);
  const TensorView perm = context.input(1);
  const TensorView output = context.output(0);
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireFloat32Int8OrInt16(context, input));
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireSameTypeAndQuantization(context, input, output));
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireMaxRank(context, input, reference::kTransposeMaxRank));
  const size_t rank = input.rank();
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
  shape_op::WithElementWord(input.type, [&](auto word) {
    using Word = decltype(word);
    reference::Transpose(params, input.dims, input.As<const Word>(), output.As<Word>());
  });
  return OkStatus();
}

}  // namespace

const KernelRegistration kTransposeKernel = {BuiltinOp::kTranspose, Prepare, Eval};

}  // namespace microarena
