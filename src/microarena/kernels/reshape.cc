// RESHAPE: any fixed-size type. The output holds the input's elements in the
// same order, so the op copies the bytes when the output buffer differs from
// the input's and does nothing when the plan puts both at the same address.
// The optional shape input (input 1) is not read: shapes are static and come
// from the output tensor. No op data.
#include <cstring>

#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

Status Prepare(PrepareContext& context, const void** op_data) {
  *op_data = nullptr;
  MICROARENA_RETURN_IF_ERROR(RequireArity(context, 1, 2));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  MICROARENA_RETURN_IF_ERROR(RequireType(context, "output", output, input.type()));
  if (input.element_count() != output.element_count() || input.byte_size() != output.byte_size()) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "input tensor %d '%s' has %zu elements but output tensor %d '%s' has %zu", input.index(),
                         input.name(), input.element_count(), output.index(), output.name(), output.element_count());
  }
  return OkStatus();
}

Status Eval(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  if (output.data != input.data) {
    const size_t bytes = (output.element_count() * TensorTypeBits(output.type) + 7) / 8;
    std::memmove(output.data, input.data, bytes);
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kReshapeKernel = {BuiltinOp::kReshape, PrepareWithElementwiseOverlap<Prepare, 1>, Eval};

}  // namespace microarena
