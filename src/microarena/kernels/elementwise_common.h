// Prepare-time helpers shared by the elementwise kernels (ADD, SUB, MUL,
// QUANTIZE, SOFTMAX, activations): quantization checks, fused activation
// ranges and multiplier splitting, computed as TFLite's Prepare does.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>

#include "microarena/base/status.h"
#include "microarena/kernels/activation_range.h"
#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/kernel.h"
#include "microarena/kernels/reference/add.h"
#include "microarena/kernels/reference/broadcast.h"
#include "microarena/kernels/tensor_checks.h"
#include "microarena/model/tensor_type.h"

namespace microarena::elementwise {

// Per-tensor affine quantization of one tensor.
struct TensorQuantization {
  float scale = 0.0f;
  int32_t zero_point = 0;
};

// The type's integer range for int8/int16/int32/uint8 tensors.
inline void IntegerTypeRange(TensorType type, int32_t* min, int32_t* max) {
  switch (type) {
    case TensorType::kInt8: *min = -128; *max = 127; return;
    case TensorType::kUInt8: *min = 0; *max = 255; return;
    case TensorType::kInt16: *min = -32768; *max = 32767; return;
    default:
      *min = std::numeric_limits<int32_t>::min();
      *max = std::numeric_limits<int32_t>::max();
      return;
  }
}

// Reads the per-tensor scale and zero point of `tensor` (input or output
// `role`, e.g. "input 0"). Errors when the tensor is not quantized, is
// quantized per channel, has a scale that is not positive and finite, or a
// zero point outside its type's range.
inline Status ReadPerTensorQuantization(const PrepareContext& context, const TensorView& tensor, const char* role,
                                        TensorQuantization* quantization) {
  const QuantizationView q = tensor.quantization();
  if (!q.is_quantized()) {
    return context.Error(ErrorCode::kInvalidArgument, "%s tensor %d '%s' (%s) has no quantization parameters", role,
                         tensor.index(), tensor.name(), TensorTypeName(tensor.type()));
  }
  if (q.channel_count() != 1) {
    return context.Error(ErrorCode::kUnsupported,
                         "%s tensor %d '%s' is quantized per channel (%zu scales); only per-tensor is supported", role,
                         tensor.index(), tensor.name(), q.channel_count());
  }
  const float scale = q.scale(0);
  if (!(scale > 0.0f) || !std::isfinite(scale)) {
    return context.Error(ErrorCode::kInvalidArgument, "%s tensor %d '%s' has scale %g; it must be positive and finite",
                         role, tensor.index(), tensor.name(), static_cast<double>(scale));
  }
  int32_t type_min = 0;
  int32_t type_max = 0;
  IntegerTypeRange(tensor.type(), &type_min, &type_max);
  const int64_t zero_point = q.zero_point(0);
  if (zero_point < type_min || zero_point > type_max) {
    return context.Error(ErrorCode::kInvalidArgument, "%s tensor %d '%s' (%s) has zero point %lld outside [%d, %d]",
                         role, tensor.index(), tensor.name(), TensorTypeName(tensor.type()),
                         static_cast<long long>(zero_point), type_min, type_max);
  }
  quantization->scale = scale;
  quantization->zero_point = static_cast<int32_t>(zero_point);
  return OkStatus();
}

// TFLite's QuantizeMultiplierSmallerThanOneExp: m in (0, 1) -> mantissa and
// a shift <= 0. Returns false when m is outside (0, 1).
inline bool QuantizeMultiplierSmallerThanOne(double multiplier, int32_t* quantized_multiplier, int32_t* shift) {
  if (!(multiplier > 0.0) || !(multiplier < 1.0)) return false;
  int exponent = 0;
  fixed_point::QuantizeMultiplier(multiplier, quantized_multiplier, &exponent);
  if (exponent > 0) return false;
  *shift = exponent;
  return true;
}

// The quantized clamp range of a fused activation on an output of `type`
// with `quantization` (TFLite's rule, in activation_range.h). Returns false
// for activations TFLite does not fuse here (TANH, SIGN_BIT) and for bounds
// that do not fit int32.
inline bool QuantizedActivationRange(tflite::ActivationFunctionType activation, TensorType type,
                                     const TensorQuantization& quantization, int32_t* min, int32_t* max) {
  int32_t type_min = 0;
  int32_t type_max = 0;
  IntegerTypeRange(type, &type_min, &type_max);
  return microarena::QuantizedActivationRange(activation, quantization.scale, quantization.zero_point, type_min,
                                              type_max, min, max);
}

// The float clamp range of a fused activation; false for TANH and SIGN_BIT.
inline bool FloatActivationRange(tflite::ActivationFunctionType activation, reference::FloatActivationRange* range) {
  return microarena::FloatActivationRange(activation, &range->min, &range->max);
}

// "RELU6", ... for messages.
inline const char* ActivationName(tflite::ActivationFunctionType activation) {
  return tflite::EnumNameActivationFunctionType(activation);
}

// Whether two shapes are identical (same rank and extents).
inline bool SameShape(Span<const int32_t> a, Span<const int32_t> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// Checks the operands of a unary elementwise op (activations): 1 input and 1
// output, both INT8 or both FLOAT32 (or both INT16 when `allow_int16`), with
// the same element count.
inline Status CheckUnaryOperands(const PrepareContext& context, bool allow_int16 = false) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  const bool int16_ok = allow_int16 && input.type() == TensorType::kInt16;
  if (input.type() != output.type() ||
      (input.type() != TensorType::kInt8 && input.type() != TensorType::kFloat32 && !int16_ok)) {
    return context.Error(ErrorCode::kUnsupported, "input %s -> output %s not supported (%s, same type)",
                         TensorTypeName(input.type()), TensorTypeName(output.type()),
                         allow_int16 ? "INT8, INT16 or FLOAT32" : "INT8 or FLOAT32");
  }
  if (input.element_count() != output.element_count()) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d has %zu elements, output tensor %d has %zu",
                         input.index(), input.element_count(), output.index(), output.element_count());
  }
  return OkStatus();
}

