// LOG_SOFTMAX: float32 and int8 over the last axis, bit-exact with TFLM's
// reference kernel (see reference/softmax.h, which SOFTMAX shares).
//
// Prepare checks what TFLM checks: same type and shape; int8 output has
// scale exactly 16/256 and zero point 127. The diff multiplier is
// SOFTMAX's with beta 1; its inverse 2^(31 - shift) / mantissa (double) is
// split into a mantissa and a non-positive shift.
#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/reference/softmax.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data (int8 only): 20 bytes (TFLM's: 40 on a 64-bit host).
using OpData = reference::LogSoftmaxQuantizedParams;

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(elementwise::CheckUnaryOperands(context));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (input.rank() < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d '%s' is a scalar; log softmax needs rank >= 1",
                         input.index(), input.name());
  }
  if (!elementwise::SameShape(input.shape(), output.shape())) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d and output tensor %d differ in shape",
                         input.index(), output.index());
  }
  if (input.type() == TensorType::kFloat32) return OkStatus();

  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  if (output_q.scale != 16.0f / 256 || output_q.zero_point != 127) {
    return context.Error(ErrorCode::kUnsupported,
                         "int8 output tensor %d has scale %g and zero point %d; TFLM requires 16/256 and 127",
                         output.index(), static_cast<double>(output_q.scale), output_q.zero_point);
  }
  OpData p;
  int left_shift = 0;
  double real_multiplier = 0.0;
  if (!reference::PrepareSoftmaxDiffScaling(1.0, static_cast<double>(input_q.scale), &p.input_multiplier, &left_shift,
                                            &p.diff_min, &real_multiplier)) {
    return context.Error(ErrorCode::kUnsupported,
                         "input tensor %d scale %g gives a diff multiplier %g out of TFLM's range (> 2^-26)",
                         input.index(), static_cast<double>(input_q.scale), real_multiplier / (1 << 26));
  }
  p.input_left_shift = left_shift;
  // In (0, 1) for left shifts >= 1 (the multiplier is above 1).
  const double reverse = static_cast<double>(int64_t{1} << (31 - left_shift)) / static_cast<double>(p.input_multiplier);
  if (!elementwise::QuantizeMultiplierSmallerThanOne(reverse, &p.reverse_multiplier, &p.reverse_shift)) {
    return context.Error(ErrorCode::kUnsupported,
                         "input tensor %d scale %g gives a reverse multiplier %g outside (0, 1)", input.index(),
                         static_cast<double>(input_q.scale), reverse);
  }
  OpData* data = elementwise::AllocateOpData<OpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  *data = p;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  const size_t depth = static_cast<size_t>(input->dim(input->rank - 1u));
  const size_t rows = depth == 0 ? 0 : input->element_count() / depth;
  if (input->type == TensorType::kFloat32) {
    reference::LogSoftmaxFloat(rows, depth, input->As<const float>(), output->As<float>());
  } else {
    reference::LogSoftmaxInt8(*static_cast<const OpData*>(op_data), rows, depth, input->As<const int8_t>(),
                              output->As<int8_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kLogSoftmaxKernel = {BuiltinOp::kLogSoftmax, Prepare, Eval};

}  // namespace microarena
