// The offline memory plan a model may carry: TFLM's "OfflineMemoryAllocation"
// metadata, as written by Arm's Vela and by `microarena optimize`.
//
// Layout (little-endian int32 words):
//   [0] version (0)   [1] subgraph count   [2] tensor count (all subgraphs)
//   [3 ...] one offset per tensor, relative to the head start; -1 = plan online
#pragma once

#include <cstdint>

#include "microarena/base/result.h"
#include "microarena/base/span.h"
#include "microarena/model/model_view.h"

namespace microarena {

inline constexpr const char* kOfflinePlanMetadataName = "OfflineMemoryAllocation";

// The same layout under microarena's own name, for plans in which an op's
// output shares bytes with its input (kernel-approved overlap, see
// docs/overlap.md). Such a plan is only safe with microarena's kernels, so it
// is never stored as OfflineMemoryAllocation: stock TFLM does not know this
// name and plans the model itself.
inline constexpr const char* kOverlapPlanMetadataName = "microarena.OverlapMemoryAllocation";

// The offsets of every tensor (subgraph after subgraph, as TFLM numbers
// them; see FirstTensorOf) from the model's plan stored under `metadata_name`, or an empty span when the model has none. Errors name the
// field and the numbers: a buffer too short or misaligned, a version other
// than 0, counts that do not match the model, an offset below -1. The span
// points into the model.
Result<Span<const int32_t>> ReadOfflinePlan(const ModelView& model,
                                            const char* metadata_name = kOfflinePlanMetadataName);

}  // namespace microarena
