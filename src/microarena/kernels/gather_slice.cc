// SLICE, GATHER, GATHER_ND and REVERSE_V2: ops that pick elements by
// position (reference/data_movement.h). Values move unchanged.
//
//   SLICE(input, begin, size)    begin/size INT32 or INT64, read at Invoke
//                                (they may be computed); size -1 means "to
//                                the end"; rank up to 5 (TFLM's limit). A
//                                slice outside the input or unlike the output
//                                shape fails the Invoke.
//   GATHER(params, indices)      options axis, batch_dims; INT32 indices;
//                                an index outside [0, extent) fails the
//                                Invoke (TFLM reads outside the params)
//   GATHER_ND(params, indices)   INT32 indices, innermost depth up to 5; an
//                                index outside its axis fails the Invoke
//   REVERSE_V2(input, axes)      constant INT32 axes, adjacent once sorted
//                                (TFLM refuses others)
// Types as TFLM's kernels. Op data: 8 bytes for GATHER (resolved axis and
// batch dims; TFLM's parsed options are as large), none for the others.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/reference/data_movement.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

Status TypeError(const PrepareContext& context, const TensorView& tensor, const char* role, const char* supported) {
  return context.Error(ErrorCode::kUnsupported, "%s tensor %d '%s' is %s; supported: %s", role, tensor.index(),
                       tensor.name(), TensorTypeName(tensor.type()), supported);
}

size_t Product(const int32_t* dims, size_t from, size_t to) {
  size_t product = 1;
  for (size_t d = from; d < to; ++d) product *= static_cast<size_t>(dims[d]);
  return product;
}

// --- SLICE ------------------------------------------------------------------

bool SliceTypeSupported(TensorType type) {
  return type == TensorType::kFloat32 || type == TensorType::kInt8 || type == TensorType::kInt16 ||
         type == TensorType::kInt32 || type == TensorType::kBool;
}
constexpr const char* kSliceTypes = "FLOAT32, INT8, INT16, INT32 or BOOL";

Status PrepareSlice(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 3, 1));
  const TensorView input = context.input(0);
  const TensorView begin = context.input(1);
  const TensorView size = context.input(2);
  const TensorView output = context.output(0);
  if (!SliceTypeSupported(input.type())) return TypeError(context, input, "input", kSliceTypes);
  if (output.type() != input.type()) return TypeError(context, output, "output", "the input's type");
  for (const TensorView* t : {&begin, &size}) {
    if (t->type() != TensorType::kInt32 && t->type() != TensorType::kInt64) {
      return TypeError(context, *t, t == &begin ? "begin" : "size", "INT32 or INT64");
    }
  }
  if (begin.rank() != 1 || size.rank() != 1 || begin.element_count() != input.rank() ||
      size.element_count() != input.rank() || output.rank() != input.rank()) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "begin and size must be 1-D with one value per input axis (%zu) and the output of the input's "
                         "rank; got %zu, %zu values and output rank %zu",
                         input.rank(), begin.element_count(), size.element_count(), output.rank());
  }
  if (input.rank() > reference::kMaxSliceRank) {
    return context.Error(ErrorCode::kUnsupported, "input rank %zu; at most %zu is supported (as in TFLM)", input.rank(),
                         reference::kMaxSliceRank);
  }
  if (begin.type() != size.type()) {
    return context.Error(ErrorCode::kUnsupported, "begin is %s and size is %s; they must be the same type",
                         TensorTypeName(begin.type()), TensorTypeName(size.type()));
  }
  *op_data = nullptr;
  return OkStatus();
}

int64_t ReadIndex(const EvalTensor& tensor, size_t i) {
  return tensor.type == TensorType::kInt64 ? tensor.As<const int64_t>()[i]
                                           : static_cast<int64_t>(tensor.As<const int32_t>()[i]);
}

