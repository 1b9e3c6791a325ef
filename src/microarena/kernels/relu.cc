// RELU: int8 (requantize, clamp at the output's zero) and float32. The shared
// code is in relu_common.h.
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/relu_common.h"

namespace microarena {

const KernelRegistration kReluKernel = {BuiltinOp::kRelu, PrepareWithElementwiseOverlap<relu::Prepare<false>, 1>, relu::Eval<false>};

}  // namespace microarena
