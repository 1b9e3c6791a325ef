// AVERAGE_POOL_2D: int8, int16 and float32, SAME/VALID padding, fused clamp.
// kAveragePool2dInt8Kernel is the int8 path alone (int8_only.h).
// Prepare is shared with MAX_POOL_2D (pool_common.h).
#include <cstdint>

#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/pool_common.h"
#include "microarena/kernels/reference/pooling.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

Status WindowOutsideInput() {
  return Status::Error(ErrorCode::kInternal, "AVERAGE_POOL_2D: a window lies outside the input");
}

// The int8 path, the whole Eval of kAveragePool2dInt8Kernel: the fast loops
// of optimized/int8_kernels.h (reference/pooling.h is their oracle).
Status EvalInt8(EvalContext& context, const void* op_data) {
  const auto& params = *static_cast<const reference::PoolParams*>(op_data);
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  if (!optimized::AveragePoolInt8(params, input, output)) return WindowOutsideInput();
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  if (context.input(0)->type == TensorType::kInt8) return EvalInt8(context, op_data);
  const auto& params = *static_cast<const reference::PoolParams*>(op_data);
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  bool complete = false;
  if (input.type == TensorType::kInt16) {
    complete = reference::AveragePoolQuantized(params, NhwcShapeOf(input), input.As<const int16_t>(),
                                               NhwcShapeOf(output), output.As<int16_t>());
  } else {
    complete = reference::AveragePoolFloat(params, NhwcShapeOf(input), input.As<const float>(), NhwcShapeOf(output),
                                           output.As<float>());
  }
  if (!complete) return WindowOutsideInput();
  return OkStatus();
}

// A band of rows (kernel.h): a copy of the window with its padding above
// seen from the views.
template <Status (*kEval)(EvalContext&, const void*)>
Status EvalBand(EvalContext& context, const void* op_data, int32_t output_first_row, int32_t input_first_row) {
  reference::PoolParams params = *static_cast<const reference::PoolParams*>(op_data);
  params.padding_height += input_first_row - output_first_row * params.stride_height;
  return kEval(context, &params);
}

}  // namespace

const KernelRegistration kAveragePool2dKernel = {BuiltinOp::kAveragePool2d, PreparePool<false>, Eval, false,
                                                 EvalBand<Eval>};
const KernelRegistration kAveragePool2dInt8Kernel = {BuiltinOp::kAveragePool2d, PreparePool<true>, EvalInt8, false,
                                                     EvalBand<EvalInt8>};

}  // namespace microarena
