// PRELU: float32, int8 (int8 alpha) and int16 (int8 alpha), alpha
// broadcast against the input, as TFLM's reference kernel (see
// reference/prelu.h). TFLM broadcasts in 4-D, so ranks above 4 are refused.
#include "microarena/kernels/reference/prelu.h"

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data (quantized only): 28 bytes, as TFLM's PreluParams.
using OpData = reference::PreluQuantizedParams;

constexpr size_t kMaxRank = 4;

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input = context.input(0);
  const TensorView alpha = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = input.type();
  const TensorType alpha_type = type == TensorType::kInt16 ? TensorType::kInt8 : type;
  if ((type != TensorType::kFloat32 && type != TensorType::kInt8 && type != TensorType::kInt16) ||
      output.type() != type || alpha.type() != alpha_type) {
    return context.Error(ErrorCode::kUnsupported,
                         "input %s, alpha %s -> output %s not supported (FLOAT32 or INT8 throughout, or INT16 with "
                         "INT8 alpha)",
                         TensorTypeName(type), TensorTypeName(alpha.type()), TensorTypeName(output.type()));
  }
  if (input.rank() > kMaxRank || alpha.rank() > kMaxRank || output.rank() > kMaxRank) {
    return context.Error(ErrorCode::kUnsupported, "input, alpha and output ranks %zu, %zu, %zu; at most %zu",
                         input.rank(), alpha.rank(), output.rank(), kMaxRank);
  }
  reference::BroadcastShape broadcast;
  bool matches = reference::MakeBroadcastShape(input.shape().data(), input.rank(), alpha.shape().data(), alpha.rank(),
                                               &broadcast) &&
                 broadcast.rank == output.rank();
  for (size_t axis = 0; matches && axis < broadcast.rank; ++axis) {
    matches = broadcast.output_dims[axis] == output.shape()[axis];
  }
  if (!matches) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "input tensor %d and alpha tensor %d do not broadcast to output tensor %d's shape",
                         input.index(), alpha.index(), output.index());
  }
  if (type == TensorType::kFloat32) return OkStatus();

  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization alpha_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, alpha, "alpha", &alpha_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  OpData p;
  int shift = 0;
  const double identity = static_cast<double>(input_q.scale) / static_cast<double>(output_q.scale);
  fixed_point::QuantizeMultiplier(identity, &p.identity_multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, identity, shift));
  p.identity_shift = shift;
  const double scaled_alpha =
      static_cast<double>(input_q.scale) * static_cast<double>(alpha_q.scale) / static_cast<double>(output_q.scale);
  fixed_point::QuantizeMultiplier(scaled_alpha, &p.alpha_multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, scaled_alpha, shift));
  p.alpha_shift = shift;
  p.input_zero_point = input_q.zero_point;
  p.alpha_zero_point = alpha_q.zero_point;
  p.output_zero_point = output_q.zero_point;
  OpData* data = elementwise::AllocateOpData<OpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  *data = p;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  const EvalTensor* alpha = context.input(1);
  EvalTensor* output = context.output(0);
  reference::BroadcastShape shape;
  // Checked at prepare.
  reference::MakeBroadcastShape(input->dims, input->rank, alpha->dims, alpha->rank, &shape);
  if (input->type == TensorType::kFloat32) {
    reference::PreluFloat(shape, input->As<const float>(), alpha->As<const float>(), output->As<float>());
  } else if (input->type == TensorType::kInt8) {
    reference::PreluQuantized(*static_cast<const OpData*>(op_data), shape, input->As<const int8_t>(),
                              alpha->As<const int8_t>(), output->As<int8_t>());
  } else {
    reference::PreluQuantized(*static_cast<const OpData*>(op_data), shape, input->As<const int16_t>(),
                              alpha->As<const int8_t>(), output->As<int16_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kPreluKernel = {BuiltinOp::kPrelu, PrepareWithElementwiseOverlap<Prepare, 1>, Eval};

}  // namespace microarena