Status EvalSlice(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& input = *context.input(0);
  const EvalTensor& begin_tensor = *context.input(1);
  const EvalTensor& size_tensor = *context.input(2);
  EvalTensor& output = *context.output(0);
  int32_t begin[reference::kMaxSliceRank] = {};
  int32_t size[reference::kMaxSliceRank] = {};
  for (size_t d = 0; d < input.rank; ++d) {
    const int64_t b = ReadIndex(begin_tensor, d);
    int64_t s = ReadIndex(size_tensor, d);
    // No sums of model values: an int64 begin near its maximum would wrap b + s.
    const bool begin_fits = b >= 0 && b <= input.dims[d];
    if (begin_fits && s == -1) s = input.dims[d] - b;
    if (!begin_fits || s < 0 || s > input.dims[d] - b || s != output.dims[d]) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "slice begin %lld size %lld on axis %zu does not fit the input (extent %d) and the output "
                           "(extent %d)",
                           static_cast<long long>(b), static_cast<long long>(ReadIndex(size_tensor, d)), d,
                           input.dims[d], output.dims[d]);
    }
    begin[d] = static_cast<int32_t>(b);
    size[d] = static_cast<int32_t>(s);
  }
  reference::Slice(input.dims, input.rank, begin, size, input.data, output.data, shape_op::ElementBytes(input.type));
  return OkStatus();
}

// --- GATHER -----------------------------------------------------------------

bool GatherTypeSupported(TensorType type) { return type == TensorType::kFloat32 || type == TensorType::kInt8; }
constexpr const char* kGatherTypes = "FLOAT32 or INT8";

// Persistent op data: 8 bytes (TFLM's parsed options are as large).
struct GatherData {
  int32_t axis;
  int32_t batch_dims;
};

Status PrepareGather(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input = context.input(0);
  const TensorView coords = context.input(1);
  const TensorView output = context.output(0);
  if (coords.type() != TensorType::kInt32) return TypeError(context, coords, "indices", "INT32");
  if (!GatherTypeSupported(input.type())) return TypeError(context, input, "params", kGatherTypes);
  if (output.type() != input.type()) return TypeError(context, output, "output", "the params' type");
  const auto* options = context.op().raw()->builtin_options_as_GatherOptions();
  const int32_t given_axis = options != nullptr ? options->axis() : 0;
  const int32_t given_batch_dims = options != nullptr ? options->batch_dims() : 0;
  const auto rank = static_cast<int32_t>(input.rank());
  const auto coords_rank = static_cast<int32_t>(coords.rank());
  const int32_t axis = given_axis < 0 ? given_axis + rank : given_axis;
  const int32_t batch_dims = given_batch_dims < 0 ? given_batch_dims + coords_rank : given_batch_dims;
  if (axis < 0 || axis >= rank || batch_dims < 0 || batch_dims > axis || batch_dims >= rank ||
      batch_dims > coords_rank) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "axis %d and batch_dims %d do not fit params of rank %d and indices of rank %d", given_axis,
                         given_batch_dims, rank, coords_rank);
  }
  for (int32_t i = 0; i < batch_dims; ++i) {
    if (input.shape()[static_cast<size_t>(i)] != coords.shape()[static_cast<size_t>(i)]) {
      return context.Error(ErrorCode::kInvalidArgument, "batch axis %d: params extent %d, indices extent %d", i,
                           input.shape()[static_cast<size_t>(i)], coords.shape()[static_cast<size_t>(i)]);
    }
  }
  // params[:axis] + indices[batch_dims:] + params[axis + 1:]
  int32_t expected[2 * kMaxRank] = {};
  size_t expected_rank = 0;
  for (int32_t i = 0; i < axis; ++i) expected[expected_rank++] = input.shape()[static_cast<size_t>(i)];
  for (int32_t i = batch_dims; i < coords_rank; ++i) expected[expected_rank++] = coords.shape()[static_cast<size_t>(i)];
  for (int32_t i = axis + 1; i < rank; ++i) expected[expected_rank++] = input.shape()[static_cast<size_t>(i)];
  if (!shape_op::ShapeEquals(output.shape(), expected, expected_rank)) {
    char text_a[shape_op::kShapeTextBytes];
    char text_b[shape_op::kShapeTextBytes];
    return context.Error(ErrorCode::kInvalidArgument, "output shape %s; the gather gives %s",
                         shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)),
                         shape_op::FormatShape(expected, expected_rank, text_b, sizeof(text_b)));
  }
  auto* data = static_cast<GatherData*>(context.AllocatePersistent(sizeof(GatherData), alignof(GatherData)));
  if (data == nullptr) return context.OutOfMemory();
  data->axis = axis;
  data->batch_dims = batch_dims;
  *op_data = data;
  return OkStatus();
}

