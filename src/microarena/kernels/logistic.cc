// LOGISTIC: int8 -> int8 (gemmlowp fixed-point logistic on a Q4 input,
// output scale 1/256 and zero point -128) and float32, as TFLM's reference
// kernel. The shared code is in sigmoid_common.h.
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/sigmoid_common.h"

namespace microarena {

const KernelRegistration kLogisticKernel = {BuiltinOp::kLogistic, PrepareWithElementwiseOverlap<sigmoid::Prepare<false>, 1>, sigmoid::Eval<false>};
const KernelRegistration kLogisticInt8Kernel = {
    BuiltinOp::kLogistic, PrepareWithElementwiseOverlap<sigmoid::PrepareInt8<false>, 1>, sigmoid::EvalInt8<false>};

}  // namespace microarena
