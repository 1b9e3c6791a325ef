// L2_NORMALIZATION: float32 and int8 over the last axis, rank 1 to 4, no
// fused activation, as TFLM's reference kernel (see
// reference/l2_normalization.h). Like TFLM, the int8 output is produced
// with scale 1/128 and zero point 0 whatever the output tensor declares.
#include "microarena/kernels/reference/l2_normalization.h"

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data (int8 only): the input zero point, 4 bytes as TFLM's.
struct L2NormOpData {
  int32_t input_zero_point = 0;
};

constexpr size_t kMaxRank = 4;

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(elementwise::CheckUnaryOperands(context));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (input.rank() < 1 || input.rank() > kMaxRank) {
    return context.Error(ErrorCode::kUnsupported, "input tensor %d '%s' has rank %zu; TFLM supports 1 to %zu",
                         input.index(), input.name(), input.rank(), kMaxRank);
  }
  if (!elementwise::SameShape(input.shape(), output.shape())) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d and output tensor %d differ in shape",
                         input.index(), output.index());
  }
  // Absent options mean no activation (the schema's default).
  if (const tflite::L2NormOptions* options = context.op().raw()->builtin_options_as_L2NormOptions()) {
    if (options->fused_activation_function() != tflite::ActivationFunctionType::NONE) {
      return context.Error(ErrorCode::kUnsupported, "fused activation %s not supported (TFLM supports none)",
                           elementwise::ActivationName(options->fused_activation_function()));
    }
  }
  if (input.type() == TensorType::kFloat32) return OkStatus();
  elementwise::TensorQuantization input_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  L2NormOpData* data = elementwise::AllocateOpData<L2NormOpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  data->input_zero_point = input_q.zero_point;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  const size_t depth = static_cast<size_t>(input->dim(input->rank - 1u));
  const size_t rows = depth == 0 ? 0 : input->element_count() / depth;
  if (input->type == TensorType::kFloat32) {
    reference::L2NormalizationFloat(rows, depth, input->As<const float>(), output->As<float>());
  } else {
    reference::L2NormalizationInt8(static_cast<const L2NormOpData*>(op_data)->input_zero_point, rows, depth,
                                   input->As<const int8_t>(), output->As<int8_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kL2NormalizationKernel = {BuiltinOp::kL2Normalization, Prepare, Eval};

}  // namespace microarena
