#include "microarena/report/budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <climits>
#include <map>

#include "microarena/analysis/offline_plan.h"
#include "microarena/base/align.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/plan/check.h"
#include "microarena/plan/greedy.h"
#include "microarena/plan/reorder.h"
#include "microarena/report/format.h"
#include "microarena/report/model_plan.h"
#include "microarena/report/optimize_job.h"
#include "microarena/report/plan_details.h"
#include "microarena/runtime/kernel_data_writer.h"
#include "microarena/runtime/stored_tiling.h"
#include "microarena/runtime/tiled_execution.h"

namespace microarena::report {
namespace {

std::string PlanModelName(const BudgetSetup& setup, const ArenaFigures& figures) {
  if (setup.planner == "optimal") return "optimal";
  return figures.planner_name();
}

Result<size_t> GreedyHead(const std::vector<BufferRequest>& buffers, size_t alignment_bytes) {
  static const GreedyPlanner greedy;
  PlanningProblem problem;
  problem.buffers = Span<const BufferRequest>(buffers.data(), buffers.size());
  problem.alignment_bytes = alignment_bytes;
  std::vector<uint8_t> workspace(greedy.WorkspaceBytes(buffers.size()));
  std::vector<size_t> offsets(buffers.size());
  PlanSummary summary;
  MICROARENA_RETURN_IF_ERROR(greedy.Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
                                         Span<size_t>(offsets.data(), offsets.size()), &summary));
  MICROARENA_RETURN_IF_ERROR(
      CheckPlan(problem, Span<const size_t>(offsets.data(), offsets.size()), summary.head_bytes));
  return summary.head_bytes;
}

MeasuredAction Measure(const ModelView& model, const std::string& name, const BudgetSetup& setup,
                       const BudgetOptions& options, size_t current_arena) {
  MeasuredAction action;
  action.name = name;
  action.setup = setup;
  Result<ArenaFigures> figures = MeasureSetup(model, setup, options.time_limit_seconds, options.target);
  if (!figures.ok()) {
    action.error = figures.status().message();
    return action;
  }
  action.ok = true;
  action.arena_bytes = figures->used_bytes;
  action.saves_bytes = static_cast<int64_t>(current_arena) - static_cast<int64_t>(figures->used_bytes);
  action.fits = figures->used_bytes <= options.ram_bytes;
  return action;
}

bool SameSetup(const BudgetSetup& a, const BudgetSetup& b) {
  return a.planner == b.planner && a.alignment_bytes == b.alignment_bytes &&
         a.copy_weights_to_arena == b.copy_weights_to_arena && a.order == b.order && a.overlap == b.overlap &&
         a.kernel_data_in_flash == b.kernel_data_in_flash && a.tile == b.tile;
}

DuplicateQuantization FindDuplicateQuantization(const ModelView& model) {
  DuplicateQuantization result;
  std::map<std::string, size_t> seen;  // parameters -> how many tensors carry them
  SubgraphView subgraph = model.subgraph(0);
  for (size_t t = 0; t < subgraph.tensor_count(); ++t) {
    QuantizationView q = subgraph.tensor(t).quantization();
    if (!q.is_quantized()) continue;
    std::string key = fmt::format("{}|", q.quantized_dimension());
    for (size_t c = 0; c < q.channel_count(); ++c) {
      const float scale = q.scale(c);
      const int64_t zero = q.zero_point(c);
      key.append(reinterpret_cast<const char*>(&scale), sizeof(scale));
      key.append(reinterpret_cast<const char*>(&zero), sizeof(zero));
    }
    size_t& count = seen[key];
    if (count == 1) ++result.groups;
    if (count >= 1) {
      ++result.tensors;
      result.duplicate_bytes += q.stored_bytes();
    }
    ++count;
  }
  return result;
}

std::string Signed(int64_t bytes) {
  if (bytes < 0) return "-" + Bytes(static_cast<uint64_t>(-bytes));
  return Bytes(static_cast<uint64_t>(bytes));
}

}  // namespace

