// Prepare and eval shared by AVERAGE_POOL_2D and MAX_POOL_2D.
//
// Both take one rank-4 NHWC input (int8, int16 or float32) and one output of
// the same type, batch and depth; quantized input and output must share zero
// point and scale (within TFLM's 1e-6: the reference math averages or
// compares the raw values). The op data
// is one reference::PoolParams (40 bytes).
#pragma once

#include "microarena/base/status.h"
#include "microarena/kernels/kernel.h"

namespace microarena {

// Validates the op and writes a persistent reference::PoolParams to *op_data.
// kInt8Only: for kAveragePool2dInt8Kernel and kMaxPool2dInt8Kernel, which
// refuse all but INT8 activations first; the int16 and float32 branches
// compile out.
template <bool kInt8Only = false>
Status PreparePool(PrepareContext& context, const void** op_data);

}  // namespace microarena
