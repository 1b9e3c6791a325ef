// MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, DIV, FLOOR_DIV, FLOOR_MOD: binary
// elementwise ops with numpy broadcasting (ranks up to
// reference::kMaxBroadcastRank), per-element math in reference/binary_math.h.
//
// Types, as TFLM's reference kernels accept them (all operands one type):
//   MAXIMUM, MINIMUM     FLOAT32, INT8, INT16, INT32, INT64 (raw values)
//   SQUARED_DIFFERENCE   FLOAT32, INT32, INT8 (rescaled), INT16 (rescaled,
//                        zero points 0)
//   DIV                  FLOAT32, INT32 (not quantized), INT8 (rescaled);
//                        fused activation
//   FLOOR_DIV, FLOOR_MOD FLOAT32
// FLOOR_DIV fails at Invoke on a zero divisor, as TFLM does; so does int32
// DIV, which TFLM does not check (it traps).
//
// Op data matches TFLM's: none for MAXIMUM, MINIMUM, FLOOR_DIV and FLOOR_MOD
// (the broadcast strides are derived from the shapes at each Invoke), the
// quantization parameters for SQUARED_DIFFERENCE and DIV.
#include "microarena/kernels/reference/binary_math.h"

#include <cstdint>
#include <limits>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

enum class BinaryOp : uint8_t { kMaximum, kMinimum, kSquaredDifference, kDiv, kFloorDiv, kFloorMod };

bool TypeSupported(BinaryOp op, TensorType type) {
  switch (op) {
    case BinaryOp::kMaximum:
    case BinaryOp::kMinimum:
      return type == TensorType::kFloat32 || type == TensorType::kInt8 || type == TensorType::kInt16 ||
             type == TensorType::kInt32 || type == TensorType::kInt64;
    case BinaryOp::kSquaredDifference:
      return type == TensorType::kFloat32 || type == TensorType::kInt32 || type == TensorType::kInt8 ||
             type == TensorType::kInt16;
    case BinaryOp::kDiv: return type == TensorType::kFloat32 || type == TensorType::kInt32 || type == TensorType::kInt8;
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: return type == TensorType::kFloat32;
  }
  return false;
}

const char* SupportedTypes(BinaryOp op) {
  switch (op) {
    case BinaryOp::kMaximum:
    case BinaryOp::kMinimum: return "FLOAT32, INT8, INT16, INT32 or INT64";
    case BinaryOp::kSquaredDifference: return "FLOAT32, INT32, INT8 or INT16";
    case BinaryOp::kDiv: return "FLOAT32, INT32 or INT8";
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: return "FLOAT32 only";
  }
  return "";
}

// Two inputs and an output of one supported type; the inputs broadcast to
// exactly the output's shape.
Status CheckOperands(const PrepareContext& context, BinaryOp op) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input1 = context.input(0);
  const TensorView input2 = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = output.type();
  if (input1.type() != type || input2.type() != type || !TypeSupported(op, type)) {
    return context.Error(ErrorCode::kUnsupported, "types %s, %s -> %s not supported (%s, all the same)",
                         TensorTypeName(input1.type()), TensorTypeName(input2.type()), TensorTypeName(type),
                         SupportedTypes(op));
  }
  if (!elementwise::BroadcastsTo(input1.shape(), input2.shape(), output.shape())) {
    return elementwise::BinaryBroadcastError(context);
  }
  return OkStatus();
}

// output[i] = func(input1[.], input2[.]) over the broadcast of the inputs
// (shapes checked at Prepare).
template <typename T, typename Func>
void RunBinary(EvalContext& context, Func func) {
  const EvalTensor& input1 = *context.input(0);
  const EvalTensor& input2 = *context.input(1);
  EvalTensor& output = *context.output(0);
  const T* a = input1.As<const T>();
  const T* b = input2.As<const T>();
  T* out = output.As<T>();
  bool same_shape = input1.rank == input2.rank;
  for (size_t axis = 0; same_shape && axis < input1.rank; ++axis) same_shape = input1.dims[axis] == input2.dims[axis];
  if (same_shape) {
    reference::ElementwiseBinary(output.element_count(), a, b, out, func);
    return;
  }
  reference::BroadcastShape shape;
  if (reference::MakeBroadcastShape(input1.dims, input1.rank, input2.dims, input2.rank, &shape)) {
    reference::BroadcastBinary(shape, a, b, out, func);
  }
}