std::string BudgetSetup::Describe() const {
  return fmt::format("planner {}, alignment {} B, weights {}{}{}{}{}", planner, alignment_bytes,
                     copy_weights_to_arena ? "copied into the arena" : "in flash",
                     order == "best" ? ", ops reordered" : "", overlap ? ", overlap" : "",
                     kernel_data_in_flash ? ", kernel data in flash" : "", tile ? ", tiled" : "");
}

std::vector<BudgetAction> BudgetActions() {
  return {
      // The actions that name `optimize` are measured on the file it writes
      // with those options (MeasureSetup); the current setup keeps the
      // kernels' data in RAM, so they say --kernel-data ram.
      {"plan with the optimal planner, the plan stored in the model (optimize --kernel-data ram)",
       [](BudgetSetup& s) { s.planner = "optimal"; }},
      {"plan with greedy", [](BudgetSetup& s) { s.planner = "greedy"; }},
      {"plan with greedy-tflm", [](BudgetSetup& s) { s.planner = "greedy-tflm"; }},
      {"align buffers to 8 B", [](BudgetSetup& s) { s.alignment_bytes = std::min<size_t>(s.alignment_bytes, 8); }},
      {"align buffers to 4 B", [](BudgetSetup& s) { s.alignment_bytes = std::min<size_t>(s.alignment_bytes, 4); }},
      {"keep weights in flash", [](BudgetSetup& s) { s.copy_weights_to_arena = false; }},
      // The kernels' precomputed data stored in the model and read from flash
      // (`optimize` stores it; runtime/kernel_data.h).
      {"keep kernel data in flash (optimize --kernel-data flash)",
       [](BudgetSetup& s) { s.kernel_data_in_flash = true; }},
      {"reorder the ops (the order optimize --order best stores, planned by the runtime)",
       [](BudgetSetup& s) { s.order = "best"; }},
      {"let outputs overlap inputs where kernels approve (greedy, allow_overlap)",
       [](BudgetSetup& s) {
         s.overlap = true;
         if (s.planner != "auto" && s.planner != "optimal") s.planner = "greedy";
       }},
      // Overlap costs temp at AllocateTensors (its declarations and
      // permissions), which can outweigh the head it saves.
      {"stop letting outputs overlap inputs (allow_overlap off)", [](BudgetSetup& s) { s.overlap = false; }},
      {"plan with the optimal planner and let outputs overlap inputs (optimize --overlap --kernel-data ram)",
       [](BudgetSetup& s) {
         s.overlap = true;
         s.planner = "optimal";
       }},
      {"reorder the ops and plan with the optimal planner (optimize --order best --kernel-data ram)",
       [](BudgetSetup& s) {
         s.order = "best";
         s.planner = "optimal";
       }},
      // Below the activation bound: the first maps made and used band by band.
      {"run the first convolutions band by band (optimize --overlap --tile --kernel-data ram)",
       [](BudgetSetup& s) {
         s.tile = true;
         s.overlap = true;
         s.order = "stored";
         s.planner = "optimal";
       }},
  };
}

const MeasuredAction* BudgetReport::best_fit() const {
  for (const MeasuredAction& combination : combinations) {
    if (combination.ok && combination.fits) return &combination;
  }
  return nullptr;
}

namespace {

// `model` as `optimize` writes it with its kernels' data stored (none when
// no op keeps read-only data).
Result<ModelFile> WithKernelData(const ModelView& model, size_t alignment_bytes) {
  InterpreterOptions prepare_options;
  prepare_options.alignment_bytes = alignment_bytes;
  MICROARENA_ASSIGN_OR_RETURN(ComputedKernelData computed, ComputeKernelData(model, AllOpsResolver(), prepare_options));
  ModelEdits edits;
  edits.metadata.push_back({kKernelDataMetadataName, EncodeKernelData(computed)});
  MICROARENA_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, RewriteModel(model.bytes(), edits));
  return ModelFile::FromBytes(bytes, "model with kernel data");
}

}  // namespace

