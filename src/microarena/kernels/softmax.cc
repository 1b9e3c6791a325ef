// SOFTMAX: int8 -> int8, int8 -> int16, int16 -> int16 and float32 ->
// float32, over the last axis, bit-exact with TFLM's reference kernel (see
// reference/softmax.h).
//
// Prepare checks what TFLM checks: int8 output has zero point -128 and scale
// exactly 1/256; int16 output has zero point -32768 and scale 1/65536 within
// 0.1%. The input scale and beta become a Q5.26 multiplier
// (min(beta * input_scale * 2^26, 2^31 - 1), split into mantissa and left
// shift, in double) and diff_min = -floor(31 * 2^26 / 2^left_shift).
// int16 input: zero points 0, output scale 1/32768 within 0.1%; the
// multiplier is input_scale * beta / (10 / 65535) by QuantizeMultiplier. TFLM
// also builds two 513-entry lookup tables (2 x 1026 bytes of persistent
// memory); they are constants here (reference/softmax.h), so the op data
// stays at 24 bytes.
//
// kSoftmaxInt8Kernel is the int8 -> int8 path alone (int8_only.h): neither
// the tables nor the float math are linked with it.
#include <cmath>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/int8_only.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/reference/softmax.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data: 24 bytes (TFLM's SoftmaxParams: 80, 56 on Cortex-M).
struct SoftmaxOpData {
  reference::SoftmaxQuantizedParams quantized;  // int8 input
  float beta = 0.0f;                            // float input
  reference::SoftmaxInt16Params int16;          // int16 input
};

// Rows longer than this could wrap TFLM's int32 sum of exps (each <= 32767).
constexpr int32_t kMaxInt16Depth = 65538;

Status PrepareInt16(PrepareContext& context, const TensorView& input, const TensorView& output, float beta,
                    SoftmaxOpData* data) {
  if (output.type() != TensorType::kInt16) {
    return context.Error(ErrorCode::kUnsupported,
                         "input INT16 -> output %s not supported (INT16 input needs an INT16 output)",
                         TensorTypeName(output.type()));
  }
  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  if (input_q.zero_point != 0) {
    return context.Error(ErrorCode::kUnsupported, "int16 input tensor %d has zero point %d; TFLM requires 0",
                         input.index(), input_q.zero_point);
  }
  const float expected = 1.0f / 32768;
  if (output_q.zero_point != 0 || std::fabs(output_q.scale - expected) > 0.001f * expected) {
    return context.Error(ErrorCode::kUnsupported,
                         "int16 output tensor %d has scale %g and zero point %d; TFLM requires 1/32768 and 0",
                         output.index(), static_cast<double>(output_q.scale), output_q.zero_point);
  }
  const int32_t depth = input.shape()[input.rank() - 1];
  if (depth > kMaxInt16Depth) {
    return context.Error(ErrorCode::kUnsupported,
                         "input tensor %d has rows of %d values; at most %d (TFLM's int32 sum of exps)", input.index(),
                         depth, kMaxInt16Depth);
  }
  // Maps input differences of [-10, 0] (real) onto [-65535, 0].
  const double real_multiplier = static_cast<double>(input_q.scale) * static_cast<double>(beta) / (10.0 / 65535.0);
  int shift = 0;
  fixed_point::QuantizeMultiplier(real_multiplier, &data->int16.input_multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "input", input, real_multiplier, shift));
  data->int16.input_shift = shift;
  return OkStatus();
}

// What every type needs: the shapes, beta and the op data.
Status PrepareCommon(PrepareContext& context, float* beta, SoftmaxOpData** data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (input.rank() < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d '%s' is a scalar; softmax needs rank >= 1",
                         input.index(), input.name());
  }
  if (!elementwise::SameShape(input.shape(), output.shape())) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d and output tensor %d differ in shape",
                         input.index(), output.index());
  }
  const tflite::SoftmaxOptions* options = context.op().raw()->builtin_options_as_SoftmaxOptions();
  *beta = options != nullptr ? options->beta() : 0.0f;
  if (!(*beta > 0.0f) || !std::isfinite(*beta)) {
    return context.Error(ErrorCode::kInvalidArgument, "beta %g must be positive and finite",
                         static_cast<double>(*beta));
  }
  *data = elementwise::AllocateOpData<SoftmaxOpData>(context);
  if (*data == nullptr) return context.OutOfMemory();
  return OkStatus();
}

