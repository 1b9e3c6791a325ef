// ADD: int8 and int16 (TFLM's general rescaling, left shift 20 or 15) and
// float32, fused activation, broadcasting up to rank 6. The shared code is in add_sub_common.h.
#include "microarena/kernels/add_sub_common.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"

namespace microarena {

const KernelRegistration kAddKernel = {BuiltinOp::kAdd, PrepareWithElementwiseOverlap<add_sub::Prepare<false>, 2>, add_sub::Eval<false>};
const KernelRegistration kAddInt8Kernel = {
    BuiltinOp::kAdd, PrepareWithElementwiseOverlap<add_sub::Prepare<false, true>, 2>, add_sub::EvalInt8<false>};

}  // namespace microarena
