// STRIDED_SLICE reference math over up to kStridedSliceMaxRank dimensions.
//
// Prepare resolves begin/end/strides and the masks into one [start, stop)
// range and a non-zero stride per dimension (dimensions right-aligned; the
// leading ones are [0, 1) step 1). Along dimension d the slice visits
//   start, start + stride, ...  while (stride > 0 ? i < stop : i > stop)
// and the output is written in row-major order of those visits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace microarena::reference {

constexpr size_t kStridedSliceMaxRank = 5;

struct StridedSliceParams {
  int32_t input_dims[kStridedSliceMaxRank] = {1, 1, 1, 1, 1};
  int32_t start[kStridedSliceMaxRank] = {};
  int32_t stop[kStridedSliceMaxRank] = {1, 1, 1, 1, 1};
  int32_t stride[kStridedSliceMaxRank] = {1, 1, 1, 1, 1};
};

inline bool StridedSliceContinues(int64_t index, int64_t stop, int64_t stride) {
  return stride > 0 ? index < stop : index > stop;
}

template <typename T>
void StridedSlice(const StridedSliceParams& p, const T* input, T* output) {
  const int64_t d4 = p.input_dims[4];
  const int64_t d34 = p.input_dims[3] * d4;
  const int64_t d234 = p.input_dims[2] * d34;
  const int64_t d1234 = p.input_dims[1] * d234;
  T* out = output;
  for (int64_t i0 = p.start[0]; StridedSliceContinues(i0, p.stop[0], p.stride[0]); i0 += p.stride[0]) {
    for (int64_t i1 = p.start[1]; StridedSliceContinues(i1, p.stop[1], p.stride[1]); i1 += p.stride[1]) {
      for (int64_t i2 = p.start[2]; StridedSliceContinues(i2, p.stop[2], p.stride[2]); i2 += p.stride[2]) {
        for (int64_t i3 = p.start[3]; StridedSliceContinues(i3, p.stop[3], p.stride[3]); i3 += p.stride[3]) {
          const int64_t row = i0 * d1234 + i1 * d234 + i2 * d34 + i3 * d4;
          for (int64_t i4 = p.start[4]; StridedSliceContinues(i4, p.stop[4], p.stride[4]); i4 += p.stride[4]) {
            *out++ = input[row + i4];
          }
        }
      }
    }
  }
}

}  // namespace microarena::reference
