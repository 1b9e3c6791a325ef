// SQUEEZE: removes dimensions of size 1 (the listed ones, or all of them when
// squeeze_dims is empty; negative entries count from the end). Data is
// copied unchanged, so input and output share type and quantization.
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

Status Prepare(PrepareContext& context, const void** /*op_data*/) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireWholeByteElements(context, input));
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireSameTypeAndQuantization(context, input, output));
  const size_t rank = input.rank();
  bool squeeze[kMaxRank] = {};
  const auto* options = context.op().raw()->builtin_options_as_SqueezeOptions();
  const auto* dims = options != nullptr ? options->squeeze_dims() : nullptr;
  char text_a[shape_op::kShapeTextBytes];
  char text_b[shape_op::kShapeTextBytes];
  if (dims == nullptr || dims->size() == 0) {
    for (size_t d = 0; d < rank; ++d) squeeze[d] = input.shape()[d] == 1;
  } else {
    for (flatbuffers::uoffset_t i = 0; i < dims->size(); ++i) {
      const int32_t given = dims->Get(i);
      const int32_t d = given < 0 ? given + static_cast<int32_t>(rank) : given;
      if (d < 0 || d >= static_cast<int32_t>(rank) || input.shape()[static_cast<size_t>(d)] != 1) {
        return context.Error(ErrorCode::kInvalidArgument,
                             "squeeze_dims entry %d is out of range or not of size 1 for input '%s' %s", given,
                             input.name(), shape_op::FormatShape(input.shape(), text_a, sizeof(text_a)));
      }
      squeeze[d] = true;
    }
  }
  int32_t expected[kMaxRank] = {};
  size_t expected_rank = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (!squeeze[d]) expected[expected_rank++] = input.shape()[d];
  }
  if (!shape_op::ShapeEquals(output.shape(), expected, expected_rank)) {
    return context.Error(ErrorCode::kInvalidArgument, "output '%s' has shape %s; squeezing input '%s' gives %s",
                         output.name(), shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)), input.name(),
                         shape_op::FormatShape(expected, expected_rank, text_b, sizeof(text_b)));
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kSqueezeKernel = {BuiltinOp::kSqueeze, PrepareWithElementwiseOverlap<Prepare, 1>, shape_op::EvalCopy};

}  // namespace microarena
