// Alignment helpers. Alignments are powers of two.
#pragma once

#include <cstddef>
#include <cstdint>

namespace microarena {

constexpr bool IsPowerOfTwo(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

// Rounds `size_bytes` up to a multiple of `alignment` (a power of two).
// Returns false when the rounded value does not fit in size_t.
[[nodiscard]] inline bool AlignUp(size_t size_bytes, size_t alignment, size_t* out) {
  size_t bumped = 0;
  if (__builtin_add_overflow(size_bytes, alignment - 1, &bumped)) return false;
  *out = bumped & ~(alignment - 1);
  return true;
}

// Unchecked form for values already known to be small (e.g. after AlignUp succeeded once).
constexpr size_t AlignUpUnchecked(size_t size_bytes, size_t alignment) {
  return (size_bytes + alignment - 1) & ~(alignment - 1);
}

inline bool IsAligned(const void* pointer, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(pointer) & (alignment - 1)) == 0;
}

}  // namespace microarena
