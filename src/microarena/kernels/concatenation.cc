// CONCATENATION: joins inputs along one axis (negative axes count from the end).
//
// Types: FLOAT32, INT8, INT16, INT32, INT64, BOOL; every input has the output's
// type and rank. INT8 inputs whose scale or zero point differ from the
// output's are requantized with TFLite's ConcatenationWithScaling formula
// (reference/concatenation.h); the others are copied byte for byte. INT16
// needs zero point 0, as TFLM.
// (TFLM's own int8 kernel copies bytes without rescaling, so it matches this
// kernel exactly when every input shares the output's quantization.)
#include <cstring>
#include <new>

#include "microarena/kernels/reference/concatenation.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"

namespace microarena {
namespace {

struct InputQuantization {
  float scale;
  int32_t zero_point;
};

// Persistent op data: 16 bytes on every target (no pointer: kernel.h), and
// right after it, in the same allocation, one InputQuantization per input
// when any int8 input needs requantization.
struct ConcatenationData {
  int32_t axis;
  float output_scale;
  int32_t output_zero_point;
  int32_t requantize;  // 1: the InputQuantization array follows; 0: every input is copied

  const InputQuantization* inputs() const {
    return requantize != 0 ? reinterpret_cast<const InputQuantization*>(this + 1) : nullptr;
  }
};
static_assert(sizeof(ConcatenationData) % alignof(InputQuantization) == 0, "the array must follow aligned");

bool SupportedType(TensorType type) {
  return type == TensorType::kFloat32 || type == TensorType::kInt8 || type == TensorType::kInt16 ||
         type == TensorType::kInt32 || type == TensorType::kInt64 || type == TensorType::kBool;
}

Status Prepare(PrepareContext& context, const void** op_data) {
  if (context.input_count() < 1 || context.output_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "expects at least 1 input and 1 output, got %zu and %zu",
                         context.input_count(), context.output_count());
  }
  const TensorView output = context.output(0);
  const size_t rank = output.rank();
  const auto* options = context.op().raw()->builtin_options_as_ConcatenationOptions();
  const int32_t axis_option = options != nullptr ? options->axis() : 0;
  if (options != nullptr && options->fused_activation_function() != tflite::ActivationFunctionType::NONE) {
    return context.Error(ErrorCode::kUnsupported, "fused activation %d is not supported (only NONE)",
                         static_cast<int>(options->fused_activation_function()));
  }
  const int32_t axis = axis_option < 0 ? axis_option + static_cast<int32_t>(rank) : axis_option;
  if (axis < 0 || axis >= static_cast<int32_t>(rank)) {
    return context.Error(ErrorCode::kInvalidArgument, "axis %d is out of range for output '%s' of rank %zu",
                         axis_option, output.name(), rank);
  }
  if (!SupportedType(output.type())) {
    return context.Error(ErrorCode::kUnsupported, "output '%s' has type %s; supported: FLOAT32, INT8, INT16, INT32, "
                         "INT64, BOOL", output.name(), TensorTypeName(output.type()));
  }
  const bool is_int8 = output.type() == TensorType::kInt8;
  if (is_int8 && !shape_op::HasInt8PerTensorQuantization(output)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "int8 output '%s' needs one positive scale and an int8 zero point", output.name());
  }
  // TFLM requires zero point 0 on INT16 (and the same quantization on all).
  if (output.type() == TensorType::kInt16 && output.quantization().is_quantized() &&
      output.quantization().zero_point(0) != 0) {
    return context.Error(ErrorCode::kUnsupported, "int16 output '%s' has zero point %lld; TFLM requires 0",
                         output.name(), static_cast<long long>(output.quantization().zero_point(0)));
  }
  char text_a[shape_op::kShapeTextBytes];
  char text_b[shape_op::kShapeTextBytes];
  int64_t axis_total = 0;
  bool requantize = false;
  for (size_t i = 0; i < context.input_count(); ++i) {
    if (!context.has_input(i)) {
      return context.Error(ErrorCode::kInvalidArgument, "input %zu is omitted", i);
    }
    const TensorView input = context.input(i);
    if (input.type() != output.type()) {
      return context.Error(ErrorCode::kUnsupported, "input %zu '%s' has type %s but output '%s' has type %s", i,
                           input.name(), TensorTypeName(input.type()), output.name(),
                           TensorTypeName(output.type()));
    }
    bool shape_ok = input.rank() == rank;
    for (size_t d = 0; shape_ok && d < rank; ++d) {
      if (static_cast<int32_t>(d) != axis && input.shape()[d] != output.shape()[d]) shape_ok = false;
    }
    if (!shape_ok) {
      return context.Error(ErrorCode::kInvalidArgument,
                           "input %zu '%s' has shape %s, which does not match output '%s' %s outside axis %d", i,
                           input.name(), shape_op::FormatShape(input.shape(), text_a, sizeof(text_a)),
                           output.name(), shape_op::FormatShape(output.shape(), text_b, sizeof(text_b)), axis);
    }
    axis_total += input.shape()[static_cast<size_t>(axis)];
    if (is_int8) {
      if (!shape_op::HasInt8PerTensorQuantization(input)) {
        return context.Error(ErrorCode::kInvalidArgument,
                             "int8 input %zu '%s' needs one positive scale and an int8 zero point", i, input.name());
      }
      if (!shape_op::SameQuantization(input, output)) requantize = true;
    } else if (!shape_op::SameQuantization(input, output)) {
      return context.Error(ErrorCode::kUnsupported,
                           "input %zu '%s' and output '%s' are %s with different quantization; only INT8 is "
                           "requantized", i, input.name(), output.name(), TensorTypeName(output.type()));
    }
  }
  if (axis_total != output.shape()[static_cast<size_t>(axis)]) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "inputs sum to %lld along axis %d but output '%s' has %d there",
                         static_cast<long long>(axis_total), axis, output.name(),
                         output.shape()[static_cast<size_t>(axis)]);
  }

  const size_t bytes = sizeof(ConcatenationData) + (requantize ? sizeof(InputQuantization) * context.input_count() : 0);
  void* memory = context.AllocatePersistent(bytes, alignof(ConcatenationData));
  if (memory == nullptr) return context.OutOfMemory();
  auto* data = new (memory) ConcatenationData();
  data->axis = axis;
  data->output_scale = is_int8 ? output.quantization().scale(0) : 0.0f;
  data->output_zero_point = is_int8 ? static_cast<int32_t>(output.quantization().zero_point(0)) : 0;
  data->requantize = requantize ? 1 : 0;
  if (requantize) {
    auto* inputs = reinterpret_cast<InputQuantization*>(data + 1);
    for (size_t i = 0; i < context.input_count(); ++i) {
      const QuantizationView q = context.input(i).quantization();
      inputs[i].scale = q.scale(0);
      inputs[i].zero_point = static_cast<int32_t>(q.zero_point(0));
    }
  }
  *op_data = data;
  return OkStatus();
}

