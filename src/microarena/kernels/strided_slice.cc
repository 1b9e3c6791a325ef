// STRIDED_SLICE with constant begin/end/strides (INT32 or INT64, one value per
// input dimension), input rank <= 5, any 1-, 2- or 4-byte type.
//
// Per dimension d, as TFLM resolves it (StartForAxis / StopForAxis):
//   start = begin_mask bit ? (stride > 0 ? first : last) : begin[d]
//   stop  = end_mask bit   ? (stride > 0 ? past last : before first) : end[d]
//   negative values add the dimension size; then start and stop are clamped
//   to [0, size] (stride > 0) or [-1, size - 1] (stride < 0);
//   shrink_axis_mask bit: stop = start + 1 and the dimension is dropped.
// Output size along d: max(0, ceil((stop - start) / float(stride))).
// ellipsis_mask, new_axis_mask and offset are rejected (TFLM ignores them).
#include <cmath>
#include <cstdint>
#include <limits>

#include "microarena/kernels/reference/strided_slice.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/wrapping_math.h"

namespace microarena {
namespace {

// Persistent op data: 80 bytes.
using StridedSliceData = reference::StridedSliceParams;

int64_t Clamp(int64_t value, int64_t low, int64_t high) { return value < low ? low : (value > high ? high : value); }

constexpr int64_t kLowest = std::numeric_limits<int32_t>::lowest();
constexpr int64_t kHighest = std::numeric_limits<int32_t>::max();

// One begin or end index as TFLM's StartForAxis / StopForAxis resolve it:
// `masked_value` when its mask bit is set, negative values from the end,
// then clamped to [0, size] (stride > 0) or [-1, size - 1] (stride < 0).
int64_t ResolveSliceIndex(int64_t value, bool masked, int64_t masked_value, int64_t size, int64_t stride) {
  if (masked) value = masked_value;
  if (value < 0) value += size;
  return stride > 0 ? Clamp(value, 0, size) : Clamp(value, -1, size - 1);
}

Status Prepare(PrepareContext& context, const void** op_data) {
  if (context.input_count() != 4 || context.output_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "expects 4 inputs (tensor, begin, end, strides) and 1 output, got %zu and %zu",
                         context.input_count(), context.output_count());
  }
  for (size_t i = 0; i < 4; ++i) {
    if (!context.has_input(i)) return context.Error(ErrorCode::kInvalidArgument, "input %zu is omitted", i);
  }
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireElementsOf1To4Bytes(context, input));
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireSameTypeAndQuantization(context, input, output));
  MICROARENA_RETURN_IF_ERROR(shape_op::RequireMaxRank(context, input, reference::kStridedSliceMaxRank));
  const size_t rank = input.rank();
  const auto* options = context.op().raw()->builtin_options_as_StridedSliceOptions();
  const int32_t begin_mask = options != nullptr ? options->begin_mask() : 0;
  const int32_t end_mask = options != nullptr ? options->end_mask() : 0;
  const int32_t shrink_mask = options != nullptr ? options->shrink_axis_mask() : 0;
  if (options != nullptr && (options->ellipsis_mask() != 0 || options->new_axis_mask() != 0 || options->offset())) {
    return context.Error(ErrorCode::kUnsupported,
                         "ellipsis_mask %d, new_axis_mask %d and offset %d are not supported (must be 0)",
                         options->ellipsis_mask(), options->new_axis_mask(), options->offset() ? 1 : 0);
  }
  const char* const names[3] = {"begin", "end", "strides"};
  int32_t values[3][reference::kStridedSliceMaxRank] = {};
  for (size_t v = 0; v < 3; ++v) {
    const TensorView tensor = context.input(v + 1);
    size_t count = 0;
    if (!shape_op::ReadConstantIndices(tensor, values[v], reference::kStridedSliceMaxRank, &count) ||
        tensor.rank() != 1 || count != rank) {
      return context.Error(ErrorCode::kUnsupported,
                           "%s '%s' must be a constant 1-D INT32 or INT64 tensor of %zu values (type %s, %zu values, "
                           "%s)", names[v], tensor.name(), rank, TensorTypeName(tensor.type()), count,
                           tensor.is_constant() ? "constant" : "not constant");
    }
  }
  auto* data = static_cast<StridedSliceData*>(context.AllocatePersistent(sizeof(StridedSliceData)));
  if (data == nullptr) return context.OutOfMemory();
  *data = StridedSliceData{};
  const size_t lead = reference::kStridedSliceMaxRank - rank;
  int32_t expected[reference::kStridedSliceMaxRank] = {};
  size_t expected_rank = 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = input.shape()[d];
    const int64_t stride = values[2][d];
    const bool shrink = (shrink_mask & (1 << d)) != 0;
    if (stride == 0) {
      return context.Error(ErrorCode::kInvalidArgument, "strides '%s' is 0 for dimension %zu",
                           context.input(3).name(), d);
    }
    int64_t start = 0;
    int64_t stop = 0;
    if (size != 0) {
      // A masked begin starts at the first element in the stride's direction,
      // a masked end stops past the last one.
      start = ResolveSliceIndex(values[0][d], (begin_mask & (1 << d)) != 0, stride > 0 ? kLowest : kHighest, size,
                                stride);
      stop = shrink ? start + 1
                    : ResolveSliceIndex(values[1][d], (end_mask & (1 << d)) != 0, stride > 0 ? kHighest : kLowest,
                                        size, stride);
    }
    if (shrink) {
      if (start < 0 || start >= size) {
        return context.Error(ErrorCode::kInvalidArgument,
                             "shrink_axis_mask selects index %d of dimension %zu, which has size %d",
                             values[0][d], d, static_cast<int>(size));
      }
      stop = start + 1;
    } else {
      const auto extent = static_cast<float>(stop - start) / static_cast<float>(stride);
      // TruncateToInt32: an extent of 2^31 (a whole INT32_MAX dimension, in
      // float) does not convert; it gives INT32_MIN, hence 0, as in TFLM on x86-64.
      const int32_t dim = fixed_point::TruncateToInt32(std::ceil(extent));
      expected[expected_rank++] = dim < 0 ? 0 : dim;
    }
    data->input_dims[lead + d] = static_cast<int32_t>(size);
    data->start[lead + d] = static_cast<int32_t>(start);
    data->stop[lead + d] = static_cast<int32_t>(stop);
    data->stride[lead + d] = static_cast<int32_t>(stride);
  }
  char text_a[shape_op::kShapeTextBytes];
  char text_b[shape_op::kShapeTextBytes];
  char text_c[shape_op::kShapeTextBytes];
  if (!shape_op::ShapeEquals(output.shape(), expected, expected_rank)) {
    return context.Error(ErrorCode::kInvalidArgument, "output '%s' has shape %s; the slice of input '%s' %s gives %s",
                         output.name(), shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)), input.name(),
                         shape_op::FormatShape(input.shape(), text_b, sizeof(text_b)),
                         shape_op::FormatShape(expected, expected_rank, text_c, sizeof(text_c)));
  }
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& params = *static_cast<const StridedSliceData*>(op_data);
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  shape_op::WithElementWord(input.type, [&](auto word) {
    using Word = decltype(word);
    reference::StridedSlice(params, input.As<const Word>(), output.As<Word>());
  });
  return OkStatus();
}

}  // namespace

const KernelRegistration kStridedSliceKernel = {BuiltinOp::kStridedSlice, Prepare, Eval};

}  // namespace microarena
