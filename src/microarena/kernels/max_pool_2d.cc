// MAX_POOL_2D: int8, int16 and float32, SAME/VALID padding, fused clamp.
// Prepare is shared with AVERAGE_POOL_2D (pool_common.h).
#include <cstdint>

#include "microarena/kernels/pool_common.h"
#include "microarena/kernels/reference/pooling.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

Status Eval(EvalContext& context, const void* op_data) {
  const auto& params = *static_cast<const reference::PoolParams*>(op_data);
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  if (input.type == TensorType::kInt8) {
    reference::MaxPoolInt8(params, NhwcShapeOf(input), input.As<const int8_t>(), NhwcShapeOf(output),
                           output.As<int8_t>());
  } else if (input.type == TensorType::kInt16) {
    reference::MaxPoolQuantized(params, NhwcShapeOf(input), input.As<const int16_t>(), NhwcShapeOf(output),
                                output.As<int16_t>());
  } else {
    reference::MaxPoolFloat(params, NhwcShapeOf(input), input.As<const float>(), NhwcShapeOf(output),
                            output.As<float>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kMaxPool2dKernel = {BuiltinOp::kMaxPool2d, PreparePool, Eval};

}  // namespace microarena
