// ELU: float32 (expm1) and int8 (a 256-byte lookup table built at prepare,
// as TFLM's kernel does; see reference/elu.h).
#include "microarena/kernels/reference/elu.h"

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data (int8 only): the table, 256 bytes as TFLM's OpData.
struct EluOpData {
  int8_t table[256];
};

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(elementwise::CheckUnaryOperands(context));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (input.type() == TensorType::kFloat32) return OkStatus();
  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  EluOpData* data = elementwise::AllocateOpData<EluOpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  reference::PopulateEluTableInt8(input_q.scale, input_q.zero_point, output_q.scale, output_q.zero_point, data->table);
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  const size_t count = input->element_count();
  if (input->type == TensorType::kFloat32) {
    reference::EluFloat(count, input->As<const float>(), output->As<float>());
  } else {
    reference::LookupInt8(static_cast<const EluOpData*>(op_data)->table, count, input->As<const int8_t>(),
                          output->As<int8_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kEluKernel = {BuiltinOp::kElu, PrepareWithElementwiseOverlap<Prepare, 1>, Eval};

}  // namespace microarena