Status EvalGather(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const GatherData*>(op_data);
  const EvalTensor& input = *context.input(0);
  const EvalTensor& coords = *context.input(1);
  EvalTensor& output = *context.output(0);
  const auto axis = static_cast<size_t>(data.axis);
  const auto batch_dims = static_cast<size_t>(data.batch_dims);
  const int64_t bad =
      reference::Gather(input.data, coords.As<const int32_t>(), output.data, Product(input.dims, 0, batch_dims),
                        Product(input.dims, batch_dims, axis), static_cast<size_t>(input.dims[axis]),
                        Product(coords.dims, batch_dims, coords.rank),
                        Product(input.dims, axis + 1, input.rank) * shape_op::ElementBytes(input.type));
  if (bad >= 0) {
    return Status::Error(ErrorCode::kInvalidArgument, "index %lld (value %d) is outside [0, %d)",
                         static_cast<long long>(bad), coords.As<const int32_t>()[bad], input.dims[axis]);
  }
  return OkStatus();
}

// --- GATHER_ND --------------------------------------------------------------

Status PrepareGatherNd(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView params = context.input(0);
  const TensorView indices = context.input(1);
  const TensorView output = context.output(0);
  if (!GatherTypeSupported(params.type())) return TypeError(context, params, "params", kGatherTypes);
  if (indices.type() != TensorType::kInt32) return TypeError(context, indices, "indices", "INT32");
  if (output.type() != params.type()) return TypeError(context, output, "output", "the params' type");
  if (params.rank() < 1 || indices.rank() < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "params (rank %zu) and indices (rank %zu) must be at least 1-D",
                         params.rank(), indices.rank());
  }
  const auto depth = static_cast<size_t>(indices.shape()[indices.rank() - 1]);
  if (depth > params.rank() || depth > reference::kMaxGatherNdIndexDepth) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "indices' innermost extent %zu exceeds the params' rank %zu or the limit %zu", depth,
                         params.rank(), reference::kMaxGatherNdIndexDepth);
  }
  // indices[:-1] + params[depth:]
  int32_t expected[2 * kMaxRank] = {};
  size_t expected_rank = 0;
  for (size_t i = 0; i + 1 < indices.rank(); ++i) expected[expected_rank++] = indices.shape()[i];
  for (size_t i = depth; i < params.rank(); ++i) expected[expected_rank++] = params.shape()[i];
  if (!shape_op::ShapeEquals(output.shape(), expected, expected_rank)) {
    char text_a[shape_op::kShapeTextBytes];
    char text_b[shape_op::kShapeTextBytes];
    return context.Error(ErrorCode::kInvalidArgument, "output shape %s; the gather gives %s",
                         shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)),
                         shape_op::FormatShape(expected, expected_rank, text_b, sizeof(text_b)));
  }
  *op_data = nullptr;
  return OkStatus();
}

Status EvalGatherNd(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& params = *context.input(0);
  const EvalTensor& indices = *context.input(1);
  EvalTensor& output = *context.output(0);
  const auto depth = static_cast<size_t>(indices.dims[indices.rank - 1]);
  size_t strides[reference::kMaxGatherNdIndexDepth] = {};
  for (size_t j = 0; j < depth; ++j) strides[j] = Product(params.dims, j + 1, params.rank);
  const int64_t bad = reference::GatherNd(
      params.data, params.dims, indices.As<const int32_t>(), Product(indices.dims, 0, indices.rank - 1), depth, strides,
      Product(params.dims, depth, params.rank), shape_op::ElementBytes(params.type), output.data);
  if (bad >= 0) {
    return Status::Error(ErrorCode::kInvalidArgument, "index row %lld points outside the params",
                         static_cast<long long>(bad));
  }
  return OkStatus();
}

