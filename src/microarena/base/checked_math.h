// Overflow-checked size arithmetic. Every size derived from a model goes
// through these: a model file is untrusted input, and a wrapped size is the
// first step to an out-of-bounds write.
#pragma once

#include <cstddef>
#include <cstdint>

namespace microarena {

// Each returns false (and leaves *out unspecified) when the exact result does
// not fit in the output type.
[[nodiscard]] inline bool CheckedAdd(size_t a, size_t b, size_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
[[nodiscard]] inline bool CheckedMul(size_t a, size_t b, size_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
[[nodiscard]] inline bool CheckedAdd64(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
[[nodiscard]] inline bool CheckedMul64(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

}  // namespace microarena
