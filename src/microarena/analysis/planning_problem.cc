#include "microarena/analysis/planning_problem.h"

#include <cstdint>

namespace microarena {

const char* BufferKindName(BufferKind kind) {
  switch (kind) {
    case BufferKind::kTensor: return "tensor";
    case BufferKind::kScratch: return "scratch";
  }
  return "unknown";
}

size_t OverlapSavingBytes(const OverlapPermission& permission, size_t input_size_bytes, size_t output_size_bytes,
                          size_t alignment_bytes) {
  size_t displacement = permission.min_displacement_bytes;
  const size_t remainder = alignment_bytes == 0 ? 0 : displacement % alignment_bytes;
  if (remainder != 0) {
    displacement = displacement > SIZE_MAX - (alignment_bytes - remainder) ? SIZE_MAX
                                                                           : displacement + alignment_bytes - remainder;
  }
  if (displacement >= output_size_bytes) return 0;
  const size_t shared = output_size_bytes - displacement;
  return shared < input_size_bytes ? shared : input_size_bytes;
}

}  // namespace microarena
