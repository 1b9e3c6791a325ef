// Host: what `microarena optimize` computes ahead of time and stores in the
// model (ModelEdits::metadata): the kernels' data (runtime/kernel_data.h,
// kKernelDataMetadataName) and the whole head plan (runtime/stored_plan.h,
// kStoredPlanMetadataName).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "microarena/base/result.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/interpreter.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/kernel_data.h"
#include "microarena/runtime/stored_plan.h"
#include "microarena/runtime/stored_tiling.h"

namespace microarena {

// One op's kernel data, as its Prepare left it.
struct KernelDataRecord {
  uint32_t op = 0;  // over all subgraphs
  uint32_t alignment = 0;
  std::vector<uint8_t> bytes;
};

struct ComputedKernelData {
  std::vector<KernelDataRecord> records;  // every op whose data may live in flash, in op order
  size_t op_count = 0;
  uint64_t fingerprint = 0;  // ModelFingerprint
  size_t data_bytes() const;
};

// Runs every kernel's Prepare on `model` (AllocateTensors in a heap arena with
// `options`; the model's own kernel data, if any, is ignored) and keeps what
// each leaves as op data. Fails like AllocateTensors.
Result<ComputedKernelData> ComputeKernelData(const ModelView& model, const OpResolver& resolver,
                                             InterpreterOptions options = {});

// The metadata blob (runtime/kernel_data.h, version 1).
std::vector<uint8_t> EncodeKernelData(const ComputedKernelData& data);

// The stored plan blob (runtime/stored_plan.h, version 1) of `plan`, made for
// `model` with `alignment_bytes`; `uses_overlap`: made with allow_overlap.
// With `tiling`: the plan of those segments (stored as kTiledPlanMetadataName,
// its fingerprint TilingFingerprint's); `plan.tiled` must say so.
std::vector<uint8_t> EncodeStoredPlan(const ModelView& model, const PrecomputedPlanData& plan, size_t alignment_bytes,
                                      bool uses_overlap, size_t lower_bound_bytes,
                                      Span<const TiledSegment> tiling = Span<const TiledSegment>());

// The stored tiling blob (runtime/stored_tiling.h, version 1) of `segments` for `model`.
std::vector<uint8_t> EncodeStoredTiling(const ModelView& model, Span<const TiledSegment> segments);

}  // namespace microarena
