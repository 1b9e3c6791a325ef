#include "microarena/kernels/tensor_checks.h"

#include <cmath>

#include "microarena/kernels/fixed_point.h"

namespace microarena {

Status RequireType(const PrepareContext& context, const char* role, const TensorView& tensor, TensorType type) {
  if (tensor.type() == type) return OkStatus();
  return context.Error(ErrorCode::kUnsupported, "%s tensor %d '%s' is %s where %s is required", role,
                       tensor.index(), tensor.name(), TensorTypeName(tensor.type()), TensorTypeName(type));
}

Status RequireRank(const PrepareContext& context, const char* role, const TensorView& tensor, size_t rank) {
  if (tensor.rank() == rank) return OkStatus();
  return context.Error(ErrorCode::kInvalidArgument, "%s tensor %d '%s' has rank %zu; expected %zu", role,
                       tensor.index(), tensor.name(), tensor.rank(), rank);
}

Status RequireArity(const PrepareContext& context, size_t min_inputs, size_t max_inputs) {
  if (context.input_count() < min_inputs || context.input_count() > max_inputs) {
    return context.Error(ErrorCode::kInvalidArgument, "has %zu inputs; expected %zu to %zu", context.input_count(),
                         min_inputs, max_inputs);
  }
  if (context.output_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "has %zu outputs; expected 1", context.output_count());
  }
  if (!context.has_input(0)) return context.Error(ErrorCode::kInvalidArgument, "input 0 is omitted");
  return OkStatus();
}

Status RequireOperands(const PrepareContext& context, size_t inputs, size_t outputs) {
  bool present = context.input_count() == inputs && context.output_count() == outputs;
  for (size_t i = 0; present && i < inputs; ++i) present = context.has_input(i);
  if (!present) {
    return context.Error(ErrorCode::kInvalidArgument, "expects %zu input%s and %zu output%s, has %zu and %zu", inputs,
                         inputs == 1 ? "" : "s", outputs, outputs == 1 ? "" : "s", context.input_count(),
                         context.output_count());
  }
  return OkStatus();
}

namespace {

// The checks' messages, each in its own cold frame: their variadic arguments
// would otherwise widen the checks' frames, which are on AllocateTensors'
// stack when everything is valid.
[[gnu::noinline, gnu::cold]] Status PerTensorQuantizationError(const PrepareContext& context, const char* role,
                                                               const TensorView& tensor, int32_t qmin, int32_t qmax) {
  const QuantizationView quantization = tensor.quantization();
  if (!quantization.is_quantized() || quantization.channel_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "%s tensor %d '%s' needs one quantization scale and zero point; it has %zu", role,
                         tensor.index(), tensor.name(), quantization.is_quantized() ? quantization.channel_count() : 0);
  }
  const float scale = quantization.scale(0);
  if (!(scale > 0.0f)) {
    return context.Error(ErrorCode::kInvalidArgument, "%s tensor %d '%s' has quantization scale %g; must be > 0",
                         role, tensor.index(), tensor.name(), static_cast<double>(scale));
  }
  const int64_t zero_point = quantization.zero_point(0);
  return context.Error(ErrorCode::kInvalidArgument, "%s tensor %d '%s' has zero point %lld outside [%d, %d]", role,
                       tensor.index(), tensor.name(), static_cast<long long>(zero_point), qmin, qmax);
}

[[gnu::noinline, gnu::cold]] Status MultiplierShiftError(const PrepareContext& context, const char* role,
                                                         const TensorView& tensor, double multiplier, int shift) {
  return context.Error(ErrorCode::kUnsupported,
                       "%s tensor %d '%s': requantization multiplier %g needs a left shift of %d bits; at most %d "
                       "are defined (TFLite's shift would be undefined)",
                       role, tensor.index(), tensor.name(), multiplier, shift, fixed_point::kMaxMultiplierShift);
}

}  // namespace

Status RequirePerTensorQuantization(const PrepareContext& context, const char* role, const TensorView& tensor,
                                    int32_t qmin, int32_t qmax) {
  const QuantizationView quantization = tensor.quantization();
  if (quantization.is_quantized() && quantization.channel_count() == 1 && quantization.scale(0) > 0.0f) {
    const int64_t zero_point = quantization.zero_point(0);
    if (zero_point >= qmin && zero_point <= qmax) return OkStatus();
  }
  return PerTensorQuantizationError(context, role, tensor, qmin, qmax);
}

Status RequireMultiplierShift(const PrepareContext& context, const char* role, const TensorView& tensor,
                              double multiplier, int shift) {
  if (shift <= fixed_point::kMaxMultiplierShift) return OkStatus();
  return MultiplierShiftError(context, role, tensor, multiplier, shift);
}

Status FloatScaleRatio(const PrepareContext& context, float input_scale, float output_scale, double* ratio) {
  *ratio = static_cast<double>(input_scale / output_scale);
  if (std::isfinite(*ratio)) return OkStatus();
  return context.Error(ErrorCode::kUnsupported, "scales %g -> %g: their ratio overflows float",
                       static_cast<double>(input_scale), static_cast<double>(output_scale));
}

}  // namespace microarena