// --- REVERSE_V2 -------------------------------------------------------------

bool ReverseTypeSupported(TensorType type) {
  return type == TensorType::kFloat32 || type == TensorType::kInt32 || type == TensorType::kUInt8 ||
         type == TensorType::kInt8 || type == TensorType::kInt16 || type == TensorType::kInt64 ||
         type == TensorType::kBool;
}

Status PrepareReverse(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input = context.input(0);
  const TensorView axes = context.input(1);
  const TensorView output = context.output(0);
  if (!ReverseTypeSupported(input.type())) {
    return TypeError(context, input, "input", "FLOAT32, INT32, UINT8, INT8, INT16, INT64 or BOOL");
  }
  if (output.type() != input.type()) return TypeError(context, output, "output", "the input's type");
  if (axes.type() != TensorType::kInt32) return TypeError(context, axes, "axis", "INT32");
  if (!shape_op::ShapeEquals(output.shape(), input.shape().data(), input.rank())) {
    return context.Error(ErrorCode::kInvalidArgument, "output tensor %d must have the input's shape", output.index());
  }
  int32_t values[kMaxRank] = {};
  size_t count = 0;
  const size_t capacity = input.rank() < kMaxRank ? input.rank() : kMaxRank;
  if (axes.rank() != 1 || !shape_op::ReadConstantIndices(axes, values, capacity, &count) || count == 0) {
    return context.Error(ErrorCode::kUnsupported,
                         "axis tensor %d '%s' must be constant, 1-D, with 1 to %zu values (the input's rank)",
                         axes.index(), axes.name(), input.rank());
  }
  const auto rank = static_cast<int32_t>(input.rank());
  for (size_t i = 0; i < count; ++i) {
    const int32_t given = values[i];
    values[i] = given < 0 ? given + rank : given;
    if (values[i] < 0 || values[i] >= rank) {
      return context.Error(ErrorCode::kInvalidArgument, "axis %d is out of range for rank %d", given, rank);
    }
  }
  // Insertion sort: at most kMaxRank values.
  for (size_t i = 1; i < count && i < kMaxRank; ++i) {
    for (size_t j = i; j > 0 && values[j] < values[j - 1]; --j) std::swap(values[j], values[j - 1]);
  }
  for (size_t i = 1; i < count; ++i) {
    if (values[i] != values[i - 1] + 1) {
      return context.Error(ErrorCode::kUnsupported, "axes must be distinct and adjacent (as in TFLM)");
    }
  }
  *op_data = nullptr;
  return OkStatus();
}

// The axes are constant and were checked at Prepare: adjacent once resolved,
// so they span [smallest, largest]. Read here again to keep no op data.
Status EvalReverse(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& input = *context.input(0);
  const EvalTensor& axes = *context.input(1);
  const auto rank = static_cast<int32_t>(input.rank);
  int32_t first = rank;
  int32_t last = -1;
  for (size_t i = 0; i < axes.element_count(); ++i) {
    const int32_t given = axes.As<const int32_t>()[i];
    const int32_t axis = given < 0 ? given + rank : given;
    first = std::min(first, axis);
    last = std::max(last, axis);
  }
  const auto first_axis = static_cast<size_t>(first);
  const auto last_axis = static_cast<size_t>(last);
  reference::Reverse(input.data, Product(input.dims, 0, first_axis), Product(input.dims, first_axis, last_axis + 1),
                     Product(input.dims, last_axis + 1, input.rank) * shape_op::ElementBytes(input.type),
                     context.output(0)->data);
  return OkStatus();
}

}  // namespace

const KernelRegistration kSliceKernel = {BuiltinOp::kSlice, PrepareSlice, EvalSlice};
const KernelRegistration kGatherKernel = {BuiltinOp::kGather, PrepareGather, EvalGather};
const KernelRegistration kGatherNdKernel = {BuiltinOp::kGatherNd, PrepareGatherNd, EvalGatherNd};
const KernelRegistration kReverseV2Kernel = {BuiltinOp::kReverseV2, PrepareReverse, EvalReverse};

}  // namespace microarena
