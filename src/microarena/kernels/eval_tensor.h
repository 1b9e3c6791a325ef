// EvalTensor: a tensor as a kernel sees it while the model runs.
//
// One per tensor, in the persistent area: 24 bytes on a 64-bit host, 12 on a
// 32-bit MCU (the size TFLM's TfLiteEvalTensor has). Shapes point into the
// model; quantization parameters are read from the model at Prepare and kept
// in the op's own data, so they cost nothing here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/model/tensor_type.h"

namespace microarena {

struct EvalTensor {
  uint8_t* data = nullptr;        // head (activations), tail (variables) or model (constants)
  const int32_t* dims = nullptr;  // `rank` dimensions, in the model
  uint8_t rank = 0;
  TensorType type = TensorType::kFloat32;

  template <typename T>
  T* As() const {
    return reinterpret_cast<T*>(data);
  }
  int32_t dim(size_t axis) const { return dims[axis]; }
  // Product of the dimensions (1 for a scalar). Checked at model load.
  size_t element_count() const {
    size_t count = 1;
    for (size_t i = 0; i < rank; ++i) count *= static_cast<size_t>(dims[i]);
    return count;
  }
};

}  // namespace microarena
