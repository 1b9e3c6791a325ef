// A tiling carried in the model (`microarena optimize --tile` writes it):
// the segments that run band by band (analysis/tiling.h), so that a device
// runs the model as it was planned, with the plan stored beside it
// (runtime/stored_plan.h, flag kStoredPlanTiled).
//
// Format, version 1 (little-endian), stored 16-byte aligned in the model:
//   u32 magic "MATL", u32 version,
//   u64 model fingerprint (ModelFingerprint, runtime/kernel_data.h),
//   u64 payload hash (FNV-1a 64 of every byte after this 24-byte prefix),
//   u32 segment count, u32 zero,
//   segment count x (i32 first op, i32 last op, i32 rows per band).
//
// Stock TFLM ignores the metadata and runs the model whole. microarena runs
// it tiled only when asked (a TiledExecution made from it: a firmware that
// makes none links none of the tiling), and the walk checks every segment
// against the model before anything runs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/analysis/tiling.h"
#include "microarena/base/result.h"
#include "microarena/base/span.h"
#include "microarena/model/model_view.h"

namespace microarena {

inline constexpr const char* kStoredTilingMetadataName = "microarena.Tiling";
inline constexpr uint32_t kStoredTilingMagic = 0x4C54414Du;  // "MATL" little-endian
inline constexpr uint32_t kStoredTilingVersion = 1;
inline constexpr size_t kStoredTilingHeaderBytes = 32;

static_assert(sizeof(TiledSegment) == 12, "a stored segment is three int32");

// The segments `model` carries, pointing into the model (empty when it
// carries none, or carries them for another model: a fingerprint that
// differs). An error names what is wrong with a blob that does not parse.
Result<Span<const TiledSegment>> ReadStoredTiling(const ModelView& model);

// Whether `segments` are the ones `model` carries.
bool IsStoredTiling(const ModelView& model, Span<const TiledSegment> segments);

// The fingerprint a tiled plan is stored with: the model's
// (ModelFingerprint) and the segments' together, so that the plan is used
// only with the tiling it was made for.
uint64_t TilingFingerprint(uint64_t model_fingerprint, Span<const TiledSegment> segments);

}  // namespace microarena
