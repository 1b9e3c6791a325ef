#include "microarena/model/tensor_type.h"

namespace microarena {

const char* TensorTypeName(TensorType type) {
  switch (type) {
    case TensorType::kFloat32: return "FLOAT32";
    case TensorType::kFloat16: return "FLOAT16";
    case TensorType::kInt32: return "INT32";
    case TensorType::kUInt8: return "UINT8";
    case TensorType::kInt64: return "INT64";
    case TensorType::kString: return "STRING";
    case TensorType::kBool: return "BOOL";
    case TensorType::kInt16: return "INT16";
    case TensorType::kComplex64: return "COMPLEX64";
    case TensorType::kInt8: return "INT8";
    case TensorType::kFloat64: return "FLOAT64";
    case TensorType::kComplex128: return "COMPLEX128";
    case TensorType::kUInt64: return "UINT64";
    case TensorType::kResource: return "RESOURCE";
    case TensorType::kVariant: return "VARIANT";
    case TensorType::kUInt32: return "UINT32";
    case TensorType::kUInt16: return "UINT16";
    case TensorType::kInt4: return "INT4";
  }
  return "UNKNOWN";
}

size_t TensorTypeBits(TensorType type) {
  switch (type) {
    case TensorType::kInt4: return 4;
    case TensorType::kBool:
    case TensorType::kInt8:
    case TensorType::kUInt8: return 8;
    case TensorType::kFloat16:
    case TensorType::kInt16:
    case TensorType::kUInt16: return 16;
    case TensorType::kFloat32:
    case TensorType::kInt32:
    case TensorType::kUInt32:
    case TensorType::kResource: return 32;  // a resource variable's id, as TFLM stores it
    case TensorType::kFloat64:
    case TensorType::kInt64:
    case TensorType::kUInt64:
    case TensorType::kComplex64: return 64;
    case TensorType::kComplex128: return 128;
    case TensorType::kString:
    case TensorType::kVariant: return 0;
  }
  return 0;
}

}  // namespace microarena