// Index of the first zero element of a divisor, or -1.
template <typename T>
int64_t FirstZero(const EvalTensor& divisor) {
  const T* values = divisor.As<const T>();
  const size_t count = divisor.element_count();
  for (size_t i = 0; i < count; ++i) {
    if (values[i] == 0) return static_cast<int64_t>(i);
  }
  return -1;
}

Status DivisionByZero(int64_t index) {
  return Status::Error(ErrorCode::kInvalidArgument, "division by zero: divisor element %lld is 0",
                       static_cast<long long>(index));
}

// --- MAXIMUM, MINIMUM -------------------------------------------------------

template <BinaryOp kOp>
Status PrepareMinMax(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(CheckOperands(context, kOp));
  *op_data = nullptr;
  return OkStatus();
}

template <BinaryOp kOp, typename T>
void RunMinMax(EvalContext& context) {
  if constexpr (kOp == BinaryOp::kMaximum) {
    RunBinary<T>(context, [](T a, T b) { return reference::Maximum(a, b); });
  } else {
    RunBinary<T>(context, [](T a, T b) { return reference::Minimum(a, b); });
  }
}

template <BinaryOp kOp>
Status EvalMinMax(EvalContext& context, const void* /*op_data*/) {
  switch (context.output(0)->type) {
    case TensorType::kFloat32: RunMinMax<kOp, float>(context); break;
    case TensorType::kInt8: RunMinMax<kOp, int8_t>(context); break;
    case TensorType::kInt16: RunMinMax<kOp, int16_t>(context); break;
    case TensorType::kInt32: RunMinMax<kOp, int32_t>(context); break;
    case TensorType::kInt64: RunMinMax<kOp, int64_t>(context); break;
    default:
      return Status::Error(ErrorCode::kInternal, "MAXIMUM/MINIMUM of %s", TensorTypeName(context.output(0)->type));
  }
  return OkStatus();
}

// --- SQUARED_DIFFERENCE -----------------------------------------------------

// Persistent op data: 48 bytes (TFLM keeps a full ArithmeticParams).
struct SquaredDifferenceData {
  reference::SquaredDifferenceParams params;
};

Status PrepareSquaredDifference(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(CheckOperands(context, BinaryOp::kSquaredDifference));
  auto* data = elementwise::AllocateOpData<SquaredDifferenceData>(context);
  if (data == nullptr) return context.OutOfMemory();
  const TensorType type = context.output(0).type();
  if (type == TensorType::kInt8 || type == TensorType::kInt16) {
    elementwise::TensorQuantization q1;
    elementwise::TensorQuantization q2;
    elementwise::TensorQuantization qo;
    MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, context.input(0), "input 0", &q1));
    MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, context.input(1), "input 1", &q2));
    MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, context.output(0), "output", &qo));
    if (type == TensorType::kInt16 && (q1.zero_point != 0 || q2.zero_point != 0 || qo.zero_point != 0)) {
      return context.Error(ErrorCode::kInvalidArgument, "INT16 zero points %d, %d -> %d must all be 0 (as in TFLM)",
                           q1.zero_point, q2.zero_point, qo.zero_point);
    }
    reference::SquaredDifferenceParams& p = data->params;
    // int8: 7 bits of headroom keep 255^2 * 2^14 within int32; int16 has none to spare.
    p.left_shift = type == TensorType::kInt8 ? 7 : 0;
    p.input1_offset = -q1.zero_point;
    p.input2_offset = -q2.zero_point;
    p.output_offset = qo.zero_point;
    const double twice_max_input_scale = 2.0 * static_cast<double>(std::max(q1.scale, q2.scale));
    const double input1_multiplier = static_cast<double>(q1.scale) / twice_max_input_scale;
    const double input2_multiplier = static_cast<double>(q2.scale) / twice_max_input_scale;
    // TFLM multiplies 2^(2 * left_shift) by the output scale in float.
    const float shifted_output_scale = static_cast<float>(1 << (2 * p.left_shift)) * qo.scale;
    const double output_multiplier =
        twice_max_input_scale * twice_max_input_scale / static_cast<double>(shifted_output_scale);
    if (!elementwise::QuantizeMultiplierSmallerThanOne(input1_multiplier, &p.input1_multiplier, &p.input1_shift) ||
        !elementwise::QuantizeMultiplierSmallerThanOne(input2_multiplier, &p.input2_multiplier, &p.input2_shift)) {
      return context.Error(ErrorCode::kInternal, "input multipliers %g, %g outside (0, 1)", input1_multiplier,
                           input2_multiplier);
    }
    int output_shift = 0;
    fixed_point::QuantizeMultiplier(output_multiplier, &p.output_multiplier, &output_shift);
    MICROARENA_RETURN_IF_ERROR(
        RequireMultiplierShift(context, "output", context.output(0), output_multiplier, output_shift));
    p.output_shift = output_shift;
    elementwise::IntegerTypeRange(type, &p.activation_min, &p.activation_max);
  }
  *op_data = data;
  return OkStatus();
}

