// SPACE_TO_BATCH_ND(input, block_shape, paddings) and
// BATCH_TO_SPACE_ND(input, block_shape, crops), as TFLM's kernels:
//   - input and output 3-D (NHC, one spatial axis) or 4-D (NHWC, two) of one
//     rank and type, FLOAT32 or INT8 (bytes move unchanged; no quantization
//     check, as in TFLM);
//   - block_shape INT32 [spatial] and paddings/crops INT32 [spatial, 2],
//     read at Invoke (they may be computed, as TFLM allows). Blocks >= 1,
//     paddings and crops >= 0, and the output shape they give must be the
//     model's: checked at prepare when constant, else at Invoke (TFLM does
//     not check, and writes or reads out of bounds).
//   - SPACE_TO_BATCH_ND pads with zero bytes: TFLM fills with a pad value in
//     op data it never sets, which is 0 (so INT8 pads with 0, not the zero
//     point).
// No op data (TFLM keeps 4 bytes for SPACE_TO_BATCH_ND, none for the other).
#include "microarena/kernels/reference/space_batch.h"

#include <cstdint>
#include <cstdio>

#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

constexpr size_t kMessageBytes = 160;

reference::NhwcShape Extended(const int32_t* dims, size_t rank) {
  if (rank == 4) return {dims[0], dims[1], dims[2], dims[3]};
  return {dims[0], dims[1], 1, dims[2]};
}

// Checks block and paddings/crops (`pads`, before and after per spatial
// axis) against the shapes and fills `params`; false with a reason in `why`.
bool Resolve(bool to_batch, size_t rank, const int32_t* in_dims, const int32_t* out_dims, const int32_t* block,
             const int32_t* pads, reference::SpaceBatchParams* params, char* why) {
  const size_t spatial = rank - 2;
  int64_t block_product = 1;
  for (size_t i = 0; i < spatial; ++i) {
    const int32_t b = block[i];
    const int32_t before = pads[2 * i];
    const int32_t after = pads[2 * i + 1];
    if (b < 1 || before < 0 || after < 0) {
      FormatText(why, kMessageBytes, "spatial axis %zu has block %d and %s (%d, %d); need block >= 1, both >= 0", i,
                    b, to_batch ? "paddings" : "crops", before, after);
      return false;
    }
    block_product *= b;
    const int64_t in = in_dims[1 + i];
    const int64_t out = out_dims[1 + i];
    if (to_batch) {
      const int64_t padded = in + before + after;
      if (padded % b != 0 || padded / b != out) {
        FormatText(why, kMessageBytes,
                      "spatial axis %zu: input %lld padded by (%d, %d) is not output %lld times block %d", i,
                      static_cast<long long>(in), before, after, static_cast<long long>(out), b);
        return false;
      }
    } else if (in * b - before - after != out) {
      FormatText(why, kMessageBytes,
                    "spatial axis %zu: input %lld times block %d cropped by (%d, %d) is not output %lld", i,
                    static_cast<long long>(in), b, before, after, static_cast<long long>(out));
      return false;
    }
  }
  const int64_t in_batch = in_dims[0];
  const int64_t out_batch = out_dims[0];
  const bool batch_ok = to_batch ? out_batch == in_batch * block_product
                                 : in_batch % block_product == 0 && out_batch == in_batch / block_product;
  if (!batch_ok || in_dims[rank - 1] != out_dims[rank - 1]) {
    FormatText(why, kMessageBytes,
                  "input batch %lld and depth %d, output batch %lld and depth %d: block product %lld",
                  static_cast<long long>(in_batch), in_dims[rank - 1], static_cast<long long>(out_batch),
                  out_dims[rank - 1], static_cast<long long>(block_product));
    return false;
  }
  params->block_height = block[0];
  params->block_width = spatial == 2 ? block[1] : 1;
  params->top = pads[0];
  params->left = spatial == 2 ? pads[2] : 0;
  return true;
}

