// SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL over constant axes, keep_dims
// or not; the input walk is reference/reduce.h, shared with MEAN.
//
//   SUM          FLOAT32 (summed in TFLM's order), INT8 and INT16 (int32
//                sums, rescaled by input_scale / output_scale with the zero
//                points, clamped); input rank up to 5 and at most 2 distinct
//                reduced axes (the sizes of TFLM's index arrays); the
//                quantized paths take one int32 of head scratch per output
//                element, as TFLM's
//   REDUCE_MAX   FLOAT32 and INT8, any rank up to 8 and any axes; INT8 needs
//   REDUCE_MIN   the output to share the input's scale and zero point (raw
//                values are compared), as TFLM checks
//   REDUCE_ALL   BOOL (logical and; true over no values), ranks and axes as
//                REDUCE_MAX; TFLM refuses every other type
// TFLM reads the axes at Invoke; microarena needs them constant (as MEAN).
// An empty axis list reduces nothing (the output copies the input).
#include "microarena/kernels/reference/reduce.h"

#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

enum class ReduceOp : uint8_t { kSum, kMax, kMin, kAll };

// TFLM's SUM keeps 5 input indices and 2 resolved axes on its stack.
constexpr size_t kSumMaxRank = 5;
constexpr size_t kSumMaxAxes = 2;

// Persistent op data: 24 bytes (TFLM's OpDataReduce: 40).
struct ReduceData {
  int32_t multiplier;  // SUM int8/int16: input_scale / output_scale
  int32_t shift;
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t scratch_index;  // SUM int8/int16 sums; -1 otherwise
  uint8_t reduced_mask;   // bit d set: axis d is reduced
};

const char* SupportedTypes(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "FLOAT32, INT8 or INT16";
    case ReduceOp::kAll: return "BOOL";
    default: return "FLOAT32 or INT8";
  }
}

bool TypeSupported(ReduceOp op, TensorType type) {
  if (op == ReduceOp::kAll) return type == TensorType::kBool;
  return type == TensorType::kFloat32 || type == TensorType::kInt8 ||
         (op == ReduceOp::kSum && type == TensorType::kInt16);
}

