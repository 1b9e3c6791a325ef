// DEPTH_TO_SPACE and SPACE_TO_DEPTH reference math over NHWC tensors, any
// element size. Each block_size x block_size tile of one spatial side holds
// the channels of one position of the other side, tile position (dy, dx)
// taking channel group dy * block_size + dx:
//
//   depth side (b, y, x, (dy * block + dx) * space_channels + c)
//     == space side (b, y * block + dy, x * block + dx, c)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

// Copies between the space side (`space_shape`) and the depth side
// (`depth_shape`), one channel row of the space side at a time: from depth
// to space when `to_space`, else from space to depth.
inline void DepthSpaceCopy(bool to_space, int32_t block_size, const NhwcShape& space_shape, uint8_t* space,
                           const NhwcShape& depth_shape, uint8_t* depth, size_t element_bytes) {
  const size_t row_bytes = static_cast<size_t>(space_shape.channels) * element_bytes;
  for (int32_t b = 0; b < space_shape.batches; ++b) {
    for (int32_t y = 0; y < space_shape.height; ++y) {
      for (int32_t x = 0; x < space_shape.width; ++x) {
        const int32_t group = (y % block_size) * block_size + x % block_size;
        uint8_t* space_row = space + NhwcOffset(space_shape, b, y, x, 0) * element_bytes;
        uint8_t* depth_row =
            depth +
            NhwcOffset(depth_shape, b, y / block_size, x / block_size, group * space_shape.channels) * element_bytes;
        if (to_space) {
          std::memcpy(space_row, depth_row, row_bytes);
        } else {
          std::memcpy(depth_row, space_row, row_bytes);
        }
      }
    }
  }
}

}  // namespace microarena::reference
