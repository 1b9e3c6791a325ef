// BROADCAST_TO and SELECT_V2 reference math: copying an input into a larger
// output shape, and choosing between two inputs by a condition, where every
// operand broadcasts (numpy rules) to the output.
//
// Each operand is aligned at its last axis with the output's rank (missing
// leading axes count as 1); an axis of extent 1 in an operand repeats its
// one element along the output's axis (stride 0):
//
//   input  [   3, 1]   strides [0, 1, 0]
//   output [2, 3, 4]
//
// The output is written in row-major order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace microarena::reference {

// Largest output rank these functions handle (TFLM's BROADCAST_TO and
// SELECT_V2 support 5).
constexpr size_t kMaxBroadcastToRank = 8;

// Element strides of an operand of dims `dims` (rank `rank` <= output_rank)
// within an output of rank `output_rank`: 0 on axes the operand repeats.
inline void BroadcastStrides(const int32_t* dims, size_t rank, const int32_t* output_dims, size_t output_rank,
                             size_t* strides) {
  size_t stride = 1;
  for (size_t i = 0; i < output_rank; ++i) {  // i counts axes from the last one
    const size_t axis = output_rank - 1 - i;
    const int32_t extent = i < rank ? dims[rank - 1 - i] : 1;
    strides[axis] = extent == 1 && output_dims[axis] != 1 ? 0 : stride;
    stride *= static_cast<size_t>(extent);
  }
}

// Advances a row-major counter over `output_dims`, moving each operand's
// offset by its strides. `offsets` and `strides` hold `operand_count` rows.
inline void AdvanceBroadcastIndex(const int32_t* output_dims, size_t output_rank, size_t* index, size_t operand_count,
                                  const size_t (*strides)[kMaxBroadcastToRank], size_t* offsets) {
  for (size_t k = output_rank; k-- > 0;) {
    ++index[k];
    for (size_t o = 0; o < operand_count; ++o) offsets[o] += strides[o][k];
    if (index[k] < static_cast<size_t>(output_dims[k])) return;
    for (size_t o = 0; o < operand_count; ++o) offsets[o] -= strides[o][k] * index[k];
    index[k] = 0;
  }
}

// Copies `input` (dims/rank) broadcast to `output_dims` (output_rank >= rank),
// `element_bytes` per element.
inline void BroadcastTo(const int32_t* dims, size_t rank, const uint8_t* input, const int32_t* output_dims,
                        size_t output_rank, uint8_t* output, size_t element_bytes) {
  size_t total = 1;
  for (size_t axis = 0; axis < output_rank; ++axis) total *= static_cast<size_t>(output_dims[axis]);
  if (total == 0) return;
  size_t strides[1][kMaxBroadcastToRank] = {};
  BroadcastStrides(dims, rank, output_dims, output_rank, strides[0]);
  size_t index[kMaxBroadcastToRank] = {};
  size_t offset[1] = {0};
  for (size_t i = 0; i < total; ++i) {
    std::memcpy(output + i * element_bytes, input + offset[0] * element_bytes, element_bytes);
    AdvanceBroadcastIndex(output_dims, output_rank, index, 1, strides, offset);
  }
}

// One operand of SelectBroadcast: its data and dims.
struct BroadcastOperand {
  const uint8_t* data;
  const int32_t* dims;
  size_t rank;
};

// output[i] = condition[.] ? x[.] : y[.] over the broadcast of the three to
// `output_dims`, `element_bytes` per x/y/output element; the condition is
// one byte per element (BOOL), non-zero meaning true.
inline void SelectBroadcast(const BroadcastOperand& condition, const BroadcastOperand& x, const BroadcastOperand& y,
                            const int32_t* output_dims, size_t output_rank, uint8_t* output, size_t element_bytes) {
  size_t total = 1;
  for (size_t axis = 0; axis < output_rank; ++axis) total *= static_cast<size_t>(output_dims[axis]);
  if (total == 0) return;
  size_t strides[3][kMaxBroadcastToRank] = {};
  BroadcastStrides(condition.dims, condition.rank, output_dims, output_rank, strides[0]);
  BroadcastStrides(x.dims, x.rank, output_dims, output_rank, strides[1]);
  BroadcastStrides(y.dims, y.rank, output_dims, output_rank, strides[2]);
  size_t index[kMaxBroadcastToRank] = {};
  size_t offsets[3] = {0, 0, 0};
  for (size_t i = 0; i < total; ++i) {
    const uint8_t* source =
        condition.data[offsets[0]] != 0 ? x.data + offsets[1] * element_bytes : y.data + offsets[2] * element_bytes;
    std::memcpy(output + i * element_bytes, source, element_bytes);
    AdvanceBroadcastIndex(output_dims, output_rank, index, 3, strides, offsets);
  }
}

}  // namespace microarena::reference
