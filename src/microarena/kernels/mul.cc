// MUL: int8 (one requantization of the product of the centred inputs), int16
// (the same math; TFLM requires every zero point 0), plain int32 (the low 32
// bits of the product; quantization ignored, as TFLM does) and float32, fused
// activation, numpy broadcasting up to rank 6, as TFLM's reference kernel
// (kMaxMulBroadcastDim = 6). TFLM does not check the output's type against
// the inputs' (it would write int16 results into an int8 output); all three
// must be of one type here. kMulInt8Kernel is the int8 path alone
// (int8_only.h).
//
// Multiplier (TFLM's Prepare): s1 * s2 / s_out in double, split by
// QuantizeMultiplier; it may be above 1 (positive shift).
#include <algorithm>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/int8_only.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/reference/broadcast.h"
#include "microarena/kernels/reference/mul.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"
#include "microarena/kernels/wrapping_math.h"

namespace microarena {
namespace {

// Persistent op data for int8 and int16: 32 bytes (TFLM: 36).
struct QuantizedOpData {
  reference::MulQuantizedParams params;
  bool requires_broadcast = false;
};

// Persistent op data for float32: 12 bytes.
struct FloatOpData {
  reference::FloatActivationRange range;
  bool requires_broadcast = false;
};

// kInt8Only: the Prepare of kMulInt8Kernel, which refuses all but INT8
// activations first; the float32 branch compiles out.
template <bool kInt8Only>
Status PrepareOp(PrepareContext& context, const void** op_data) {
  if (kInt8Only) MICROARENA_RETURN_IF_ERROR(RequireInt8Activations(context, "kMulInt8Kernel", "kMulKernel"));
  MICROARENA_RETURN_IF_ERROR(
      elementwise::CheckBinaryOperands(context, /*allow_int16=*/true, /*allow_int32=*/!kInt8Only));
  const TensorView input1 = context.input(0);
  const TensorView input2 = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = kInt8Only ? TensorType::kInt8 : output.type();
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  if (const tflite::MulOptions* options = context.op().raw()->builtin_options_as_MulOptions()) {
    activation = options->fused_activation_function();
  }
  const bool requires_broadcast = !elementwise::SameShape(input1.shape(), input2.shape());

  if (type == TensorType::kFloat32) {
    reference::FloatActivationRange range;
    if (!elementwise::FloatActivationRange(activation, &range)) {
      return context.Error(ErrorCode::kUnsupported, "fused activation %s not supported",
                           elementwise::ActivationName(activation));
    }
    FloatOpData* data = elementwise::AllocateOpData<FloatOpData>(context);
    if (data == nullptr) return context.OutOfMemory();
    data->range = range;
    data->requires_broadcast = requires_broadcast;
    *op_data = data;
    return OkStatus();
  }

  if (!kInt8Only && type == TensorType::kInt32) {
    // The low 32 bits of the product, clamped to the fused activation; any
    // quantization on the tensors is ignored (as TFLM does).
    QuantizedOpData* data = elementwise::AllocateOpData<QuantizedOpData>(context);
    if (data == nullptr) return context.OutOfMemory();
    elementwise::IntegerActivationRange(activation, &data->params.activation_min, &data->params.activation_max);
    data->requires_broadcast = requires_broadcast;
    *op_data = data;
    return OkStatus();
  }

  elementwise::TensorQuantization q1;
  elementwise::TensorQuantization q2;
  elementwise::TensorQuantization q_out;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input1, "input 0", &q1));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input2, "input 1", &q2));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &q_out));
  if (type == TensorType::kInt16 && (q1.zero_point != 0 || q2.zero_point != 0 || q_out.zero_point != 0)) {
    return context.Error(ErrorCode::kUnsupported,
                         "int16 tensors %d, %d and %d have zero points %d, %d and %d; TFLM requires 0", input1.index(),
                         input2.index(), output.index(), q1.zero_point, q2.zero_point, q_out.zero_point);
  }
  reference::MulQuantizedParams p;
  if (!elementwise::QuantizedActivationRange(activation, type, q_out, &p.activation_min, &p.activation_max)) {
    return context.Error(ErrorCode::kUnsupported, "fused activation %s not supported",
                         elementwise::ActivationName(activation));
  }
  const double real_multiplier =
      static_cast<double>(q1.scale) * static_cast<double>(q2.scale) / static_cast<double>(q_out.scale);
  int shift = 0;
  fixed_point::QuantizeMultiplier(real_multiplier, &p.output_multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, real_multiplier, shift));
  p.output_shift = shift;
  p.input1_offset = -q1.zero_point;
  p.input2_offset = -q2.zero_point;
  p.output_offset = q_out.zero_point;
  QuantizedOpData* data = elementwise::AllocateOpData<QuantizedOpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  data->params = p;
  data->requires_broadcast = requires_broadcast;
  *op_data = data;
  return OkStatus();
}

