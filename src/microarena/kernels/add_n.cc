// ADD_N: the elementwise sum of two or more inputs of one shape, as TFLM's
// reference kernel.
//
// FLOAT32: summed in input order from 0. INT8 (all inputs share one scale
// and zero point): each (q - zp) is shifted left by 20 bits and halved
// (multiplier 1/2, TFLite's 8-bit add headroom), the scaled values are
// summed onto a start value of -zp (scaled the same way; TFLM starts there),
// and the sum is rescaled by 2 * input_scale / (2^20 * output_scale), offset
// by the output zero point and clamped to int8.
//
// TFLM keeps a scratch array of input pointers; microarena reads the inputs
// from the context and needs none. Op data: 24 bytes for INT8 (TFLM's 40),
// none for FLOAT32.
#include <algorithm>
#include <cstdint>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

constexpr int kAddNLeftShift = 20;

struct AddNInt8Data {
  int32_t input_offset;  // -zero point
  int32_t output_offset;
  int32_t input_multiplier;
  int32_t input_shift;
  int32_t output_multiplier;
  int32_t output_shift;
};

Status Prepare(PrepareContext& context, const void** op_data) {
  const size_t count = context.input_count();
  if (count < 2 || context.output_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "expects at least 2 inputs and 1 output, got %zu and %zu", count,
                         context.output_count());
  }
  for (size_t i = 0; i < count; ++i) {
    if (!context.has_input(i)) return context.Error(ErrorCode::kInvalidArgument, "input %zu is omitted", i);
  }
  const TensorView first = context.input(0);
  const TensorView output = context.output(0);
  const TensorType type = output.type();
  if ((type != TensorType::kFloat32 && type != TensorType::kInt8) || first.type() != type) {
    return context.Error(ErrorCode::kUnsupported, "input %s -> output %s not supported (FLOAT32 or INT8, same type)",
                         TensorTypeName(first.type()), TensorTypeName(type));
  }
  if (!shape_op::ShapeEquals(output.shape(), first.shape().data(), first.rank())) {
    return context.Error(ErrorCode::kInvalidArgument, "output tensor %d must have input 0's shape", output.index());
  }
  for (size_t i = 1; i < count; ++i) {
    const TensorView input = context.input(i);
    if (input.type() != type || !shape_op::ShapeEquals(input.shape(), first.shape().data(), first.rank())) {
      return context.Error(ErrorCode::kInvalidArgument,
                           "input %zu (tensor %d, %s) differs from input 0 in type or shape", i, input.index(),
                           TensorTypeName(input.type()));
    }
    if (type == TensorType::kInt8 && !shape_op::SameQuantization(input, first)) {
      return context.Error(ErrorCode::kUnsupported,
                           "INT8 input %zu (tensor %d) has another scale or zero point than input 0 (TFLM requires "
                           "them equal)",
                           i, input.index());
    }
  }
  *op_data = nullptr;
  if (type == TensorType::kFloat32) return OkStatus();

  elementwise::TensorQuantization qi;
  elementwise::TensorQuantization qo;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, first, "input 0", &qi));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &qo));
  auto* data = elementwise::AllocateOpData<AddNInt8Data>(context);
  if (data == nullptr) return context.OutOfMemory();
  data->input_offset = -qi.zero_point;
  data->output_offset = qo.zero_point;
  const double twice_input_scale = 2.0 * static_cast<double>(qi.scale);
  const double input_multiplier = static_cast<double>(qi.scale) / twice_input_scale;
  const double output_multiplier =
      twice_input_scale / (static_cast<double>(1 << kAddNLeftShift) * static_cast<double>(qo.scale));
  if (!elementwise::QuantizeMultiplierSmallerThanOne(input_multiplier, &data->input_multiplier, &data->input_shift) ||
      !elementwise::QuantizeMultiplierSmallerThanOne(output_multiplier, &data->output_multiplier,
                                                     &data->output_shift)) {
    return context.Error(ErrorCode::kUnsupported,
                         "output multiplier 2 * input scale / (2^20 * output scale) = %g must be below 1 (TFLM aborts)",
                         output_multiplier);
  }
  *op_data = data;
  return OkStatus();
}

int32_t ScaleInput(const AddNInt8Data& data, int32_t value) {
  return fixed_point::MultiplyByQuantizedMultiplierSmallerThanOneExp(
      fixed_point::WrappingShiftLeft(value, kAddNLeftShift), data.input_multiplier, data.input_shift);
}

Status Eval(EvalContext& context, const void* op_data) {
  EvalTensor& output = *context.output(0);
  const size_t count = output.element_count();
  const size_t inputs = context.input_count();
  if (output.type == TensorType::kFloat32) {
    // Input by input into the output: per element the same additions, in
    // the same order, as summing each element over the inputs.
    float* out = output.As<float>();
    for (size_t i = 0; i < count; ++i) out[i] = 0.0f;
    for (size_t j = 0; j < inputs; ++j) {
      const float* in = context.input(j)->As<const float>();
      for (size_t i = 0; i < count; ++i) out[i] += in[i];
    }
    return OkStatus();
  }
  const auto& data = *static_cast<const AddNInt8Data*>(op_data);
  int8_t* out = output.As<int8_t>();
  for (size_t i = 0; i < count; ++i) {
    int32_t sum = ScaleInput(data, data.input_offset);
    for (size_t j = 0; j < inputs; ++j) {
      sum = fixed_point::WrappingAdd(
          sum, ScaleInput(data, data.input_offset + static_cast<int32_t>(context.input(j)->As<const int8_t>()[i])));
    }
    const int32_t raw = fixed_point::WrappingAdd(
        fixed_point::MultiplyByQuantizedMultiplierSmallerThanOneExp(sum, data.output_multiplier, data.output_shift),
        data.output_offset);
    out[i] = static_cast<int8_t>(std::min<int32_t>(127, std::max<int32_t>(-128, raw)));
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kAddNKernel = {BuiltinOp::kAddN, Prepare, Eval};

}  // namespace microarena
