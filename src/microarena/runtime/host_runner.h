// Host helpers around the interpreter (host only: they use the heap for the
// arena they hand it): measure the exact minimum arena, and run a model with
// given or generated inputs. What `microarena run` and the tests use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "microarena/analysis/lifetimes.h"
#include "microarena/analysis/overlaps.h"
#include "microarena/base/result.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/interpreter.h"

namespace microarena {

// A heap buffer whose start is aligned to 64 bytes (the largest alignment option).
class HostArena {
 public:
  // The largest arena made on the host, 1 GiB (far above any
  // microcontroller's RAM; the storage is zero-filled, so a limit a CI
  // machine can always hold); a larger size makes an empty arena (every
  // allocation fails).
  static constexpr size_t kMaxBytes = size_t{1} << 30;
  explicit HostArena(size_t size_bytes);
  uint8_t* data() { return data_; }
  size_t size() const { return size_bytes_; }

 private:
  std::vector<uint8_t> storage_;
  uint8_t* data_ = nullptr;
  size_t size_bytes_ = 0;
};

// arena_used_bytes() of a successful AllocateTensors in a generous arena: the
// exact minimum for these options (at an aligned start).
Result<size_t> MeasureArenaBytes(const ModelView& model, const OpResolver& resolver,
                                 const InterpreterOptions& options = {});

// The scratch requests the kernels make for `model`, in the order the
// interpreter makes them (op by op): runs every kernel's prepare with heap
// memory. Fails like AllocateTensors for an op without a kernel.
Result<std::vector<ScratchRequest>> CollectScratchRequests(const ModelView& model, const OpResolver& resolver);

// What the kernels ask of the planner at prepare: scratch requests and the
// output overlaps they tolerate (declarations; analysis/overlaps.h turns
// them into permissions).
struct PrepareRequests {
  std::vector<ScratchRequest> scratch;
  std::vector<OverlapDeclaration> overlaps;
};
Result<PrepareRequests> CollectPrepareRequests(const ModelView& model, const OpResolver& resolver);

// What AllocateTensors uses for a model (see the Interpreter's arena figures).
struct ArenaFigures {
  size_t persistent_bytes = 0;
  size_t persistent_by_use[kPersistentUseCount] = {};  // sums to persistent_bytes
  size_t persistent_requested_bytes = 0;               // before rounding to the alignment
  size_t head_bytes = 0;
  size_t temp_peak_bytes = 0;
  size_t used_bytes = 0;
  size_t scratch_buffers = 0;
  PlannerChoice planner = PlannerChoice::kAuto;
  KernelDataUse kernel_data;  // op data read from the model's flash (runtime/kernel_data.h)
  bool stored_plan_used = false;  // the model's own plan (runtime/stored_plan.h)
  const char* planner_name() const { return PlannerChoiceName(planner); }
  // The layout the figures are for (InterpreterOptions::figures_for; "host":
  // this build).
  const char* target = "host";
};
// `precomputed`: allocate with that plan (Interpreter::AllocateTensors(const
// PrecomputedPlan&)) instead of planning.
Result<ArenaFigures> MeasureArena(const ModelView& model, const OpResolver& resolver,
                                  const InterpreterOptions& options = {}, const PrecomputedPlan* precomputed = nullptr);

// A PrecomputedPlan's arrays for `model`: the head the interpreter plans with
// `options` (options.custom_planner, e.g. the exact OptimalPlanner, or the
// built-in choice; every plan with shared bytes is verified), and the arena
// figures of a device that allocates with it (options.figures_for's, when
// set): persistent area without a scratch table, temp peak without
// lifetimes or planner memory.
struct PrecomputedPlanData {
  std::vector<uint32_t> tensor_offsets;   // PrecomputedPlan::kNotInHead where none
  std::vector<uint32_t> scratch_offsets;
  size_t head_bytes = 0;
  bool tiled = false;  // planned with options.tiling
  PlannerChoice planned_with = PlannerChoice::kAuto;  // kCustom: options.custom_planner
  const char* planner_name = "";
  ArenaFigures figures;  // of AllocateTensors with the plan
  PrecomputedPlan plan() const;  // a view of the arrays above
};
Result<PrecomputedPlanData> PrecomputePlan(const ModelView& model, const OpResolver& resolver,
                                           const InterpreterOptions& options = {});

// Several models in one SharedArena (runtime/shared_arena.h), allocated in
// the order given: each model's own figures and the arena they need together
// (padding + sum of persistent areas + max over models of max(head, temp)).
struct SharedArenaFigures {
  std::vector<ArenaFigures> models;  // per model, in the order given
  size_t used_bytes = 0;             // the whole shared arena
  size_t persistent_bytes = 0;       // sum of the models' persistent areas
  size_t head_bytes = 0;             // max of the models' heads
  size_t temp_peak_bytes = 0;        // max of the models' temp peaks
};
Result<SharedArenaFigures> MeasureSharedArena(const std::vector<const ModelView*>& models,
                                              const OpResolver& resolver, const InterpreterOptions& options = {});

struct RunOptions {
  InterpreterOptions interpreter;
  size_t arena_bytes = 0;                 // 0: exactly the measured minimum
  uint32_t seed = 1;                      // generator seed for inputs not given
  std::vector<std::vector<uint8_t>> inputs;  // raw bytes per input; missing ones are generated
  int repeat = 1;                         // Invoke this many times (timing); outputs are from the first
  // Copy every non-constant tensor that has memory after the first Invoke
  // (RunResult::tensors). Meaningful for all of them only with
  // interpreter.preserve_all_tensors; otherwise planned tensors share bytes.
  bool capture_tensors = false;
  // Allocate with this plan instead of planning (borrowed).
  const PrecomputedPlan* precomputed_plan = nullptr;
};

// One tensor of subgraph 0 as it was after the first Invoke.
struct CapturedTensor {
  size_t subgraph = 0;
  size_t index = 0;  // in its subgraph
  std::vector<uint8_t> bytes;
};

struct RunResult {
  size_t arena_bytes = 0;      // the arena the model ran in
  size_t used_bytes = 0;       // arena_used_bytes()
  size_t persistent_bytes = 0;
  size_t head_bytes = 0;
  size_t temp_peak_bytes = 0;
  size_t lower_bound_bytes = 0;         // without overlap
  size_t overlap_permissions = 0;       // approved overlaps the plan could use
  PlannerChoice planner = PlannerChoice::kAuto;
  KernelDataUse kernel_data;
  bool stored_plan_used = false;  // the model's own plan, nothing planned at boot (runtime/stored_plan.h)
  double invoke_seconds = 0.0;      // mean over the repeats
  double invoke_seconds_min = 0.0;
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<std::vector<uint8_t>> outputs;
  std::vector<CapturedTensor> tensors;  // with RunOptions::capture_tensors, by tensor index
};

// Allocates, fills the inputs, invokes `repeat` times (variables reset before
// each run, so every run sees the same state) and copies the outputs.
Result<RunResult> RunModel(const ModelView& model, const OpResolver& resolver, const RunOptions& options);

}  // namespace microarena
