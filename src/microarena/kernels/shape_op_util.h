// Helpers shared by the data-movement kernels (CONCATENATION, PAD, MEAN,
// TRANSPOSE, STRIDED_SLICE, SQUEEZE, EXPAND_DIMS, BATCH_MATMUL) at prepare
// time: reading small constant index tensors, comparing quantization, the
// operand checks of the ops that only move bytes, and formatting shapes for
// error messages. Only EvalCopy runs during eval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "microarena/base/span.h"
#include "microarena/base/status.h"
#include "microarena/kernels/kernel.h"
#include "microarena/model/model_view.h"
#include "microarena/model/tensor_type.h"

namespace microarena::shape_op {

// Bytes per element for whole-byte types; 0 for INT4 and types without a
// fixed size.
inline size_t ElementBytes(TensorType type) {
  const size_t bits = TensorTypeBits(type);
  return bits % 8 == 0 ? bits / 8 : 0;
}

// True when both tensors carry the same single scale and zero point, or
// neither is quantized. Per-channel tensors never compare equal.
inline bool SameQuantization(const TensorView& a, const TensorView& b) {
  const QuantizationView qa = a.quantization();
  const QuantizationView qb = b.quantization();
  if (!qa.is_quantized() && !qb.is_quantized()) return true;
  if (!qa.is_quantized() || !qb.is_quantized()) return false;
  if (qa.channel_count() != 1 || qb.channel_count() != 1) return false;
  return qa.scale(0) == qb.scale(0) && qa.zero_point(0) == qb.zero_point(0);
}

// True when `tensor` has exactly one scale and one zero point that fits int8.
inline bool HasInt8PerTensorQuantization(const TensorView& tensor) {
  const QuantizationView q = tensor.quantization();
  return q.is_quantized() && q.channel_count() == 1 && q.scale(0) > 0.0f && q.zero_point(0) >= -128 &&
         q.zero_point(0) <= 127;
}

// Reads a constant INT32 or INT64 tensor of at most `capacity` elements into
// `values`. Returns false when the tensor is not constant, has another type,
// or is too long; *count gets the element count either way (0 if unknown).
inline bool ReadConstantIndices(const TensorView& tensor, int32_t* values, size_t capacity, size_t* count) {
  *count = tensor.element_count();
  if (!tensor.is_constant() || *count > capacity) return false;
  const uint8_t* bytes = tensor.data().data();
  for (size_t i = 0; i < *count; ++i) {
    if (tensor.type() == TensorType::kInt32) {
      std::memcpy(&values[i], bytes + i * sizeof(int32_t), sizeof(int32_t));
    } else if (tensor.type() == TensorType::kInt64) {
      int64_t wide = 0;
      std::memcpy(&wide, bytes + i * sizeof(int64_t), sizeof(int64_t));
      if (wide < INT32_MIN || wide > INT32_MAX) return false;
      values[i] = static_cast<int32_t>(wide);
    } else {
      return false;
    }
  }
  return true;
}

// A shape as "[1,8,8,3]" in `buffer` (cut if longer than `size`); returns buffer.
inline const char* FormatShape(const int32_t* dims, size_t rank, char* buffer, size_t size) {
  size_t used = 0;
  buffer[0] = '\0';
  int written = FormatText(buffer, size, "[");
  for (size_t i = 0; i < rank && written >= 0; ++i) {
    used = std::strlen(buffer);
    if (used + 1 >= size) break;
    written = FormatText(buffer + used, size - used, i == 0 ? "%d" : ",%d", static_cast<int>(dims[i]));
  }
  used = std::strlen(buffer);
  if (used + 1 < size) FormatText(buffer + used, size - used, "]");
  return buffer;
}

inline const char* FormatShape(Span<const int32_t> shape, char* buffer, size_t size) {
  return FormatShape(shape.data(), shape.size(), buffer, size);
}

// True when `shape` equals dims[0..rank).
inline bool ShapeEquals(Span<const int32_t> shape, const int32_t* dims, size_t rank) {
  if (shape.size() != rank) return false;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] != dims[i]) return false;
  }
  return true;
}

