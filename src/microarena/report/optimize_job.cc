#include "microarena/report/optimize_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/report/format.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/kernel_data_writer.h"
#include "microarena/report/run_job.h"
#include "microarena/report/tiling_search.h"
#include "microarena/runtime/stored_plan.h"
#include "microarena/runtime/stored_tiling.h"
#include "microarena/runtime/tiled_execution.h"

namespace microarena::report {

namespace {

// The arena the runtime needs for `bytes` with what it stores (the whole
// plan, an overlap plan with allow_overlap, the kernels' data), counted for
// options.target.
Result<size_t> OfflineArenaBytes(const std::vector<uint8_t>& bytes, bool overlap, const OptimizeOptions& options) {
  MICROARENA_ASSIGN_OR_RETURN(ModelFile file, ModelFile::FromBytes(bytes, "optimized model"));
  InterpreterOptions interpreter;
  interpreter.alignment_bytes = options.alignment_bytes;
  interpreter.planner = PlannerChoice::kAuto;
  interpreter.allow_overlap = overlap;
  if (options.target != nullptr && options.target != &HostLayout()) interpreter.figures_for = options.target;
  MICROARENA_ASSIGN_OR_RETURN(Span<const TiledSegment> stored_tiling, ReadStoredTiling(file.view()));
  const TiledExecution tiled(stored_tiling);
  if (!stored_tiling.empty()) interpreter.tiling = &tiled;
  MICROARENA_ASSIGN_OR_RETURN(ArenaFigures figures, MeasureArena(file.view(), AllOpsResolver(), interpreter));
  return figures.used_bytes;
}

Result<OptimizedModel> OptimizeModelOnce(const ModelView& model, const OptimizeOptions& options);
Result<OptimizedModel> OptimizeInOrder(const ModelView& model, const OptimizeOptions& options);

}  // namespace

Result<OptimizedModel> OptimizeModel(const ModelView& model, const OptimizeOptions& options) {
  MICROARENA_ASSIGN_OR_RETURN(OptimizedModel optimized, OptimizeInOrder(model, options));
  if (!options.tile || !optimized.reorder || optimized.reorder->is_stored_order()) return optimized;
  // The best order minimises the untiled peak; a tiling can do better in
  // the stored one (its segments are runs of consecutive ops). Both files
  // are measured; the stored order is kept on ties.
  OptimizeOptions stored_options = options;
  stored_options.best_order = false;
  MICROARENA_ASSIGN_OR_RETURN(OptimizedModel stored, OptimizeInOrder(model, stored_options));
  MICROARENA_ASSIGN_OR_RETURN(size_t best_arena_bytes,
                              OfflineArenaBytes(optimized.bytes, optimized.overlap_used, options));
  MICROARENA_ASSIGN_OR_RETURN(size_t stored_arena_bytes, OfflineArenaBytes(stored.bytes, stored.overlap_used, options));
  if (best_arena_bytes < stored_arena_bytes) return optimized;
  stored.reorder = std::move(optimized.reorder);
  stored.order_used = false;
  stored.best_order_arena_bytes = best_arena_bytes;
  return stored;
}

namespace {

Result<OptimizedModel> OptimizeInOrder(const ModelView& model, const OptimizeOptions& options) {
  MICROARENA_ASSIGN_OR_RETURN(OptimizedModel optimized, OptimizeModelOnce(model, options));
  if (!options.overlap) return optimized;
  optimized.overlap_used = true;
  OptimizeOptions plain_options = options;
  plain_options.overlap = false;
  MICROARENA_ASSIGN_OR_RETURN(OptimizedModel plain, OptimizeModelOnce(model, plain_options));
  MICROARENA_ASSIGN_OR_RETURN(optimized.overlap_arena_bytes, OfflineArenaBytes(optimized.bytes, true, options));
  MICROARENA_ASSIGN_OR_RETURN(size_t plain_arena_bytes, OfflineArenaBytes(plain.bytes, false, options));
  // On a tie the file without overlap: TFLM runs it as it is.
  if (plain_arena_bytes > optimized.overlap_arena_bytes) return optimized;
  plain.overlap_used = false;
  plain.overlap_arena_bytes = optimized.overlap_arena_bytes;
  return plain;
}

Result<OptimizedModel> OptimizeModelOnce(const ModelView& model, const OptimizeOptions& options) {
  Result<PrepareRequests> prepared = CollectPrepareRequests(model, AllOpsResolver());
  if (!prepared.ok()) {
    Status status = prepared.status();
    return status.Prefix("optimize needs every op's scratch size");
  }
  OptimizedModel optimized;
  // 1. The order.
  if (options.best_order) {
    ReorderOptions reorder_options;
    reorder_options.alignment_bytes = options.alignment_bytes;
    reorder_options.time_limit_seconds = options.time_limit_seconds;
    Result<ReorderResult> found = FindBestOrder(
        model, Span<const ScratchRequest>(prepared->scratch.data(), prepared->scratch.size()), reorder_options);
    if (!found.ok()) return found.status();
    optimized.reorder = std::move(*found);
    optimized.order_used = true;
  }
  const std::vector<int32_t> order = optimized.reorder ? optimized.reorder->order : std::vector<int32_t>();
  // A tiling names ops by their place in the file, so with a new order it is
  // chosen and planned on the model rewritten into that order (its ops, and
  // so their scratch requests and overlaps, renumbered).
  std::vector<uint8_t> reordered_bytes;
  std::optional<ModelView> reordered;
  if (options.tile && !order.empty()) {
    ModelEdits in_order;
    in_order.operator_order = order;
    in_order.drop_metadata = {kOfflinePlanMetadataName, kOverlapPlanMetadataName, kStoredTilingMetadataName,
                              kStoredPlanMetadataName, kTiledPlanMetadataName};
    MICROARENA_ASSIGN_OR_RETURN(reordered_bytes, RewriteModel(model.bytes(), in_order));
    MICROARENA_ASSIGN_OR_RETURN(ModelView view,
                                LoadModel(Span<const uint8_t>(reordered_bytes.data(), reordered_bytes.size())));
    reordered.emplace(view);
    prepared = CollectPrepareRequests(*reordered, AllOpsResolver());
    if (!prepared.ok()) return prepared.status();
  }
  const ModelView& planned_model = reordered ? *reordered : model;
  if (options.tile) {
    TilingSearchOptions search;
    search.alignment_bytes = options.alignment_bytes;
    search.scratch = prepared->scratch;
    search.overlap = options.overlap;
    search.overlaps = prepared->overlaps;
    search.exact = options.planner == "optimal";
    MICROARENA_ASSIGN_OR_RETURN(TilingChoice choice, ChooseTiling(planned_model, search));
    optimized.tiling = choice.segments;
  }
  const Span<const TiledSegment> tiling(optimized.tiling.data(), optimized.tiling.size());

  // 2. The plan, in that order.
  ModelPlanOptions plan_options;
  plan_options.planner = options.planner;
  plan_options.alignment_bytes = options.alignment_bytes;
  plan_options.time_limit_seconds = options.time_limit_seconds;
  plan_options.compare = false;
  plan_options.scratch = prepared->scratch;
  if (!reordered) plan_options.order = order;
  plan_options.overlap = options.overlap;
  if (options.overlap) plan_options.overlaps = prepared->overlaps;
  plan_options.tiling = optimized.tiling;
  Result<ModelPlan> plan = PlanModel(planned_model, plan_options);
  if (!plan.ok()) return plan.status();
  optimized.plan = std::move(*plan);
  Result<std::vector<int32_t>> offsets = OfflineOffsets(planned_model, optimized.plan);
  if (!offsets.ok()) return offsets.status();
  optimized.offsets = std::move(*offsets);

  // 3. The file. A plan never stays beside a plan for another order or kind.
  // A tiled plan places windows, never to be read as whole maps: no offline
  // plan then (TFLM would use its offsets), only the stored plan below.
  optimized.metadata_name = !tiling.empty()  ? kStoredTilingMetadataName
                            : options.overlap ? kOverlapPlanMetadataName
                                              : kOfflinePlanMetadataName;
  ModelEdits edits;
  edits.operator_order = order;
  edits.drop_metadata = {kOfflinePlanMetadataName, kOverlapPlanMetadataName, kStoredTilingMetadataName};
  if (tiling.empty()) {
    edits.metadata.push_back({optimized.metadata_name, EncodeOfflinePlan(optimized.offsets, model.subgraph_count())});
  }
  optimized.used_overlaps = static_cast<size_t>(std::count_if(
      optimized.plan.overlaps.begin(), optimized.plan.overlaps.end(), [](const PlannedOverlap& o) { return o.used; }));
  edits.drop_metadata.push_back(kKernelDataMetadataName);
  edits.drop_metadata.push_back(kStoredPlanMetadataName);
  edits.drop_metadata.push_back(kTiledPlanMetadataName);
  Result<std::vector<uint8_t>> bytes = RewriteModel(model.bytes(), edits);
  if (!bytes.ok()) return bytes.status();

  // Steps 4 and 5 work on the file as it will be (operators in their new
  // order, the plan stored).
  Result<ModelView> planned = LoadModel(Span<const uint8_t>(bytes->data(), bytes->size()));
  if (!planned.ok()) return planned.status();
  // 4. The kernels' data, so that the runtime reads it from flash.
  if (options.kernel_data) {
    InterpreterOptions prepare_options;
    prepare_options.alignment_bytes = options.alignment_bytes;
    Result<ComputedKernelData> computed = ComputeKernelData(*planned, AllOpsResolver(), prepare_options);
    if (!computed.ok()) {
      Status status = computed.status();
      return status.Prefix("kernel data");
    }
    if (!computed->records.empty()) {
      std::vector<uint8_t> blob = EncodeKernelData(*computed);
      optimized.kernel_data_ops = computed->records.size();
      optimized.kernel_data_bytes = blob.size();
      edits.metadata.push_back({kKernelDataMetadataName, std::move(blob)});
    }
  }
  // 5. The whole head plan, so that the runtime plans nothing at boot: the
  // stored tensor offsets with the scratch buffers placed around them,
  // verified as the runtime would (PrecomputePlan).
  if (planned->subgraph_count() == 1) {
    InterpreterOptions plan_with;
    plan_with.alignment_bytes = options.alignment_bytes;
    plan_with.planner = PlannerChoice::kOffline;
    plan_with.allow_overlap = options.overlap;
    // A tiling has no offline plan: its windows are planned here, as `run`
    // plans them (the exact planner under a node limit, or the one named).
    OptimalOptions exact_options;
    exact_options.time_limit_seconds = 0;
    exact_options.node_limit = kOverlapPlanNodeLimit;
    const OptimalPlanner exact(exact_options);
    const TiledExecution tiled(tiling);
    if (!tiling.empty()) {
      plan_with.tiling = &tiled;
      plan_with.planner = options.planner == "greedy"        ? PlannerChoice::kGreedy
                          : options.planner == "greedy-tflm" ? PlannerChoice::kGreedyTflm
                          : options.planner == "linear"      ? PlannerChoice::kLinear
                                                             : PlannerChoice::kAuto;
      if (options.planner == "optimal") plan_with.custom_planner = &exact;
      edits.metadata.push_back({kStoredTilingMetadataName, EncodeStoredTiling(*planned, tiling)});
    }
    Result<PrecomputedPlanData> whole = PrecomputePlan(*planned, AllOpsResolver(), plan_with);
    if (!whole.ok()) {
      Status status = whole.status();
      return status.Prefix("the stored plan");
    }
    optimized.stored_plan_bytes = whole->head_bytes;
    edits.metadata.push_back({tiling.empty() ? kStoredPlanMetadataName : kTiledPlanMetadataName,
                              EncodeStoredPlan(*planned, *whole, options.alignment_bytes, options.overlap,
                                               optimized.plan.lower_bound_bytes, tiling)});
  }
  const std::string info = fmt::format(
      "microarena plan: planner={} alignment={} head_bytes={} lower_bound_bytes={} order={} "
      "overlap={} used_overlaps={} tflm_safe={} kernel_data_ops={}",
      optimized.plan.planner, options.alignment_bytes, optimized.plan.head_bytes, optimized.plan.lower_bound_bytes,
      options.best_order ? "best" : "stored", options.overlap ? "yes" : "no", optimized.used_overlaps,
      options.overlap && tiling.empty() ? "no" : "yes", optimized.kernel_data_ops);
  edits.metadata.push_back({kPlanInfoMetadataName, std::vector<uint8_t>(info.begin(), info.end())});
  bytes = RewriteModel(model.bytes(), edits);
  if (!bytes.ok()) return bytes.status();
  optimized.bytes = std::move(*bytes);
  return optimized;
}

}  // namespace

Result<OptimizeCheck> CheckOptimizedModel(const ModelView& original, const ModelView& written,
                                          const OptimizedModel& optimized, const OptimizeOptions& options) {
  // A tiled file carries its tiling (read back here) and its stored plan
  // (used below), no offline plan.
  MICROARENA_ASSIGN_OR_RETURN(Span<const TiledSegment> stored_tiling, ReadStoredTiling(written));
  if (stored_tiling.size() != optimized.tiling.size() ||
      (!optimized.tiling.empty() &&
       !IsStoredTiling(written, Span<const TiledSegment>(optimized.tiling.data(), optimized.tiling.size())))) {
    return Status::Error(ErrorCode::kInternal, "the tiling read back from the optimized model differs");
  }
  if (optimized.tiling.empty()) {
    Result<Span<const int32_t>> read_back = ReadOfflinePlan(written, optimized.metadata_name);
    if (!read_back.ok()) return read_back.status();
    if (std::vector<int32_t>(read_back->begin(), read_back->end()) != optimized.offsets) {
      return Status::Error(ErrorCode::kInternal, "the plan read back from the optimized model differs");
    }
  }
  const TiledExecution tiled(stored_tiling);
  RunOptions original_run;
  original_run.interpreter.alignment_bytes = options.alignment_bytes;
  // What a device does with the file: the automatic choice (the stored
  // whole plan when the file has one, else the offline plan).
  RunOptions offline_run = original_run;
  offline_run.interpreter.planner = PlannerChoice::kAuto;
  offline_run.interpreter.allow_overlap = optimized.overlap_used;
  if (!stored_tiling.empty()) offline_run.interpreter.tiling = &tiled;
  Result<RunResult> before = RunModel(original, AllOpsResolver(), original_run);
  if (!before.ok()) {
    Status status = before.status();
    return status.Prefix("the original model does not run");
  }
  Result<RunResult> after = RunModel(written, AllOpsResolver(), offline_run);
  if (!after.ok()) {
    Status status = after.status();
    return status.Prefix("the optimized model does not run");
  }
  OptimizeCheck check;
  check.outputs_identical = before->outputs == after->outputs;
  check.offline_head_bytes = after->head_bytes;
  check.original_arena_bytes = before->used_bytes;
  check.offline_arena_bytes = after->used_bytes;
  check.original_planner = PlannerChoiceName(before->planner);
  check.offline_planner = PlannerChoiceName(after->planner);
  check.original_persistent_bytes = before->persistent_bytes;
  check.offline_persistent_bytes = after->persistent_bytes;
  check.kernel_data = after->kernel_data;
  check.stored_plan_used = after->stored_plan_used;
  check.offline_temp_peak_bytes = after->temp_peak_bytes;
  if (optimized.stored_plan_bytes > 0 && !check.stored_plan_used) {
    return Status::Error(ErrorCode::kInternal, "the runtime did not use the plan stored in the file");
  }
  if (optimized.kernel_data_ops > 0 && check.kernel_data.ops_in_flash != optimized.kernel_data_ops) {
    return Status::Error(ErrorCode::kInternal,
                         "the runtime read %zu of the %zu ops' kernel data stored in the file (state %s, %zu "
                         "recomputed)",
                         check.kernel_data.ops_in_flash, optimized.kernel_data_ops,
                         KernelDataStateName(check.kernel_data.state), check.kernel_data.ops_recomputed);
  }
  // The arenas on the target: only its records differ from the host's.
  if (options.target != nullptr && options.target != &HostLayout()) {
    InterpreterOptions before_options = original_run.interpreter;
    InterpreterOptions after_options = offline_run.interpreter;
    before_options.figures_for = options.target;
    after_options.figures_for = options.target;
    Result<ArenaFigures> before_target = MeasureArena(original, AllOpsResolver(), before_options);
    if (!before_target.ok()) return before_target.status();
    Result<ArenaFigures> after_target = MeasureArena(written, AllOpsResolver(), after_options);
    if (!after_target.ok()) return after_target.status();
    check.original_arena_bytes = before_target->used_bytes;
    check.offline_arena_bytes = after_target->used_bytes;
    check.original_persistent_bytes = before_target->persistent_bytes;
    check.offline_persistent_bytes = after_target->persistent_bytes;
  }
  return check;
}

namespace {

const char* TargetName(const OptimizeOptions& options) {
  return (options.target != nullptr ? options.target : &HostLayout())->name;
}

}  // namespace

nlohmann::json OptimizeJson(const std::string& model_path, const std::string& output_path,
                            const OptimizeOptions& options, const OptimizedModel& optimized,
                            const OptimizeCheck& check) {
  const ModelPlan& plan = optimized.plan;
  const std::optional<ReorderResult>& reorder = optimized.reorder;
  nlohmann::json doc;
  doc["model"] = model_path;
  doc["output"] = output_path;
  doc["planner"] = plan.planner;
  doc["alignment_bytes"] = options.alignment_bytes;
  doc["order"] = options.best_order ? "best" : "stored";
  doc["operator_order"] = reorder && optimized.order_used ? reorder->order : std::vector<int32_t>();
  if (reorder) doc["order_used"] = optimized.order_used;
  if (reorder && !optimized.order_used) doc["best_order_arena_bytes"] = optimized.best_order_arena_bytes;
  doc["stored_order_peak_bytes"] = reorder ? reorder->stored_peak_bytes : plan.lower_bound_bytes;
  doc["order_peak_bytes"] = plan.lower_bound_bytes;
  doc["order_proven_optimal"] = reorder && reorder->proven_optimal;
  doc["planned_head_bytes"] = plan.head_bytes;
  doc["offline_head_bytes"] = check.offline_head_bytes;
  doc["target"] = TargetName(options);
  doc["offline_arena_bytes"] = check.offline_arena_bytes;
  doc["original_arena_bytes"] = check.original_arena_bytes;
  doc["original_planner"] = check.original_planner;
  doc["offline_planner"] = check.offline_planner;
  doc["planned_tensors"] =
      std::count_if(optimized.offsets.begin(), optimized.offsets.end(), [](int32_t o) { return o >= 0; });
  doc["overlap"] = options.overlap;
  doc["used_overlaps"] = optimized.used_overlaps;
  doc["metadata_name"] = optimized.metadata_name;
  if (options.overlap) doc["overlap_used"] = optimized.overlap_used;
  if (options.overlap) doc["overlap_arena_bytes"] = optimized.overlap_arena_bytes;
  // A tiled file carries no plan TFLM reads: TFLM plans it whole.
  doc["tflm_safe"] = !optimized.overlap_used || !optimized.tiling.empty();
  nlohmann::json segments = nlohmann::json::array();
  for (const TiledSegment& segment : optimized.tiling) {
    segments.push_back(
        {{"first_op", segment.first_op}, {"last_op", segment.last_op}, {"band_rows", segment.band_rows}});
  }
  if (options.tile) doc["tiling"] = segments;
  doc["file_bytes"] = optimized.bytes.size();
  doc["original_persistent_bytes"] = check.original_persistent_bytes;
  doc["offline_persistent_bytes"] = check.offline_persistent_bytes;
  doc["stored_plan"] = {{"metadata_name", optimized.tiling.empty() ? kStoredPlanMetadataName : kTiledPlanMetadataName},
                        {"head_bytes", optimized.stored_plan_bytes},
                        {"used", check.stored_plan_used},
                        {"temp_peak_bytes", check.offline_temp_peak_bytes}};
  doc["kernel_data"] = {{"stored", options.kernel_data},
                        {"ops", optimized.kernel_data_ops},
                        {"file_bytes", optimized.kernel_data_bytes},
                        {"ops_in_flash", check.kernel_data.ops_in_flash},
                        {"flash_bytes", check.kernel_data.flash_bytes},
                        {"state", KernelDataStateName(check.kernel_data.state)}};
  doc["outputs_identical"] = check.outputs_identical;
  return doc;
}

std::string OptimizeText(const std::string& output_path, const OptimizeOptions& options,
                         const OptimizedModel& optimized, const OptimizeCheck& check) {
  const ModelPlan& plan = optimized.plan;
  std::string text = fmt::format("wrote        {} ({})\n", output_path, Bytes(optimized.bytes.size()));
  if (optimized.reorder) {
    const ReorderResult& reorder = *optimized.reorder;
    text += fmt::format("order        best: peak {} vs {} stored ({} saved; {}, {})\n", Bytes(reorder.peak_bytes),
                        Bytes(reorder.stored_peak_bytes), Bytes(reorder.saved_bytes()), reorder.method,
                        reorder.proven_optimal ? "proven optimal over all orders" : "not proven optimal");
    if (!optimized.order_used) {
      text += fmt::format(
          "             not used: tiled in the stored order the arena is no larger ({} vs {} in the best order)\n",
          Bytes(check.offline_arena_bytes), Bytes(optimized.best_order_arena_bytes));
    }
  } else {
    text += "order        stored\n";
  }
  text += fmt::format("plan         {}, head {} (lower bound {}), alignment {}\n", plan.planner, Bytes(plan.head_bytes),
                      Bytes(plan.lower_bound_bytes), options.alignment_bytes);
  if (!optimized.tiling.empty()) {
    std::string segments;
    for (const TiledSegment& segment : optimized.tiling) {
      segments += fmt::format("{}ops {}-{}, {} row{} per band", segments.empty() ? "" : "; ", segment.first_op,
                              segment.last_op, segment.band_rows, segment.band_rows == 1 ? "" : "s");
    }
    text += fmt::format("tiling       {}: {} (the stored plan holds its windows; no offline plan)\n",
                        kStoredTilingMetadataName, segments);
  } else {
    if (options.tile) text += "tiling       none: no segment makes the head smaller\n";
    text += fmt::format("metadata     {}: {} tensor offsets (scratch planned online, as TFLM does)\n",
                        optimized.metadata_name, optimized.offsets.size());
  }
  if (optimized.kernel_data_ops > 0) {
    text += fmt::format("kernel data  {}: {} ops' data ({} of file) read from flash; persistent area {} (was {})\n",
                        kKernelDataMetadataName, optimized.kernel_data_ops, Bytes(optimized.kernel_data_bytes),
                        Bytes(check.offline_persistent_bytes), Bytes(check.original_persistent_bytes));
  } else if (options.kernel_data) {
    text += "kernel data  none to store: no op keeps read-only data\n";
  } else {
    text += "kernel data  kept in RAM (--kernel-data ram)\n";
  }
  if (check.stored_plan_used) {
    text += fmt::format("boot plan    {}: every tensor and scratch buffer placed; no planning at boot (temp peak {})\n",
                        optimized.tiling.empty() ? kStoredPlanMetadataName : kTiledPlanMetadataName,
                        Bytes(check.offline_temp_peak_bytes));
  }
  text += fmt::format("runtime      planner {}: head {}, arena {} (the original, planner {}: arena {}) on {}\n",
                      check.offline_planner, Bytes(check.offline_head_bytes), Bytes(check.offline_arena_bytes),
                      check.original_planner, Bytes(check.original_arena_bytes), TargetName(options));
  text += fmt::format("check        {} read back: identical; outputs (seed 1): {}\n",
                      optimized.tiling.empty() ? "plan" : "tiling", check.outputs_identical ? "identical to the original" : "DIFFERENT from the original");
  if (options.overlap && !optimized.overlap_used) {
    text += fmt::format("overlap      not used: the arena without it is no larger (with it: {})\n",
                        Bytes(optimized.overlap_arena_bytes));
  }
  if (!optimized.tiling.empty()) {
    text += "TFLM         safe: the file carries no plan stock TFLM reads; it plans the model whole itself\n";
  } else if (optimized.overlap_used) {
    text += fmt::format(
        "TFLM         NOT safe: {} outputs share bytes with inputs their kernels have read;\n"
        "             stored under {}, which stock TFLM ignores\n",
        optimized.used_overlaps, optimized.metadata_name);
  } else {
    text += "TFLM         safe: no overlapping buffers; stock TFLM uses these offsets\n";
  }
  return text;
}

}  // namespace microarena::report
