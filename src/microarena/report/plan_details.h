// PlanDetails (host): what the plan reports show beyond the plan itself —
// live bytes per op step, where the activation and scratch peaks are and
// which buffers are live there, the largest scratch buffer, what alignment
// costs, the persistent area by use and the read-only (flash) bytes per
// layer. Computed once from a ModelPlan; the text dump, the timeline, the
// JSON, the HTML page and `budget` all read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "microarena/model/model_view.h"
#include "microarena/report/model_plan.h"
#include "microarena/report/model_summary.h"
#include "microarena/runtime/interpreter.h"

namespace microarena::report {

// Bytes live at one op step (sizes as planned, i.e. rounded to the alignment).
struct StepLive {
  int32_t step = 0;
  int32_t op_index = 0;        // the op that runs at this step (-1: a called subgraph's entry)
  int32_t subgraph = 0;        // the op's subgraph
  size_t tensor_bytes = 0;     // activation tensors live at the step
  size_t scratch_bytes = 0;    // scratch buffers live at the step (the op's own)
  size_t total_bytes() const { return tensor_bytes + scratch_bytes; }
};

struct PersistentPart {
  PersistentUse use = PersistentUse::kTensorMetadata;
  size_t bytes = 0;
};

struct PlanDetails {
  size_t step_count = 0;
  std::vector<StepLive> steps;  // one per op step

  // The step with the most activation bytes live, and the buffers (indices
  // into ModelPlan::buffers, tensors only) live there, largest first.
  size_t activation_peak_bytes = 0;
  int32_t activation_peak_step = -1;
  std::vector<size_t> activation_peak_buffers;
  // The step with the most scratch bytes live (-1: no scratch).
  size_t scratch_peak_bytes = 0;
  int32_t scratch_peak_step = -1;
  // The largest single scratch buffer (index into buffers; -1: none).
  int64_t largest_scratch_buffer = -1;
  // The step with the most bytes live of any kind: the lower bound.
  size_t live_peak_bytes = 0;
  int32_t live_peak_step = -1;

  // Alignment: bytes the buffers gain by rounding up (head), and the tail's
  // rounding (runtime figures only).
  size_t head_requested_bytes = 0;   // sum of sizes before rounding
  size_t head_padding_bytes = 0;     // sum of (planned size - requested size)
  size_t persistent_padding_bytes = 0;

  // The persistent area by use (runtime figures only; sums to persistent_bytes).
  std::vector<PersistentPart> persistent;

  // Read-only bytes (flash) per layer and in total, as `inspect` counts them.
  std::vector<LayerFlash> read_only_layers;
  LayerFlash read_only_total;
  uint64_t read_only_unreferenced_bytes = 0;
};

// The op index that runs at `step` (the plan's order, else the model's).
int32_t OpIndexAtStep(const ModelPlan& plan, int32_t step);

PlanDetails AnalyzePlan(const ModelView& model, const ModelPlan& plan);

// "op 3 CONV_2D" for a step; "t12 name" / "op 3 CONV_2D scratch" for a buffer.
std::string StepLabel(const ModelView& model, const ModelPlan& plan, int32_t step);
std::string BufferLabel(const ModelView& model, const BufferRequest& buffer);
// "t3", or "s1:t3" for a tensor of subgraph 1; "op2" / "s1:op2" for scratch.
std::string OwnerLabel(const BufferRequest& buffer);
// The subgraph of the op at `step` (0 for a single subgraph).
int32_t SubgraphAtStep(const ModelPlan& plan, int32_t step);

}  // namespace microarena::report
