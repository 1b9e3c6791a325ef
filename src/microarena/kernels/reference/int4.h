// INT4 tensors as TFLite stores them: two values per byte, the low nibble
// first, each a signed value in [-8, 7]; element i sits in byte i / 2 of the
// flattened tensor (a row of odd length starts mid-byte). TFLM unpacks such
// weights into an arena scratch buffer at every Invoke; microarena's kernels
// read the nibbles in place.
#pragma once

#include <cstddef>
#include <cstdint>

namespace microarena::reference {

// Element i of INT4 values packed two per byte, sign-extended.
inline int32_t Int4At(const uint8_t* packed, size_t i) {
  const uint8_t byte = packed[i / 2];
  // The wanted nibble into the high half (shifted as unsigned), then an
  // arithmetic shift back down extends its sign.
  const auto high = static_cast<int8_t>(i % 2 == 0 ? static_cast<uint8_t>(byte << 4) : byte);
  return high >> 4;
}

// Packed INT4 weights read like an int8 array (`filter[i]`), so the
// reference loops that index int8 weights run on them unchanged.
struct PackedInt4 {
  const uint8_t* data;
  int8_t operator[](size_t i) const { return static_cast<int8_t>(Int4At(data, i)); }
};

}  // namespace microarena::reference
