// CAST: converts every element to the output's type, as C++'s static_cast
// does in TFLM's kernel: integers wrap modulo the output width, BOOL reads
// as its byte (0 or 1), float -> integer truncates toward zero. For floats outside the
// integer range (and NaN), where the cast is undefined, the result is what
// TFLM's x86-64 build computes (the "integer indefinite" value of cvttss2si,
// narrowed): fixed_point::TruncateToInt32 / TruncateToInt64.
//
// Types as TFLM's kernel: input INT8, INT16, INT32, UINT32, FLOAT32 or BOOL;
// output INT8, INT16, INT32, UINT32 or FLOAT32; the same element count.
// Quantization parameters are ignored (raw values are converted). No op data.
#include <cstdint>
#include <type_traits>

#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"
#include "microarena/kernels/wrapping_math.h"

namespace microarena {
namespace {

bool InputSupported(TensorType type) {
  return type == TensorType::kInt8 || type == TensorType::kInt16 || type == TensorType::kInt32 ||
         type == TensorType::kUInt32 || type == TensorType::kFloat32 || type == TensorType::kBool;
}

bool OutputSupported(TensorType type) {
  return type == TensorType::kInt8 || type == TensorType::kInt16 || type == TensorType::kInt32 ||
         type == TensorType::kUInt32 || type == TensorType::kFloat32;
}

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  if (!InputSupported(input.type()) || !OutputSupported(output.type())) {
    return context.Error(ErrorCode::kUnsupported,
                         "%s -> %s not supported (input INT8, INT16, INT32, UINT32, FLOAT32 or BOOL; output INT8, "
                         "INT16, INT32, UINT32 or FLOAT32)",
                         TensorTypeName(input.type()), TensorTypeName(output.type()));
  }
  if (input.element_count() != output.element_count()) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has %zu elements, output tensor %d has %zu",
                         input.index(), input.element_count(), output.index(), output.element_count());
  }
  *op_data = nullptr;
  return OkStatus();
}

// Integer -> integer and integer -> float: defined conversions.
template <typename To, typename From>
To Convert(From value) {
  if constexpr (std::is_same_v<From, float> && !std::is_same_v<To, float>) {
    // Narrowing from int32 (or int64 for UINT32, as x86-64 converts to
    // unsigned through a 64-bit signed conversion) is modular.
    if constexpr (std::is_same_v<To, uint32_t>) {
      return static_cast<uint32_t>(fixed_point::TruncateToInt64(static_cast<double>(value)));
    } else {
      return static_cast<To>(fixed_point::TruncateToInt32(value));
    }
  } else {
    return static_cast<To>(value);
  }
}

template <typename From, typename To>
void CastAll(const EvalTensor& input, EvalTensor& output) {
  const From* in = input.As<const From>();
  To* out = output.As<To>();
  const size_t count = output.element_count();
  for (size_t i = 0; i < count; ++i) out[i] = Convert<To>(in[i]);
}

template <typename From>
void CastFrom(const EvalTensor& input, EvalTensor& output) {
  switch (output.type) {
    case TensorType::kInt8: CastAll<From, int8_t>(input, output); break;
    case TensorType::kInt16: CastAll<From, int16_t>(input, output); break;
    case TensorType::kInt32: CastAll<From, int32_t>(input, output); break;
    case TensorType::kUInt32: CastAll<From, uint32_t>(input, output); break;
    case TensorType::kFloat32: CastAll<From, float>(input, output); break;
    default: break;  // refused at Prepare
  }
}

Status Eval(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  switch (input.type) {
    case TensorType::kInt8: CastFrom<int8_t>(input, output); break;
    case TensorType::kInt16: CastFrom<int16_t>(input, output); break;
    case TensorType::kInt32: CastFrom<int32_t>(input, output); break;
    case TensorType::kUInt32: CastFrom<uint32_t>(input, output); break;
    case TensorType::kFloat32: CastFrom<float>(input, output); break;
    // A BOOL byte converts as the number it holds (0 or 1), as g++ reads it.
    case TensorType::kBool: CastFrom<uint8_t>(input, output); break;
    default: return Status::Error(ErrorCode::kInternal, "CAST from %s", TensorTypeName(input.type));
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kCastKernel = {BuiltinOp::kCast, Prepare, Eval};

}  // namespace microarena
