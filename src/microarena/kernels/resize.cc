// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR(input, size), options
// align_corners and half_pixel_centers, as TFLM's kernels:
//   - input and output 4-D NHWC of one type: RESIZE_BILINEAR FLOAT32 or INT8,
//     RESIZE_NEAREST_NEIGHBOR FLOAT32, INT8 or INT16 (raw values interpolated
//     or copied; no quantization check, as in TFLM);
//   - size a constant INT32 [2] (new height, width), equal to the output's
//     height and width; batch and channels as the input's;
//   - RESIZE_BILINEAR refuses align_corners with half_pixel_centers (TFLM
//     does); RESIZE_NEAREST_NEIGHBOR takes both.
// Op data: the two flags, 2 bytes (TFLM's parsed options are as large).
#include "microarena/kernels/reference/resize.h"

#include <cstdint>

#include "microarena/kernels/registrations.h"
#include "microarena/kernels/shape_op_util.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

struct ResizeData {
  uint8_t align_corners;
  uint8_t half_pixel_centers;
};

Status Prepare(PrepareContext& context, const void** op_data, bool bilinear) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input = context.input(0);
  const TensorView size = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = input.type();
  const bool supported =
      type == TensorType::kFloat32 || type == TensorType::kInt8 || (!bilinear && type == TensorType::kInt16);
  if (!supported) {
    return context.Error(ErrorCode::kUnsupported, "input tensor %d '%s' is %s; supported: %s", input.index(),
                         input.name(), TensorTypeName(type), bilinear ? "FLOAT32 or INT8" : "FLOAT32, INT8 or INT16");
  }
  if (output.type() != type) {
    return context.Error(ErrorCode::kUnsupported, "output tensor %d '%s' is %s; the input is %s", output.index(),
                         output.name(), TensorTypeName(output.type()), TensorTypeName(type));
  }
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "input", input, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "output", output, 4));
  if (size.type() != TensorType::kInt32 || size.rank() != 1 || size.shape()[0] != 2) {
    return context.Error(ErrorCode::kInvalidArgument, "size tensor %d '%s' is %s of rank %zu; need INT32 [2]",
                         size.index(), size.name(), TensorTypeName(size.type()), size.rank());
  }
  int32_t new_size[2] = {};
  size_t count = 0;
  if (!shape_op::ReadConstantIndices(size, new_size, 2, &count)) {
    return context.Error(ErrorCode::kUnsupported, "size tensor %d '%s' must be constant (as in TFLM)", size.index(),
                         size.name());
  }
  if (new_size[0] < 1 || new_size[1] < 1 || Dim(output, 0) != Dim(input, 0) || Dim(output, 1) != new_size[0] ||
      Dim(output, 2) != new_size[1] || Dim(output, 3) != Dim(input, 3)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "output '%s' is [%d,%d,%d,%d]; input [%d,%d,%d,%d] resized to %d x %d gives [%d,%d,%d,%d]",
                         output.name(), Dim(output, 0), Dim(output, 1), Dim(output, 2), Dim(output, 3), Dim(input, 0),
                         Dim(input, 1), Dim(input, 2), Dim(input, 3), new_size[0], new_size[1], Dim(input, 0),
                         new_size[0], new_size[1], Dim(input, 3));
  }
  if (Dim(input, 1) < 1 || Dim(input, 2) < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "input '%s' is %d x %d; nothing to resize from", input.name(),
                         Dim(input, 1), Dim(input, 2));
  }
  bool align_corners = false;
  bool half_pixel_centers = false;
  if (bilinear) {
    const auto* options = context.op().raw()->builtin_options_as_ResizeBilinearOptions();
    if (options != nullptr) {
      align_corners = options->align_corners();
      half_pixel_centers = options->half_pixel_centers();
    }
    if (align_corners && half_pixel_centers) {
      return context.Error(ErrorCode::kInvalidArgument,
                           "align_corners and half_pixel_centers are both set; TFLM allows one at most");
    }
    // The fixed-point source coordinates are int32, as in TFLM: keep them in range.
    for (size_t axis = 1; axis <= 2; ++axis) {
      if (int64_t{Dim(input, axis)} * 2048 + Dim(output, axis) > INT32_MAX) {
        return context.Error(ErrorCode::kUnsupported, "input '%s' extent %d on axis %zu is too large to resize",
                             input.name(), Dim(input, axis), axis);
      }
    }
  } else {
    const auto* options = context.op().raw()->builtin_options_as_ResizeNearestNeighborOptions();
    if (options != nullptr) {
      align_corners = options->align_corners();
      half_pixel_centers = options->half_pixel_centers();
    }
  }
  auto* data = static_cast<ResizeData*>(context.AllocatePersistent(sizeof(ResizeData), 1));
  if (data == nullptr) return context.OutOfMemory();
  data->align_corners = align_corners ? 1 : 0;
  data->half_pixel_centers = half_pixel_centers ? 1 : 0;
  *op_data = data;
  return OkStatus();
}

reference::ResizeParams ParamsOf(const void* op_data) {
  const auto& data = *static_cast<const ResizeData*>(op_data);
  reference::ResizeParams params;
  params.align_corners = data.align_corners != 0;
  params.half_pixel_centers = data.half_pixel_centers != 0;
  return params;
}

Status PrepareBilinear(PrepareContext& context, const void** op_data) { return Prepare(context, op_data, true); }

Status EvalBilinear(EvalContext& context, const void* op_data) {
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  const reference::ResizeParams params = ParamsOf(op_data);
  if (input.type == TensorType::kFloat32) {
    reference::ResizeBilinearFloat(params, NhwcShapeOf(input), input.As<const float>(), NhwcShapeOf(output),
                                   output.As<float>());
  } else {
    reference::ResizeBilinearInteger(params, NhwcShapeOf(input), input.As<const int8_t>(), NhwcShapeOf(output),
                                     output.As<int8_t>());
  }
  return OkStatus();
}

Status PrepareNearest(PrepareContext& context, const void** op_data) { return Prepare(context, op_data, false); }

Status EvalNearest(EvalContext& context, const void* op_data) {
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  reference::ResizeNearestNeighbor(ParamsOf(op_data), NhwcShapeOf(input), input.data, NhwcShapeOf(output), output.data,
                                   shape_op::ElementBytes(input.type));
  return OkStatus();
}

}  // namespace

const KernelRegistration kResizeBilinearKernel = {BuiltinOp::kResizeBilinear, PrepareBilinear, EvalBilinear};
const KernelRegistration kResizeNearestNeighborKernel = {BuiltinOp::kResizeNearestNeighbor, PrepareNearest,
                                                         EvalNearest};

}  // namespace microarena
