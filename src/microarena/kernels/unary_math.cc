// ABS, NEG, SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS, CEIL, FLOOR, ROUND:
// elementwise float32 math, as TFLM's reference kernels (elementwise.cc,
// neg.cc, exp.cc, ceil.cc, floor.cc, round.cc). Each calls the same <cmath>
// function on float that TFLM calls, so results (NaN included) are the same
// bytes on the same host. TFLM refuses nothing by value: LOG/SQRT/RSQRT of
// negatives give NaN there and here.
//
// int8 ABS: |q - input_zp| rescaled by input_scale / output_scale (divided
// in float, as TFLM does; its double-rounding MultiplyByQuantizedMultiplier; skipped when the scales are
// equal) plus output_zp, clamped; int16 ABS the same with both zero points 0
// (TFLM requires it).
//
// int8 RSQRT, as TFLM's elementwise.cc: v = q - input_zp; v = 0 gives 127;
// otherwise 1 / sqrt(v) in fixed point (the inverse square root of
// L2_NORMALIZATION), times 1 / (sqrt(input_scale) x output_scale) (the sqrt
// and the product in float, the reciprocal in double), plus output_zp,
// clamped. A value below the input's zero point fails the Invoke, as in TFLM
// ("only defined for positive values"). Other types (int8 NEG and the rest)
// are refused.
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/reference/fixed_point_exp.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"
#include "microarena/kernels/wrapping_math.h"

