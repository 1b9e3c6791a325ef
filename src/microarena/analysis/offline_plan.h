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

// The offsets of subgraph 0's tensors from the model's offline plan, or an
// empty span when the model has none. Errors name the field and the numbers:
// a buffer too short or misaligned, a version other than 0, counts that do
// not match the model, an offset below -1. The span points into the model.
Result<Span<const int32_t>> ReadOfflinePlan(const ModelView& model);

}  // namespace microarena
