// Prepare and eval shared by RELU and RELU6 (kernels/relu.cc,
// kernels/relu6.cc): int8 -> int8, int16 -> int16 and float32 -> float32,
// as TFLM's reference kernels.
//
// int8 RELU requantizes (multiplier = input_scale / output_scale, divided in
// float and then widened to double, as TFLM does: a ratio such as 0.5 / 0.4
// is exactly 1.25 in float but 1.2499999814 from the doubles, which moves
// ties such as 50 x 1.25)
// and clamps at the output's quantized 0. int8 RELU6 clamps to the input's
// quantized [0, 6] (six = clamp(round(6 / scale) + zero_point)) and copies the
// bytes without requantizing, whatever the output's quantization says: TFLM
// does the same (checked against it by tests/differential_test.cc). int16:
// the same arithmetic on int16; RELU requires both zero points 0, as TFLM.
#pragma once

#include <cmath>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/reference/activations.h"
#include "microarena/kernels/reference/quantize.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena::relu {

// Persistent op data: 24 bytes.
struct OpData {
  reference::ReluInt8Params relu;  // RELU; RELU6 keeps its bounds in activation_min/max
};

template <bool kRelu6>
Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(elementwise::CheckUnaryOperands(context, /*allow_int16=*/true));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (input.type() == TensorType::kFloat32) return OkStatus();

  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  // RELU6 never reads the output's quantization (TFLM runs it without one).
  if (!kRelu6) {
    MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  }
  OpData* data = elementwise::AllocateOpData<OpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  *op_data = data;
  reference::ReluInt8Params& p = data->relu;
  const bool int16 = input.type() == TensorType::kInt16;
  const int64_t type_min = int16 ? INT16_MIN : INT8_MIN;
  const int64_t type_max = int16 ? INT16_MAX : INT8_MAX;
  if (kRelu6) {
    const int64_t six = reference::SaturatingRoundToInt64(6.0f / input_q.scale) + input_q.zero_point;
    p.activation_min = input_q.zero_point;
    p.activation_max = static_cast<int32_t>(std::clamp<int64_t>(six, type_min, type_max));
    return OkStatus();
  }
  if (int16 && (input_q.zero_point != 0 || output_q.zero_point != 0)) {
    return context.Error(ErrorCode::kUnsupported,
                         "int16 tensors %d -> %d have zero points %d -> %d; TFLM requires 0", input.index(),
                         output.index(), input_q.zero_point, output_q.zero_point);
  }
  double real_multiplier = 0.0;
  MICROARENA_RETURN_IF_ERROR(FloatScaleRatio(context, input_q.scale, output_q.scale, &real_multiplier));
  int shift = 0;
  fixed_point::QuantizeMultiplier(real_multiplier, &p.multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, real_multiplier, shift));
  p.shift = shift;
  p.input_zero_point = input_q.zero_point;
  p.output_zero_point = output_q.zero_point;
  p.activation_min = static_cast<int32_t>(std::max<int64_t>(type_min, output_q.zero_point));  // zp + round(0 / s)
  p.activation_max = static_cast<int32_t>(type_max);
  return OkStatus();
}

template <bool kRelu6>
Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  const size_t count = input->element_count();
  if (input->type == TensorType::kFloat32) {
    const float upper = kRelu6 ? 6.0f : std::numeric_limits<float>::infinity();
    reference::ClampArray(0.0f, upper, count, input->As<const float>(), output->As<float>());
    return OkStatus();
  }
  const reference::ReluInt8Params& p = static_cast<const OpData*>(op_data)->relu;
  if (input->type == TensorType::kInt16) {
    if (kRelu6) {
      reference::ClampArray(static_cast<int16_t>(p.activation_min), static_cast<int16_t>(p.activation_max), count,
                            input->As<const int16_t>(), output->As<int16_t>());
    } else {
      reference::ReluQuantized(p, count, input->As<const int16_t>(), output->As<int16_t>());
    }
    return OkStatus();
  }
  if (kRelu6) {
    reference::ClampArray(static_cast<int8_t>(p.activation_min), static_cast<int8_t>(p.activation_max), count,
                          input->As<const int8_t>(), output->As<int8_t>());
  } else {
    reference::ReluInt8(p, count, input->As<const int8_t>(), output->As<int8_t>());
  }
  return OkStatus();
}

}  // namespace microarena::relu
