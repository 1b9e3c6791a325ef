#include "microarena/runtime/input_generator.h"

#include <cstring>

namespace microarena {

void GenerateInput(uint32_t seed, TensorType type, uint8_t* bytes, size_t byte_count) {
  uint32_t x = seed;
  auto step = [&x]() {
    x = x * 1664525u + 1013904223u;
    return x;
  };
  if (type == TensorType::kFloat32) {
    for (size_t i = 0; i + sizeof(float) <= byte_count; i += sizeof(float)) {
      // Arithmetic shift of the state read as a signed value.
      const auto value = static_cast<float>(static_cast<int32_t>(step()) >> 8) / 8388608.0f;
      std::memcpy(bytes + i, &value, sizeof(value));
    }
    return;
  }
  for (size_t i = 0; i < byte_count; ++i) {
    const uint32_t state = step();
    bytes[i] = type == TensorType::kBool ? static_cast<uint8_t>(state >> 31) : static_cast<uint8_t>(state >> 24);
  }
}

}  // namespace microarena
