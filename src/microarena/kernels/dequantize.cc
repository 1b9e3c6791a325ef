// DEQUANTIZE: int8, uint8, int16 -> float32, x = (float)(scale * (q - zero_point))
// with the scale widened to double, as TFLM's reference kernel.
#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/reference/quantize.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data: 8 bytes.
struct DequantizeOpData {
  float scale = 0.0f;
  int32_t zero_point = 0;
};

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  const TensorType type = input.type();
  if ((type != TensorType::kInt8 && type != TensorType::kUInt8 && type != TensorType::kInt16) ||
      output.type() != TensorType::kFloat32) {
    return context.Error(ErrorCode::kUnsupported, "input %s -> output %s not supported (INT8/UINT8/INT16 -> FLOAT32)",
                         TensorTypeName(input.type()), TensorTypeName(output.type()));
  }
  if (input.element_count() != output.element_count()) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has %zu elements, output tensor %d has %zu",
                         input.index(), input.element_count(), output.index(), output.element_count());
  }
  elementwise::TensorQuantization input_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  DequantizeOpData* data = elementwise::AllocateOpData<DequantizeOpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  *op_data = data;
  data->scale = input_q.scale;
  data->zero_point = input_q.zero_point;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const DequantizeOpData*>(op_data);
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  const double scale = static_cast<double>(data->scale);
  const size_t count = input->element_count();
  if (input->type == TensorType::kInt8) {
    reference::Dequantize(scale, data->zero_point, count, input->As<const int8_t>(), output->As<float>());
  } else if (input->type == TensorType::kUInt8) {
    reference::Dequantize(scale, data->zero_point, count, input->As<const uint8_t>(), output->As<float>());
  } else {
    reference::Dequantize(scale, data->zero_point, count, input->As<const int16_t>(), output->As<float>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kDequantizeKernel = {BuiltinOp::kDequantize, PrepareWithElementwiseOverlap<Prepare, 1>, Eval};

}  // namespace microarena
