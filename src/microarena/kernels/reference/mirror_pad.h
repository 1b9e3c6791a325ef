// MIRROR_PAD reference math: each output index maps, per axis, to an input
// index mirrored about the edge; any rank up to kMaxRank, any element size.
//
// `offset` is 1 for REFLECT (the edge element is not repeated) and 0 for
// SYMMETRIC (it is). Positions before the input count back from the edge;
// positions after it count back from the far edge and stop at index 0 when
// the padding is longer than the input allows (TFLM's arithmetic, kept so
// results match it for every padding it accepts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/model/model_view.h"

namespace microarena::reference {

// The input index that padded position `i` of one axis reads.
inline int64_t MirrorSource(int64_t i, int64_t before, int64_t size, int64_t offset) {
  if (i < before) return before + offset - 1 - i;
  i -= before;
  if (i < size) return i;
  i -= size;
  const int64_t last = size - 1 - offset;
  return last - (i < last ? i : last);
}

// `before[d]` is the padding before axis d; output dims are the padded dims.
inline void MirrorPad(size_t rank, const int32_t* input_dims, const int32_t* output_dims, const int64_t* before,
                      int32_t offset, size_t element_bytes, const uint8_t* input, uint8_t* output) {
  if (rank == 0) {
    std::memcpy(output, input, element_bytes);
    return;
  }
  size_t input_strides[kMaxRank];
  size_t stride = 1;
  size_t output_count = 1;
  for (size_t d = rank; d-- > 0;) {
    input_strides[d] = stride;
    stride *= static_cast<size_t>(input_dims[d]);
    output_count *= static_cast<size_t>(output_dims[d]);
  }
  if (output_count == 0) return;
  // Odometer over the outer axes; the innermost axis is one row per step.
  int32_t index[kMaxRank] = {};
  const size_t inner = rank - 1;
  const size_t rows = output_count / static_cast<size_t>(output_dims[inner]);
  for (size_t row = 0; row < rows; ++row) {
    size_t base = 0;
    for (size_t d = 0; d < inner; ++d) {
      base += static_cast<size_t>(MirrorSource(index[d], before[d], input_dims[d], offset)) * input_strides[d];
    }
    for (int32_t i = 0; i < output_dims[inner]; ++i) {
      const auto source = static_cast<size_t>(MirrorSource(i, before[inner], input_dims[inner], offset));
      std::memcpy(output, input + (base + source) * element_bytes, element_bytes);
      output += element_bytes;
    }
    for (size_t d = inner; d-- > 0;) {
      if (++index[d] < output_dims[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace microarena::reference
