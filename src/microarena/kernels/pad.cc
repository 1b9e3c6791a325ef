// PAD and PADV2: constant padding (TFLM registers one kernel for both).
//
// Inputs: the tensor (rank <= 5), a constant INT32/INT64 paddings tensor of
// shape [rank, 2] holding (before, after) per dimension, all >= 0, and
// optionally (PADV2's) a one-element constant_values tensor of the input's
// type, read at Invoke (it may be computed); INT8 constant_values must share
// the output's scale and zero point, as TFLM requires. Without it FLOAT32,
// INT16 and INT32 pad with 0 and INT8 with the output zero point (real 0), as
// TFLM does. Input and output share type and quantization (data is copied).
#include <cstdint>
#include <cstring>
#include <limits>

#include "microarena/kernels/reference/pad.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"

namespace microarena {
namespace {

// Persistent op data: 64 bytes.
struct PadData {
  reference::PadParams params;
  int32_t pad_value;  // one element's bytes in the first sizeof(element) bytes; unused with constant_values
};

Status Prepare(PrepareContext& context, const void** op_data) {
  if (context.input_count() < 2 || context.input_count() > 3 || context.output_count() != 1 || !context.has_input(0) ||
      !context.has_input(1)) {
    return context.Error(
        ErrorCode::kInvalidArgument,
        "expects 2 or 3 inputs (tensor, paddings, optional constant_values) and 1 output, got %zu and %zu",
        context.input_count(), context.output_count());
  }
  const TensorView input = context.input(0);
  const TensorView paddings = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = input.type();
  if (type != TensorType::kFloat32 && type != TensorType::kInt8 && type != TensorType::kInt16 &&
      type != TensorType::kInt32) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has type %s; supported: FLOAT32, INT8, INT16, INT32",
                         input.name(), TensorTypeName(type));
  }
  if (output.type() != type) {
    return context.Error(ErrorCode::kUnsupported, "output '%s' has type %s but input '%s' has type %s", output.name(),
                         TensorTypeName(output.type()), input.name(), TensorTypeName(type));
  }
  if (!shape_op::SameQuantization(input, output)) {
    return context.Error(ErrorCode::kUnsupported,
                         "input '%s' and output '%s' must share one scale and zero point (PAD copies data)",
                         input.name(), output.name());
  }
  if ((type == TensorType::kInt8 && !shape_op::HasInt8PerTensorQuantization(output)) ||
      (type == TensorType::kInt16 && !output.quantization().is_quantized())) {
    return context.Error(ErrorCode::kInvalidArgument, "%s output '%s' needs per-tensor quantization",
                         TensorTypeName(type), output.name());
  }
  if (context.has_input(2)) {
    const TensorView values = context.input(2);
    if (values.type() != type || values.element_count() != 1) {
      return context.Error(
          ErrorCode::kInvalidArgument, "constant_values tensor %d '%s' is %s with %zu elements; need one %s element",
          values.index(), values.name(), TensorTypeName(values.type()), values.element_count(), TensorTypeName(type));
    }
    if (type == TensorType::kInt8) {
      const QuantizationView q = values.quantization();
      const float scale = q.is_quantized() ? q.scale(0) : 0.0f;
      const int64_t zero_point = q.is_quantized() ? q.zero_point(0) : 0;
      if (scale != output.quantization().scale(0) || zero_point != output.quantization().zero_point(0)) {
        return context.Error(ErrorCode::kInvalidArgument,
                             "constant_values '%s' (scale %g, zero point %lld) must share the output's quantization "
                             "(scale %g, zero point %lld)",
                             values.name(), static_cast<double>(scale), static_cast<long long>(zero_point),
                             static_cast<double>(output.quantization().scale(0)),
                             static_cast<long long>(output.quantization().zero_point(0)));
      }
    }
  }
  const size_t rank = input.rank();
  if (rank > reference::kPadMaxRank) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has rank %zu; at most %zu is supported", input.name(),
                         rank, reference::kPadMaxRank);
  }
  char text_a[shape_op::kShapeTextBytes];
  char text_b[shape_op::kShapeTextBytes];
  if (paddings.rank() != 2 || paddings.shape()[0] != static_cast<int32_t>(rank) || paddings.shape()[1] != 2) {
    return context.Error(ErrorCode::kInvalidArgument, "paddings '%s' has shape %s; expected [%zu,2]",
                         paddings.name(), shape_op::FormatShape(paddings.shape(), text_a, sizeof(text_a)), rank);
  }
  int32_t pads[2 * reference::kPadMaxRank];
  size_t pad_count = 0;
  if (!shape_op::ReadConstantIndices(paddings, pads, 2 * reference::kPadMaxRank, &pad_count)) {
    return context.Error(ErrorCode::kUnsupported,
                         "paddings '%s' must be a constant INT32 or INT64 tensor (type %s, %s)", paddings.name(),
                         TensorTypeName(paddings.type()), paddings.is_constant() ? "constant" : "not constant");
  }
  auto* data = static_cast<PadData*>(context.AllocatePersistent(sizeof(PadData)));
  if (data == nullptr) return context.OutOfMemory();
  *data = PadData{};
  const size_t lead = reference::kPadMaxRank - rank;
  int32_t expected[reference::kPadMaxRank] = {};
  for (size_t d = 0; d < rank; ++d) {
    const int32_t before = pads[2 * d];
    const int32_t after = pads[2 * d + 1];
    if (before < 0 || after < 0) {
      return context.Error(ErrorCode::kInvalidArgument, "paddings '%s' has negative padding (%d, %d) for dimension %zu",
                           paddings.name(), before, after, d);
    }
    // The padded extent is an int32 in the loops; sum in int64 and refuse what does not fit.
    const int64_t padded = int64_t{input.shape()[d]} + before + after;
    if (padded > std::numeric_limits<int32_t>::max()) {
      return context.Error(ErrorCode::kUnsupported,
                           "paddings '%s' (%d, %d) for dimension %zu of size %d give %lld elements; at most %d",
                           paddings.name(), before, after, d, input.shape()[d], static_cast<long long>(padded),
                           std::numeric_limits<int32_t>::max());
    }
    data->params.input_dims[lead + d] = input.shape()[d];
    data->params.before[lead + d] = before;
    data->params.after[lead + d] = after;
    expected[d] = static_cast<int32_t>(padded);
  }
  if (!shape_op::ShapeEquals(output.shape(), expected, rank)) {
    return context.Error(ErrorCode::kInvalidArgument, "output '%s' has shape %s; the paddings give %s",
                         output.name(), shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)),
                         shape_op::FormatShape(expected, rank, text_b, sizeof(text_b)));
  }
  // INT16 pads with 0 whatever its zero point: TFLM does.
  data->pad_value = 0;
  if (type == TensorType::kInt8) {
    const auto zero = static_cast<int8_t>(output.quantization().zero_point(0));
    std::memcpy(&data->pad_value, &zero, sizeof(zero));
  }
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const PadData*>(op_data);
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  const EvalTensor* values = context.input_count() > 2 ? context.input(2) : nullptr;
  const void* pad_value = values != nullptr ? static_cast<const void*>(values->data) : &data.pad_value;
  reference::Pad(data.params, shape_op::ElementBytes(input.type), input.data, pad_value, output.data);
  return OkStatus();
}

// A band of rows (kernel.h) of a 4-D map: the rows padded above and below
// this band, and the input rows it holds.
Status EvalBand(EvalContext& context, const void* op_data, int32_t output_first_row, int32_t input_first_row) {
  PadData data = *static_cast<const PadData*>(op_data);
  const EvalTensor& input = *context.input(0);
  const EvalTensor& output = *context.output(0);
  if (input.rank != 4 || output.rank != 4) {
    return Status::Error(ErrorCode::kInternal, "PAD runs in bands only on 4-D maps (rank %d)", input.rank);
  }
  constexpr size_t kRows = reference::kPadMaxRank - 3;  // dimension 1 of 4, after the leading 1
  data.params.input_dims[kRows] = input.dim(1);
  data.params.before[kRows] += input_first_row - output_first_row;
  data.params.after[kRows] = output.dim(1) - data.params.before[kRows] - input.dim(1);
  return Eval(context, &data);
}

}  // namespace

const KernelRegistration kPadKernel = {BuiltinOp::kPad, Prepare, Eval, false, EvalBand};
const KernelRegistration kPadv2Kernel = {BuiltinOp::kPadv2, Prepare, Eval, false, EvalBand};

}  // namespace microarena
