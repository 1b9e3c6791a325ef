// PAD reference math: constant padding of a tensor of up to kPadMaxRank
// dimensions, any element size.
//
// Shapes are right-aligned to kPadMaxRank dimensions (leading dimensions of
// size 1, no padding). Every output element is either the input element at
// (output index - before) when that lies inside the input, or the pad value:
//
//   before[d]   input_dims[d]   after[d]
//   |--pad--|=====input=====|--pad--|      along each dimension d
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace microarena::reference {

constexpr size_t kPadMaxRank = 5;

struct PadParams {
  int32_t input_dims[kPadMaxRank] = {1, 1, 1, 1, 1};
  int32_t before[kPadMaxRank] = {};  // padding before each dimension
  int32_t after[kPadMaxRank] = {};   // padding after each dimension
};

// `pad_value` points at one element of `element_bytes` bytes.
inline void Pad(const PadParams& params, size_t element_bytes, const uint8_t* input, const void* pad_value,
                uint8_t* output) {
  int32_t output_dims[kPadMaxRank];
  for (size_t d = 0; d < kPadMaxRank; ++d) {
    output_dims[d] = params.before[d] + params.input_dims[d] + params.after[d];
  }
  // The innermost dimension is handled as runs: pad, input row, pad.
  const size_t inner = kPadMaxRank - 1;
  const size_t inner_before = static_cast<size_t>(params.before[inner]);
  const size_t inner_input = static_cast<size_t>(params.input_dims[inner]);
  const size_t inner_after = static_cast<size_t>(params.after[inner]);
  const size_t inner_total = static_cast<size_t>(output_dims[inner]);

  auto fill = [&](uint8_t* out, size_t count) {
    for (size_t i = 0; i < count; ++i) std::memcpy(out + i * element_bytes, pad_value, element_bytes);
  };

  size_t input_row = 0;  // index of the next input row (innermost dimension excluded)
  uint8_t* out = output;
  for (int32_t i0 = 0; i0 < output_dims[0]; ++i0) {
    const bool in0 = i0 >= params.before[0] && i0 < params.before[0] + params.input_dims[0];
    for (int32_t i1 = 0; i1 < output_dims[1]; ++i1) {
      const bool in1 = in0 && i1 >= params.before[1] && i1 < params.before[1] + params.input_dims[1];
      for (int32_t i2 = 0; i2 < output_dims[2]; ++i2) {
        const bool in2 = in1 && i2 >= params.before[2] && i2 < params.before[2] + params.input_dims[2];
        for (int32_t i3 = 0; i3 < output_dims[3]; ++i3) {
          const bool in3 = in2 && i3 >= params.before[3] && i3 < params.before[3] + params.input_dims[3];
          if (!in3) {
            fill(out, inner_total);
          } else {
            fill(out, inner_before);
            std::memcpy(out + inner_before * element_bytes, input + input_row * inner_input * element_bytes,
                        inner_input * element_bytes);
            fill(out + (inner_before + inner_input) * element_bytes, inner_after);
            ++input_row;
          }
          out += inner_total * element_bytes;
        }
      }
    }
  }
}

}  // namespace microarena::reference
