// CONCATENATION reference math, one input at a time.
//
// The output is viewed as [outer, output_slab] where outer is the product of
// the dimensions before the axis and output_slab the product of the output's
// dimensions from the axis on. Input i is [outer, input_slab_i] and lands at
// column offset_i = sum of the slabs of the inputs before it:
//
//   output row k:  | input 0 row k | input 1 row k | ... |
//                  ^0              ^offset_1
//
// Copying each input separately writes exactly the bytes TFLite's loop over
// (row, input) writes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/wrapping_math.h"

namespace microarena::reference {

struct ConcatenationSlab {
  size_t outer = 1;          // rows: product of the dimensions before the axis
  size_t input_slab = 0;     // elements of one input row
  size_t output_slab = 0;    // elements of one output row
  size_t output_offset = 0;  // column of this input's first element in an output row
};

// Copies one input of `element_bytes`-byte elements into its columns.
inline void ConcatenateCopy(const ConcatenationSlab& slab, size_t element_bytes, const uint8_t* input,
                            uint8_t* output) {
  const size_t row_bytes = slab.input_slab * element_bytes;
  for (size_t k = 0; k < slab.outer; ++k) {
    std::memcpy(output + (k * slab.output_slab + slab.output_offset) * element_bytes, input + k * row_bytes,
                row_bytes);
  }
}

// Rescales one int8 input from (input_scale, input_zero_point) to the output's
// quantization, as TFLite's ConcatenationWithScaling does in float:
//   q_out = round(q_in * s + b) + zp_out,  s = input_scale * (1 / output_scale),
//   b = -zp_in * s, rounded half away from zero, saturated to int8.
inline void ConcatenateRequantizeInt8(const ConcatenationSlab& slab, float input_scale, int32_t input_zero_point,
                                      float output_scale, int32_t output_zero_point, const int8_t* input,
                                      int8_t* output) {
  const float inverse_output_scale = 1.0f / output_scale;
  const float scale = input_scale * inverse_output_scale;
  const float bias = static_cast<float>(-input_zero_point) * scale;
  for (size_t k = 0; k < slab.outer; ++k) {
    const int8_t* in = input + k * slab.input_slab;
    int8_t* out = output + k * slab.output_slab + slab.output_offset;
    for (size_t j = 0; j < slab.input_slab; ++j) {
      const float scaled = static_cast<float>(in[j]) * scale + bias;
      // An inf/NaN or huge scale ratio makes the conversion undefined in
      // TFLite; TruncateToInt32 gives x86-64's answer, then the add wraps.
      const int32_t value =
          fixed_point::WrappingAdd(fixed_point::TruncateToInt32(std::round(scaled)), output_zero_point);
      out[j] = static_cast<int8_t>(std::min<int32_t>(127, std::max<int32_t>(-128, value)));
    }
  }
}

}  // namespace microarena::reference
