// DEPTH_TO_SPACE and SPACE_TO_DEPTH (option block_size), as TFLM's kernels:
// one 4-D NHWC input and output of one type, FLOAT32 or INT8 (bytes move
// unchanged; no quantization check, as in TFLM). DEPTH_TO_SPACE needs
// block_size >= 1 and channels divisible by block_size^2; SPACE_TO_DEPTH
// height and width divisible by block_size (>= 1: TFLM divides by it
// unchecked). The output shape must be the one the block gives (TFLM writes
// its own over the model's).
// Op data: the block size, 4 bytes (TFLM's parsed options are as large).
#include "microarena/kernels/reference/depth_space.h"

#include <cstdint>

#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

struct DepthSpaceData {
  int32_t block_size;
};

Status Prepare(PrepareContext& context, const void** op_data, bool to_space) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (output.type() != TensorType::kFloat32 && output.type() != TensorType::kInt8) {
    return context.Error(ErrorCode::kUnsupported, "output tensor %d '%s' is %s; supported: FLOAT32 or INT8",
                         output.index(), output.name(), TensorTypeName(output.type()));
  }
  if (input.type() != output.type()) {
    return context.Error(ErrorCode::kUnsupported, "input tensor %d '%s' is %s; the output is %s", input.index(),
                         input.name(), TensorTypeName(input.type()), TensorTypeName(output.type()));
  }
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "input", input, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "output", output, 4));
  int32_t block_size = 0;
  if (to_space) {
    const auto* options = context.op().raw()->builtin_options_as_DepthToSpaceOptions();
    if (options != nullptr) block_size = options->block_size();
  } else {
    const auto* options = context.op().raw()->builtin_options_as_SpaceToDepthOptions();
    if (options != nullptr) block_size = options->block_size();
  }
  if (block_size < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "block_size %d; must be >= 1", block_size);
  }
  const int64_t block = block_size;
  int64_t expected[4] = {Dim(input, 0), 0, 0, 0};
  if (to_space) {
    if (Dim(input, 3) % (block * block) != 0) {
      return context.Error(ErrorCode::kInvalidArgument,
                           "input '%s' has %d channels; not divisible by block_size^2 (%lld)", input.name(),
                           Dim(input, 3), static_cast<long long>(block * block));
    }
    expected[1] = Dim(input, 1) * block;
    expected[2] = Dim(input, 2) * block;
    expected[3] = Dim(input, 3) / (block * block);
  } else {
    if (Dim(input, 1) % block != 0 || Dim(input, 2) % block != 0) {
      return context.Error(ErrorCode::kInvalidArgument,
                           "input '%s' is %d x %d (height x width); not divisible by block_size %d", input.name(),
                           Dim(input, 1), Dim(input, 2), block_size);
    }
    expected[1] = Dim(input, 1) / block;
    expected[2] = Dim(input, 2) / block;
    expected[3] = Dim(input, 3) * block * block;
  }
  for (size_t d = 0; d < 4; ++d) {
    if (Dim(output, d) != expected[d]) {
      return context.Error(ErrorCode::kInvalidArgument,
                           "output '%s' has %d on axis %zu; block_size %d gives %lld (shape [%lld,%lld,%lld,%lld])",
                           output.name(), Dim(output, d), d, block_size, static_cast<long long>(expected[d]),
                           static_cast<long long>(expected[0]), static_cast<long long>(expected[1]),
                           static_cast<long long>(expected[2]), static_cast<long long>(expected[3]));
    }
  }
  auto* data = static_cast<DepthSpaceData*>(context.AllocatePersistent(sizeof(DepthSpaceData), 4));
  if (data == nullptr) return context.OutOfMemory();
  data->block_size = block_size;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data, bool to_space) {
  const auto& data = *static_cast<const DepthSpaceData*>(op_data);
  EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  const size_t element_bytes = shape_op::ElementBytes(input.type);
  if (to_space) {
    reference::DepthSpaceCopy(true, data.block_size, NhwcShapeOf(output), output.data, NhwcShapeOf(input), input.data,
                              element_bytes);
  } else {
    reference::DepthSpaceCopy(false, data.block_size, NhwcShapeOf(input), input.data, NhwcShapeOf(output), output.data,
                              element_bytes);
  }
  return OkStatus();
}

Status PrepareDepthToSpace(PrepareContext& context, const void** op_data) { return Prepare(context, op_data, true); }
Status EvalDepthToSpace(EvalContext& context, const void* op_data) { return Eval(context, op_data, true); }
Status PrepareSpaceToDepth(PrepareContext& context, const void** op_data) { return Prepare(context, op_data, false); }
Status EvalSpaceToDepth(EvalContext& context, const void* op_data) { return Eval(context, op_data, false); }

}  // namespace

const KernelRegistration kDepthToSpaceKernel = {BuiltinOp::kDepthToSpace, PrepareDepthToSpace, EvalDepthToSpace};
const KernelRegistration kSpaceToDepthKernel = {BuiltinOp::kSpaceToDepth, PrepareSpaceToDepth, EvalSpaceToDepth};

}  // namespace microarena