template <ReduceOp kOp>
Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input = context.input(0);
  const TensorView axis_tensor = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = input.type();
  if (!TypeSupported(kOp, type) || output.type() != type) {
    return context.Error(ErrorCode::kUnsupported, "input %s -> output %s not supported (%s, same type)",
                         TensorTypeName(type), TensorTypeName(output.type()), SupportedTypes(kOp));
  }
  const size_t max_rank = kOp == ReduceOp::kSum ? kSumMaxRank : reference::kMaxReduceRank;
  const size_t rank = input.rank();
  if (rank > max_rank) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has rank %zu; at most %zu is supported", input.name(),
                         rank, max_rank);
  }
  if (axis_tensor.type() != TensorType::kInt32) {
    return context.Error(ErrorCode::kUnsupported, "axis '%s' has type %s; expected INT32", axis_tensor.name(),
                         TensorTypeName(axis_tensor.type()));
  }
  int32_t axis_values[2 * kMaxRank] = {};
  size_t axis_count = 0;
  // An empty axis list has no data to be constant with; it reduces nothing.
  const bool empty_axes = axis_tensor.element_count() == 0;
  if (!empty_axes && !shape_op::ReadConstantIndices(axis_tensor, axis_values, 2 * kMaxRank, &axis_count)) {
    return context.Error(ErrorCode::kUnsupported, "axis '%s' must be constant with at most %zu values (%zu values, %s)",
                         axis_tensor.name(), 2 * kMaxRank, axis_count,
                         axis_tensor.is_constant() ? "constant" : "not constant");
  }
  bool reduced[reference::kMaxReduceRank] = {};
  size_t distinct = 0;
  for (size_t i = 0; i < axis_count && rank > 0; ++i) {
    const int32_t given = axis_values[i];
    const int32_t axis = given < 0 ? given + static_cast<int32_t>(rank) : given;
    if (axis < 0 || axis >= static_cast<int32_t>(rank)) {
      return context.Error(ErrorCode::kInvalidArgument, "axis value %d is out of range for input '%s' of rank %zu",
                           given, input.name(), rank);
    }
    if (!reduced[axis]) ++distinct;
    reduced[axis] = true;
  }
  if (kOp == ReduceOp::kSum && distinct > kSumMaxAxes) {
    return context.Error(ErrorCode::kUnsupported, "axis '%s' names %zu distinct axes; at most %zu", axis_tensor.name(),
                         distinct, kSumMaxAxes);
  }
  const auto* options = context.op().raw()->builtin_options_as_ReducerOptions();
  const bool keep_dims = options != nullptr && options->keep_dims();
  int32_t expected[reference::kMaxReduceRank] = {};
  size_t expected_rank = 0;
  int64_t reduced_count = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      expected[expected_rank++] = input.shape()[d];
    } else {
      reduced_count *= input.shape()[d];
      if (keep_dims) expected[expected_rank++] = 1;
    }
  }
  if (!shape_op::ShapeEquals(output.shape(), expected, expected_rank)) {
    char text_a[shape_op::kShapeTextBytes];
    char text_b[shape_op::kShapeTextBytes];
    return context.Error(ErrorCode::kInvalidArgument, "output '%s' has shape %s; keep_dims=%d over the axes gives %s",
                         output.name(), shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)),
                         keep_dims ? 1 : 0, shape_op::FormatShape(expected, expected_rank, text_b, sizeof(text_b)));
  }
  auto* data = static_cast<ReduceData*>(context.AllocatePersistent(sizeof(ReduceData), alignof(ReduceData)));
  if (data == nullptr) return context.OutOfMemory();
  *data = ReduceData{0, 0, 0, 0, -1, 0};
  for (size_t d = 0; d < rank; ++d) {
    if (reduced[d]) data->reduced_mask = static_cast<uint8_t>(data->reduced_mask | (1u << d));
  }
  if (type == TensorType::kInt8 || type == TensorType::kInt16) {
    const int32_t qmin = type == TensorType::kInt8 ? -128 : -32768;
    const int32_t qmax = type == TensorType::kInt8 ? 127 : 32767;
    MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "input", input, qmin, qmax));
    MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "output", output, qmin, qmax));
    const float input_scale = input.quantization().scale(0);
    const float output_scale = output.quantization().scale(0);
    data->input_zero_point = static_cast<int32_t>(input.quantization().zero_point(0));
    data->output_zero_point = static_cast<int32_t>(output.quantization().zero_point(0));
    if (kOp != ReduceOp::kSum) {
      if (input_scale != output_scale || data->input_zero_point != data->output_zero_point) {
        return context.Error(ErrorCode::kUnsupported,
                             "INT8 input scale %g, zero point %d and output scale %g, zero point %d must be equal (as "
                             "in TFLM)",
                             static_cast<double>(input_scale), data->input_zero_point,
                             static_cast<double>(output_scale), data->output_zero_point);
      }
    } else {
      if (reduced_count > std::numeric_limits<int32_t>::max()) {
        return context.Error(ErrorCode::kUnsupported, "input '%s' reduces %lld values into each output; at most %d",
                             input.name(), static_cast<long long>(reduced_count), std::numeric_limits<int32_t>::max());
      }
      const double ratio = static_cast<double>(input_scale) / static_cast<double>(output_scale);
      int shift = 0;
      fixed_point::QuantizeMultiplier(ratio, &data->multiplier, &shift);
      MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, ratio, shift));
      data->shift = shift;
      MICROARENA_RETURN_IF_ERROR(
          context.RequestScratch(output.element_count() * sizeof(int32_t), &data->scratch_index));
    }
  }
  *op_data = data;
  return OkStatus();
}

