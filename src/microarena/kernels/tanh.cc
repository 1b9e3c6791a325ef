// TANH: int8 -> int8 (gemmlowp fixed-point tanh on a Q4 input, output scale
// 1/128 and zero point 0) and float32, as TFLM's reference kernel. The shared
// code is in sigmoid_common.h.
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/sigmoid_common.h"

namespace microarena {

const KernelRegistration kTanhKernel = {BuiltinOp::kTanh, PrepareWithElementwiseOverlap<sigmoid::Prepare<true>, 1>, sigmoid::Eval<true>};
const KernelRegistration kTanhInt8Kernel = {
    BuiltinOp::kTanh, PrepareWithElementwiseOverlap<sigmoid::PrepareInt8<true>, 1>, sigmoid::EvalInt8<true>};

}  // namespace microarena