// The operand checks of the ops that move bytes without looking at them
// (TRANSPOSE, STRIDED_SLICE, SQUEEZE, EXPAND_DIMS): the output must have the
// input's type and quantization, since nothing is requantized.
inline Status RequireSameTypeAndQuantization(const PrepareContext& context, const TensorView& input,
                                             const TensorView& output) {
  if (output.type() != input.type() || !SameQuantization(input, output)) {
    return context.Error(ErrorCode::kUnsupported,
                         "output '%s' (%s) must have the type and quantization of input '%s' (%s)", output.name(),
                         TensorTypeName(output.type()), input.name(), TensorTypeName(input.type()));
  }
  return OkStatus();
}

// For ops whose reference loops are instantiated for 1-, 2- and 4-byte
// elements only (TRANSPOSE, STRIDED_SLICE).
inline Status RequireElementsOf1To4Bytes(const PrepareContext& context, const TensorView& input) {
  const size_t bytes = ElementBytes(input.type());
  if (bytes != 1 && bytes != 2 && bytes != 4) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has type %s; supported: 1-, 2- and 4-byte types",
                         input.name(), TensorTypeName(input.type()));
  }
  return OkStatus();
}

// For ops TFLM runs in FLOAT32, INT8 and INT16 only (TRANSPOSE, EXPAND_DIMS):
// the same refusal as TFLM, though the data movement would take any type.
inline Status RequireFloat32Int8OrInt16(const PrepareContext& context, const TensorView& input) {
  const TensorType type = input.type();
  if (type != TensorType::kFloat32 && type != TensorType::kInt8 && type != TensorType::kInt16) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has type %s; supported: FLOAT32, INT8, INT16 (as TFLM)",
                         input.name(), TensorTypeName(type));
  }
  return OkStatus();
}

// For ops that copy whole buffers (SQUEEZE): any type whose
// elements are whole bytes, so the byte count is elements * ElementBytes.
inline Status RequireWholeByteElements(const PrepareContext& context, const TensorView& input) {
  if (ElementBytes(input.type()) == 0) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has type %s, which is not whole bytes per element",
                         input.name(), TensorTypeName(input.type()));
  }
  return OkStatus();
}

// Rank limit of ops whose params hold fixed-size per-dimension arrays.
inline Status RequireMaxRank(const PrepareContext& context, const TensorView& input, size_t max_rank) {
  if (input.rank() > max_rank) {
    return context.Error(ErrorCode::kUnsupported, "input '%s' has rank %zu; at most %zu is supported", input.name(),
                         input.rank(), max_rank);
  }
  return OkStatus();
}

// Exactly `count` present inputs, named `names` in the error, and one output.
inline Status RequireInputsAndOneOutput(const PrepareContext& context, size_t count, const char* names) {
  bool present = context.input_count() == count && context.output_count() == 1;
  for (size_t i = 0; present && i < count; ++i) present = context.has_input(i);
  if (!present) {
    return context.Error(ErrorCode::kInvalidArgument, "expects %zu inputs (%s) and 1 output, got %zu and %zu", count,
                         names, context.input_count(), context.output_count());
  }
  return OkStatus();
}

// Eval of the ops that change only the shape (SQUEEZE, EXPAND_DIMS): the
// bytes are copied unchanged, or left alone when the planner shares the buffer.
inline Status EvalCopy(EvalContext& context, const void* /*op_data*/) {
  const EvalTensor& input = *context.input(0);
  EvalTensor& output = *context.output(0);
  if (input.data != output.data) {
    std::memmove(output.data, input.data, input.element_count() * ElementBytes(input.type));
  }
  return OkStatus();
}

// Calls copy(Word{}) with Word the unsigned integer as wide as `type`'s
// elements (1, 2 or 4 bytes, as RequireElementsOf1To4Bytes checked): ops that
// only move elements instantiate their loops once per width, not per type.
template <typename Copy>
inline void WithElementWord(TensorType type, Copy&& copy) {
  switch (ElementBytes(type)) {
    case 1:
      copy(uint8_t{});
      break;
    case 2:
      copy(uint16_t{});
      break;
    default:
      copy(uint32_t{});
      break;
  }
}

// Size of a buffer for FormatShape: 8 dims of up to 11 characters plus separators.
constexpr size_t kShapeTextBytes = 112;

}  // namespace microarena::shape_op
