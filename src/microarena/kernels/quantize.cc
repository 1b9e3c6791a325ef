// QUANTIZE, the conversions TFLM's reference kernel supports:
//   FLOAT32 -> INT8, INT16                  (affine quantize, float division)
//   INT8    -> INT8, UINT8, INT16, INT32    (requantize)
//   INT16   -> INT8, INT16, INT32           (requantize)
//   INT32   -> INT8, INT16                  (requantize)
//   UINT8   -> INT8                         (requantize)
// The requantize multiplier is input_scale / output_scale in double, split by
// QuantizeMultiplier; the output is per-tensor quantized.
#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/reference/quantize.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data: 20 bytes.
struct QuantizeOpData {
  reference::RequantizeParams requantize;  // integer input
  float output_scale = 0.0f;               // float input (zero point in requantize)
};

bool Supported(TensorType in, TensorType out) {
  using T = TensorType;
  switch (in) {
    case T::kFloat32: return out == T::kInt8 || out == T::kInt16;
    case T::kInt8: return out == T::kInt8 || out == T::kUInt8 || out == T::kInt16 || out == T::kInt32;
    case T::kInt16: return out == T::kInt8 || out == T::kInt16 || out == T::kInt32;
    case T::kInt32: return out == T::kInt8 || out == T::kInt16;
    case T::kUInt8: return out == T::kInt8;
    default: return false;
  }
}

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (!Supported(input.type(), output.type())) {
    return context.Error(ErrorCode::kUnsupported, "input tensor %d (%s) -> output tensor %d (%s) not supported",
                         input.index(), TensorTypeName(input.type()), output.index(), TensorTypeName(output.type()));
  }
  if (input.element_count() != output.element_count()) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has %zu elements, output tensor %d has %zu",
                         input.index(), input.element_count(), output.index(), output.element_count());
  }
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));

  QuantizeOpData* data = elementwise::AllocateOpData<QuantizeOpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  *op_data = data;
  data->output_scale = output_q.scale;
  data->requantize.output_zero_point = output_q.zero_point;
  if (input.type() == TensorType::kFloat32) return OkStatus();

  elementwise::TensorQuantization input_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  data->requantize.input_zero_point = input_q.zero_point;
  const double effective_scale = static_cast<double>(input_q.scale) / static_cast<double>(output_q.scale);
  int shift = 0;
  fixed_point::QuantizeMultiplier(effective_scale, &data->requantize.multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, effective_scale, shift));
  data->requantize.shift = shift;
  return OkStatus();
}

template <typename InputT>
void RequantizeFrom(const reference::RequantizeParams& params, const EvalTensor* input, EvalTensor* output) {
  const size_t count = input->element_count();
  const InputT* in = input->As<const InputT>();
  switch (output->type) {
    case TensorType::kInt8: reference::Requantize(params, count, in, output->As<int8_t>()); break;
    case TensorType::kUInt8: reference::Requantize(params, count, in, output->As<uint8_t>()); break;
    case TensorType::kInt16: reference::Requantize(params, count, in, output->As<int16_t>()); break;
    default: reference::Requantize(params, count, in, output->As<int32_t>()); break;
  }
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const QuantizeOpData*>(op_data);
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  switch (input->type) {
    case TensorType::kFloat32: {
      const size_t count = input->element_count();
      const int32_t zero_point = data->requantize.output_zero_point;
      if (output->type == TensorType::kInt8) {
        reference::AffineQuantize(data->output_scale, zero_point, count, input->As<const float>(),
                                  output->As<int8_t>());
      } else {
        reference::AffineQuantize(data->output_scale, zero_point, count, input->As<const float>(),
                                  output->As<int16_t>());
      }
      break;
    }
    case TensorType::kInt8: RequantizeFrom<int8_t>(data->requantize, input, output); break;
    case TensorType::kInt16: RequantizeFrom<int16_t>(data->requantize, input, output); break;
    case TensorType::kInt32: RequantizeFrom<int32_t>(data->requantize, input, output); break;
    default: RequantizeFrom<uint8_t>(data->requantize, input, output); break;
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kQuantizeKernel = {BuiltinOp::kQuantize, PrepareWithElementwiseOverlap<Prepare, 1>, Eval};

}  // namespace microarena