// INT8 input -> INT8 or INT16 output.
Status PrepareInt8Input(PrepareContext& context, const TensorView& input, const TensorView& output, float beta,
                        SoftmaxOpData* data) {
  const bool int8_output = output.type() == TensorType::kInt8;
  elementwise::TensorQuantization input_q;
  elementwise::TensorQuantization output_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input, "input", &input_q));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &output_q));
  if (int8_output) {
    if (output_q.zero_point != -128 || output_q.scale != 1.0f / 256) {
      return context.Error(ErrorCode::kUnsupported,
                           "int8 output tensor %d has scale %g and zero point %d; TFLM requires 1/256 and -128",
                           output.index(), static_cast<double>(output_q.scale), output_q.zero_point);
    }
  } else {
    const float expected = 1.0f / 65536;
    if (output_q.zero_point != -32768 || std::fabs(output_q.scale - expected) > 0.001f * expected) {
      return context.Error(ErrorCode::kUnsupported,
                           "int16 output tensor %d has scale %g and zero point %d; TFLM requires 1/65536 and -32768",
                           output.index(), static_cast<double>(output_q.scale), output_q.zero_point);
    }
  }

  // Q5.26 multiplier of the input differences, capped at 2^31 - 1.
  int left_shift = 0;
  double real_multiplier = 0.0;
  if (!reference::PrepareSoftmaxDiffScaling(static_cast<double>(beta), static_cast<double>(input_q.scale),
                                            &data->quantized.input_multiplier, &left_shift,
                                            &data->quantized.diff_min, &real_multiplier)) {
    return context.Error(ErrorCode::kUnsupported,
                         "beta %g * input scale %g gives a diff multiplier %g out of TFLM's range (> 2^-26)",
                         static_cast<double>(beta), static_cast<double>(input_q.scale), real_multiplier / (1 << 26));
  }
  data->quantized.input_left_shift = left_shift;
  return OkStatus();
}

Status Prepare(PrepareContext& context, const void** op_data) {
  float beta = 0.0f;
  SoftmaxOpData* data = nullptr;
  MICROARENA_RETURN_IF_ERROR(PrepareCommon(context, &beta, &data));
  *op_data = data;
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (input.type() == TensorType::kFloat32 && output.type() == TensorType::kFloat32) {
    data->beta = beta;
    return OkStatus();
  }
  if (input.type() == TensorType::kInt16) return PrepareInt16(context, input, output, beta, data);
  if (input.type() != TensorType::kInt8 ||
      (output.type() != TensorType::kInt8 && output.type() != TensorType::kInt16)) {
    return context.Error(ErrorCode::kUnsupported,
                         "input %s -> output %s not supported (INT8 -> INT8, INT8 -> INT16, INT16 -> INT16, FLOAT32 -> "
                         "FLOAT32)",
                         TensorTypeName(input.type()), TensorTypeName(output.type()));
  }
  return PrepareInt8Input(context, input, output, beta, data);
}

Status PrepareInt8(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireInt8Activations(context, "kSoftmaxInt8Kernel", "kSoftmaxKernel"));
  float beta = 0.0f;
  SoftmaxOpData* data = nullptr;
  MICROARENA_RETURN_IF_ERROR(PrepareCommon(context, &beta, &data));
  *op_data = data;
  return PrepareInt8Input(context, context.input(0), context.output(0), beta, data);
}

size_t RowsOf(const EvalTensor& input, size_t depth) { return depth == 0 ? 0 : input.element_count() / depth; }

// The int8 -> int8 path, the whole Eval of kSoftmaxInt8Kernel: the fast
// loop of optimized/int8_kernels.h (reference/softmax.h is its oracle).
Status EvalInt8(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const SoftmaxOpData*>(op_data);
  const EvalTensor* input = context.input(0);
  const size_t depth = static_cast<size_t>(input->dim(input->rank - 1u));
  optimized::SoftmaxInt8(data->quantized, RowsOf(*input, depth), depth, input->As<const int8_t>(),
                         context.output(0)->As<int8_t>());
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const SoftmaxOpData*>(op_data);
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  if (input->type == TensorType::kInt8 && output->type == TensorType::kInt8) return EvalInt8(context, op_data);
  const size_t depth = static_cast<size_t>(input->dim(input->rank - 1u));
  const size_t rows = RowsOf(*input, depth);
  if (input->type == TensorType::kFloat32) {
    reference::SoftmaxFloat(data->beta, rows, depth, input->As<const float>(), output->As<float>());
  } else if (input->type == TensorType::kInt16) {
    reference::SoftmaxInt16(data->int16, rows, depth, input->As<const int16_t>(), output->As<int16_t>());
  } else {
    optimized::SoftmaxInt8(data->quantized, rows, depth, input->As<const int8_t>(), output->As<int16_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kSoftmaxKernel = {BuiltinOp::kSoftmax, Prepare, Eval};
const KernelRegistration kSoftmaxInt8Kernel = {BuiltinOp::kSoftmax, PrepareInt8, EvalInt8};

}  // namespace microarena
