// Choosing what to tile (host): which segments of a model run band by band
// (analysis/tiling.h) and how many rows per band, searched, not guessed.
//
// Every run of ops that can run in bands is tried as segments [first, last]
// at every band height of the list; each candidate's planning problem (the
// model's lifetimes with the tiling applied) is planned with the greedy
// planner, and the smallest head wins (ties: fewer segments, then taller
// bands: fewer kernel calls). Up to `max_segments` segments are chosen one
// after another, each the best given those already chosen, while the head
// still shrinks. Line buffers recompute nothing: the extra MACs are 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "microarena/analysis/lifetimes.h"
#include "microarena/analysis/tiling.h"
#include "microarena/base/result.h"
#include "microarena/model/model_view.h"

namespace microarena::report {

struct TilingSearchOptions {
  size_t alignment_bytes = 16;
  std::vector<int32_t> band_rows = {1, 2, 4, 8};
  size_t max_segments = 3;
  std::vector<ScratchRequest> scratch;  // the kernels' scratch requests (planned with the tensors)
};

struct TilingChoice {
  std::vector<TiledSegment> segments;  // empty: no tiling makes the head smaller
  size_t head_bytes = 0;               // greedy head with the tiling
  size_t untiled_head_bytes = 0;       // greedy head without
  size_t untiled_lower_bound_bytes = 0;  // the untiled problem's lower bound (no overlap)
  size_t candidates = 0;               // tilings planned
  int64_t extra_macs = 0;              // line buffers: none
};

Result<TilingChoice> ChooseTiling(const ModelView& model, const TilingSearchOptions& options);

// The tiling block of `plan --tile` (text) and its JSON: each segment (ops,
// rows per band, its windows' rows and bytes), the greedy heads with and
// without, the untiled lower bound and how far below it `head_bytes` (the
// chosen planner's head with the tiling) is.
std::string TilingText(const ModelView& model, const TilingChoice& choice, size_t head_bytes);
nlohmann::json TilingJson(const ModelView& model, const TilingChoice& choice, size_t head_bytes);

}  // namespace microarena::report
