// Prepare-time checks shared by the convolution, pooling, fully-connected and
// reshape kernels. Each returns OK or an error that names the op (through the
// context), the tensor's role, index and name, and the numbers involved.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/status.h"
#include "microarena/kernels/kernel.h"
#include "microarena/kernels/reference/nhwc.h"
#include "microarena/model/model_view.h"

namespace microarena {

// `role` names the tensor in messages ("input", "filter", "bias", "output").
Status RequireType(const PrepareContext& context, const char* role, const TensorView& tensor, TensorType type);
Status RequireRank(const PrepareContext& context, const char* role, const TensorView& tensor, size_t rank);
// Input count within [min_inputs, max_inputs], exactly one output, and input 0 present.
Status RequireArity(const PrepareContext& context, size_t min_inputs, size_t max_inputs);
// Exactly `inputs` inputs, none omitted, and `outputs` outputs.
Status RequireOperands(const PrepareContext& context, size_t inputs, size_t outputs);
// One scale > 0 and one zero point within [qmin, qmax].
Status RequirePerTensorQuantization(const PrepareContext& context, const char* role, const TensorView& tensor,
                                    int32_t qmin, int32_t qmax);

// OK when `shift`, the exponent QuantizeMultiplier gave for `multiplier`,
// is at most fixed_point::kMaxMultiplierShift (31). A larger multiplier
// (2^31 or more, e.g. an output scale far below input x filter scale) makes
// TFLite shift by 32 bits or more, which is undefined: refused, naming the
// tensor (`role`, e.g. "output") whose scale sets it.
Status RequireMultiplierShift(const PrepareContext& context, const char* role, const TensorView& tensor,
                              double multiplier, int shift);

// input_scale / output_scale divided in float, then widened, as TFLM's RELU
// and ABS compute it (the double quotient rounds some ties the other way).
// A ratio that overflows float is refused, naming both scales.
Status FloatScaleRatio(const PrepareContext& context, float input_scale, float output_scale, double* ratio);

// Dimension `axis` of a tensor whose rank was checked.
inline int32_t Dim(const TensorView& tensor, size_t axis) { return tensor.shape()[axis]; }
// A rank-4 tensor's shape as NHWC.
inline reference::NhwcShape NhwcShapeOf(const TensorView& tensor) {
  return {Dim(tensor, 0), Dim(tensor, 1), Dim(tensor, 2), Dim(tensor, 3)};
}
inline reference::NhwcShape NhwcShapeOf(const EvalTensor& tensor) {
  return {tensor.dim(0), tensor.dim(1), tensor.dim(2), tensor.dim(3)};
}

}  // namespace microarena
