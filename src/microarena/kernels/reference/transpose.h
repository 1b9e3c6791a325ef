// TRANSPOSE reference math: output dimension i is input dimension perm[i],
// for up to kTransposeMaxRank dimensions and any element type T.
//
// Walks the output in row-major order with an odometer over its index and
// reads the input at sum(index[i] * input_stride[perm[i]]).
#pragma once

#include <cstddef>
#include <cstdint>

namespace microarena::reference {

constexpr size_t kTransposeMaxRank = 6;

struct TransposeParams {
  size_t rank = 0;
  int32_t perm[kTransposeMaxRank] = {};  // a permutation of 0..rank-1
};

template <typename T>
void Transpose(const TransposeParams& params, const int32_t* input_dims, const T* input, T* output) {
  const size_t rank = params.rank;
  size_t input_strides[kTransposeMaxRank];
  size_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    input_strides[d] = stride;
    stride *= static_cast<size_t>(input_dims[d]);
  }
  const size_t count = stride;
  if (count == 0) return;
  if (rank == 0) {
    output[0] = input[0];
    return;
  }
  size_t output_dims[kTransposeMaxRank];
  size_t step[kTransposeMaxRank];  // input stride of output dimension i
  for (size_t i = 0; i < rank; ++i) {
    const auto source = static_cast<size_t>(params.perm[i]);
    output_dims[i] = static_cast<size_t>(input_dims[source]);
    step[i] = input_strides[source];
  }
  size_t index[kTransposeMaxRank] = {};
  size_t input_offset = 0;
  for (size_t o = 0; o < count; ++o) {
    output[o] = input[input_offset];
    // Advance the odometer: last dimension fastest.
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      input_offset += step[d];
      if (index[d] < output_dims[d]) break;
      input_offset -= step[d] * output_dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace microarena::reference
