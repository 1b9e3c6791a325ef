// SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND reference math over NHWC tensors
// (a 3-D NHC tensor is taken as NH1C with a block width of 1), any element
// size. Whole channel rows move at once.
//
// SPACE_TO_BATCH_ND: the input, padded by (top, left) before and enough after,
// is cut into block_height x block_width phases; output batch
// (phase * input_batches + b) holds phase (ph, pw) of input batch b, where
// phase = ph * block_width + pw. Positions in the padding are zero bytes
// (TFLM fills with the bytes of a pad value it never sets: 0).
// BATCH_TO_SPACE_ND is the inverse, with (top, left) cropped away.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

struct SpaceBatchParams {
  int32_t block_height = 1;
  int32_t block_width = 1;
  int32_t top = 0;   // padding (SPACE_TO_BATCH_ND) or crop (BATCH_TO_SPACE_ND) before the rows
  int32_t left = 0;  // the same before the columns
};

inline void SpaceToBatchNd(const SpaceBatchParams& params, const NhwcShape& input_shape, const uint8_t* input,
                           const NhwcShape& output_shape, uint8_t* output, size_t element_bytes) {
  const size_t row_bytes = static_cast<size_t>(output_shape.channels) * element_bytes;
  for (int32_t out_b = 0; out_b < output_shape.batches; ++out_b) {
    const int32_t in_b = out_b % input_shape.batches;
    const int32_t phase = out_b / input_shape.batches;
    const int32_t shift_h = phase / params.block_width;
    const int32_t shift_w = phase % params.block_width;
    for (int32_t out_h = 0; out_h < output_shape.height; ++out_h) {
      const int32_t in_h = out_h * params.block_height + shift_h - params.top;
      for (int32_t out_w = 0; out_w < output_shape.width; ++out_w) {
        const int32_t in_w = out_w * params.block_width + shift_w - params.left;
        uint8_t* out = output + NhwcOffset(output_shape, out_b, out_h, out_w, 0) * element_bytes;
        if (in_h < 0 || in_h >= input_shape.height || in_w < 0 || in_w >= input_shape.width) {
          std::memset(out, 0, row_bytes);
        } else {
          std::memcpy(out, input + NhwcOffset(input_shape, in_b, in_h, in_w, 0) * element_bytes, row_bytes);
        }
      }
    }
  }
}

inline void BatchToSpaceNd(const SpaceBatchParams& params, const NhwcShape& input_shape, const uint8_t* input,
                           const NhwcShape& output_shape, uint8_t* output, size_t element_bytes) {
  const size_t row_bytes = static_cast<size_t>(input_shape.channels) * element_bytes;
  for (int32_t in_b = 0; in_b < input_shape.batches; ++in_b) {
    const int32_t out_b = in_b % output_shape.batches;
    const int32_t phase = in_b / output_shape.batches;
    for (int32_t in_h = 0; in_h < input_shape.height; ++in_h) {
      const int32_t out_h = in_h * params.block_height + phase / params.block_width - params.top;
      if (out_h < 0 || out_h >= output_shape.height) continue;
      for (int32_t in_w = 0; in_w < input_shape.width; ++in_w) {
        const int32_t out_w = in_w * params.block_width + phase % params.block_width - params.left;
        if (out_w < 0 || out_w >= output_shape.width) continue;
        std::memcpy(output + NhwcOffset(output_shape, out_b, out_h, out_w, 0) * element_bytes,
                    input + NhwcOffset(input_shape, in_b, in_h, in_w, 0) * element_bytes, row_bytes);
      }
    }
  }
}

}  // namespace microarena::reference