Result<ArenaFigures> MeasureSetup(const ModelView& model, const BudgetSetup& setup, double time_limit_seconds,
                                  const TargetLayout* target) {
  // The last step: the file as written, with the kernels' data when asked.
  auto measure = [&setup](const ModelView& written, const InterpreterOptions& options) -> Result<ArenaFigures> {
    if (!setup.kernel_data_in_flash) return MeasureArena(written, AllOpsResolver(), options);
    MICROARENA_ASSIGN_OR_RETURN(ModelFile stored, WithKernelData(written, setup.alignment_bytes));
    return MeasureArena(stored.view(), AllOpsResolver(), options);
  };
  InterpreterOptions options;
  options.figures_for = target;
  options.alignment_bytes = setup.alignment_bytes;
  options.copy_weights_to_arena = setup.copy_weights_to_arena;
  options.allow_overlap = setup.overlap;
  if (setup.overlap && setup.planner != "auto" && setup.planner != "greedy" && setup.planner != "optimal") {
    return Status::Error(ErrorCode::kUnsupported,
                         "overlap is planned by the greedy and optimal planners only, not '%s'", setup.planner.c_str());
  }
  if (setup.tile) {
    // What `microarena optimize --tile` writes, run as the device runs it:
    // the stored tiling and the stored plan of its windows.
    if (setup.order != "stored" || setup.copy_weights_to_arena) {
      return Status::Error(ErrorCode::kUnsupported, "a tiling is stored in the stored order, weights in flash");
    }
    OptimizeOptions optimize;
    optimize.planner = setup.planner == "auto" ? "greedy" : setup.planner;
    if (optimize.planner == "offline") {
      return Status::Error(ErrorCode::kUnsupported, "a tiling plans its windows: not with the model's offline plan");
    }
    optimize.alignment_bytes = setup.alignment_bytes;
    optimize.time_limit_seconds = time_limit_seconds;
    optimize.overlap = setup.overlap;
    optimize.kernel_data = setup.kernel_data_in_flash;
    optimize.target = target;
    optimize.tile = true;
    MICROARENA_ASSIGN_OR_RETURN(OptimizedModel optimized, OptimizeModel(model, optimize));
    MICROARENA_ASSIGN_OR_RETURN(ModelFile written, ModelFile::FromBytes(optimized.bytes, "tiled model"));
    MICROARENA_ASSIGN_OR_RETURN(Span<const TiledSegment> stored, ReadStoredTiling(written.view()));
    const TiledExecution tiled(stored);
    if (!stored.empty()) options.tiling = &tiled;
    options.allow_overlap = optimized.overlap_used;
    return MeasureArena(written.view(), AllOpsResolver(), options);
  }
  if (setup.planner == "optimal") {
    // The file `microarena optimize` writes with these options (the
    // operators in the chosen order, the whole plan stored, the kernels'
    // data when asked), run as the device runs it.
    OptimizeOptions optimize;
    optimize.planner = "optimal";
    optimize.best_order = setup.order == "best";
    optimize.alignment_bytes = setup.alignment_bytes;
    optimize.time_limit_seconds = time_limit_seconds;
    optimize.overlap = setup.overlap;
    optimize.kernel_data = setup.kernel_data_in_flash;
    optimize.target = target;
    MICROARENA_ASSIGN_OR_RETURN(OptimizedModel optimized, OptimizeModel(model, optimize));
    MICROARENA_ASSIGN_OR_RETURN(ModelFile written, ModelFile::FromBytes(optimized.bytes, "optimized model"));
    options.allow_overlap = optimized.overlap_used;
    return MeasureArena(written.view(), AllOpsResolver(), options);
  }
  if (setup.order == "best") {
    // The operators stored in the best order (as `microarena optimize
    // --order best` stores them), planned by the runtime's planner.
    MICROARENA_ASSIGN_OR_RETURN(PrepareRequests prepared, CollectPrepareRequests(model, AllOpsResolver()));
    const std::vector<ScratchRequest>& scratch = prepared.scratch;
    ModelEdits edits;
    ReorderOptions reorder_options;
    reorder_options.alignment_bytes = setup.alignment_bytes;
    reorder_options.time_limit_seconds = time_limit_seconds;
    MICROARENA_ASSIGN_OR_RETURN(
        ReorderResult reorder,
        FindBestOrder(model, Span<const ScratchRequest>(scratch.data(), scratch.size()), reorder_options));
    edits.operator_order = reorder.order;
    // The model's own offsets belong to the stored order.
    edits.drop_metadata = {kOfflinePlanMetadataName, kOverlapPlanMetadataName};
    options.planner = setup.planner == "greedy-tflm" ? PlannerChoice::kGreedyTflm
                      : setup.planner == "linear"    ? PlannerChoice::kLinear
                                                     : PlannerChoice::kGreedy;
    MICROARENA_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, RewriteModel(model.bytes(), edits));
    MICROARENA_ASSIGN_OR_RETURN(ModelFile rewritten, ModelFile::FromBytes(bytes, "rewritten model"));
    return measure(rewritten.view(), options);
  }
  if (setup.planner == "greedy") options.planner = PlannerChoice::kGreedy;
  else if (setup.planner == "greedy-tflm") options.planner = PlannerChoice::kGreedyTflm;
  else if (setup.planner == "linear") options.planner = PlannerChoice::kLinear;
  else if (setup.planner == "offline") options.planner = PlannerChoice::kOffline;
  else if (setup.planner != "auto") {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "unknown planner '%s' (use auto, greedy, greedy-tflm, linear, offline or optimal)",
                         setup.planner.c_str());
  }
  return measure(model, options);
}

