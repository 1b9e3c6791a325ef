// CUMSUM: float32 and int8 (TFLM's reference kernel takes no other type),
// exclusive and reverse flags, the axis an INT32 tensor of one element
// (read at eval as TFLM does: a non-constant axis is checked there). See
// reference/cumsum.h.
#include "microarena/kernels/reference/cumsum.h"

#include <cstring>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data: the flags (2 bytes, float32) or the flags and the
// int8 parameters (28 bytes; TFLM's are 36 plus its 2-byte options).
struct CumsumFlags {
  uint8_t exclusive = 0;
  uint8_t reverse = 0;
};
struct CumsumInt8OpData {
  CumsumFlags flags;  // first, so the op data starts with the flags either way
  reference::CumsumInt8Params params;
};

// The axis resolved against `rank`, or -1 when out of range.
int32_t ResolveAxis(int32_t axis, size_t rank) {
  const auto r = static_cast<int32_t>(rank);
  if (axis < 0) axis += r;
  return axis >= 0 && axis < r ? axis : -1;
}

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input = context.input(0);
  const TensorView axis = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = input.type();
  if ((type != TensorType::kFloat32 && type != TensorType::kInt8) || output.type() != type) {
    return context.Error(ErrorCode::kUnsupported, "input %s -> output %s not supported (FLOAT32 or INT8, same type)",
                         TensorTypeName(type), TensorTypeName(output.type()));
  }
  if (axis.type() != TensorType::kInt32 || axis.element_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "axis tensor %d '%s' is %s with %zu elements; expected one INT32",
                         axis.index(), axis.name(), TensorTypeName(axis.type()), axis.element_count());
  }
  if (input.rank() < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d '%s' is a scalar; CUMSUM needs rank >= 1",
                         input.index(), input.name());
  }
  if (!elementwise::SameShape(input.shape(), output.shape())) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d and output tensor %d differ in shape",
                         input.index(), output.index());
  }
  if (axis.is_constant()) {
    int32_t value = 0;
    std::memcpy(&value, axis.data().data(), sizeof(value));
    if (ResolveAxis(value, input.rank()) < 0) {
      return context.Error(ErrorCode::kInvalidArgument, "axis %d is out of range for input tensor %d of rank %zu",
                           static_cast<int>(value), input.index(), input.rank());
    }
  }
  CumsumFlags flags;
  if (const tflite::CumsumOptions* options = context.op().raw()->builtin_options_as_CumsumOptions()) {
    flags.exclusive = options->exclusive() ? 1 : 0;
    flags.reverse = options->reverse() ? 1 : 0;
  }
  if (type == TensorType::kFloat32) {
    CumsumFlags* data = elementwise::AllocateOpData<CumsumFlags>(context);
    if (data == nullptr) return context.OutOfMemory();
    *data = flags;
    *op_data = data;
    return OkStatus();
  }
  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  CumsumInt8OpData d;
  d.flags = flags;
  d.params.input_zero_point = input_q.zero_point;
  d.params.output_zero_point = output_q.zero_point;
  const double twice_input_scale = 2 * static_cast<double>(input_q.scale);
  const double input_multiplier = static_cast<double>(input_q.scale) / twice_input_scale;
  const double output_multiplier =
      twice_input_scale / ((1 << reference::kCumsumIntegerShift) * static_cast<double>(output_q.scale));
  if (!elementwise::QuantizeMultiplierSmallerThanOne(input_multiplier, &d.params.input_multiplier,
                                                     &d.params.input_shift) ||
      !elementwise::QuantizeMultiplierSmallerThanOne(output_multiplier, &d.params.output_multiplier,
                                                     &d.params.output_shift)) {
    return context.Error(ErrorCode::kUnsupported,
                         "2 * input scale %g / (2^20 * output scale %g) = %g; TFLM requires it below 1",
                         static_cast<double>(input_q.scale), static_cast<double>(output_q.scale), output_multiplier);
  }
  CumsumInt8OpData* data = elementwise::AllocateOpData<CumsumInt8OpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  *data = d;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  const EvalTensor* axis_tensor = context.input(1);
  EvalTensor* output = context.output(0);
  int32_t axis_value = 0;
  std::memcpy(&axis_value, axis_tensor->data, sizeof(axis_value));
  const int32_t axis = ResolveAxis(axis_value, input->rank);
  if (axis < 0) {
    return Status::Error(ErrorCode::kInvalidArgument, "CUMSUM: axis %d is out of range for rank %d",
                         static_cast<int>(axis_value), static_cast<int>(input->rank));
  }
  const reference::CumsumShape shape = reference::MakeCumsumShape(input->dims, input->rank, static_cast<size_t>(axis));
  const auto* flags = static_cast<const CumsumFlags*>(op_data);
  if (input->type == TensorType::kFloat32) {
    reference::CumsumPlain(shape, flags->exclusive != 0, flags->reverse != 0, input->As<const float>(),
                           output->As<float>());
  } else {
    reference::CumsumInt8(static_cast<const CumsumInt8OpData*>(op_data)->params, shape, flags->exclusive != 0,
                          flags->reverse != 0, input->As<const int8_t>(), output->As<int8_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kCumsumKernel = {BuiltinOp::kCumsum, Prepare, Eval};

}  // namespace microarena
