// SUB: int8 (TFLM's left-shift-20 rescaling, multipliers computed in float as
// TFLM's SUB does) and float32, fused activation, broadcasting up to rank 6.
// The shared code is in add_sub_common.h.
#include "microarena/kernels/add_sub_common.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"

namespace microarena {

const KernelRegistration kSubKernel = {BuiltinOp::kSub, PrepareWithElementwiseOverlap<add_sub::Prepare<true>, 2>, add_sub::Eval<true>};

}  // namespace microarena