reference::ReduceShape ShapeOf(const EvalTensor& input, uint8_t reduced_mask) {
  reference::ReduceShape shape;
  shape.rank = input.rank;
  for (size_t d = 0; d < input.rank; ++d) {
    shape.dims[d] = input.dims[d];
    shape.reduced[d] = ((static_cast<unsigned>(reduced_mask) >> d) & 1u) != 0;
  }
  return shape;
}

// Fills the output with `init`, then folds the input into it.
template <typename T, typename Reducer>
void ReduceWithInit(const reference::ReduceShape& shape, const T* input, T* output, size_t output_count, T init,
                    Reducer reducer) {
  for (size_t o = 0; o < output_count; ++o) output[o] = init;
  reference::ReduceInto(shape, input, output, reducer);
}

template <ReduceOp kOp, typename T>
void RunMinMax(const reference::ReduceShape& shape, const EvalTensor& input, EvalTensor& output) {
  const size_t count = output.element_count();
  if constexpr (kOp == ReduceOp::kMax) {
    ReduceWithInit<T>(shape, input.As<const T>(), output.As<T>(), count, std::numeric_limits<T>::lowest(),
                      [](T current, T in) { return in > current ? in : current; });
  } else {
    ReduceWithInit<T>(shape, input.As<const T>(), output.As<T>(), count, std::numeric_limits<T>::max(),
                      [](T current, T in) { return in < current ? in : current; });
  }
}

template <ReduceOp kOp>
Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const ReduceData*>(op_data);
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  const reference::ReduceShape shape = ShapeOf(input, data.reduced_mask);
  const size_t count = output.element_count();
  if constexpr (kOp == ReduceOp::kSum) {
    auto* sums = static_cast<int32_t*>(data.scratch_index >= 0 ? context.scratch(data.scratch_index) : nullptr);
    switch (input.type) {
      case TensorType::kFloat32:
        ReduceWithInit<float>(shape, input.As<const float>(), output.As<float>(), count, 0.0f,
                              [](float current, float in) { return in + current; });
        break;
      case TensorType::kInt8:
        reference::SumQuantized(shape, data.input_zero_point, data.output_zero_point, data.multiplier, data.shift,
                                input.As<const int8_t>(), output.As<int8_t>(), count, sums);
        break;
      case TensorType::kInt16:
        reference::SumQuantized(shape, data.input_zero_point, data.output_zero_point, data.multiplier, data.shift,
                                input.As<const int16_t>(), output.As<int16_t>(), count, sums);
        break;
      default: return Status::Error(ErrorCode::kInternal, "SUM of %s", TensorTypeName(input.type));
    }
  } else if constexpr (kOp == ReduceOp::kAll) {
    // Bytes, not bool: any nonzero byte is true, and a byte other than 0 or
    // 1 is no valid bool to load.
    ReduceWithInit<uint8_t>(shape, input.As<const uint8_t>(), output.As<uint8_t>(), count, 1,
                            [](uint8_t current, uint8_t in) { return static_cast<uint8_t>(current != 0 && in != 0); });
  } else {
    switch (input.type) {
      case TensorType::kFloat32: RunMinMax<kOp, float>(shape, input, output); break;
      case TensorType::kInt8: RunMinMax<kOp, int8_t>(shape, input, output); break;
      default: return Status::Error(ErrorCode::kInternal, "REDUCE_MAX/MIN of %s", TensorTypeName(input.type));
    }
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kSumKernel = {BuiltinOp::kSum, Prepare<ReduceOp::kSum>, Eval<ReduceOp::kSum>};
const KernelRegistration kReduceMaxKernel = {BuiltinOp::kReduceMax, Prepare<ReduceOp::kMax>, Eval<ReduceOp::kMax>};
const KernelRegistration kReduceMinKernel = {BuiltinOp::kReduceMin, Prepare<ReduceOp::kMin>, Eval<ReduceOp::kMin>};
const KernelRegistration kReduceAllKernel = {BuiltinOp::kReduceAll, Prepare<ReduceOp::kAll>, Eval<ReduceOp::kAll>};

}  // namespace microarena
