// ModelPlan (host): a model's head planned end to end — lifetimes, the chosen
// planner, the independent checker, the lower bound, and the other planners'
// heads for comparison. What `microarena plan` prints.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "microarena/analysis/lifetimes.h"
#include "microarena/analysis/overlaps.h"
#include "microarena/analysis/tiling.h"
#include "microarena/base/result.h"
#include "microarena/model/model_view.h"
#include "microarena/plan/optimal.h"
#include "microarena/analysis/planning_problem.h"
#include "microarena/runtime/host_runner.h"

namespace microarena::report {

// Planner names accepted by PlanModel, in the order `--help` lists them.
// "offline" uses the model's OfflineMemoryAllocation offsets and plans the
// other buffers around them with greedy-tflm, as TFLM does.
const std::vector<std::string>& ModelPlannerNames();

struct ModelPlanOptions {
  std::string planner;              // empty: "offline" when the model carries a plan, else "optimal"
  size_t alignment_bytes = 16;
  double time_limit_seconds = 10.0; // for "optimal"; <= 0: no limit
  std::function<void(const OptimalProgress&)> progress;  // for "optimal"; may be empty
  bool compare = true;              // also plan with linear, greedy-tflm and greedy
  std::vector<ScratchRequest> scratch;  // op scratch buffers (from the kernels)
  std::vector<int32_t> order;           // execution order (order[step] = op); empty: the stored order
  // Plan with the overlaps the kernels approve (`overlaps`, from
  // CollectPrepareRequests) where the lifetimes allow them. The comparison
  // planners get the same permissions (linear and greedy-tflm ignore them).
  bool overlap = false;
  std::vector<OverlapDeclaration> overlaps;
  // Segments run band by band (analysis/tiling.h): their inner maps planned
  // as windows of rows. Stored order only; overlaps on their maps dropped.
  std::vector<TiledSegment> tiling;
};

// One approved overlap: the output of an op may start min_displacement_bytes
// (D) or more below the start of its input and run into it.
struct PlannedOverlap {
  int32_t input_tensor = 0;
  int32_t output_tensor = 0;
  size_t input_buffer = 0;            // index into ModelPlan::buffers
  size_t output_buffer = 0;
  size_t min_displacement_bytes = 0;  // D
  bool used = false;                  // the plan lets the two share bytes
};

struct PlannerHead {
  std::string planner;
  size_t head_bytes = 0;
};

// What runs at one step of a model with several subgraphs: op `op` of
// subgraph `subgraph`, or (op -1) the entry into a called subgraph, where
// its inputs are created (TFLM's allocation scopes; model/call_graph.h).
struct StepOp {
  int32_t subgraph = 0;
  int32_t op = 0;
};
// Every step of the model in order (one per op for a single subgraph).
std::vector<StepOp> ListSteps(const ModelView& model);

struct ModelPlan;
// The plan's tensor offsets as an offline plan stores them: one per tensor
// of every subgraph (subgraph after subgraph), -1 for tensors not in the
// head. Errors when an offset does not fit int32.
Result<std::vector<int32_t>> OfflineOffsets(const ModelView& model, const ModelPlan& plan);

// One id per buffer for the plan as a problem CSV (plan --csv), all
// distinct (a CSV's ids must be): "t<tensor>" for a tensor,
// "op<op>_scratch" for an op's first scratch buffer and "op<op>_scratch<k>"
// for its k-th after it, prefixed "s<subgraph>_" outside subgraph 0.
std::vector<std::string> ProblemCsvIds(const std::vector<BufferRequest>& buffers);

struct ModelPlan {
  std::string planner;                  // the planner used
  std::vector<StepOp> steps;            // what runs at each step, with several subgraphs; empty otherwise
  size_t alignment_bytes = 16;
  std::vector<BufferRequest> buffers;   // in TFLM's order: tensors, then scratch
  std::vector<size_t> offsets_bytes;    // one per buffer
  std::vector<size_t> requested_bytes;  // one per buffer: its size before rounding to the alignment
  std::vector<int32_t> order;           // execution order planned (order[step] = op); empty: the stored order
  size_t head_bytes = 0;
  size_t lower_bound_bytes = 0;          // without overlap (the head may be below it with overlap)
  size_t overlap_lower_bound_bytes = 0;  // with the approved overlaps (= lower_bound_bytes without)
  bool proven_optimal = false;
  std::vector<PlannedOverlap> overlaps;  // approved overlaps (with ModelPlanOptions::overlap)
  double plan_seconds = 0.0;            // time the chosen planner took
  bool has_offline_plan = false;        // the model carries OfflineMemoryAllocation
  std::vector<TiledSegment> tiling;     // ModelPlanOptions::tiling, as planned
  // Pairs of buffers live at the same step that the model's offline plan
  // puts in shared bytes (on purpose in Arm Vela's output). The plan keeps
  // them as TFLM does; the runtime only with trust_offline_plan. The lower
  // bound counts them apart, so the head may be below it.
  size_t offline_shared_pairs = 0;
  int32_t offline_shared_example[2] = {-1, -1};  // the tensor indices of one such pair
  std::vector<PlannerHead> comparison;  // other planners' heads (with compare)

  // The runtime's view (filled by the caller when the kernels support the
  // model): the persistent area and temp peak AllocateTensors needs, and the
  // arena this plan's head would make: persistent + max(head, temp peak).
  bool has_runtime = false;
  std::string runtime_note;             // why there are no runtime figures
  size_t persistent_bytes = 0;
  size_t temp_peak_bytes = 0;
  ArenaFigures runtime;                 // everything the runtime measured (with has_runtime)
  size_t arena_bytes() const { return persistent_bytes + (head_bytes > temp_peak_bytes ? head_bytes : temp_peak_bytes); }

  // (head - lower bound) / lower bound, in percent; 0 when the bound is 0.
  double gap_percent() const;
};

// Plans subgraph 0 of `model`. Every plan is verified by CheckPlan before it
// is returned; a failed check is an internal error.
Result<ModelPlan> PlanModel(const ModelView& model, const ModelPlanOptions& options);

}  // namespace microarena::report
