// The taps of a convolution window that land inside the input, shared by
// the fast int8 and 16x8 paths: each clips a window once per output pixel
// instead of testing every tap, so padding costs nothing inside the loops.
#pragma once

#include <algorithm>
#include <cstdint>

namespace microarena::optimized {

// Taps [first, end) of `taps` at origin, origin + dilation, ... land in an
// axis of `extent` input positions (first == end: none do).
inline void ClipRange(int32_t origin, int32_t taps, int32_t dilation, int32_t extent, int32_t* first,
                      int32_t* end) {
  *first = origin < 0 ? (-origin + dilation - 1) / dilation : 0;
  const int32_t room = extent - origin;  // input positions from the origin on
  *end = room <= 0 ? 0 : std::min(taps, (room + dilation - 1) / dilation);
  if (*end < *first) *end = *first;
}

}  // namespace microarena::optimized
