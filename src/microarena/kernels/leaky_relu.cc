// LEAKY_RELU: int8 and int16 (TFLM's two requantizations, one for x >= 0
// and one for x < 0) and float32 (x > 0 ? x : alpha * x).
//
// Multipliers (TFLM's Prepare), each computed in float then split in double:
//   identity = s_in / s_out;  alpha = s_in * alpha / s_out (left to right).
#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/reference/leaky_relu.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data: 24 bytes for int8/int16, 4 bytes (alpha) for float32.
using QuantizedOpData = reference::LeakyReluQuantizedParams;
struct FloatOpData {
  float alpha = 0.0f;
};

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(elementwise::CheckUnaryOperands(context, /*allow_int16=*/true));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  // The schema's default alpha when the options are absent.
  float alpha = 0.0f;
  if (const tflite::LeakyReluOptions* options = context.op().raw()->builtin_options_as_LeakyReluOptions()) {
    alpha = options->alpha();
  }
  if (input.type() == TensorType::kFloat32) {
    FloatOpData* data = elementwise::AllocateOpData<FloatOpData>(context);
    if (data == nullptr) return context.OutOfMemory();
    data->alpha = alpha;
    *op_data = data;
    return OkStatus();
  }

  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  if (!std::isfinite(alpha)) {
    return context.Error(ErrorCode::kInvalidArgument, "alpha %g is not finite", static_cast<double>(alpha));
  }
  QuantizedOpData p;
  int shift = 0;
  const auto alpha_real = static_cast<double>(input_q.scale * alpha / output_q.scale);
  fixed_point::QuantizeMultiplier(alpha_real, &p.alpha_multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, alpha_real, shift));
  p.alpha_shift = shift;
  if (p.alpha_multiplier == std::numeric_limits<int32_t>::min()) {
    // TFLM negates the mantissa of a negative alpha; -2^31 has no magnitude.
    return context.Error(ErrorCode::kUnsupported, "alpha multiplier %g rounds to a mantissa of -2^31",
                         alpha_real);
  }
  const auto identity_real = static_cast<double>(input_q.scale / output_q.scale);
  fixed_point::QuantizeMultiplier(identity_real, &p.identity_multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, identity_real, shift));
  p.identity_shift = shift;
  p.input_zero_point = input_q.zero_point;
  p.output_zero_point = output_q.zero_point;
  QuantizedOpData* data = elementwise::AllocateOpData<QuantizedOpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  *data = p;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  const size_t count = input->element_count();
  if (input->type == TensorType::kFloat32) {
    reference::LeakyReluFloat(static_cast<const FloatOpData*>(op_data)->alpha, count, input->As<const float>(),
                              output->As<float>());
  } else if (input->type == TensorType::kInt16) {
    reference::LeakyReluQuantized(*static_cast<const QuantizedOpData*>(op_data), count, input->As<const int16_t>(),
                                  output->As<int16_t>());
  } else {
    reference::LeakyReluQuantized(*static_cast<const QuantizedOpData*>(op_data), count, input->As<const int8_t>(),
                                  output->As<int8_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kLeakyReluKernel = {BuiltinOp::kLeakyRelu, PrepareWithElementwiseOverlap<Prepare, 1>, Eval};

}  // namespace microarena
