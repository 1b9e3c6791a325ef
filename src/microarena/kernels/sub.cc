// SUB: int8 and int16 (TFLM's general rescaling, left shift 20 or 15, with
// multipliers computed in float as TFLM's SUB does) and float32, fused
// activation, broadcasting up to rank 6.
// The shared code is in add_sub_common.h.
#include "microarena/kernels/add_sub_common.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"

namespace microarena {

const KernelRegistration kSubKernel = {BuiltinOp::kSub, PrepareWithElementwiseOverlap<add_sub::Prepare<true>, 2>, add_sub::Eval<true>};
const KernelRegistration kSubInt8Kernel = {
    BuiltinOp::kSub, PrepareWithElementwiseOverlap<add_sub::Prepare<true, true>, 2>, add_sub::EvalInt8<true>};

}  // namespace microarena