namespace microarena {
namespace {

enum class UnaryOp : uint8_t { kAbs, kNeg, kSqrt, kRsqrt, kSquare, kExp, kLog, kSin, kCos, kCeil, kFloor, kRound };

struct AbsInt8Data {
  int32_t input_zero_point = 0;
  int32_t output_zero_point = 0;
  int32_t multiplier = 0;
  int32_t shift = 0;
  bool needs_rescale = false;
  bool plain = false;  // int16 without quantization: |x| cast back to int16, as TFLM
};

// TFLite's RoundToNearest: half to even by hand (not nearbyint): -0.5 gives
// +0, where nearbyint would give -0.
inline float RoundHalfToEven(float value) {
  const float floor_value = std::floor(value);
  const float diff = value - floor_value;
  // diff == 0.5 only for |value| < 2^23, so the int conversion is defined.
  if (diff < 0.5f || (diff == 0.5f && static_cast<int>(floor_value) % 2 == 0)) return floor_value;
  return floor_value + 1.0f;
}

template <UnaryOp kOp>
inline float Apply(float x) {
  switch (kOp) {
    case UnaryOp::kAbs: return std::abs(x);
    case UnaryOp::kNeg: return -x;
    case UnaryOp::kSqrt: return std::sqrt(x);
    case UnaryOp::kRsqrt: return 1.f / std::sqrt(x);
    case UnaryOp::kSquare: return x * x;
    case UnaryOp::kExp: return std::exp(x);
    case UnaryOp::kLog: return std::log(x);
    case UnaryOp::kSin: return std::sin(x);
    case UnaryOp::kCos: return std::cos(x);
    case UnaryOp::kCeil: return std::ceil(x);
    case UnaryOp::kFloor: return std::floor(x);
    case UnaryOp::kRound: return RoundHalfToEven(x);
  }
  return x;
}

// TFLM's EXP, CEIL and ROUND check that the output has the input's shape;
// the others only need the same element count (checked for all).
constexpr bool NeedsSameShape(UnaryOp op) {
  return op == UnaryOp::kExp || op == UnaryOp::kCeil || op == UnaryOp::kRound;
}

Status ReadInt8Quantization(const PrepareContext& context, const TensorView& tensor, const char* role, float* scale,
                            int32_t* zero_point) {
  const QuantizationView q = tensor.quantization();
  if (!q.is_quantized() || q.channel_count() != 1) {
    return context.Error(ErrorCode::kUnsupported, "INT8 %s tensor %d '%s' needs per-tensor quantization", role,
                         tensor.index(), tensor.name());
  }
  *scale = q.scale(0);
  if (!(*scale > 0.0f) || !std::isfinite(*scale)) {
    return context.Error(ErrorCode::kInvalidArgument, "%s tensor %d '%s' has scale %g; it must be positive and finite",
                         role, tensor.index(), tensor.name(), static_cast<double>(*scale));
  }
  const int64_t zp = q.zero_point(0);
  if (zp < -128 || zp > 127) {
    return context.Error(ErrorCode::kInvalidArgument, "%s tensor %d '%s' has zero point %lld outside [-128, 127]",
                         role, tensor.index(), tensor.name(), static_cast<long long>(zp));
  }
  *zero_point = static_cast<int32_t>(zp);
  return OkStatus();
}

// Sets params' multiplier and shift from `real_multiplier`, refused when
// its shift is out of range.
Status SetMultiplier(const PrepareContext& context, const TensorView& output, double real_multiplier,
                     AbsInt8Data* params) {
  int shift = 0;
  fixed_point::QuantizeMultiplier(real_multiplier, &params->multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, "output", output, real_multiplier, shift));
  params->shift = shift;
  return OkStatus();
}

// Keeps `params` as the op data.
Status StoreParams(PrepareContext& context, const AbsInt8Data& params, const void** op_data) {
  void* memory = context.AllocatePersistent(sizeof(AbsInt8Data), alignof(AbsInt8Data));
  if (memory == nullptr) return context.OutOfMemory();
  *op_data = new (memory) AbsInt8Data(params);
  return OkStatus();
}

// int8 RSQRT: the zero points and 1 / (sqrt(input_scale) x output_scale).
[[gnu::noinline]] Status PrepareRsqrtInt8(PrepareContext& context, const TensorView& input,
                                          const TensorView& output, const void** op_data) {
  float input_scale = 0.0f;
  float output_scale = 0.0f;
  AbsInt8Data params;
  MICROARENA_RETURN_IF_ERROR(ReadInt8Quantization(context, input, "input", &input_scale, &params.input_zero_point));
  MICROARENA_RETURN_IF_ERROR(
      ReadInt8Quantization(context, output, "output", &output_scale, &params.output_zero_point));
  const float product = std::sqrt(input_scale) * output_scale;
  const double real_multiplier = 1.0 / static_cast<double>(product);
  if (!std::isfinite(real_multiplier)) {
    return context.Error(ErrorCode::kUnsupported, "scales %g -> %g: 1 / (sqrt(input scale) x output scale) overflows",
                         static_cast<double>(input_scale), static_cast<double>(output_scale));
  }
  MICROARENA_RETURN_IF_ERROR(SetMultiplier(context, output, real_multiplier, &params));
  // Eval rescales with shift - 20 (after TFLM's 2^20 scaling); a right shift
  // of 32 or more is undefined (TFLM's too).
  if (params.shift - 20 < -31) {
    return context.Error(ErrorCode::kUnsupported,
                         "scales %g -> %g: multiplier %g needs a right shift of %d after RSQRT's 2^20 scaling; at "
                         "most 31 is defined",
                         static_cast<double>(input_scale), static_cast<double>(output_scale), real_multiplier,
                         20 - params.shift);
  }
  return StoreParams(context, params, op_data);
}

template <UnaryOp kOp>
Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  const bool int16_abs = kOp == UnaryOp::kAbs && input.type() == TensorType::kInt16;
  const bool quantized_abs = (kOp == UnaryOp::kAbs && input.type() == TensorType::kInt8) || int16_abs;
  const bool quantized_rsqrt = kOp == UnaryOp::kRsqrt && input.type() == TensorType::kInt8;
  if (input.type() != output.type() || (input.type() != TensorType::kFloat32 && !quantized_abs && !quantized_rsqrt)) {
    return context.Error(ErrorCode::kUnsupported, "input %s -> output %s not supported (%s, same type)",
                         TensorTypeName(input.type()), TensorTypeName(output.type()),
                         kOp == UnaryOp::kAbs     ? "FLOAT32, INT8 or INT16"
                         : kOp == UnaryOp::kRsqrt ? "FLOAT32 or INT8"
                                                  : "FLOAT32 only");
  }
  if (input.element_count() != output.element_count()) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has %zu elements, output tensor %d has %zu",
                         input.index(), input.element_count(), output.index(), output.element_count());
  }
  if (NeedsSameShape(kOp) && input.rank() != output.rank()) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has rank %zu, output tensor %d has rank %zu",
                         input.index(), input.rank(), output.index(), output.rank());
  }
  for (size_t axis = 0; NeedsSameShape(kOp) && axis < input.rank(); ++axis) {
    if (input.shape()[axis] != output.shape()[axis]) {
      return context.Error(ErrorCode::kInvalidArgument, "input tensor %d and output tensor %d differ in dimension %zu",
                           input.index(), output.index(), axis);
    }
  }
  if (quantized_rsqrt) return PrepareRsqrtInt8(context, input, output, op_data);
  if (!quantized_abs) return OkStatus();

  float input_scale = 0.0f;
  float output_scale = 0.0f;
  AbsInt8Data params;
  if (int16_abs) {
    // TFLM picks the branch by the input's quantization alone: none is |x|
    // as int16; otherwise both zero points must be 0.
    params.plain = !input.quantization().is_affine();
    const int64_t input_zp = params.plain ? 0 : input.quantization().zero_point(0);
    const QuantizationView out_q = output.quantization();
    const int64_t output_zp = params.plain || !out_q.is_affine() ? 0 : out_q.zero_point(0);
    if (input_zp != 0 || output_zp != 0) {
      return context.Error(ErrorCode::kUnsupported,
                           "int16 tensors %d -> %d have zero points %lld -> %lld; TFLM requires 0", input.index(),
                           output.index(), static_cast<long long>(input_zp), static_cast<long long>(output_zp));
    }
  }
  if (params.plain) return StoreParams(context, params, op_data);
  MICROARENA_RETURN_IF_ERROR(ReadInt8Quantization(context, input, "input", &input_scale, &params.input_zero_point));
  MICROARENA_RETURN_IF_ERROR(
      ReadInt8Quantization(context, output, "output", &output_scale, &params.output_zero_point));
  params.needs_rescale = input_scale != output_scale;
  if (params.needs_rescale) {
    double real_multiplier = 0.0;
    MICROARENA_RETURN_IF_ERROR(FloatScaleRatio(context, input_scale, output_scale, &real_multiplier));
    MICROARENA_RETURN_IF_ERROR(SetMultiplier(context, output, real_multiplier, &params));
  }
  return StoreParams(context, params, op_data);
}