Status EvalSquaredDifference(EvalContext& context, const void* op_data) {
  const auto& p = static_cast<const SquaredDifferenceData*>(op_data)->params;
  switch (context.output(0)->type) {
    case TensorType::kFloat32:
      RunBinary<float>(context, [](float a, float b) { return reference::SquaredDifference(a, b); });
      break;
    case TensorType::kInt32:
      RunBinary<int32_t>(context, [](int32_t a, int32_t b) { return reference::SquaredDifference(a, b); });
      break;
    case TensorType::kInt8:
      RunBinary<int8_t>(context, [&p](int8_t a, int8_t b) { return reference::SquaredDifferenceQuantized(a, b, p); });
      break;
    case TensorType::kInt16:
      RunBinary<int16_t>(context,
                         [&p](int16_t a, int16_t b) { return reference::SquaredDifferenceQuantized(a, b, p); });
      break;
    default:
      return Status::Error(ErrorCode::kInternal, "SQUARED_DIFFERENCE of %s", TensorTypeName(context.output(0)->type));
  }
  return OkStatus();
}

// --- DIV --------------------------------------------------------------------

// Persistent op data: 28 bytes, as TFLM's OpDataDiv. The float and int32
// paths keep their clamp range in activation_min/max: its bounds are the
// integers 0, 6, -1, 1, or the int32 limits for "unbounded".
struct DivData {
  reference::DivQuantizedParams quantized;
};

float FloatBound(int32_t bound, float unbounded) {
  return bound == std::numeric_limits<int32_t>::min() || bound == std::numeric_limits<int32_t>::max()
             ? unbounded
             : static_cast<float>(bound);
}

// The int8 path shifts the quotient right by reciprocal_shift + headroom -
// output_shift, where headroom >= 23 (|numerator| <= 256) and
// reciprocal_shift >= -1: an output_shift above 22 would need a left shift
// there, which TFLM's rounding shift cannot do.
constexpr int kMaxDivOutputShift = 22;

Status PrepareDiv(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(CheckOperands(context, BinaryOp::kDiv));
  const auto* options = context.op().raw()->builtin_options_as_DivOptions();
  const tflite::ActivationFunctionType activation =
      options != nullptr ? options->fused_activation_function() : tflite::ActivationFunctionType::NONE;
  auto* data = elementwise::AllocateOpData<DivData>(context);
  if (data == nullptr) return context.OutOfMemory();
  const TensorView output = context.output(0);
  const TensorType type = output.type();
  reference::DivQuantizedParams& p = data->quantized;
  switch (type) {
    case TensorType::kFloat32: elementwise::IntegerActivationRange(activation, &p.activation_min, &p.activation_max); break;
    case TensorType::kInt32:
      MICROARENA_RETURN_IF_ERROR(elementwise::RequirePlainInt32(context, /*check_output=*/false));
      elementwise::IntegerActivationRange(activation, &p.activation_min, &p.activation_max);
      break;
    case TensorType::kInt8: {
      elementwise::TensorQuantization q1;
      elementwise::TensorQuantization q2;
      elementwise::TensorQuantization qo;
      MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, context.input(0), "input 0", &q1));
      MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, context.input(1), "input 1", &q2));
      MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &qo));
      if (!elementwise::QuantizedActivationRange(activation, type, qo, &p.activation_min, &p.activation_max)) {
        return context.Error(ErrorCode::kUnsupported, "fused activation %s is not supported",
                             elementwise::ActivationName(activation));
      }
      // TFLM forms the ratio in float before widening it.
      const double multiplier = static_cast<double>(q1.scale / (q2.scale * qo.scale));
      int shift = 0;
      fixed_point::QuantizeMultiplier(multiplier, &p.output_multiplier, &shift);
      if (shift > kMaxDivOutputShift) {
        return context.Error(ErrorCode::kUnsupported,
                             "input 0 scale / (input 1 scale * output scale) = %g is too large (2^%d or more)",
                             multiplier, kMaxDivOutputShift);
      }
      p.output_shift = shift;
      p.input1_offset = -q1.zero_point;
      p.input2_offset = -q2.zero_point;
      p.output_offset = qo.zero_point;
      break;
    }
    default: break;
  }
  *op_data = data;
  return OkStatus();
}

