// Choosing what to tile (host): which segments of a model run band by band
// (analysis/tiling.h) and how many rows per band, searched, not guessed.
//
// Every run of ops that can run in bands is tried as segments [first, last]
// at every band height of the list; each candidate's planning problem (the
// model's lifetimes with the tiling applied, and with `overlap` the
// permissions) is planned with the greedy planner. The greedy planner can
// miss a tiling's best plan, so (with `exact`) the candidates whose lower
// bound is below the best greedy head are planned again, fewest bytes of
// bound first, with the exact planner under a node limit (deterministic). The smallest head
// wins (ties: the earlier segment, the shorter one, fewer rows per band).
// Up to `max_segments` segments are chosen one after another, each the best
// given those already chosen, while the head still shrinks. Line buffers
// recompute nothing: the extra MACs are 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "microarena/analysis/lifetimes.h"
#include "microarena/analysis/overlaps.h"
#include "microarena/analysis/tiling.h"
#include "microarena/base/result.h"
#include "microarena/model/model_view.h"
#include "microarena/report/model_plan.h"

namespace microarena::report {

struct TilingSearchOptions {
  size_t alignment_bytes = 16;
  std::vector<int32_t> band_rows = {1, 2, 4, 8};
  size_t max_segments = 3;
  std::vector<ScratchRequest> scratch;  // the kernels' scratch requests (planned with the tensors)
  // Plan each candidate with overlap permissions: the kernels' (`overlaps`,
  // from Prepare; dropped where they touch a segment) and the segments' own
  // (a sink over the input rows already consumed: TilingOverlaps).
  bool overlap = false;
  std::vector<OverlapDeclaration> overlaps;
  // The plan will be made by the exact planner: plan the promising
  // candidates with it too. Off: the greedy planner's heads decide.
  bool exact = true;
};

struct TilingChoice {
  std::vector<TiledSegment> segments;  // empty: no tiling makes the head smaller
  size_t head_bytes = 0;               // head with the tiling (greedy, or exact where smaller)
  size_t untiled_head_bytes = 0;       // greedy head without
  size_t untiled_lower_bound_bytes = 0;  // the untiled problem's lower bound (no overlap)
  size_t candidates = 0;               // tilings planned with the greedy planner
  size_t exact_plans = 0;              // of them, planned again with the exact planner
  int64_t extra_macs = 0;              // line buffers: none
  bool stored = false;                 // the model's own tiling (runtime/stored_tiling.h), not searched
};

Result<TilingChoice> ChooseTiling(const ModelView& model, const TilingSearchOptions& options);

// The figures of a given tiling (the model's stored one): its head and the
// untiled one as the search would plan them (greedy, and exact with
// options.exact), nothing searched.
Result<TilingChoice> EvaluateTiling(const ModelView& model, const TilingSearchOptions& options,
                                    Span<const TiledSegment> segments);

// The overlap permissions of `buffers` (planned under `tiling`): the
// kernels' declarations resolved, less those touching a segment (kernels
// approve whole maps; a segment's are windows), plus the segments' own.
Result<std::vector<OverlapPermission>> PermissionsUnderTiling(const ModelView& model,
                                                              Span<const TiledSegment> tiling,
                                                              Span<const BufferRequest> buffers,
                                                              Span<const OverlapDeclaration> declarations,
                                                              Span<const int32_t> order);

// The tiling block of `plan --tile` (text) and its JSON: each segment (ops,
// rows per band, its windows' rows and bytes), the greedy heads with and
// without, the untiled lower bound and how far below it the head of `plan`
// (the chosen planner's plan with the tiling) is, and what is proven: the
// plan for this tiling (optimal, or heuristic) and the tiling (searched,
// never proven the best).
std::string TilingText(const ModelView& model, const TilingChoice& choice, const ModelPlan& plan);

// A map of a segment kept as a window: `rows` of its `height` rows, `bytes`.
struct TilingWindow {
  int32_t tensor = 0;
  int32_t rows = 0;
  int32_t height = 0;
  size_t bytes = 0;
};
// The windows of `segment` (none when it does not walk).
std::vector<TilingWindow> SegmentWindows(const ModelView& model, const TiledSegment& segment);
// The bands `segment` runs: its sink's rows over rows per band, rounded up
// (0 when it does not walk).
int32_t SegmentBands(const ModelView& model, const TiledSegment& segment);
// "ops 0-3 in 24 bands of 1 row": one line for reports.
std::string SegmentLabel(const ModelView& model, const TiledSegment& segment);
nlohmann::json TilingJson(const ModelView& model, const TilingChoice& choice, const ModelPlan& plan);

}  // namespace microarena::report
