// Prepare and eval shared by LOGISTIC and TANH (kernels/logistic.cc,
// kernels/tanh.cc): int8 -> int8 in fixed point, int16 -> int16 by TFLite's
// sigmoid table (reference/lstm.h), float32 -> float32. PrepareInt8 and
// EvalInt8 are the int8 path alone (int8_only.h).
//
// int8 input rescaling, as TFLM's Prepare: m = input_scale * 2^27 in double,
// m = q * 2^shift by frexp, multiplier = round(q * 2^31) (no renormalising),
// radius = floor(15 * 2^27 / 2^shift).
//
// int16 input rescaling, as TFLM's Prepare: both zero points 0, output scale
// 2^-15 (log2 within 1e-3). An input scale of 2^-12 (LOGISTIC; TANH also
// 2^-11) is the table's own Q3.12 (multiplier 0 = 3 * 2^shift); any other
// scale becomes an integer multiplier from input_scale * 3 * 4096, doubled
// (shift + 1) while it is at most 32767 / 2 and the shift at most 30.
#pragma once

#include <cmath>
#include <cstdint>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/int8_only.h"
#include "microarena/kernels/reference/activations.h"
#include "microarena/kernels/reference/lstm.h"

namespace microarena::sigmoid {

// Persistent op data: 16 bytes.
using OpData = reference::SigmoidInt8Params;

// kTanh selects TANH's output quantization (scale 1/128, zero point 0)
// instead of LOGISTIC's (1/256, -128).
// TFLite's CheckedLog2: log2(x) in float, rounded; true when x is within
// 1e-3 (in log2) of that power of two.
inline bool CheckedLog2(float x, int* log2_rounded) {
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float rounded = std::round(x_log2);
  *log2_rounded = static_cast<int>(rounded);
  return std::fabs(x_log2 - rounded) < 1e-3f;
}

template <bool kTanh>
Status PrepareInt16(PrepareContext& context, const TensorView& input, const TensorView& output, OpData* data) {
  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  if (input_q.zero_point != 0 || output_q.zero_point != 0) {
    return context.Error(ErrorCode::kUnsupported,
                         "int16 input tensor %d and output tensor %d have zero points %d and %d; TFLM requires 0",
                         input.index(), output.index(), input_q.zero_point, output_q.zero_point);
  }
  int output_log2 = 0;
  if (!CheckedLog2(output_q.scale, &output_log2) || output_log2 != -15) {
    return context.Error(ErrorCode::kUnsupported, "int16 output tensor %d has scale %g; TFLM requires 2^-15",
                         output.index(), static_cast<double>(output_q.scale));
  }
  int input_log2 = 0;
  const bool power_of_two = CheckedLog2(input_q.scale, &input_log2);
  // The table reads Q3.12 times 3: shift 0 (and 1 for TANH) needs no multiplier.
  const int pot_shift = 12 + input_log2;
  if (power_of_two && (pot_shift == 0 || (kTanh && pot_shift == 1))) {
    data->input_multiplier = 0;
    data->input_shift = pot_shift;
    return OkStatus();
  }
  double multiplier = static_cast<double>(input_q.scale) * 4096.0 * 3.0;
  int32_t shift = 0;
  while (multiplier <= 32767.0 / 2.0 && shift <= 30) {
    ++shift;
    multiplier *= 2.0;
  }
  // Above 65535 TFLM's int16 * multiplier overflows int32 (it documents a
  // limit of 32767, checked only in debug builds); 0 would read as the
  // power-of-two case with a shift of 31.
  if (!(multiplier >= 1.0) || multiplier >= 65536.0) {
    return context.Error(ErrorCode::kUnsupported,
                         "int16 input tensor %d scale %g gives an input multiplier %g outside TFLM's range [1, 65535]",
                         input.index(), static_cast<double>(input_q.scale), multiplier);
  }
  data->input_multiplier = static_cast<int32_t>(multiplier);
  data->input_shift = shift;
  return OkStatus();
}

// INT8 input and output.
template <bool kTanh>
Status PrepareInt8Input(PrepareContext& context, const TensorView& input, const TensorView& output,
                        const void** op_data) {
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
Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(elementwise::CheckUnaryOperands(context, /*allow_int16=*/true));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (input.type() == TensorType::kFloat32) return OkStatus();
  if (input.type() == TensorType::kInt16) {
    OpData* data = elementwise::AllocateOpData<OpData>(context);
    if (data == nullptr) return context.OutOfMemory();
    *op_data = data;
    return PrepareInt16<kTanh>(context, input, output, data);
  }
  return PrepareInt8Input<kTanh>(context, input, output, op_data);
}

template <bool kTanh>
Status PrepareInt8(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireInt8Activations(context, kTanh ? "kTanhInt8Kernel" : "kLogisticInt8Kernel",
                                                    kTanh ? "kTanhKernel" : "kLogisticKernel"));
  MICROARENA_RETURN_IF_ERROR(elementwise::CheckUnaryOperands(context, /*allow_int16=*/true));
  return PrepareInt8Input<kTanh>(context, context.input(0), context.output(0), op_data);
}

// The int8 path, the whole Eval of kLogisticInt8Kernel and kTanhInt8Kernel.
template <bool kTanh>
Status EvalInt8(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  const auto& data = *static_cast<const OpData*>(op_data);
  if (kTanh) {
    reference::TanhInt8(data, input->element_count(), input->As<const int8_t>(), context.output(0)->As<int8_t>());
  } else {
    reference::LogisticInt8(data, input->element_count(), input->As<const int8_t>(), context.output(0)->As<int8_t>());
  }
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
  if (input->type == TensorType::kInt16) {
    const int size = static_cast<int>(count);
    if (kTanh) {
      reference::TanhInt16(data->input_multiplier, data->input_shift, size, input->As<const int16_t>(),
                           output->As<int16_t>());
    } else {
      reference::LogisticInt16(data->input_multiplier, data->input_shift, size, input->As<const int16_t>(),
                               output->As<int16_t>());
    }
    return OkStatus();
  }
  return EvalInt8<kTanh>(context, op_data);
}

}  // namespace microarena::sigmoid
