#include "microarena/runtime/stored_plan.h"

#include "microarena/runtime/kernel_data.h"

namespace microarena {

bool ParseStoredPlan(Span<const uint8_t> blob, uint64_t fingerprint, size_t tensor_count, StoredPlan* out) {
  const uint8_t* b = blob.data();
  if (blob.size() < kStoredPlanHeaderBytes || reinterpret_cast<uintptr_t>(b) % 4 != 0) return false;
  if (LoadU32(b) != kStoredPlanMagic || LoadU32(b + 4) != kStoredPlanVersion) return false;
  if ((LoadU32(b + 12) & ~(kStoredPlanUsesOverlap | kStoredPlanTiled)) != 0) return false;
  if (LoadU64(b + 16) != fingerprint) return false;
  if (Fnv1a64(b + 32, blob.size() - 32) != LoadU64(b + 24)) return false;
  const size_t tensors = LoadU32(b + 32);
  const size_t scratch = LoadU32(b + 36);
  const size_t words = (blob.size() - kStoredPlanHeaderBytes) / 4;
  if (tensors != tensor_count || tensors > words || scratch > words - tensors) return false;
  const auto* offsets = reinterpret_cast<const uint32_t*>(b + kStoredPlanHeaderBytes);
  out->plan.tensor_offsets = offsets;
  out->plan.tensor_count = tensors;
  out->plan.scratch_offsets = offsets + tensors;
  out->plan.scratch_count = scratch;
  out->plan.head_bytes = LoadU32(b + 40);
  out->alignment_bytes = LoadU32(b + 8);
  out->uses_overlap = (LoadU32(b + 12) & kStoredPlanUsesOverlap) != 0;
  out->tiled = (LoadU32(b + 12) & kStoredPlanTiled) != 0;
  out->plan.tiled = out->tiled;
  out->lower_bound_bytes = LoadU32(b + 44);
  return true;
}

}  // namespace microarena
