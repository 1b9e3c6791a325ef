// L2_POOL_2D: float32 only (TFLM has no quantized form), SAME/VALID
// padding, fused clamp. Prepare is the pooling ops' (pool_common.h) after
// the type check.
#include "microarena/kernels/pool_common.h"
#include "microarena/kernels/reference/pooling.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireArity(context, 1, 1));
  const TensorView input = context.input(0);
  if (input.type() != TensorType::kFloat32) {
    return context.Error(ErrorCode::kUnsupported, "input tensor %d '%s' is %s; L2_POOL_2D supports FLOAT32",
                         input.index(), input.name(), TensorTypeName(input.type()));
  }
  return PreparePool(context, op_data);
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& params = *static_cast<const reference::PoolParams*>(op_data);
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  reference::L2PoolFloat(params, NhwcShapeOf(input), input.As<const float>(), NhwcShapeOf(output), output.As<float>());
  return OkStatus();
}

}  // namespace

const KernelRegistration kL2Pool2dKernel = {BuiltinOp::kL2Pool2d, Prepare, Eval};

}  // namespace microarena
