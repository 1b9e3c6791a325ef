// RELU6: int8 (clamp to the quantized [0, 6]) and float32. The shared code is
// in relu_common.h.
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/relu_common.h"

namespace microarena {

const KernelRegistration kRelu6Kernel = {BuiltinOp::kRelu6, PrepareWithElementwiseOverlap<relu::Prepare<true>, 1>, relu::Eval<true>};

}  // namespace microarena
