// The int8-only registrations (kConv2dInt8Kernel and the others listed by
// MICROARENA_FOR_EACH_INT8_KERNEL in registrations.h), as TFLM's
// Register_CONV_2D_INT8 and friends: the same op as the general kernel, for
// a model whose instances of the op all have INT8 activations.
//
//                     prepare                                  eval
//   general kernel    Prepare<kInt8Only = false>               Eval: EvalInt8 | int16 | int32 | float32
//   int8-only kernel  Prepare<kInt8Only = true>: the int8      EvalInt8
//                     check, then the same checks with the
//                     other types' branches compiled out
//
// EvalInt8 is one function both Evals call and Prepare one template, so
// nothing is copied; a firmware that registers only the int8-only kernel
// links none of the op's int16 and float32 code (-ffunction-sections,
// --gc-sections). SOFTMAX, LOGISTIC and TANH split Prepare into functions
// instead of a template flag, to the same end.
//
// The rule is one for every int8-only kernel, and `microarena embed
// --resolver` (report/resolver_header.h) applies the same function
// (FitsInt8Kernel): input 0 and output 0 are INT8; the weights of CONV_2D and
// DEPTHWISE_CONV_2D also INT8, FULLY_CONNECTED's INT8 per tensor. The op's other operands (filter, bias, second input) are
// checked by the op's own Prepare as in the general kernel.
#pragma once

#include "microarena/base/status.h"
#include "microarena/kernels/kernel.h"
#include "microarena/model/model_view.h"

namespace microarena {

// Whether an int8-only kernel accepts an op with this input 0 and output 0.
inline bool HasInt8Activations(const TensorView& input, const TensorView& output) {
  return input.type() == TensorType::kInt8 && output.type() == TensorType::kInt8;
}

// The same for `op` of `subgraph`: false when input 0 or output 0 is missing
// or out of range (the op's Prepare then refuses it in either kernel).
bool HasInt8Activations(const SubgraphView& subgraph, const OperatorView& op);

// Whether the int8-only kernel of `op` takes it: INT8 activations; INT8
// weights for CONV_2D and DEPTHWISE_CONV_2D, per-tensor INT8 weights for
// FULLY_CONNECTED (the loops of INT4 weights, and FULLY_CONNECTED's
// per-channel loop, are in the general kernels only, so models without them
// do not carry them).
bool FitsInt8Kernel(const SubgraphView& subgraph, const OperatorView& op);

// Prepare's first check in an int8-only kernel (`int8_kernel`, the symbol of
// its registration): OK when input 0 and output 0 are INT8 (or missing,
// which the op's own checks then refuse); else an error that names the op,
// both tensors and their types, and `general_kernel`, which accepts them.
Status RequireInt8Activations(const PrepareContext& context, const char* int8_kernel, const char* general_kernel);

}  // namespace microarena