Status EvalDiv(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const DivData*>(op_data);
  switch (context.output(0)->type) {
    case TensorType::kFloat32: {
      const float lo = FloatBound(data.quantized.activation_min, std::numeric_limits<float>::lowest());
      const float hi = FloatBound(data.quantized.activation_max, std::numeric_limits<float>::max());
      RunBinary<float>(context, [lo, hi](float a, float b) { return reference::DivClamped(a, b, lo, hi); });
      break;
    }
    case TensorType::kInt32: {
      const int64_t zero = FirstZero<int32_t>(*context.input(1));
      if (zero >= 0) return DivisionByZero(zero);
      const int32_t lo = data.quantized.activation_min;
      const int32_t hi = data.quantized.activation_max;
      RunBinary<int32_t>(context, [lo, hi](int32_t a, int32_t b) { return reference::DivClamped(a, b, lo, hi); });
      break;
    }
    case TensorType::kInt8: {
      const reference::DivQuantizedParams& p = data.quantized;
      RunBinary<int8_t>(context, [&p](int8_t a, int8_t b) { return reference::DivQuantized(a, b, p); });
      break;
    }
    default: return Status::Error(ErrorCode::kInternal, "DIV of %s", TensorTypeName(context.output(0)->type));
  }
  return OkStatus();
}

// --- FLOOR_DIV, FLOOR_MOD ---------------------------------------------------

template <BinaryOp kOp>
Status PrepareFloor(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(CheckOperands(context, kOp));
  *op_data = nullptr;
  return OkStatus();
}

Status EvalFloorDiv(EvalContext& context, const void* /*op_data*/) {
  const int64_t zero = FirstZero<float>(*context.input(1));
  if (zero >= 0) return DivisionByZero(zero);
  RunBinary<float>(context, [](float a, float b) { return reference::FloorDiv(a, b); });
  return OkStatus();
}

// TFLM does not check FLOOR_MOD's divisors: x mod 0 is NaN there and here.
Status EvalFloorMod(EvalContext& context, const void* /*op_data*/) {
  RunBinary<float>(context, [](float a, float b) { return reference::FloorMod(a, b); });
  return OkStatus();
}

}  // namespace

const KernelRegistration kMaximumKernel = {BuiltinOp::kMaximum, PrepareMinMax<BinaryOp::kMaximum>,
                                           EvalMinMax<BinaryOp::kMaximum>};
const KernelRegistration kMinimumKernel = {BuiltinOp::kMinimum, PrepareMinMax<BinaryOp::kMinimum>,
                                           EvalMinMax<BinaryOp::kMinimum>};
const KernelRegistration kSquaredDifferenceKernel = {BuiltinOp::kSquaredDifference, PrepareSquaredDifference,
                                                     EvalSquaredDifference};
const KernelRegistration kDivKernel = {BuiltinOp::kDiv, PrepareDiv, EvalDiv};
const KernelRegistration kFloorDivKernel = {BuiltinOp::kFloorDiv, PrepareFloor<BinaryOp::kFloorDiv>, EvalFloorDiv};
const KernelRegistration kFloorModKernel = {BuiltinOp::kFloorMod, PrepareFloor<BinaryOp::kFloorMod>, EvalFloorMod};

}  // namespace microarena