Result<BudgetReport> AnalyzeBudget(const ModelView& model, const std::string& model_path,
                                   const BudgetOptions& options) {
  BudgetReport report;
  report.model_path = model_path;
  report.ram_bytes = options.ram_bytes;
  MICROARENA_ASSIGN_OR_RETURN(report.current_figures, MeasureSetup(model, options.current, options.time_limit_seconds, options.target));
  const size_t current_arena = report.current_figures.used_bytes;
  report.current = Measure(model, "current setup", options.current, options, current_arena);
  if (!report.current.ok) return Status::Error(ErrorCode::kInternal, "%s", report.current.error.c_str());

  // One change at a time.
  for (const BudgetAction& action : BudgetActions()) {
    BudgetSetup setup = options.current;
    action.apply(setup);
    if (SameSetup(setup, options.current)) continue;
    report.actions.push_back(Measure(model, action.name, setup, options, current_arena));
  }
  std::stable_sort(report.actions.begin(), report.actions.end(), [](const MeasuredAction& a, const MeasuredAction& b) {
    if (a.ok != b.ok) return a.ok;
    return a.saves_bytes > b.saves_bytes;
  });

  // Every combination of the planners and alignments the actions offer,
  // weights and kernel data in flash.
  // "auto" is measured as what it resolves to (greedy, or offline when the
  // model carries a plan).
  const std::string current_planner =
      options.current.planner == "auto" ? report.current_figures.planner_name() : options.current.planner;
  std::vector<std::string> planners = {current_planner};
  std::vector<size_t> alignments = {options.current.alignment_bytes};
  std::vector<std::string> orders = {options.current.order};
  for (const BudgetAction& action : BudgetActions()) {
    BudgetSetup setup = options.current;
    action.apply(setup);
    if (setup.planner != "auto" && std::find(planners.begin(), planners.end(), setup.planner) == planners.end()) {
      planners.push_back(setup.planner);
    }
    if (std::find(alignments.begin(), alignments.end(), setup.alignment_bytes) == alignments.end()) {
      alignments.push_back(setup.alignment_bytes);
    }
    if (std::find(orders.begin(), orders.end(), setup.order) == orders.end()) orders.push_back(setup.order);
  }
  for (const std::string& order : orders) {
    for (const std::string& planner : planners) {
      for (size_t alignment : alignments) {
        BudgetSetup setup;
        setup.planner = planner;
        setup.alignment_bytes = alignment;
        setup.copy_weights_to_arena = false;
        setup.kernel_data_in_flash = true;  // never costs RAM
        setup.order = order;
        report.combinations.push_back(Measure(model, setup.Describe(), setup, options, current_arena));
        // Every planner that plans overlap, with it: the best combination is
        // then never worse than `plan --overlap` or `optimize --overlap`.
        if (planner == "greedy" || planner == "optimal") {
          setup.overlap = true;
          report.combinations.push_back(Measure(model, setup.Describe(), setup, options, current_arena));
          // And tiled (stored order only), the best the runtime can do.
          if (order == "stored" && planner == "optimal") {
            setup.tile = true;
            report.combinations.push_back(Measure(model, setup.Describe(), setup, options, current_arena));
          }
        }
      }
    }
  }
  std::stable_sort(report.combinations.begin(), report.combinations.end(),
                   [](const MeasuredAction& a, const MeasuredAction& b) {
                     if (a.ok != b.ok) return a.ok;
                     return a.arena_bytes < b.arena_bytes;
                   });

  // Model-level advice from the current setup's plan.
  MICROARENA_ASSIGN_OR_RETURN(std::vector<ScratchRequest> scratch, CollectScratchRequests(model, AllOpsResolver()));
  ModelPlanOptions plan_options;
  plan_options.planner = PlanModelName(options.current, report.current_figures);
  if (plan_options.planner == "auto") plan_options.planner = "greedy";
  plan_options.alignment_bytes = options.current.alignment_bytes;
  plan_options.time_limit_seconds = options.time_limit_seconds;
  plan_options.compare = false;
  plan_options.scratch = scratch;
  MICROARENA_ASSIGN_OR_RETURN(ModelPlan plan, PlanModel(model, plan_options));
  const PlanDetails details = AnalyzePlan(model, plan);
  report.peak_step = details.activation_peak_step;
  report.activation_peak_bytes = details.activation_peak_bytes;
  if (report.peak_step >= 0) {
    report.peak_op = OpIndexAtStep(plan, report.peak_step);
    SubgraphView peak_subgraph = model.subgraph(static_cast<size_t>(SubgraphAtStep(plan, report.peak_step)));
    report.peak_op_name = report.peak_op < 0 ? std::string("subgraph entry")
                                             : std::string(peak_subgraph.op(static_cast<size_t>(report.peak_op)).name());
    if (peak_subgraph.index() != 0) report.peak_op_name += fmt::format(" of subgraph {}", peak_subgraph.index());
  }
  MICROARENA_ASSIGN_OR_RETURN(size_t head_before, GreedyHead(plan.buffers, plan.alignment_bytes));
  for (size_t i : details.activation_peak_buffers) {
    if (report.channels.size() == 3) break;
    const BufferRequest& b = plan.buffers[i];
    SubgraphView subgraph = model.subgraph(static_cast<size_t>(b.subgraph_index));
    TensorView tensor = subgraph.tensor(static_cast<size_t>(b.owner_index));
    if (tensor.rank() == 0) continue;
    const int32_t channels = tensor.shape()[tensor.rank() - 1];
    if (channels <= 1) continue;
    ChannelAdvice advice;
    advice.buffer_index = i;
    advice.tensor_index = b.owner_index;
    advice.tensor_name = tensor.name();
    advice.shape.assign(tensor.shape().data(), tensor.shape().data() + tensor.rank());
    advice.channels = channels;
    advice.bytes_per_channel = tensor.byte_size() / static_cast<size_t>(channels);
    for (size_t o = 0; o < subgraph.operator_count() && advice.producer_op < 0; ++o) {
      for (int32_t output : subgraph.op(o).outputs()) {
        if (output == b.owner_index) {
          advice.producer_op = static_cast<int32_t>(o);
          advice.producer_name = subgraph.op(o).name();
        }
      }
    }
    std::vector<BufferRequest> smaller = plan.buffers;
    smaller[i].size_bytes =
        AlignUpUnchecked(tensor.byte_size() - advice.bytes_per_channel, plan.alignment_bytes);
    advice.head_before_bytes = head_before;
    MICROARENA_ASSIGN_OR_RETURN(advice.head_after_bytes, GreedyHead(smaller, plan.alignment_bytes));
    report.channels.push_back(advice);
  }
  for (const StepLive& step : details.steps) report.peak_steps += step.total_bytes() == details.live_peak_bytes;
  // The whole model one channel narrower: every planned tensor whose last
  // dimension is a channel count (> 1) loses one channel.
  std::vector<BufferRequest> narrower = plan.buffers;
  for (BufferRequest& b : narrower) {
    if (b.kind != BufferKind::kTensor) continue;
    TensorView tensor = model.subgraph(static_cast<size_t>(b.subgraph_index)).tensor(static_cast<size_t>(b.owner_index));
    if (tensor.rank() < 2) continue;
    const int32_t channels = tensor.shape()[tensor.rank() - 1];
    if (channels <= 1) continue;
    const size_t per_channel = tensor.byte_size() / static_cast<size_t>(channels);
    b.size_bytes = AlignUpUnchecked(tensor.byte_size() - per_channel, plan.alignment_bytes);
    ++report.narrower_tensors;
  }
  report.narrower_head_before_bytes = head_before;
  MICROARENA_ASSIGN_OR_RETURN(report.narrower_head_after_bytes, GreedyHead(narrower, plan.alignment_bytes));
  report.duplicates = FindDuplicateQuantization(model);
  return report;
}