// int8, and int16 (zero points 0): the same arithmetic, clamped to T.
template <typename T>
void AbsQuantized(const AbsInt8Data& p, size_t count, const T* input, T* output) {
  if (p.plain) {
    // |INT16_MIN| = 32768 wraps back to -32768, as TFLM's cast does.
    for (size_t i = 0; i < count; ++i) output[i] = static_cast<T>(std::abs(static_cast<int32_t>(input[i])));
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    const int32_t value = std::abs(static_cast<int32_t>(input[i]) - p.input_zero_point);
    // TFLM's int32 sum; it can only wrap for a shift near 31.
    const int32_t scaled =
        p.needs_rescale ? fixed_point::MultiplyByQuantizedMultiplier(value, p.multiplier, p.shift) : value;
    const int32_t shifted = fixed_point::WrappingAdd(scaled, p.output_zero_point);
    output[i] = static_cast<T>(
        std::clamp<int32_t>(shifted, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  }
}

// int8 RSQRT; an input below the zero point fails, as in TFLM (the outputs
// before it are written).
[[gnu::noinline]] Status RsqrtInt8(const AbsInt8Data& p, size_t count, const int8_t* input, int8_t* output) {
  constexpr int kShift = 20;  // TFLM's: keeps 1 / sqrt(v) an integer
  for (size_t i = 0; i < count; ++i) {
    const int32_t value = int32_t{input[i]} - p.input_zero_point;
    if (value < 0) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "RSQRT is only defined for values >= 0: element %zu is %d, below the zero point %d", i,
                           int32_t{input[i]}, p.input_zero_point);
    }
    if (value == 0) {
      output[i] = std::numeric_limits<int8_t>::max();
      continue;
    }
    int32_t inv_sqrt_multiplier = 0;
    int32_t inv_sqrt_shift = 0;
    fixed_point::InvSqrtQuantizedMultiplier(value, &inv_sqrt_multiplier, &inv_sqrt_shift);
    const int32_t data = fixed_point::MultiplyByQuantizedMultiplier(1, inv_sqrt_multiplier, inv_sqrt_shift + kShift);
    const int32_t scaled = fixed_point::WrappingAdd(
        fixed_point::MultiplyByQuantizedMultiplier(data, p.multiplier, p.shift - kShift), p.output_zero_point);
    output[i] = static_cast<int8_t>(std::clamp<int32_t>(scaled, -128, 127));
  }
  return OkStatus();
}