Status Prepare(PrepareContext& context, bool to_batch) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 3, 1));
  const TensorView input = context.input(0);
  const TensorView block = context.input(1);
  const TensorView pads = context.input(2);
  const TensorView output = context.output(0);
  const char* pads_role = to_batch ? "paddings" : "crops";
  if (input.type() != TensorType::kFloat32 && input.type() != TensorType::kInt8) {
    return context.Error(ErrorCode::kUnsupported, "input tensor %d '%s' is %s; supported: FLOAT32 or INT8",
                         input.index(), input.name(), TensorTypeName(input.type()));
  }
  if (output.type() != input.type()) {
    return context.Error(ErrorCode::kUnsupported, "output tensor %d '%s' is %s; the input is %s", output.index(),
                         output.name(), TensorTypeName(output.type()), TensorTypeName(input.type()));
  }
  const size_t rank = input.rank();
  if (rank < 3 || rank > 4 || output.rank() != rank) {
    return context.Error(ErrorCode::kUnsupported,
                         "input '%s' has rank %zu and output '%s' rank %zu; both must be 3 or 4 (as in TFLM) and equal",
                         input.name(), rank, output.name(), output.rank());
  }
  const auto spatial = static_cast<int32_t>(rank - 2);
  if (block.type() != TensorType::kInt32 || block.rank() != 1 || block.shape()[0] != spatial) {
    return context.Error(ErrorCode::kInvalidArgument, "block_shape tensor %d '%s' is %s of rank %zu; need INT32 [%d]",
                         block.index(), block.name(), TensorTypeName(block.type()), block.rank(), spatial);
  }
  if (pads.type() != TensorType::kInt32 || pads.rank() != 2 || pads.shape()[0] != spatial || pads.shape()[1] != 2) {
    return context.Error(ErrorCode::kInvalidArgument, "%s tensor %d '%s' is %s of rank %zu; need INT32 [%d,2]",
                         pads_role, pads.index(), pads.name(), TensorTypeName(pads.type()), pads.rank(), spatial);
  }
  if (block.is_constant() && pads.is_constant()) {
    int32_t block_values[2] = {};
    int32_t pad_values[4] = {};
    size_t count = 0;
    if (!shape_op::ReadConstantIndices(block, block_values, 2, &count) ||
        !shape_op::ReadConstantIndices(pads, pad_values, 4, &count)) {
      return context.Error(ErrorCode::kInvalidArgument, "cannot read block_shape '%s' or %s '%s'", block.name(),
                           pads_role, pads.name());
    }
    reference::SpaceBatchParams params;
    char why[kMessageBytes];
    if (!Resolve(to_batch, rank, input.shape().data(), output.shape().data(), block_values, pad_values, &params, why)) {
      return context.Error(ErrorCode::kInvalidArgument, "%s", why);
    }
  }
  return OkStatus();
}

Status Eval(EvalContext& context, bool to_batch) {
  const EvalTensor& input = *context.input(0);
  const EvalTensor& block = *context.input(1);
  const EvalTensor& pads = *context.input(2);
  EvalTensor& output = *context.output(0);
  reference::SpaceBatchParams params;
  char why[kMessageBytes];
  // Cheap, and needed when block or paddings are computed.
  if (!Resolve(to_batch, input.rank, input.dims, output.dims, block.As<const int32_t>(), pads.As<const int32_t>(),
               &params, why)) {
    return Status::Error(ErrorCode::kInvalidArgument, "%s", why);
  }
  const reference::NhwcShape in_shape = Extended(input.dims, input.rank);
  const reference::NhwcShape out_shape = Extended(output.dims, output.rank);
  const size_t element_bytes = shape_op::ElementBytes(input.type);
  if (to_batch) {
    reference::SpaceToBatchNd(params, in_shape, input.data, out_shape, output.data, element_bytes);
  } else {
    reference::BatchToSpaceNd(params, in_shape, input.data, out_shape, output.data, element_bytes);
  }
  return OkStatus();
}

Status PrepareSpaceToBatch(PrepareContext& context, const void** op_data) {
  *op_data = nullptr;
  return Prepare(context, true);
}
Status EvalSpaceToBatch(EvalContext& context, const void* /*op_data*/) { return Eval(context, true); }
Status PrepareBatchToSpace(PrepareContext& context, const void** op_data) {
  *op_data = nullptr;
  return Prepare(context, false);
}
Status EvalBatchToSpace(EvalContext& context, const void* /*op_data*/) { return Eval(context, false); }

}  // namespace

const KernelRegistration kSpaceToBatchNdKernel = {BuiltinOp::kSpaceToBatchNd, PrepareSpaceToBatch, EvalSpaceToBatch};
const KernelRegistration kBatchToSpaceNdKernel = {BuiltinOp::kBatchToSpaceNd, PrepareBatchToSpace, EvalBatchToSpace};

}  // namespace microarena
