// A precomputed plan carried in the model (`microarena optimize` writes it):
// the whole head layout (every tensor and scratch buffer) for one alignment,
// so that AllocateTensors runs no lifetime analysis, planner or plan
// verifier, and keeps no scratch bookkeeping in temp (each scratch request is
// checked against the plan as the kernel makes it): the temp peak is zero.
//
// Format, version 1 (little-endian), stored 16-byte aligned in the model:
//   u32 magic "MAPP", u32 version, u32 alignment, u32 flags (bit 0: the plan
//   lets outputs share bytes with inputs their kernels have read, so it is
//   used only with InterpreterOptions::allow_overlap; bit 1: the plan of a
//   tiling, stored as kTiledPlanMetadataName),
//   u64 model fingerprint (ModelFingerprint, runtime/kernel_data.h),
//   u64 payload hash (FNV-1a 64 of every byte after this 32-byte header),
//   u32 tensor count (subgraph 0), u32 scratch count, u32 head bytes,
//   u32 lower bound bytes (for reports),
//   tensor count x u32 head offset (0xFFFFFFFF: not in the head),
//   scratch count x u32 head offset.
//
// Trusted for which buffers share bytes (the host verified the plan against
// the model's lifetimes and the kernels' permissions before writing it, and
// the fingerprint binds it to the model's structure); never for bounds: the
// interpreter checks that every buffer lies inside the head, as for any
// PrecomputedPlan. A blob that does not parse, or was made for another model
// or alignment, is ignored and the model is planned at boot as before.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/span.h"
#include "microarena/runtime/precomputed_plan.h"

namespace microarena {

inline constexpr const char* kStoredPlanMetadataName = "microarena.PrecomputedPlan";
inline constexpr uint32_t kStoredPlanMagic = 0x5050414Du;  // "MAPP" little-endian
inline constexpr uint32_t kStoredPlanVersion = 1;
inline constexpr size_t kStoredPlanHeaderBytes = 48;
inline constexpr uint32_t kStoredPlanUsesOverlap = 1u;
// Flag bit 1: the plan holds the windows of a tiling (runtime/stored_tiling.h).
// Such a plan is stored under its own name, which runtimes that do not
// tile never read, and its fingerprint is that of the model and the tiling
// together (TilingFingerprint): used only by an interpreter running exactly
// that tiling. Other flag bits make the blob unknown (ignored).
inline constexpr uint32_t kStoredPlanTiled = 2u;
inline constexpr const char* kTiledPlanMetadataName = "microarena.TiledPlan";

struct StoredPlan {
  PrecomputedPlan plan;  // arrays point into the model
  size_t alignment_bytes = 0;
  bool uses_overlap = false;
  bool tiled = false;  // for the model's stored tiling only
  size_t lower_bound_bytes = 0;
};

// False when `blob` is not a well-formed version-1 plan for a model with this
// fingerprint and `tensor_count` tensors in subgraph 0, or is not 4-byte
// aligned in memory.
bool ParseStoredPlan(Span<const uint8_t> blob, uint64_t fingerprint, size_t tensor_count, StoredPlan* out);

}  // namespace microarena
