// Prepare and eval shared by LOGISTIC and TANH (kernels/logistic.cc,
// kernels/tanh.cc): int8 -> int8 in fixed point, float32 -> float32.
//
// int8 input rescaling, as TFLM's Prepare: m = input_scale * 2^27 in double,
// m = q * 2^shift by frexp, multiplier = round(q * 2^31) (no renormalising),
// radius = floor(15 * 2^27 / 2^shift).
#pragma once

#include <cmath>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/reference/activations.h"

namespace microarena::sigmoid {

// Persistent op data: 16 bytes.
using OpData = reference::SigmoidInt8Params;

// kTanh selects TANH's output quantization (scale 1/128, zero point 0)
// instead of LOGISTIC's (1/256, -128).
template <bool kTanh>
Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(elementwise::CheckUnaryOperands(context));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (input.type() == TensorType::kFloat32) return OkStatus();

  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  const float expected_scale = kTanh ? 1.0f / 128 : 1.0f / 256;
  const int32_t expected_zero_point = kTanh ? 0 : -128;
  if (output_q.zero_point != expected_zero_point ||
      std::fabs(output_q.scale - expected_scale) > 0.001f * expected_scale) {
    return context.Error(ErrorCode::kUnsupported,
                         "int8 output tensor %d has scale %g and zero point %d; the kernel produces scale %g and "
                         "zero point %d",
                         output.index(), static_cast<double>(output_q.scale), output_q.zero_point,
                         static_cast<double>(expected_scale), expected_zero_point);
  }
  constexpr int kIntegerBits = reference::kSigmoidInputIntegerBits;
  const double real_multiplier = static_cast<double>(input_q.scale) * static_cast<double>(1 << (31 - kIntegerBits));
  int shift = 0;
  const double mantissa = std::frexp(real_multiplier, &shift);
  const double rounded = std::round(mantissa * static_cast<double>(int64_t{1} << 31));
  if (rounded >= static_cast<double>(int64_t{1} << 31) || shift < 0 || shift > 30) {
    return context.Error(ErrorCode::kUnsupported, "input scale %g is outside the range TFLM handles",
                         static_cast<double>(input_q.scale));
  }
  OpData* data = elementwise::AllocateOpData<OpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  *op_data = data;
  data->input_zero_point = input_q.zero_point;
  data->input_multiplier = static_cast<int32_t>(rounded);
  data->input_shift = shift;
  const double radius = 1.0 * ((1 << kIntegerBits) - 1) * static_cast<double>(int64_t{1} << (31 - kIntegerBits)) /
                        static_cast<double>(int64_t{1} << shift);
  data->input_range_radius = static_cast<int32_t>(std::floor(radius));
  return OkStatus();
}

template <bool kTanh>
Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  const size_t count = input->element_count();
  if (input->type == TensorType::kFloat32) {
    if (kTanh) {
      reference::TanhFloat(count, input->As<const float>(), output->As<float>());
    } else {
      reference::LogisticFloat(count, input->As<const float>(), output->As<float>());
    }
    return OkStatus();
  }
  const auto* data = static_cast<const OpData*>(op_data);
  if (kTanh) {
    reference::TanhInt8(*data, count, input->As<const int8_t>(), output->As<int8_t>());
  } else {
    reference::LogisticInt8(*data, count, input->As<const int8_t>(), output->As<int8_t>());
  }
  return OkStatus();
}

}  // namespace microarena::sigmoid