// Checks the operands of a binary elementwise op (ADD, SUB, MUL): 2 inputs
// and 1 output, all INT8 or all FLOAT32 (or all INT16 when `allow_int16`),
// inputs that broadcast (numpy rules, rank <= kMaxBroadcastRank) to exactly
// the output's shape.
//
// Out of line, with its messages and the broadcast shape in cold or leaf
// frames of their own: kernels call it from Prepare, on AllocateTensors' stack.
[[gnu::noinline, gnu::cold]] inline Status BinaryTypesError(const PrepareContext& context, bool allow_int16,
                                                              bool allow_int32 = false) {
  return context.Error(ErrorCode::kUnsupported, "types %s, %s -> %s not supported (all %s)",
                       TensorTypeName(context.input(0).type()), TensorTypeName(context.input(1).type()),
                       TensorTypeName(context.output(0).type()),
                       allow_int32   ? "INT8, all INT16, all INT32 or all FLOAT32"
                       : allow_int16 ? "INT8, all INT16 or all FLOAT32"
                                     : "INT8 or all FLOAT32");
}

// TFLite's float and int32 ranges: RELU, RELU6, RELU_N1_TO_1 clamp; NONE,
// TANH and SIGN_BIT do not.
inline void IntegerActivationRange(tflite::ActivationFunctionType activation, int32_t* min, int32_t* max) {
  *min = std::numeric_limits<int32_t>::min();
  *max = std::numeric_limits<int32_t>::max();
  if (activation == tflite::ActivationFunctionType::RELU) {
    *min = 0;
  } else if (activation == tflite::ActivationFunctionType::RELU6) {
    *min = 0;
    *max = 6;
  } else if (activation == tflite::ActivationFunctionType::RELU_N1_TO_1) {
    *min = -1;
    *max = 1;
  }
}

// INT32 inputs of ADD and SUB carry no quantization in TFLM (it refuses them
// otherwise); SUB's output neither (`check_output`), ADD's may.
[[gnu::noinline]] inline Status RequirePlainInt32(const PrepareContext& context, bool check_output) {
  for (size_t i = 0; i < 2; ++i) {
    if (context.input(i).quantization().is_affine()) {
      return context.Error(ErrorCode::kUnsupported, "INT32 input %zu '%s' is quantized; only plain INT32 is (TFLM)", i,
                           context.input(i).name());
    }
  }
  if (check_output && context.output(0).quantization().is_affine()) {
    return context.Error(ErrorCode::kUnsupported, "INT32 output '%s' is quantized; only plain INT32 is (TFLM)",
                         context.output(0).name());
  }
  return OkStatus();
}

[[gnu::noinline, gnu::cold]] inline Status BinaryBroadcastError(const PrepareContext& context) {
  const TensorView input1 = context.input(0);
  const TensorView input2 = context.input(1);
  const TensorView output = context.output(0);
  return context.Error(ErrorCode::kInvalidArgument,
                       "input tensors %d (rank %zu) and %d (rank %zu) do not broadcast to output tensor %d (rank "
                       "%zu); ranks above %zu are not supported",
                       input1.index(), input1.rank(), input2.index(), input2.rank(), output.index(), output.rank(),
                       reference::kMaxBroadcastRank);
}

// True when shapes `a` and `b` broadcast (numpy rules, rank <= kMaxBroadcastRank)
// to exactly `out`: the rule of reference::MakeBroadcastShape, axis by axis,
// without building the strides.
inline bool BroadcastsTo(Span<const int32_t> a, Span<const int32_t> b, Span<const int32_t> out) {
  const size_t rank = a.size() > b.size() ? a.size() : b.size();
  if (rank > reference::kMaxBroadcastRank || out.size() != rank) return false;
  for (size_t i = 0; i < rank; ++i) {  // i counts axes from the last one
    const int32_t extent_a = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int32_t extent_b = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (extent_a != extent_b && extent_a != 1 && extent_b != 1) return false;
    if (out[rank - 1 - i] != (extent_a == 1 ? extent_b : extent_a)) return false;
  }
  return true;
}

// BroadcastsTo over the op's inputs 0 and 1 and output 0, in a frame of its own.
[[gnu::noinline]] inline bool InputsBroadcastToOutput(const PrepareContext& context) {
  return BroadcastsTo(context.input(0).shape(), context.input(1).shape(), context.output(0).shape());
}

[[gnu::noinline]] inline Status CheckBinaryOperands(const PrepareContext& context, bool allow_int16 = false,
                                                    bool allow_int32 = false) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorType type1 = context.input(0).type();
  const TensorType type2 = context.input(1).type();
  const TensorType type = context.output(0).type();
  const bool int16_ok = allow_int16 && type == TensorType::kInt16;
  const bool int32_ok = allow_int32 && type == TensorType::kInt32;
  if (type1 != type || type2 != type ||
      (type != TensorType::kInt8 && type != TensorType::kFloat32 && !int16_ok && !int32_ok)) {
    return BinaryTypesError(context, allow_int16, allow_int32);
  }
  if (!InputsBroadcastToOutput(context)) return BinaryBroadcastError(context);
  return OkStatus();
}

// Allocates persistent op data of type T, or returns false (the caller then
// returns context.OutOfMemory()).
template <typename T>
T* AllocateOpData(PrepareContext& context) {
  void* memory = context.AllocatePersistent(sizeof(T), alignof(T));
  return memory == nullptr ? nullptr : new (memory) T();
}

}  // namespace microarena::elementwise
