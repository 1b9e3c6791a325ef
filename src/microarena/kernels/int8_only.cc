#include "microarena/kernels/int8_only.h"

namespace microarena {
namespace {

// The message in a cold frame of its own: its variadic arguments would
// otherwise widen Prepare's frame, which is on AllocateTensors' stack.
[[gnu::noinline, gnu::cold]] Status NotInt8Error(const PrepareContext& context, const TensorView& input,
                                                 const TensorView& output, const char* int8_kernel,
                                                 const char* general_kernel) {
  return context.Error(ErrorCode::kUnsupported,
                       "input tensor %d '%s' is %s and output tensor %d '%s' is %s; %s takes INT8 input and output "
                       "only (the general %s accepts these types: register it instead)",
                       input.index(), input.name(), TensorTypeName(input.type()), output.index(), output.name(),
                       TensorTypeName(output.type()), int8_kernel, general_kernel);
}

}  // namespace

bool HasInt8Activations(const SubgraphView& subgraph, const OperatorView& op) {
  const Span<const int32_t> inputs = op.inputs();
  const Span<const int32_t> outputs = op.outputs();
  if (inputs.size() < 1 || outputs.size() < 1) return false;
  const int32_t input = inputs[0];
  const int32_t output = outputs[0];
  const auto count = static_cast<int64_t>(subgraph.tensor_count());
  if (input < 0 || input >= count || output < 0 || output >= count) return false;
  return HasInt8Activations(subgraph.tensor(static_cast<size_t>(input)), subgraph.tensor(static_cast<size_t>(output)));
}

bool FitsInt8Kernel(const SubgraphView& subgraph, const OperatorView& op) {
  if (!HasInt8Activations(subgraph, op)) return false;
  const BuiltinOp code = op.code();
  if (code != BuiltinOp::kFullyConnected && code != BuiltinOp::kConv2d && code != BuiltinOp::kDepthwiseConv2d) {
    return true;
  }
  const Span<const int32_t> inputs = op.inputs();
  if (inputs.size() < 2 || inputs[1] < 0 || static_cast<size_t>(inputs[1]) >= subgraph.tensor_count()) return true;
  const TensorView weights = subgraph.tensor(static_cast<size_t>(inputs[1]));
  if (weights.type() == TensorType::kInt4) return false;
  // The convolutions' int8 kernels take per-channel weights; FULLY_CONNECTED's does not.
  const QuantizationView q = weights.quantization();
  return code != BuiltinOp::kFullyConnected || !q.is_affine() || q.channel_count() <= 1;
}

Status RequireInt8Activations(const PrepareContext& context, const char* int8_kernel, const char* general_kernel) {
  if (!context.has_input(0) || context.output_count() < 1) return OkStatus();
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (HasInt8Activations(input, output)) return OkStatus();
  return NotInt8Error(context, input, output, int8_kernel, general_kernel);
}

}  // namespace microarena
