// BATCH_MATMUL: LHS [..., A, B] x RHS [..., B, C] -> [..., A, C] (adj_x / adj_y
// read an operand transposed), batch dimensions broadcast, ranks 2..5.
//
// Types: FLOAT32; INT8 with per-tensor quantization on all three tensors
// (any zero points); INT16 likewise with every zero point 0 (TFLM's rule),
// int64 sums and the 64-bit rescale. The rescale multiplier is
//   double(float(lhs_scale * rhs_scale)) / double(output_scale)
// as TFLM's GetQuantizedConvolutionMultipler computes it, then
// QuantizeMultiplier; no fused activation (clamp to the type).
//
// Memory: none beyond 20-24 bytes of op data. TFLM copies a transposed RHS
// (unless adj_y) and LHS (if adj_x) into persistent buffers; reading through
// strides gives the same sums in the same order without them.
//
// LHS and RHS ranks > 2 with RHS dimension -3 equal to 1: TFLM folds the LHS
// batch into its columns; the strides here give the same product (with
// adj_x too, which an older TFLM got wrong and this kernel once refused).
#include <algorithm>

#include "microarena/kernels/conv_common.h"
#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/batch_matmul.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data: 24 bytes.
struct BatchMatmulData {
  reference::BatchMatmulQuantization quantization;
  bool adj_x;
  bool adj_y;
};

constexpr size_t kMinRank = 2;