size_t ProductOfDims(const EvalTensor& tensor, size_t from, size_t to) {
  size_t product = 1;
  for (size_t d = from; d < to; ++d) product *= static_cast<size_t>(tensor.dims[d]);
  return product;
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const ConcatenationData*>(op_data);
  EvalTensor& output = *context.output(0);
  const auto axis = static_cast<size_t>(data.axis);
  const size_t element_bytes = shape_op::ElementBytes(output.type);
  reference::ConcatenationSlab slab;
  slab.outer = ProductOfDims(output, 0, axis);
  slab.output_slab = ProductOfDims(output, axis, output.rank);
  for (size_t i = 0; i < context.input_count(); ++i) {
    const EvalTensor& input = *context.input(i);
    slab.input_slab = ProductOfDims(input, axis, input.rank);
    const InputQuantization* inputs = data.inputs();
    const bool rescale = inputs != nullptr && (inputs[i].scale != data.output_scale ||
                                               inputs[i].zero_point != data.output_zero_point);
    if (rescale) {
      reference::ConcatenateRequantizeInt8(slab, inputs[i].scale, inputs[i].zero_point,
                                           data.output_scale, data.output_zero_point, input.As<const int8_t>(),
                                           output.As<int8_t>());
    } else {
      reference::ConcatenateCopy(slab, element_bytes, input.data, output.data);
    }
    slab.output_offset += slab.input_slab;
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kConcatenationKernel = {BuiltinOp::kConcatenation, Prepare, Eval};

}  // namespace microarena
