// ARG_MAX and ARG_MIN: the index of the largest / smallest value along one
// axis, as TFLM's reference kernel: FLOAT32 or INT8 input (raw values), an
// INT32 one-element axis tensor read at Invoke (it may be computed), INT32
// output of the input's shape without that axis.
//
// Ties keep the first index. Floats compare with > / < (TFLM's std::greater
// and std::less): a NaN never replaces the running extreme, and a leading NaN
// is never replaced.
// No op data (TFLM keeps none).
#include <cstdint>

#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Checks the output's shape against `axis` (resolved).
bool OutputShapeMatches(const int32_t* input_dims, size_t rank, const int32_t* output_dims, size_t output_rank,
                        size_t axis) {
  if (output_rank + 1 != rank) return false;
  for (size_t d = 0, k = 0; d < rank; ++d) {
    if (d == axis) continue;
    if (output_dims[k++] != input_dims[d]) return false;
  }
  return true;
}

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input = context.input(0);
  const TensorView axis = context.input(1);
  const TensorView output = context.output(0);
  if (input.type() != TensorType::kFloat32 && input.type() != TensorType::kInt8) {
    return context.Error(ErrorCode::kUnsupported, "input %s not supported (FLOAT32 or INT8)",
                         TensorTypeName(input.type()));
  }
  if (output.type() != TensorType::kInt32) {
    return context.Error(ErrorCode::kUnsupported, "output %s not supported (INT32 only)",
                         TensorTypeName(output.type()));
  }
  if (axis.type() != TensorType::kInt32 || axis.element_count() != 1) {
    return context.Error(ErrorCode::kUnsupported, "axis tensor %d must hold one INT32 value (%s, %zu values)",
                         axis.index(), TensorTypeName(axis.type()), axis.element_count());
  }
  if (input.rank() == 0) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d is a scalar; it needs an axis", input.index());
  }
  if (axis.is_constant()) {
    int32_t value = 0;
    size_t count = 0;
    const auto rank = static_cast<int32_t>(input.rank());
    const bool read = shape_op::ReadConstantIndices(axis, &value, 1, &count);
    const int32_t resolved = value < 0 ? value + rank : value;
    if (!read || resolved < 0 || resolved >= rank ||
        !OutputShapeMatches(input.shape().data(), input.rank(), output.shape().data(), output.rank(),
                            static_cast<size_t>(resolved))) {
      return context.Error(ErrorCode::kInvalidArgument,
                           "axis %d does not fit input tensor %d (rank %d) and output tensor %d (rank %zu)", value,
                           input.index(), rank, output.index(), output.rank());
    }
  }
  *op_data = nullptr;
  return OkStatus();
}

// Whether `candidate` replaces `current` as the running extreme: a plain
// comparison, so a NaN neither wins nor is replaced once it leads.
template <bool kMax, typename T>
bool Replaces(T candidate, T current) {
  return kMax ? candidate > current : candidate < current;
}

template <bool kMax, typename T>
void ArgMinMax(const T* input, size_t outer, size_t axis_size, size_t inner, int32_t* output) {
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      if (axis_size == 0) {  // nothing to compare (TFLM would read past the input)
        output[o * inner + i] = 0;
        continue;
      }
      T best = input[o * axis_size * inner + i];
      int32_t best_index = 0;
      for (size_t a = 1; a < axis_size; ++a) {
        const T value = input[(o * axis_size + a) * inner + i];
        if (Replaces<kMax>(value, best)) {
          best = value;
          best_index = static_cast<int32_t>(a);
        }
      }
      output[o * inner + i] = best_index;
    }
  }
}

template <bool kMax>
Status Eval(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& input = *context.input(0);
  const EvalTensor& axis_tensor = *context.input(1);
  EvalTensor& output = *context.output(0);
  const int64_t given = axis_tensor.As<const int32_t>()[0];
  const int64_t axis = given < 0 ? given + input.rank : given;
  if (axis < 0 || axis >= input.rank ||
      !OutputShapeMatches(input.dims, input.rank, output.dims, output.rank, static_cast<size_t>(axis))) {
    return Status::Error(ErrorCode::kInvalidArgument, "axis %lld does not fit the input (rank %u) and the output",
                         static_cast<long long>(given), static_cast<unsigned>(input.rank));
  }
  size_t outer = 1;
  size_t inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(input.dims[d]);
  for (size_t d = static_cast<size_t>(axis) + 1; d < input.rank; ++d) inner *= static_cast<size_t>(input.dims[d]);
  const auto axis_size = static_cast<size_t>(input.dims[axis]);
  if (input.type == TensorType::kFloat32) {
    ArgMinMax<kMax>(input.As<const float>(), outer, axis_size, inner, output.As<int32_t>());
  } else {
    ArgMinMax<kMax>(input.As<const int8_t>(), outer, axis_size, inner, output.As<int32_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kArgMaxKernel = {BuiltinOp::kArgMax, Prepare, Eval<true>};
const KernelRegistration kArgMinKernel = {BuiltinOp::kArgMin, Prepare, Eval<false>};

}  // namespace microarena