Status Prepare(PrepareContext& context, const void** op_data) {
  if (context.input_count() != 2 || context.output_count() != 1 || !context.has_input(0) || !context.has_input(1)) {
    return context.Error(ErrorCode::kInvalidArgument, "expects 2 inputs (lhs, rhs) and 1 output, got %zu and %zu",
                         context.input_count(), context.output_count());
  }
  const TensorView lhs = context.input(0);
  const TensorView rhs = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = lhs.type();
  if ((type != TensorType::kFloat32 && type != TensorType::kInt8 && type != TensorType::kInt16) ||
      rhs.type() != type || output.type() != type) {
    return context.Error(ErrorCode::kUnsupported,
                         "lhs '%s' %s, rhs '%s' %s, output '%s' %s; supported: all FLOAT32, all INT8 or all INT16",
                         lhs.name(),
                         TensorTypeName(type), rhs.name(), TensorTypeName(rhs.type()), output.name(),
                         TensorTypeName(output.type()));
  }
  const size_t lhs_rank = lhs.rank();
  const size_t rhs_rank = rhs.rank();
  if (lhs_rank < kMinRank || lhs_rank > reference::kBatchMatmulMaxRank || rhs_rank < kMinRank ||
      rhs_rank > reference::kBatchMatmulMaxRank) {
    return context.Error(ErrorCode::kUnsupported, "lhs '%s' has rank %zu and rhs '%s' rank %zu; each must be 2..%zu",
                         lhs.name(), lhs_rank, rhs.name(), rhs_rank, reference::kBatchMatmulMaxRank);
  }
  const auto* options = context.op().raw()->builtin_options_as_BatchMatMulOptions();
  const bool adj_x = options != nullptr && options->adj_x();
  const bool adj_y = options != nullptr && options->adj_y();

  // Right-align both shapes to 5 dimensions.
  reference::BatchMatmulShape shape;
  for (size_t d = 0; d < lhs_rank; ++d) shape.lhs_dims[reference::kBatchMatmulMaxRank - lhs_rank + d] = lhs.shape()[d];
  for (size_t d = 0; d < rhs_rank; ++d) shape.rhs_dims[reference::kBatchMatmulMaxRank - rhs_rank + d] = rhs.shape()[d];
  char text_a[shape_op::kShapeTextBytes];
  char text_b[shape_op::kShapeTextBytes];
  char text_c[shape_op::kShapeTextBytes];
  char text_d[shape_op::kShapeTextBytes];
  const size_t output_rank = std::max(lhs_rank, rhs_rank);
  int32_t expected[reference::kBatchMatmulMaxRank] = {};
  const size_t skip = reference::kBatchMatmulMaxRank - output_rank;
  for (size_t d = skip; d < 3; ++d) {
    const int32_t l = shape.lhs_dims[d];
    const int32_t r = shape.rhs_dims[d];
    if (l != r && l != 1 && r != 1) {
      return context.Error(ErrorCode::kInvalidArgument, "batch dimensions of lhs '%s' %s and rhs '%s' %s do not "
                           "broadcast", lhs.name(), shape_op::FormatShape(lhs.shape(), text_a, sizeof(text_a)),
                           rhs.name(), shape_op::FormatShape(rhs.shape(), text_b, sizeof(text_b)));
    }
    expected[d - skip] = l == 1 ? r : l;
  }
  const int32_t rows = adj_x ? shape.lhs_dims[4] : shape.lhs_dims[3];
  const int32_t lhs_depth = adj_x ? shape.lhs_dims[3] : shape.lhs_dims[4];
  const int32_t rhs_depth = adj_y ? shape.rhs_dims[4] : shape.rhs_dims[3];
  const int32_t cols = adj_y ? shape.rhs_dims[3] : shape.rhs_dims[4];
  if (lhs_depth != rhs_depth) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "lhs '%s' %s (adj_x=%d) has depth %d but rhs '%s' %s (adj_y=%d) has depth %d", lhs.name(),
                         shape_op::FormatShape(lhs.shape(), text_a, sizeof(text_a)), adj_x ? 1 : 0, lhs_depth,
                         rhs.name(), shape_op::FormatShape(rhs.shape(), text_b, sizeof(text_b)), adj_y ? 1 : 0,
                         rhs_depth);
  }
  expected[output_rank - 2] = rows;
  expected[output_rank - 1] = cols;
  if (!shape_op::ShapeEquals(output.shape(), expected, output_rank)) {
    return context.Error(ErrorCode::kInvalidArgument, "output '%s' has shape %s; lhs %s x rhs %s gives %s",
                         output.name(), shape_op::FormatShape(output.shape(), text_a, sizeof(text_a)),
                         shape_op::FormatShape(lhs.shape(), text_b, sizeof(text_b)),
                         shape_op::FormatShape(rhs.shape(), text_c, sizeof(text_c)),
                         shape_op::FormatShape(expected, output_rank, text_d, sizeof(text_d)));
  }

  auto* data = static_cast<BatchMatmulData*>(context.AllocatePersistent(sizeof(BatchMatmulData)));
  if (data == nullptr) return context.OutOfMemory();
  *data = BatchMatmulData{};
  data->adj_x = adj_x;
  data->adj_y = adj_y;
  if (type == TensorType::kInt8) {
    if (!shape_op::HasInt8PerTensorQuantization(lhs) || !shape_op::HasInt8PerTensorQuantization(rhs) ||
        !shape_op::HasInt8PerTensorQuantization(output)) {
      return context.Error(ErrorCode::kUnsupported,
                           "int8 lhs '%s', rhs '%s' and output '%s' each need one positive scale and an int8 zero "
                           "point (per-channel is not supported)", lhs.name(), rhs.name(), output.name());
    }
  } else if (type == TensorType::kInt16) {
    MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "lhs", lhs, 0, 0));
    MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "rhs", rhs, 0, 0));
    MICROARENA_RETURN_IF_ERROR(RequirePerTensorQuantization(context, "output", output, 0, 0));
  }
  if (type != TensorType::kFloat32) {
    auto& q = data->quantization;
    q.lhs_zero_point = static_cast<int32_t>(lhs.quantization().zero_point(0));
    q.rhs_zero_point = static_cast<int32_t>(rhs.quantization().zero_point(0));
    q.output_zero_point = static_cast<int32_t>(output.quantization().zero_point(0));
    const float product = lhs.quantization().scale(0) * rhs.quantization().scale(0);
    const double multiplier = static_cast<double>(product) / static_cast<double>(output.quantization().scale(0));
    fixed_point::QuantizeMultiplier(multiplier, &q.multiplier, &q.shift);
    MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, multiplier, q.shift));
    if (type == TensorType::kInt16 && q.shift > kMaxMultiplierShift64) {
      return context.Error(ErrorCode::kUnsupported,
                           "output '%s': multiplier %g needs shift %d; the 64-bit rescale of INT16 allows at most %d",
                           output.name(), multiplier, q.shift, kMaxMultiplierShift64);
    }
  }
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const BatchMatmulData*>(op_data);
  const EvalTensor& lhs = *context.input(0);
  const EvalTensor& rhs = *context.input(1);
  EvalTensor& output = *context.output(0);
  reference::BatchMatmulShape shape;
  for (size_t d = 0; d < lhs.rank; ++d) shape.lhs_dims[reference::kBatchMatmulMaxRank - lhs.rank + d] = lhs.dims[d];
  for (size_t d = 0; d < rhs.rank; ++d) shape.rhs_dims[reference::kBatchMatmulMaxRank - rhs.rank + d] = rhs.dims[d];
  shape.adj_x = data.adj_x;
  shape.adj_y = data.adj_y;
  if (lhs.type == TensorType::kFloat32) {
    reference::BatchMatmulFloat(shape, lhs.As<const float>(), rhs.As<const float>(), output.As<float>());
  } else if (lhs.type == TensorType::kInt16) {
    reference::BatchMatmulInt16(shape, data.quantization, lhs.As<const int16_t>(), rhs.As<const int16_t>(),
                                output.As<int16_t>());
  } else {
    reference::BatchMatmulInt8(shape, data.quantization, lhs.As<const int8_t>(), rhs.As<const int8_t>(),
                               output.As<int8_t>());
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kBatchMatmulKernel = {BuiltinOp::kBatchMatmul, Prepare, Eval};

}  // namespace microarena
