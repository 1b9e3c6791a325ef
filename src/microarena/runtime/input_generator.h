// The deterministic input generator of the golden files (golden/README.md),
// so that a run here and a run on a device see the same inputs.
//
// For each input tensor the 32-bit state restarts at x = seed; each step is
// x = x * 1664525 + 1013904223 (mod 2^32). FLOAT32: one step per element,
// value ((int32_t)x >> 8) / 8388608.0f (uniform in [-1, 1)); BOOL: one step per
// byte, byte = x >> 31; every other type: one step per byte, byte = x >> 24.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/model/tensor_type.h"

namespace microarena {

// Fills `bytes` (the whole tensor) for a tensor of `type`.
void GenerateInput(uint32_t seed, TensorType type, uint8_t* bytes, size_t byte_count);

}  // namespace microarena
