// Reference math of the ops that only move elements: PACK, UNPACK, SPLIT,
// SPLIT_V, SLICE, GATHER, GATHER_ND, REVERSE_V2. Element type does not
// matter to them, so they work on bytes with an element size.
//
// A tensor split around one axis is viewed as [outer, axis, inner]: outer is
// the product of the extents before the axis, inner of those after it.
// PACK, UNPACK and SPLIT copy whole [axis part x inner] blocks, one per outer
// index:
//
//   input  [outer][A][inner]            outputs [outer][a_j][inner]
//          |--a_0--|--a_1--|...   ->    output j takes columns
//                                       [offset_j, offset_j + a_j) of each row
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace microarena::reference {

// Copies `count` blocks of `block_bytes`: block k from source + k *
// source_stride to destination + k * destination_stride (strides in bytes).
inline void CopyBlocks(const uint8_t* source, size_t source_stride, uint8_t* destination, size_t destination_stride,
                       size_t block_bytes, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    std::memcpy(destination + k * destination_stride, source + k * source_stride, block_bytes);
  }
}

constexpr size_t kMaxSliceRank = 5;

// SLICE: output[i...] = input[begin + i...] over `size` (every begin[d] +
// size[d] <= dims[d], checked by the caller), rank <= kMaxSliceRank.
inline void Slice(const int32_t* dims, size_t rank, const int32_t* begin, const int32_t* size, const uint8_t* input,
                  uint8_t* output, size_t element_bytes) {
  size_t total = 1;
  for (size_t d = 0; d < rank; ++d) total *= static_cast<size_t>(size[d]);
  if (total == 0) return;
  size_t strides[kMaxSliceRank] = {};
  size_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    strides[d] = stride;
    stride *= static_cast<size_t>(dims[d]);
  }
  size_t index[kMaxSliceRank] = {};
  size_t offset = 0;
  for (size_t d = 0; d < rank; ++d) offset += static_cast<size_t>(begin[d]) * strides[d];
  for (size_t i = 0; i < total; ++i) {
    std::memcpy(output + i * element_bytes, input + offset * element_bytes, element_bytes);
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      offset += strides[d];
      if (index[d] < static_cast<size_t>(size[d])) break;
      offset -= strides[d] * index[d];
      index[d] = 0;
    }
  }
}

// REVERSE_V2 over contiguous axes: the input as [outer, middle, inner] where
// middle is the product of the reversed axes; output[o][m][i] =
// input[o][middle - 1 - m][i]. Reversing several adjacent axes is reversing
// their flattened index.
inline void Reverse(const uint8_t* input, size_t outer, size_t middle, size_t inner_bytes, uint8_t* output) {
  for (size_t o = 0; o < outer; ++o) {
    for (size_t m = 0; m < middle; ++m) {
      std::memcpy(output + (o * middle + m) * inner_bytes, input + (o * middle + middle - 1 - m) * inner_bytes,
                  inner_bytes);
    }
  }
}

// GATHER with batch dims: for every batch b, outer o and coordinate c,
// output[b][o][c][:] = input[b][o][coords[b][c]][:]. Returns the position of
// the first coordinate outside [0, axis_size) without copying it (TFLM stops
// there too), or -1 when all were in range.
template <typename Index>
int64_t Gather(const uint8_t* input, const Index* coords, uint8_t* output, size_t batch_size, size_t outer_size,
               size_t axis_size, size_t coord_size, size_t inner_bytes) {
  for (size_t batch = 0; batch < batch_size; ++batch) {
    for (size_t outer = 0; outer < outer_size; ++outer) {
      for (size_t coord = 0; coord < coord_size; ++coord) {
        const Index value = coords[batch * coord_size + coord];
        if (value < 0 || static_cast<uint64_t>(value) >= axis_size) {
          return static_cast<int64_t>(batch * coord_size + coord);
        }
        std::memcpy(output + ((batch * outer_size + outer) * coord_size + coord) * inner_bytes,
                    input + ((batch * outer_size + outer) * axis_size + static_cast<size_t>(value)) * inner_bytes,
                    inner_bytes);
      }
    }
  }
  return -1;
}

// EMBEDDING_LOOKUP's hybrid form: row coords[i] of an int8 table of
// `row_size` columns, dequantized as float(q) * scale (zero point 0, float
// multiply, as TFLM's Dequantize). Returns the position of the first
// coordinate outside [0, rows), or -1.
inline int64_t GatherRowsDequantized(const int8_t* table, size_t rows, size_t row_size, float scale,
                                     const int32_t* coords, size_t coord_count, float* output) {
  for (size_t i = 0; i < coord_count; ++i) {
    const int32_t row = coords[i];
    if (row < 0 || static_cast<size_t>(row) >= rows) return static_cast<int64_t>(i);
    const int8_t* source = table + static_cast<size_t>(row) * row_size;
    for (size_t c = 0; c < row_size; ++c) output[i * row_size + c] = static_cast<float>(source[c]) * scale;
  }
  return -1;
}

constexpr size_t kMaxGatherNdIndexDepth = 5;

// GATHER_ND: slice i of the output is the params slice at the `depth`
// coordinates indices[i][0..depth) (`element_stride[j]` elements per step of
// coordinate j; `slice_elements` per slice). Returns the first slice whose
// coordinates fall outside params, or -1.
template <typename Index>
int64_t GatherNd(const uint8_t* params, const int32_t* params_dims, const Index* indices, size_t slices, size_t depth,
                 const size_t* element_stride, size_t slice_elements, size_t element_bytes, uint8_t* output) {
  for (size_t i = 0; i < slices; ++i) {
    size_t from = 0;
    for (size_t j = 0; j < depth; ++j) {
      const Index value = indices[i * depth + j];
      if (value < 0 || value >= params_dims[j]) return static_cast<int64_t>(i);
      from += static_cast<size_t>(value) * element_stride[j];
    }
    std::memcpy(output + i * slice_elements * element_bytes, params + from * element_bytes,
                slice_elements * element_bytes);
  }
  return -1;
}

}  // namespace microarena::reference
