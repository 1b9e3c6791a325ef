// Numpy-style broadcasting of two inputs to one output, for elementwise
// binary ops (ADD, SUB, MUL).
//
// Shapes are aligned at their last axis and the shorter one is padded with
// leading 1s; along each axis the two extents are equal, or one of them is 1
// (that input is repeated: stride 0). The output visits its elements in
// row-major order, so every output byte depends only on its two input
// elements, as in TFLite's BroadcastBinaryFunction*Slow loops.
//
//   input1 [2, 1, 3]   strides [3, 0, 1]
//   input2    [4, 1]   strides [0, 1, 0]
//   output [2, 4, 3]
#pragma once

#include <cstddef>
#include <cstdint>

namespace microarena::reference {

// Largest rank TFLite's broadcasting elementwise kernels handle.
constexpr size_t kMaxBroadcastRank = 6;

struct BroadcastShape {
  size_t rank = 0;                                 // output rank
  int32_t output_dims[kMaxBroadcastRank] = {};     // broadcast output extents
  size_t input1_strides[kMaxBroadcastRank] = {};   // elements; 0 on a repeated axis
  size_t input2_strides[kMaxBroadcastRank] = {};
};

// Fills `shape` for inputs of dims `dims1` (rank1) and `dims2` (rank2).
// Returns false when the ranks exceed kMaxBroadcastRank or an axis has two
// different extents, neither of them 1.
inline bool MakeBroadcastShape(const int32_t* dims1, size_t rank1, const int32_t* dims2, size_t rank2,
                               BroadcastShape* shape) {
  const size_t rank = rank1 > rank2 ? rank1 : rank2;
  if (rank > kMaxBroadcastRank) return false;
  shape->rank = rank;
  size_t stride1 = 1;
  size_t stride2 = 1;
  for (size_t i = 0; i < rank; ++i) {  // i counts axes from the last one
    const size_t axis = rank - 1 - i;
    const int32_t extent1 = i < rank1 ? dims1[rank1 - 1 - i] : 1;
    const int32_t extent2 = i < rank2 ? dims2[rank2 - 1 - i] : 1;
    if (extent1 != extent2 && extent1 != 1 && extent2 != 1) return false;
    const int32_t extent = extent1 == 1 ? extent2 : extent1;
    shape->output_dims[axis] = extent;
    shape->input1_strides[axis] = extent1 == 1 && extent != 1 ? 0 : stride1;
    shape->input2_strides[axis] = extent2 == 1 && extent != 1 ? 0 : stride2;
    stride1 *= static_cast<size_t>(extent1);
    stride2 *= static_cast<size_t>(extent2);
  }
  return true;
}

// output[i] = func(input1[j1(i)], input2[j2(i)]) over the broadcast shape.
template <typename T1, typename T2, typename TOut, typename Func>
void BroadcastBinary(const BroadcastShape& shape, const T1* input1, const T2* input2, TOut* output, Func func) {
  size_t total = 1;
  for (size_t axis = 0; axis < shape.rank; ++axis) total *= static_cast<size_t>(shape.output_dims[axis]);
  if (total == 0) return;
  size_t index[kMaxBroadcastRank] = {};
  size_t offset1 = 0;
  size_t offset2 = 0;
  for (size_t i = 0; i < total; ++i) {
    output[i] = func(input1[offset1], input2[offset2]);
    // Advance the row-major counter, last axis fastest.
    for (size_t k = shape.rank; k-- > 0;) {
      ++index[k];
      offset1 += shape.input1_strides[k];
      offset2 += shape.input2_strides[k];
      if (index[k] < static_cast<size_t>(shape.output_dims[k])) break;
      offset1 -= shape.input1_strides[k] * index[k];
      offset2 -= shape.input2_strides[k] * index[k];
      index[k] = 0;
    }
  }
}

// output[i] = func(input1[i], input2[i]) for inputs of the same size.
template <typename T1, typename T2, typename TOut, typename Func>
void ElementwiseBinary(size_t count, const T1* input1, const T2* input2, TOut* output, Func func) {
  for (size_t i = 0; i < count; ++i) output[i] = func(input1[i], input2[i]);
}

}  // namespace microarena::reference
