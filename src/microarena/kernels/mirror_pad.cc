// MIRROR_PAD(input, paddings), option mode REFLECT or SYMMETRIC, as TFLM's
// kernel: input and output of one type, FLOAT32 or INT8 (bytes move
// unchanged); paddings INT32 or INT64 [rank, 2], read at Invoke (they may be
// computed). Every padding >= 0, the output shape the input padded by them,
// and no padding before an axis longer than the input allows (REFLECT:
// extent - 1, SYMMETRIC: extent): TFLM reads outside the input there, so
// those are refused (checked at prepare when constant, else at Invoke).
// Paddings after an axis that are too long repeat index 0, as in TFLM.
// Without options TFLM's mode is unknown and it mirrors as SYMMETRIC.
// Op data: 4 bytes (TFLM keeps 20 and two scratch buffers).
#include "microarena/kernels/reference/mirror_pad.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

constexpr size_t kMessageBytes = 160;

struct MirrorPadData {
  int32_t offset;  // 1 for REFLECT, 0 for SYMMETRIC
};

int64_t ReadPadding(TensorType type, const uint8_t* data, size_t i) {
  if (type == TensorType::kInt64) {
    int64_t value = 0;
    std::memcpy(&value, data + i * sizeof(int64_t), sizeof(value));
    return value;
  }
  int32_t value = 0;
  std::memcpy(&value, data + i * sizeof(int32_t), sizeof(value));
  return value;
}

// Reads the paddings into `before` and checks them; false with a reason.
bool ResolvePaddings(size_t rank, const int32_t* input_dims, const int32_t* output_dims, TensorType type,
                     const uint8_t* paddings, int32_t offset, int64_t* before, char* why) {
  bool output_empty = false;
  for (size_t d = 0; d < rank; ++d) output_empty = output_empty || output_dims[d] == 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t b = ReadPadding(type, paddings, 2 * d);
    const int64_t a = ReadPadding(type, paddings, 2 * d + 1);
    const int64_t size = input_dims[d];
    if (b < 0 || a < 0 || size + b + a != output_dims[d]) {
      FormatText(why, kMessageBytes, "paddings (%lld, %lld) on axis %zu of extent %lld do not give the output's %d",
                    static_cast<long long>(b), static_cast<long long>(a), d, static_cast<long long>(size),
                    output_dims[d]);
      return false;
    }
    if (!output_empty && (size == 0 || b > size - offset)) {
      FormatText(why, kMessageBytes, "padding %lld before axis %zu of extent %lld; %s allows at most %lld",
                    static_cast<long long>(b), d, static_cast<long long>(size), offset == 1 ? "REFLECT" : "SYMMETRIC",
                    static_cast<long long>(size - offset < 0 ? 0 : size - offset));
      return false;
    }
    before[d] = b;
  }
  return true;
}

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input = context.input(0);
  const TensorView paddings = context.input(1);
  const TensorView output = context.output(0);
  if (output.type() != TensorType::kFloat32 && output.type() != TensorType::kInt8) {
    return context.Error(ErrorCode::kUnsupported, "output tensor %d '%s' is %s; supported: FLOAT32 or INT8",
                         output.index(), output.name(), TensorTypeName(output.type()));
  }
  if (input.type() != output.type()) {
    return context.Error(ErrorCode::kUnsupported, "input tensor %d '%s' is %s; the output is %s", input.index(),
                         input.name(), TensorTypeName(input.type()), TensorTypeName(output.type()));
  }
  const size_t rank = input.rank();
  if (paddings.rank() != 2 || paddings.shape()[0] != static_cast<int32_t>(rank) || paddings.shape()[1] != 2 ||
      (paddings.type() != TensorType::kInt32 && paddings.type() != TensorType::kInt64)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "paddings tensor %d '%s' is %s of rank %zu; need INT32 or INT64 [%zu,2]", paddings.index(),
                         paddings.name(), TensorTypeName(paddings.type()), paddings.rank(), rank);
  }
  if (output.rank() != rank) {
    return context.Error(ErrorCode::kInvalidArgument, "output '%s' has rank %zu; the input '%s' has %zu", output.name(),
                         output.rank(), input.name(), rank);
  }
  const auto* options = context.op().raw()->builtin_options_as_MirrorPadOptions();
  const int32_t offset = options != nullptr && options->mode() == tflite::MirrorPadMode::REFLECT ? 1 : 0;
  if (paddings.is_constant()) {
    int64_t before[kMaxRank];
    char why[kMessageBytes];
    if (!ResolvePaddings(rank, input.shape().data(), output.shape().data(), paddings.type(), paddings.data().data(),
                         offset, before, why)) {
      return context.Error(ErrorCode::kInvalidArgument, "%s", why);
    }
  }
  auto* data = static_cast<MirrorPadData*>(context.AllocatePersistent(sizeof(MirrorPadData), 4));
  if (data == nullptr) return context.OutOfMemory();
  data->offset = offset;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const MirrorPadData*>(op_data);
  const EvalTensor& input = *context.input(0);
  const EvalTensor& paddings = *context.input(1);
  EvalTensor& output = *context.output(0);
  int64_t before[kMaxRank];
  char why[kMessageBytes];
  if (!ResolvePaddings(input.rank, input.dims, output.dims, paddings.type, paddings.data, data.offset, before, why)) {
    return Status::Error(ErrorCode::kInvalidArgument, "%s", why);
  }
  reference::MirrorPad(input.rank, input.dims, output.dims, before, data.offset, TensorTypeBits(input.type) / 8,
                       input.data, output.data);
  return OkStatus();
}

}  // namespace

const KernelRegistration kMirrorPadKernel = {BuiltinOp::kMirrorPad, Prepare, Eval};

}  // namespace microarena