template <typename T, typename Func>
void Run(const EvalTensor& input1, const EvalTensor& input2, EvalTensor& output, bool requires_broadcast, Func func) {
  if (requires_broadcast) {
    reference::BroadcastShape broadcast;
    // Checked at prepare; cannot fail here.
    (void)reference::MakeBroadcastShape(input1.dims, input1.rank, input2.dims, input2.rank, &broadcast);
    reference::BroadcastBinary(broadcast, input1.As<const T>(), input2.As<const T>(), output.As<T>(), func);
  } else {
    reference::ElementwiseBinary(output.element_count(), input1.As<const T>(), input2.As<const T>(), output.As<T>(),
                                 func);
  }
}

// The int8 path, the whole Eval of kMulInt8Kernel: same shapes, or one
// operand of a single element, take the fast loop of
// optimized/int8_kernels.h; other broadcasts the reference's.
Status EvalInt8(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const QuantizedOpData*>(op_data);
  const reference::MulQuantizedParams& params = data->params;
  const EvalTensor& input1 = *context.input(0);
  const EvalTensor& input2 = *context.input(1);
  EvalTensor& output = *context.output(0);
  const size_t count = output.element_count();
  const bool scalar1 = input1.element_count() == 1;
  const bool scalar2 = input2.element_count() == 1;
  if (!data->requires_broadcast || scalar1 || scalar2) {
    optimized::MulInt8(params, input1.As<const int8_t>(), scalar1 && count != 1, input2.As<const int8_t>(),
                       scalar2 && count != 1, output.As<int8_t>(), count);
    return OkStatus();
  }
  Run<int8_t>(input1, input2, output, data->requires_broadcast,
              [&params](int8_t x, int8_t y) { return reference::MulQuantizedElement(x, y, params); });
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  if (context.output(0)->type == TensorType::kInt8) return EvalInt8(context, op_data);
  const EvalTensor& input1 = *context.input(0);
  const EvalTensor& input2 = *context.input(1);
  EvalTensor& output = *context.output(0);
  if (output.type == TensorType::kFloat32) {
    const auto* data = static_cast<const FloatOpData*>(op_data);
    const reference::FloatActivationRange range = data->range;
    Run<float>(input1, input2, output, data->requires_broadcast,
               [range](float x, float y) { return reference::MulFloatElement(x, y, range); });
  } else if (output.type == TensorType::kInt32) {
    const auto* data = static_cast<const QuantizedOpData*>(op_data);
    const int32_t lo = data->params.activation_min;
    const int32_t hi = data->params.activation_max;
    Run<int32_t>(input1, input2, output, data->requires_broadcast,
                 [lo, hi](int32_t x, int32_t y) { return std::clamp(fixed_point::WrappingMul(x, y), lo, hi); });
  } else {
    const auto* data = static_cast<const QuantizedOpData*>(op_data);
    const reference::MulQuantizedParams& params = data->params;
    Run<int16_t>(input1, input2, output, data->requires_broadcast,
                 [&params](int16_t x, int16_t y) { return reference::MulQuantizedElement(x, y, params); });
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kMulKernel = {BuiltinOp::kMul, PrepareWithElementwiseOverlap<PrepareOp<false>, 2>, Eval};
const KernelRegistration kMulInt8Kernel = {BuiltinOp::kMul, PrepareWithElementwiseOverlap<PrepareOp<true>, 2>, EvalInt8};

}  // namespace microarena