std::string BudgetText(const BudgetReport& report) {
  std::string out;
  const size_t arena = report.current.arena_bytes;
  out += fmt::format("model      {}\n", report.model_path);
  out += fmt::format("budget     {} of RAM for the tensor arena\n", Bytes(report.ram_bytes));
  out += fmt::format("arena      {} with {}\n", Bytes(arena), report.current.setup.Describe());
  if (report.fits()) {
    out += fmt::format("verdict    fits: {} under the budget ({:.1f} % of it free)\n", Bytes(report.ram_bytes - arena),
                       100.0 * static_cast<double>(report.ram_bytes - arena) / static_cast<double>(report.ram_bytes));
  } else {
    out += fmt::format("verdict    does not fit: {} over the budget\n", Bytes(arena - report.ram_bytes));
  }

  out += "\nActions, each measured by running AllocateTensors with the change (largest saving first)\n";
  TextTable actions({"action", "arena", "saves", "fits"}, {false, true, true, false});
  std::vector<std::string> reasons;  // why some could not be measured, each once
  auto add_row = [&](TextTable& table, const MeasuredAction& a) {
    if (a.ok) {
      table.AddRow({a.name, Bytes(a.arena_bytes), Signed(a.saves_bytes), a.fits ? "yes" : "no"});
      return;
    }
    auto found = std::find(reasons.begin(), reasons.end(), a.error);
    const size_t number = static_cast<size_t>(found - reasons.begin()) + 1;
    if (found == reasons.end()) reasons.push_back(a.error);
    table.AddRow({a.name, "-", "-", fmt::format("not possible ({})", number)});
  };
  for (const MeasuredAction& a : report.actions) add_row(actions, a);
  out += actions.Render("  ");

  out += "\nCombinations (weights in flash), smallest arena first\n";
  TextTable combos({"setup", "arena", "saves", "fits"}, {false, true, true, false});
  for (const MeasuredAction& c : report.combinations) add_row(combos, c);
  out += combos.Render("  ");
  for (size_t r = 0; r < reasons.size(); ++r) out += fmt::format("  ({}) {}\n", r + 1, reasons[r]);
  if (const MeasuredAction* best = report.best_fit(); best != nullptr) {
    out += fmt::format("  fits: {} -> arena {}, {} under the budget\n", best->setup.Describe(),
                       Bytes(best->arena_bytes), Bytes(report.ram_bytes - best->arena_bytes));
  } else if (!report.combinations.empty() && report.combinations.front().ok) {
    const MeasuredAction& smallest = report.combinations.front();
    out += fmt::format("  no combination fits: the smallest ({}) is {}, still {} over; the model itself must shrink\n",
                       smallest.setup.Describe(), Bytes(smallest.arena_bytes), Bytes(smallest.arena_bytes - report.ram_bytes));
  }

  out += "\nModel-level advice\n";
  if (report.peak_step >= 0) {
    out += fmt::format("  the activation peak, {}, is at op {} {}: the tensors live there set the head\n",
                       Bytes(report.activation_peak_bytes), report.peak_op, report.peak_op_name);
  }
  if (report.peak_steps > 1) {
    out += fmt::format("  {} op steps reach that peak: shrinking one tensor lowers the head only if the others "
                       "shrink too\n",
                       report.peak_steps);
  }
  for (const ChannelAdvice& c : report.channels) {
    std::string shape;
    for (size_t d = 0; d < c.shape.size(); ++d) shape += (d == 0 ? "" : "x") + std::to_string(c.shape[d]);
    const int64_t saves = static_cast<int64_t>(c.head_before_bytes) - static_cast<int64_t>(c.head_after_bytes);
    out += fmt::format("  one channel less in t{} '{}' ({}, {} per channel{}): head {} -> {} (greedy, re-planned), "
                       "saves {}\n",
                       c.tensor_index, Clip(c.tensor_name, 40), shape, Bytes(c.bytes_per_channel),
                       c.producer_op >= 0 ? fmt::format(", written by op {} {}", c.producer_op, c.producer_name) : "",
                       Bytes(c.head_before_bytes), Bytes(c.head_after_bytes), Signed(saves));
  }
  if (report.narrower_tensors > 0) {
    out += fmt::format("  one channel less in every activation with channels ({} tensors, the model one channel "
                       "narrower): head {} -> {} (greedy, re-planned), saves {}\n",
                       report.narrower_tensors, Bytes(report.narrower_head_before_bytes),
                       Bytes(report.narrower_head_after_bytes),
                       Signed(static_cast<int64_t>(report.narrower_head_before_bytes) -
                              static_cast<int64_t>(report.narrower_head_after_bytes)));
  }
  const ArenaFigures& f = report.current_figures;
  size_t largest_use = 0;
  for (size_t u = 1; u < kPersistentUseCount; ++u) {
    if (f.persistent_by_use[u] > f.persistent_by_use[largest_use]) largest_use = u;
  }
  if (f.persistent_bytes > 0) {
    out += fmt::format("  the persistent area is {} of the arena; its largest use is {} ({}, {:.1f} %)\n",
                       Bytes(f.persistent_bytes), PersistentUseName(static_cast<PersistentUse>(largest_use)),
                       Bytes(f.persistent_by_use[largest_use]),
                       100.0 * static_cast<double>(f.persistent_by_use[largest_use]) /
                           static_cast<double>(f.persistent_bytes));
  }
  if (report.duplicates.tensors > 0) {
    out += fmt::format("  {} tensor{} repeat{} the quantization parameters of another ({} parameter set{}): {} of "
                       "flash stored more than once\n",
                       report.duplicates.tensors, report.duplicates.tensors == 1 ? "" : "s",
                       report.duplicates.tensors == 1 ? "s" : "", report.duplicates.groups,
                       report.duplicates.groups == 1 ? "" : "s", Bytes(report.duplicates.duplicate_bytes));
  } else {
    out += "  no quantization parameters are stored twice\n";
  }
  return out;
}

