// `plan MODEL` as a library call: the kernels' scratch requests, the best
// operator order (optional) and the model rewritten into it, the plan, and
// the runtime's figures for that plan (measured, or those of a precomputed
// plan). The CLI parses options and prints; tests call this directly.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "microarena/base/status.h"
#include "microarena/model/model_file.h"
#include "microarena/plan/reorder.h"
#include "microarena/report/model_plan.h"
#include "microarena/report/tiling_search.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/target_layout.h"

namespace microarena::report {

// The interpreter options the runtime measures with for a planner name of
// `plan --planner`: that planner, or the runtime's own choice for "optimal"
// and "" (the offline plan when the model has one, else greedy).
InterpreterOptions RuntimeOptionsFor(const std::string& planner, size_t alignment_bytes);

struct PlanJobOptions {
  // planner, alignment, time limit, progress; scratch, order and overlaps
  // are filled by the job.
  ModelPlanOptions plan;
  bool best_order = false;               // plan (and measure) in the order with the smallest peak
  bool trust_offline_plan = false;       // measure with the model's offline plan trusted
  bool precomputed_plan = false;         // figures of AllocateTensors(PrecomputedPlan), planned here
  const TargetLayout* target = nullptr;  // the device the figures are for; nullptr: the host
  bool tile = false;                     // choose segments to run band by band (report/tiling_search.h)
  // Plan with the tiling the model carries (runtime/stored_tiling.h). Off
  // for a header whose firmware runs the model whole (`plan --header`
  // without --tile).
  bool use_stored_tiling = true;
};

struct PlanJob {
  ModelPlan plan;                                  // has_runtime, or runtime_note saying why not
  InterpreterOptions runtime_options;              // what the runtime figures were measured with
  std::optional<ReorderResult> reorder;            // with best_order
  std::optional<PrecomputedPlanData> precomputed;  // with precomputed_plan
  std::optional<TilingChoice> tiling;              // with tile (runtime_options.tiling is then empty:
                                                   // the figures were measured with plan.tiling)
  // With plan.overlap asked for: whether the plan uses it. It does not when
  // the same job without overlap gives a smaller arena (with overlap the
  // runtime's temp holds the declarations and permissions too); then
  // overlap_arena_bytes is the arena the overlap plan would make.
  bool overlap_asked = false;
  bool overlap_used = false;
  size_t overlap_arena_bytes = 0;
  // With best_order: whether the plan is in reorder->order. With tile too,
  // the tiling is chosen in that order and in the stored one, and the
  // stored order kept when its head is no larger (best_order_head_bytes is
  // then the best order's; the reorder block still describes the best
  // order); when the best order wins, planned_file is the model stored in
  // it, which every figure and op number refers to.
  bool order_used = false;
  size_t best_order_head_bytes = 0;
  std::shared_ptr<const ModelFile> planned_file;
};

// The model the job's plan refers to: planned_file, or `file` itself.
const ModelFile& PlannedFile(const ModelFile& file, const PlanJob& job);

// Plans `file`'s model. With plan.overlap the job runs with and without
// overlap and keeps the smaller arena (the one without overlap on ties), so `--overlap` is
// never worse than without it. Errors: the model cannot be planned; with best_order
// or precomputed_plan, also the kernels' or the runtime's refusal. Without
// them a model the runtime cannot run still gets its plan (runtime_note).
Result<PlanJob> RunPlanJob(const ModelFile& file, const PlanJobOptions& options);

// `plan --json`: PlanJson, the "order" block (with best_order) and, with
// overlap asked for, overlap_used and overlap_arena_bytes.
nlohmann::json PlanJobJson(const ModelFile& file, const PlanJob& job);

// The "order" block of `plan --order best --json`, and the text lines
// (job.reorder set).
nlohmann::json OrderJson(const PlanJob& job);
std::string OrderText(const PlanJob& job);

}  // namespace microarena::report
