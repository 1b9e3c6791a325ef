// HARD_SWISH: int8 (TFLM's 16-bit fixed-point algorithm, see
// reference/hard_swish.h) and float32.
//
// Multipliers (TFLM's Prepare), in float then split in double and rounded
// to 15-bit mantissas:
//   hires_scale = (1 / 128) * s_in
//   output  = hires_scale / s_out          (exponent must be <= 0)
//   reluish = hires_scale / (3 / 32768)
#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/reference/hard_swish.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data (int8 only): 16 bytes.
using OpData = reference::HardSwishInt8Params;

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(elementwise::CheckUnaryOperands(context));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (input.type() == TensorType::kFloat32) return OkStatus();

  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  const float hires_input_scale = (1.0f / 128.0f) * input_q.scale;
  const float reluish_scale = 3.0f / 32768.0f;
  OpData p;
  int32_t mantissa = 0;
  int exponent = 0;
  fixed_point::QuantizeMultiplier(static_cast<double>(hires_input_scale / output_q.scale), &mantissa, &exponent);
  if (exponent > 0) {
    return context.Error(ErrorCode::kUnsupported,
                         "input tensor %d scale %g over output tensor %d scale %g is %g; TFLM requires below 128",
                         input.index(), static_cast<double>(input_q.scale), output.index(),
                         static_cast<double>(output_q.scale), static_cast<double>(input_q.scale / output_q.scale));
  }
  p.output_multiplier = fixed_point::DownScaleInt32ToInt16Multiplier(mantissa);
  p.output_exponent = exponent;
  fixed_point::QuantizeMultiplier(static_cast<double>(hires_input_scale / reluish_scale), &mantissa, &exponent);
  // The reluish value is shifted left by exponent - 1 with TFLite's
  // value * (1 << amount); beyond 30 bits that shift is undefined.
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "input", input,
                                                    static_cast<double>(hires_input_scale / reluish_scale), exponent));
  p.reluish_multiplier = fixed_point::DownScaleInt32ToInt16Multiplier(mantissa);
  p.reluish_exponent = exponent;
  p.input_zero_point = static_cast<int16_t>(input_q.zero_point);
  p.output_zero_point = static_cast<int16_t>(output_q.zero_point);
  OpData* data = elementwise::AllocateOpData<OpData>(context);
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
    reference::HardSwishFloat(count, input->As<const float>(), output->As<float>());
  } else {
    reference::HardSwishInt8(*static_cast<const OpData*>(op_data), count, input->As<const int8_t>(),
                             output->As<int8_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kHardSwishKernel = {BuiltinOp::kHardSwish, PrepareWithElementwiseOverlap<Prepare, 1>, Eval};

}  // namespace microarena