nlohmann::json BudgetJson(const BudgetReport& report) {
  using nlohmann::json;
  auto setup_json = [](const BudgetSetup& setup) {
    return json{{"planner", setup.planner},
                {"alignment", setup.alignment_bytes},
                {"copy_weights_to_arena", setup.copy_weights_to_arena},
                {"order", setup.order},
                {"overlap", setup.overlap},
                {"kernel_data_in_flash", setup.kernel_data_in_flash},
                {"tile", setup.tile}};
  };
  auto measured_json = [&](const MeasuredAction& a) {
    json entry = {{"name", a.name}, {"setup", setup_json(a.setup)}, {"measured", a.ok}};
    if (a.ok) {
      entry["arena_bytes"] = a.arena_bytes;
      entry["saves_bytes"] = a.saves_bytes;
      entry["fits"] = a.fits;
    } else {
      entry["error"] = a.error;
    }
    return entry;
  };
  json doc;
  doc["model"] = report.model_path;
  doc["ram_bytes"] = report.ram_bytes;
  doc["current"] = measured_json(report.current);
  doc["fits"] = report.fits();
  doc["over_bytes"] = report.fits() ? 0 : report.current.arena_bytes - report.ram_bytes;
  doc["under_bytes"] = report.fits() ? report.ram_bytes - report.current.arena_bytes : 0;
  json actions = json::array();
  for (const MeasuredAction& a : report.actions) actions.push_back(measured_json(a));
  doc["actions"] = actions;
  json combinations = json::array();
  for (const MeasuredAction& c : report.combinations) combinations.push_back(measured_json(c));
  doc["combinations"] = combinations;
  const MeasuredAction* best = report.best_fit();
  doc["best_fit"] = best == nullptr ? json(nullptr) : measured_json(*best);
  json advice;
  advice["activation_peak"] = {{"bytes", report.activation_peak_bytes},
                               {"step", report.peak_step},
                               {"op_index", report.peak_op},
                               {"op", report.peak_op_name}};
  json channels = json::array();
  for (const ChannelAdvice& c : report.channels) {
    channels.push_back({{"tensor", c.tensor_index},
                        {"name", c.tensor_name},
                        {"shape", c.shape},
                        {"channels", c.channels},
                        {"bytes_per_channel", c.bytes_per_channel},
                        {"producer_op", c.producer_op},
                        {"head_before_bytes", c.head_before_bytes},
                        {"head_after_bytes", c.head_after_bytes},
                        {"saves_bytes", static_cast<int64_t>(c.head_before_bytes) -
                                            static_cast<int64_t>(c.head_after_bytes)}});
  }
  advice["one_channel_less"] = channels;
  advice["peak_steps"] = report.peak_steps;
  advice["one_channel_less_everywhere"] = {{"tensors", report.narrower_tensors},
                                           {"head_before_bytes", report.narrower_head_before_bytes},
                                           {"head_after_bytes", report.narrower_head_after_bytes}};
  json by_use = json::object();
  for (size_t u = 0; u < kPersistentUseCount; ++u) {
    std::string key = PersistentUseName(static_cast<PersistentUse>(u));
    std::replace(key.begin(), key.end(), ' ', '_');
    by_use[key] = report.current_figures.persistent_by_use[u];
  }
  advice["persistent"] = {{"total_bytes", report.current_figures.persistent_bytes}, {"by_use", by_use}};
  advice["duplicate_quantization"] = {{"tensors", report.duplicates.tensors},
                                      {"groups", report.duplicates.groups},
                                      {"duplicate_bytes", report.duplicates.duplicate_bytes}};
  doc["advice"] = advice;
  return doc;
}

}  // namespace microarena::report