template <UnaryOp kOp>
Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  const size_t count = input->element_count();
  if (kOp == UnaryOp::kAbs && input->type == TensorType::kInt8) {
    AbsQuantized(*static_cast<const AbsInt8Data*>(op_data), count, input->As<const int8_t>(), output->As<int8_t>());
    return OkStatus();
  }
  if (kOp == UnaryOp::kRsqrt && input->type == TensorType::kInt8) {
    return RsqrtInt8(*static_cast<const AbsInt8Data*>(op_data), count, input->As<const int8_t>(),
                     output->As<int8_t>());
  }
  if (kOp == UnaryOp::kAbs && input->type == TensorType::kInt16) {
    AbsQuantized(*static_cast<const AbsInt8Data*>(op_data), count, input->As<const int16_t>(),
                 output->As<int16_t>());
    return OkStatus();
  }
  const float* in = input->As<const float>();
  float* out = output->As<float>();
  for (size_t i = 0; i < count; ++i) out[i] = Apply<kOp>(in[i]);
  return OkStatus();
}

template <UnaryOp kOp>
constexpr KernelRegistration Unary(BuiltinOp op) {
  return {op, PrepareWithElementwiseOverlap<Prepare<kOp>, 1>, Eval<kOp>};
}

}  // namespace

const KernelRegistration kAbsKernel = Unary<UnaryOp::kAbs>(BuiltinOp::kAbs);
const KernelRegistration kNegKernel = Unary<UnaryOp::kNeg>(BuiltinOp::kNeg);
const KernelRegistration kSqrtKernel = Unary<UnaryOp::kSqrt>(BuiltinOp::kSqrt);
const KernelRegistration kRsqrtKernel = Unary<UnaryOp::kRsqrt>(BuiltinOp::kRsqrt);
const KernelRegistration kSquareKernel = Unary<UnaryOp::kSquare>(BuiltinOp::kSquare);
const KernelRegistration kExpKernel = Unary<UnaryOp::kExp>(BuiltinOp::kExp);
const KernelRegistration kLogKernel = Unary<UnaryOp::kLog>(BuiltinOp::kLog);
const KernelRegistration kSinKernel = Unary<UnaryOp::kSin>(BuiltinOp::kSin);
const KernelRegistration kCosKernel = Unary<UnaryOp::kCos>(BuiltinOp::kCos);
const KernelRegistration kCeilKernel = Unary<UnaryOp::kCeil>(BuiltinOp::kCeil);
const KernelRegistration kFloorKernel = Unary<UnaryOp::kFloor>(BuiltinOp::kFloor);
const KernelRegistration kRoundKernel = Unary<UnaryOp::kRound>(BuiltinOp::kRound);

}  // namespace microarena
