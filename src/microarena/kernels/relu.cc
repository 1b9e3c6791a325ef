// RELU: int8 (requantize, clamp at the output's zero) and float32. The shared
// code is in relu_common.h.
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/relu_common.h"

namespace microarena {

const KernelRegistration kReluKernel = {BuiltinOp::kRelu, relu::Prepare<false>, relu::Eval<false>};

}  // namespace microarena
