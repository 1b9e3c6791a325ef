#include "microarena/report/plan_job.h"

#include <memory>
#include <utility>

#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/plan/optimal.h"
#include "microarena/report/format.h"
#include "microarena/report/plan_report.h"
#include "microarena/runtime/kernel_data.h"
#include "microarena/runtime/stored_plan.h"
#include "microarena/runtime/stored_tiling.h"
#include "microarena/runtime/tiled_execution.h"

namespace microarena::report {

InterpreterOptions RuntimeOptionsFor(const std::string& planner, size_t alignment_bytes) {
  InterpreterOptions options;
  options.alignment_bytes = alignment_bytes;
  if (planner == "greedy") options.planner = PlannerChoice::kGreedy;
  if (planner == "greedy-tflm") options.planner = PlannerChoice::kGreedyTflm;
  if (planner == "linear") options.planner = PlannerChoice::kLinear;
  if (planner == "offline") options.planner = PlannerChoice::kOffline;
  return options;  // "optimal" and the default: the runtime's own choice
}

namespace {

Result<PlanJob> RunPlanJobOnce(const ModelFile& file, const PlanJobOptions& options) {
  PlanJob job;
  ModelPlanOptions plan_options = options.plan;
  // The kernels' scratch requests are planned with the tensors; the
  // runtime's persistent area and temp peak complete the arena.
  Result<PrepareRequests> scratch = CollectPrepareRequests(file.view(), AllOpsResolver());
  if (scratch.ok()) plan_options.scratch = scratch->scratch;
  if (scratch.ok() && plan_options.overlap) plan_options.overlaps = scratch->overlaps;
  // Best order: plan in it, and measure the runtime on the model with its
  // operators stored in that order (what `optimize --order best` writes),
  // so every figure is for that order.
  std::shared_ptr<const ModelFile> reordered;
  if (options.best_order) {
    if (!scratch.ok()) return scratch.status();
    ReorderOptions reorder_options;
    reorder_options.alignment_bytes = plan_options.alignment_bytes;
    reorder_options.time_limit_seconds = plan_options.time_limit_seconds;
    Result<ReorderResult> found = FindBestOrder(
        file.view(), Span<const ScratchRequest>(scratch->scratch.data(), scratch->scratch.size()), reorder_options);
    if (!found.ok()) return found.status();
    job.reorder = *found;
    plan_options.order = found->order;
    ModelEdits edits;
    edits.operator_order = found->order;
    // Every plan and the kernels' data were made for the stored order (the
    // runtime would ignore them: their fingerprints no longer match).
    edits.drop_metadata = {kOfflinePlanMetadataName, kOverlapPlanMetadataName, kStoredTilingMetadataName,
                           kStoredPlanMetadataName, kTiledPlanMetadataName, kKernelDataMetadataName};
    Result<std::vector<uint8_t>> bytes = RewriteModel(file.bytes(), edits);
    if (!bytes.ok()) return bytes.status();
    Result<ModelFile> rewritten = ModelFile::FromBytes(*bytes, file.path());
    if (!rewritten.ok()) return rewritten.status();
    reordered = std::make_shared<const ModelFile>(std::move(*rewritten));
    job.order_used = true;
  }
  // A tiling names ops by their place in the file, so in the best order it
  // is chosen and planned on the model stored in that order (its ops, and so
  // their scratch requests and overlaps, renumbered); the reports then show
  // that file.
  if (reordered && options.tile) {
    job.planned_file = reordered;
    plan_options.order.clear();
    scratch = CollectPrepareRequests(reordered->view(), AllOpsResolver());
    if (!scratch.ok()) return scratch.status();
    plan_options.scratch = scratch->scratch;
    if (plan_options.overlap) plan_options.overlaps = scratch->overlaps;
  }
  const ModelView& planned_model = job.planned_file ? job.planned_file->view() : file.view();
  // A tiling the model carries (optimize --tile) is planned as stored.
  Result<Span<const TiledSegment>> stored_tiling = ReadStoredTiling(file.view());
  if (!stored_tiling.ok()) {
    Status status = stored_tiling.status();
    return status.Prefix(file.path().c_str());
  }
  const bool use_stored = !stored_tiling->empty() && options.use_stored_tiling && !options.best_order;
  if (use_stored || options.tile) {
    if (!scratch.ok()) return scratch.status();
    TilingSearchOptions search;
    search.alignment_bytes = plan_options.alignment_bytes;
    search.scratch = scratch->scratch;
    search.overlap = plan_options.overlap;
    search.overlaps = scratch->overlaps;
    search.exact = plan_options.planner.empty() || plan_options.planner == "optimal";
    // The stored tiling is evaluated as it is; otherwise one is searched.
    Result<TilingChoice> tiling = use_stored ? EvaluateTiling(file.view(), search, *stored_tiling)
                                             : ChooseTiling(planned_model, search);
    if (!tiling.ok()) {
      Status status = tiling.status();
      return status.Prefix(file.path().c_str());
    }
    job.tiling = std::move(*tiling);
    plan_options.tiling = job.tiling->segments;
  }
  const ModelView& runtime_model = reordered ? reordered->view() : file.view();
  Result<ModelPlan> plan = PlanModel(planned_model, plan_options);
  if (!plan.ok()) {
    Status status = plan.status();
    return status.Prefix(file.path().c_str());
  }
  job.plan = std::move(*plan);

  // The runtime measures with the planner the device would use: the chosen
  // one, or its default (offline or greedy) for "optimal".
  job.runtime_options = RuntimeOptionsFor(plan_options.planner, plan_options.alignment_bytes);
  job.runtime_options.allow_overlap = plan_options.overlap;
  job.runtime_options.trust_offline_plan = options.trust_offline_plan;
  if (options.target != nullptr && options.target != &HostLayout()) job.runtime_options.figures_for = options.target;
  if (!scratch.ok()) {
    job.plan.runtime_note = scratch.status().message();
    return job;
  }
  const auto record = [&job](const ArenaFigures& figures) {
    job.plan.has_runtime = true;
    job.plan.runtime = figures;
    job.plan.persistent_bytes = figures.persistent_bytes;
    job.plan.temp_peak_bytes = figures.temp_peak_bytes;
  };
  const TiledExecution tiled(Span<const TiledSegment>(job.plan.tiling.data(), job.plan.tiling.size()));
  if (options.precomputed_plan) {
    // The head planned here (the exact planner for "optimal"), and the
    // figures of allocating with it on the device.
    OptimalOptions exact_options;
    exact_options.time_limit_seconds = plan_options.time_limit_seconds;
    const OptimalPlanner exact(exact_options);
    InterpreterOptions plan_with = job.runtime_options;
    if (!job.plan.tiling.empty()) plan_with.tiling = &tiled;
    if (plan_options.planner.empty() || plan_options.planner == "optimal") plan_with.custom_planner = &exact;
    Result<PrecomputedPlanData> data = PrecomputePlan(runtime_model, AllOpsResolver(), plan_with);
    if (!data.ok()) {
      Status status = data.status();
      return status.Prefix(file.path().c_str());
    }
    job.precomputed.emplace(std::move(*data));
    record(job.precomputed->figures);
    return job;
  }
  InterpreterOptions measure_options = job.runtime_options;
  if (!job.plan.tiling.empty()) measure_options.tiling = &tiled;
  Result<ArenaFigures> figures = MeasureArena(runtime_model, AllOpsResolver(), measure_options);
  if (figures.ok()) {
    record(*figures);
  } else {
    job.plan.runtime_note = figures.status().message();
  }
  return job;
}

Result<PlanJob> RunPlanJobInOrder(const ModelFile& file, const PlanJobOptions& options);

}  // namespace

Result<PlanJob> RunPlanJob(const ModelFile& file, const PlanJobOptions& options) {
  Result<PlanJob> job = RunPlanJobInOrder(file, options);
  if (!job.ok() || !options.best_order || !options.tile || job->reorder->is_stored_order()) return job;
  // The best order minimises the untiled peak; a tiling can do better in
  // the stored one (its segments are runs of consecutive ops). The heads are
  // compared (what the tiling changes; the persistent areas differ by what
  // the given file carries, such as the kernels' data made for its order);
  // the stored order is kept on ties.
  PlanJobOptions stored_options = options;
  stored_options.best_order = false;
  Result<PlanJob> stored = RunPlanJobInOrder(file, stored_options);
  if (!stored.ok() || job->plan.head_bytes < stored->plan.head_bytes) return job;
  stored->reorder = std::move(job->reorder);
  stored->order_used = false;
  stored->best_order_head_bytes = job->plan.head_bytes;
  return stored;
}

namespace {

Result<PlanJob> RunPlanJobInOrder(const ModelFile& file, const PlanJobOptions& options) {
  Result<PlanJob> job = RunPlanJobOnce(file, options);
  if (!job.ok() || !options.plan.overlap) return job;
  job->overlap_asked = true;
  job->overlap_used = true;
  job->overlap_arena_bytes = job->plan.arena_bytes();
  PlanJobOptions plain_options = options;
  plain_options.plan.overlap = false;
  plain_options.plan.overlaps.clear();
  Result<PlanJob> plain = RunPlanJobOnce(file, plain_options);
  // Figures of the same kind only: measured against measured. On a tie the
  // plan without overlap (TFLM runs it as it is).
  if (!plain.ok() || plain->plan.has_runtime != job->plan.has_runtime ||
      plain->plan.arena_bytes() > job->plan.arena_bytes()) {
    return job;
  }
  plain->overlap_asked = true;
  plain->overlap_used = false;
  plain->overlap_arena_bytes = job->plan.arena_bytes();
  return plain;
}

}  // namespace

const ModelFile& PlannedFile(const ModelFile& file, const PlanJob& job) {
  return job.planned_file ? *job.planned_file : file;
}

nlohmann::json PlanJobJson(const ModelFile& given, const PlanJob& job) {
  const ModelFile& file = PlannedFile(given, job);
  nlohmann::json doc = PlanJson(file.view(), file.path(), job.plan);
  if (job.reorder) doc["order"] = OrderJson(job);
  if (job.tiling) doc["tiling"] = TilingJson(file.view(), *job.tiling, job.plan);
  if (job.overlap_asked) {
    doc["overlap_used"] = job.overlap_used;
    doc["overlap_arena_bytes"] = job.overlap_arena_bytes;
  }
  return doc;
}

nlohmann::json OrderJson(const PlanJob& job) {
  const ReorderResult& reorder = *job.reorder;
  nlohmann::json doc = {{"mode", "best"},
          {"operator_order", reorder.order},
          {"stored_peak_bytes", reorder.stored_peak_bytes},
          {"peak_bytes", reorder.peak_bytes},
          {"saved_bytes", reorder.saved_bytes()},
          {"proven_optimal", reorder.proven_optimal},
          {"method", reorder.method},
          {"states", reorder.states},
          {"used", job.order_used}};
  if (!job.order_used) doc["best_order_head_bytes"] = job.best_order_head_bytes;
  return doc;
}

std::string OrderText(const PlanJob& job) {
  const ReorderResult& reorder = *job.reorder;
  std::string ops;
  for (size_t i = 0; i < reorder.order.size(); ++i) ops += (i == 0 ? "" : " ") + std::to_string(reorder.order[i]);
  std::string text =
      "order        best: peak " + Bytes(reorder.peak_bytes) + " vs " + Bytes(reorder.stored_peak_bytes) +
      " in the stored order (" + Bytes(reorder.saved_bytes()) + " saved; " +
      (reorder.proven_optimal ? "proven optimal over all valid orders" : "not proven optimal: " + reorder.note) + ")\n";
  text += "             ops in order: " + Clip(ops, 84) + "\n";
  if (!job.order_used) {
    text += "             not used: tiled in the stored order the head is no larger (" + Bytes(job.plan.head_bytes) +
            " vs " + Bytes(job.best_order_head_bytes) + " in the best order); every figure below is for\n"
            "             the stored order\n\n";
  } else if (job.planned_file) {
    text +=
        "             (every figure below is for the model with its ops stored in this order, op numbers\n"
        "              included: microarena optimize MODEL -o OUT.tflite --order best --tile)\n\n";
  } else {
    text +=
        "             (runtime figures below are for the model with its ops stored in this order:\n"
        "              microarena optimize MODEL -o OUT.tflite --order best)\n\n";
  }
  return text;
}

}  // namespace microarena::report
