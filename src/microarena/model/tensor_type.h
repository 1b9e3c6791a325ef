// Tensor element types, numbered as in the .tflite format.
#pragma once

#include <cstddef>
#include <cstdint>

namespace microarena {

enum class TensorType : int8_t {
  kFloat32 = 0, kFloat16 = 1, kInt32 = 2, kUInt8 = 3, kInt64 = 4, kString = 5, kBool = 6,
  kInt16 = 7, kComplex64 = 8, kInt8 = 9, kFloat64 = 10, kComplex128 = 11, kUInt64 = 12,
  kResource = 13, kVariant = 14, kUInt32 = 15, kUInt16 = 16, kInt4 = 17,
};

// "INT8", "FLOAT32", ...; "UNKNOWN" for a value outside the format.
const char* TensorTypeName(TensorType type);

// Bits per element; 0 when the type has no fixed size (STRING, RESOURCE,
// VARIANT) or is unknown. INT4 is 4: two elements per byte, packed.
size_t TensorTypeBits(TensorType type);

}  // namespace microarena
