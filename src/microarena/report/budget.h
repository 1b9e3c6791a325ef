// Budget advice (host): does a model fit a RAM budget, and if not, what to
// cut — what `microarena budget MODEL --ram SIZE` prints.
//
// Every figure is measured, never estimated: each action is one change to
// the current setup (BudgetSetup), and its arena is the exact minimum that
// AllocateTensors accepts with that setup (MeasureArena). A setup with the
// optimal planner is measured on the file `microarena optimize` writes with
// the same options (order, overlap, kernel data, tiling), run as the device
// runs it; the best op order with another planner on a copy of the model
// with the operators in that order, planned by the runtime. Combinations of
// the actions are measured the same way to say which fits, if any.
//
// Then model-level advice: the op whose activations set the peak and the
// tensors live there, what one channel less in each of them saves (the head
// re-planned with that tensor smaller), the persistent area's largest use,
// and quantization parameters stored more than once in the model.
//
// To add an action: add a field to BudgetSetup, honour it in MeasureSetup, and
// add one line to BudgetActions().
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "microarena/base/result.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"

namespace microarena::report {

// One configuration of the runtime to measure.
struct BudgetSetup {
  // "auto" (the runtime's default), "greedy", "greedy-tflm", "linear",
  // "offline" (the model's own plan), or "optimal" (the optimal planner's
  // offsets written into the model, run with "offline").
  std::string planner = "auto";
  size_t alignment_bytes = 16;
  bool copy_weights_to_arena = false;
  // "stored" (the model's operator order) or "best" (FindBestOrder's order,
  // the operators stored in it as `microarena optimize --order best` does).
  std::string order = "stored";
  // Let the greedy planner use the overlaps the kernels approve
  // (InterpreterOptions::allow_overlap); only with planner greedy or auto.
  bool overlap = false;
  // The kernels' data stored in the model (`optimize --kernel-data flash`),
  // read from flash by the runtime instead of kept in the arena.
  bool kernel_data_in_flash = false;
  // Run the segments `optimize --tile` chooses band by band, the tiling and
  // the plan of its windows stored in the model (docs/tiling.md); stored
  // order only.
  bool tile = false;

  std::string Describe() const;  // "planner greedy, alignment 16 B, weights in flash"
};

struct BudgetAction {
  std::string name;                          // what to do, e.g. "use the optimal planner"
  std::function<void(BudgetSetup&)> apply;   // the change
};

// The actions, in the order they are tried. Those that leave a setup
// unchanged are skipped.
std::vector<BudgetAction> BudgetActions();

struct BudgetOptions {
  uint64_t ram_bytes = 0;
  BudgetSetup current;              // the setup the firmware uses today
  double time_limit_seconds = 5.0;  // for each run of the optimal planner
  // The device every figure is counted for (runtime/target_layout.h); nullptr: this build.
  const TargetLayout* target = nullptr;
};

struct MeasuredAction {
  std::string name;
  BudgetSetup setup;
  bool ok = false;
  std::string error;     // why it cannot be measured (when !ok)
  size_t arena_bytes = 0;
  int64_t saves_bytes = 0;  // current arena - this arena (negative: costs)
  bool fits = false;
};

struct ChannelAdvice {
  size_t buffer_index = 0;       // in the plan of the current setup
  int32_t tensor_index = 0;
  std::string tensor_name;
  int32_t producer_op = -1;      // the op that writes it (-1: a model input)
  std::string producer_name;
  std::vector<int32_t> shape;
  int32_t channels = 0;          // last dimension
  size_t bytes_per_channel = 0;
  size_t head_before_bytes = 0;  // greedy head, as planned
  size_t head_after_bytes = 0;   // greedy head with one channel less in this tensor
};

struct DuplicateQuantization {
  size_t tensors = 0;            // tensors whose parameters repeat another tensor's
  uint64_t duplicate_bytes = 0;  // flash bytes those repeats take
  size_t groups = 0;             // distinct parameter sets that repeat
};

struct BudgetReport {
  std::string model_path;
  uint64_t ram_bytes = 0;
  MeasuredAction current;                 // the current setup
  std::vector<MeasuredAction> actions;    // one change each, largest saving first
  std::vector<MeasuredAction> combinations;  // every combination measured, smallest arena first
  // Model-level advice (from the current setup's plan).
  int32_t peak_step = -1;
  int32_t peak_op = -1;
  std::string peak_op_name;
  size_t activation_peak_bytes = 0;
  size_t peak_steps = 0;                  // op steps whose live bytes equal the peak
  std::vector<ChannelAdvice> channels;    // tensors live at the peak, largest first (at most 3)
  // Every planned tensor with a channel dimension one channel smaller.
  size_t narrower_tensors = 0;
  size_t narrower_head_before_bytes = 0;
  size_t narrower_head_after_bytes = 0;
  ArenaFigures current_figures;
  DuplicateQuantization duplicates;

  bool fits() const { return current.ok && current.arena_bytes <= ram_bytes; }
  // The smallest measured combination that fits, or nullptr.
  const MeasuredAction* best_fit() const;
};

// Measures `setup` for `model`: the exact minimum arena.
Result<ArenaFigures> MeasureSetup(const ModelView& model, const BudgetSetup& setup, double time_limit_seconds,
                                  const TargetLayout* target = nullptr);

Result<BudgetReport> AnalyzeBudget(const ModelView& model, const std::string& model_path,
                                   const BudgetOptions& options);

std::string BudgetText(const BudgetReport& report);
// Keys: see the README ("budget --json").
nlohmann::json BudgetJson(const BudgetReport& report);

}  // namespace microarena::report
