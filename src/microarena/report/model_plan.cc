#include "microarena/report/model_plan.h"

#include <algorithm>

#include <chrono>
#include <map>
#include <set>
#include <utility>

#include "microarena/analysis/offline_plan.h"
#include "microarena/model/call_graph.h"
#include "microarena/plan/check.h"
#include "microarena/plan/greedy.h"
#include "microarena/plan/greedy_tflm.h"
#include "microarena/plan/linear.h"
#include "microarena/plan/lower_bound.h"
#include "microarena/report/tiling_search.h"

namespace microarena::report {
namespace {

struct PlannedHead {
  size_t head_bytes = 0;
  bool proven_optimal = false;
};

// Runs a device planner with a workspace of the size it asks for.
Result<PlannedHead> RunDevicePlanner(const Planner& planner, const PlanningProblem& problem,
                                     std::vector<size_t>& offsets) {
  std::vector<uint8_t> workspace(planner.WorkspaceBytesFor(problem));
  offsets.assign(problem.buffers.size(), 0);
  PlanSummary summary;
  MICROARENA_RETURN_IF_ERROR(planner.Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
                                          Span<size_t>(offsets.data(), offsets.size()), &summary));
  return PlannedHead{summary.head_bytes, summary.proven_optimal};
}

}  // namespace

namespace {

class StepLister final : public CallGraphVisitor {
 public:
  explicit StepLister(std::vector<StepOp>* steps) : steps_(steps) {}
  // Our step is TFLM's scope - 1: scope 0 (subgraph 0's entry) has none.
  Status Enter(size_t subgraph, int32_t scope) override {
    if (scope > 0) steps_->push_back(StepOp{static_cast<int32_t>(subgraph), -1});
    return OkStatus();
  }
  Status OpBegin(size_t subgraph, size_t op, int32_t op_scope) override {
    (void)op_scope;
    steps_->push_back(StepOp{static_cast<int32_t>(subgraph), static_cast<int32_t>(op)});
    return OkStatus();
  }

 private:
  std::vector<StepOp>* steps_;
};

}  // namespace

std::vector<StepOp> ListSteps(const ModelView& model) {
  std::vector<StepOp> steps;
  StepLister lister(&steps);
  Result<int32_t> walked = WalkCallGraph(model, lister);
  if (!walked.ok()) steps.clear();  // LoadModel walked the same model: cannot fail
  return steps;
}

std::vector<std::string> ProblemCsvIds(const std::vector<BufferRequest>& buffers) {
  std::vector<std::string> ids;
  ids.reserve(buffers.size());
  std::map<std::pair<int32_t, int32_t>, int> scratch_seen;  // (subgraph, op) -> scratch buffers so far
  std::set<std::string> used;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const BufferRequest& b = buffers[i];
    std::string id = b.subgraph_index != 0 ? "s" + std::to_string(b.subgraph_index) + "_" : "";
    if (b.kind == BufferKind::kScratch) {
      const int k = scratch_seen[{b.subgraph_index, b.owner_index}]++;
      id += "op" + std::to_string(b.owner_index) + "_scratch" + (k == 0 ? "" : std::to_string(k));
    } else {
      id += "t" + std::to_string(b.owner_index);
    }
    // A buffer the rules above name twice (not made by the planner today)
    // still gets its own id: its index.
    if (!used.insert(id).second) {
      id += "_b" + std::to_string(i);
      used.insert(id);
    }
    ids.push_back(std::move(id));
  }
  return ids;
}

Result<std::vector<int32_t>> OfflineOffsets(const ModelView& model, const ModelPlan& plan) {
  std::vector<int32_t> offsets(TotalTensorCount(model), -1);
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& b = plan.buffers[i];
    if (b.kind != BufferKind::kTensor) continue;  // scratch: planned online around the fixed tensors, as TFLM does
    if (plan.offsets_bytes[i] > INT32_MAX) {
      return Status::Error(ErrorCode::kUnsupported, "subgraph %d, tensor %d at offset %zu does not fit int32",
                           b.subgraph_index, b.owner_index, plan.offsets_bytes[i]);
    }
    offsets[FirstTensorOf(model, static_cast<size_t>(b.subgraph_index)) + static_cast<size_t>(b.owner_index)] =
        static_cast<int32_t>(plan.offsets_bytes[i]);
  }
  return offsets;
}

const std::vector<std::string>& ModelPlannerNames() {
  static const std::vector<std::string> names = {"optimal", "greedy", "greedy-tflm", "linear", "offline"};
  return names;
}

double ModelPlan::gap_percent() const {
  if (lower_bound_bytes == 0) return 0.0;
  return 100.0 * (static_cast<double>(head_bytes) - static_cast<double>(lower_bound_bytes)) /
         static_cast<double>(lower_bound_bytes);
}

Result<ModelPlan> PlanModel(const ModelView& model, const ModelPlanOptions& options) {
  ModelPlan plan;
  plan.alignment_bytes = options.alignment_bytes;
  MICROARENA_ASSIGN_OR_RETURN(Span<const int32_t> offline, ReadOfflinePlan(model));
  bool from_overlap_plan = false;
  if (options.overlap) {
    // As the runtime does: with overlap, microarena's overlap plan comes first.
    MICROARENA_ASSIGN_OR_RETURN(Span<const int32_t> overlap_plan, ReadOfflinePlan(model, kOverlapPlanMetadataName));
    if (!overlap_plan.empty()) offline = overlap_plan;
    from_overlap_plan = !overlap_plan.empty();
  }
  // A plan stored in the model places whole maps; a tiling plans windows.
  if (!options.tiling.empty()) {
    if (options.planner == "offline") {
      return Status::Error(ErrorCode::kUnsupported,
                           "planner 'offline' with a tiling: the model's offline plan places whole maps, a tiling "
                           "plans windows (use another planner)");
    }
    offline = Span<const int32_t>();
    from_overlap_plan = false;
  }
  plan.has_offline_plan = !offline.empty();
  plan.planner = options.planner.empty() ? (plan.has_offline_plan ? "offline" : "optimal") : options.planner;
  bool known = false;
  for (const std::string& name : ModelPlannerNames()) known |= name == plan.planner;
  if (!known) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "unknown planner '%s' (use optimal, greedy, greedy-tflm, linear or offline)",
                         plan.planner.c_str());
  }
  if (plan.planner == "offline" && !plan.has_offline_plan) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "planner 'offline' needs OfflineMemoryAllocation metadata, which this model "
                         "does not have");
  }

  LifetimeOptions lifetime_options;
  lifetime_options.alignment_bytes = options.alignment_bytes;
  if (plan.planner == "offline") lifetime_options.fixed_offsets_bytes = offline;
  lifetime_options.order = Span<const int32_t>(options.order.data(), options.order.size());
  plan.buffers.resize(LifetimeCapacity(model, options.scratch.size()));
  MICROARENA_ASSIGN_OR_RETURN(
      size_t count, AnalyzeLifetimes(model, 0,
                                     Span<const ScratchRequest>(options.scratch.data(), options.scratch.size()),
                                     lifetime_options, Span<BufferRequest>(plan.buffers.data(), plan.buffers.size())));
  plan.buffers.resize(count);
  plan.order = options.order;
  if (!options.tiling.empty()) {
    if (!options.order.empty()) {
      return Status::Error(ErrorCode::kUnsupported, "a tiling is planned in the stored operator order only");
    }
    MICROARENA_RETURN_IF_ERROR(ApplyTiling(model, Span<const TiledSegment>(options.tiling.data(), options.tiling.size()),
                                           options.alignment_bytes,
                                           Span<BufferRequest>(plan.buffers.data(), plan.buffers.size())));
    plan.tiling = options.tiling;
  }
  if (model.subgraph_count() > 1) plan.steps = ListSteps(model);
  size_t scratch_seen = 0;
  for (const BufferRequest& buffer : plan.buffers) {
    // A tiled window asks for its rows only (at most its aligned size).
    plan.requested_bytes.push_back(buffer.kind == BufferKind::kTensor
                                       ? std::min(buffer.size_bytes, model.subgraph(static_cast<size_t>(buffer.subgraph_index)).tensor(static_cast<size_t>(buffer.owner_index)).byte_size())
                                       : options.scratch[scratch_seen++].size_bytes);
  }
  std::vector<OverlapPermission> permissions;
  if (options.overlap) {
    MICROARENA_ASSIGN_OR_RETURN(
        permissions,
        PermissionsUnderTiling(model, Span<const TiledSegment>(options.tiling.data(), options.tiling.size()),
                               Span<const BufferRequest>(plan.buffers.data(), plan.buffers.size()),
                               Span<const OverlapDeclaration>(options.overlaps.data(), options.overlaps.size()),
                               lifetime_options.order));
  }
  PlanningProblem problem;
  problem.buffers = Span<const BufferRequest>(plan.buffers.data(), plan.buffers.size());
  problem.alignment_bytes = options.alignment_bytes;
  problem.overlaps = Span<const OverlapPermission>(permissions.data(), permissions.size());
  // The report shows what TFLM makes of the model: it trusts the model's
  // offline offsets, shared bytes included (counted below for the note).
  // microarena's overlap plan stays under the kernels' permissions.
  problem.trust_fixed_overlaps = !from_overlap_plan;

  std::vector<uint8_t> bound_workspace(LowerBoundWorkspaceBytes(count));
  MICROARENA_RETURN_IF_ERROR(ComputeLowerBound(problem.buffers,
                                               Span<uint8_t>(bound_workspace.data(), bound_workspace.size()),
                                               &plan.lower_bound_bytes));
  MICROARENA_RETURN_IF_ERROR(ComputeOverlapLowerBound(
      problem, Span<uint8_t>(bound_workspace.data(), bound_workspace.size()), &plan.overlap_lower_bound_bytes));

  static const LinearPlanner linear;
  static const GreedyTflmPlanner greedy_tflm;
  static const GreedyPlanner greedy;
  auto start = std::chrono::steady_clock::now();
  if (plan.planner == "optimal") {
    OptimalOptions optimal_options;
    optimal_options.time_limit_seconds = options.time_limit_seconds;
    optimal_options.progress = options.progress;
    OptimalPlanner optimal(optimal_options);
    plan.offsets_bytes.assign(count, 0);
    MICROARENA_ASSIGN_OR_RETURN(OptimalResult result,
                                optimal.Solve(problem, Span<size_t>(plan.offsets_bytes.data(), count)));
    plan.head_bytes = result.head_bytes;
    plan.proven_optimal = result.proven_optimal;
  } else {
    const Planner& planner = plan.planner == "linear"   ? static_cast<const Planner&>(linear)
                             : plan.planner == "greedy" ? static_cast<const Planner&>(greedy)
                                                        : static_cast<const Planner&>(greedy_tflm);
    MICROARENA_ASSIGN_OR_RETURN(PlannedHead head, RunDevicePlanner(planner, problem, plan.offsets_bytes));
    plan.head_bytes = head.head_bytes;
    plan.proven_optimal = head.proven_optimal || plan.head_bytes == plan.overlap_lower_bound_bytes;
  }
  plan.plan_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  Status check = CheckPlan(problem, Span<const size_t>(plan.offsets_bytes.data(), count), plan.head_bytes);
  if (!check.ok()) {
    return Status::Error(ErrorCode::kInternal, "planner '%s' produced an invalid plan: %s", plan.planner.c_str(),
                         check.message());
  }

  for (size_t a = 0; a < count; ++a) {
    for (size_t b = a + 1; b < count; ++b) {
      const BufferRequest& first = plan.buffers[a];
      const BufferRequest& second = plan.buffers[b];
      if (first.fixed_offset_bytes == kNoFixedOffset || second.fixed_offset_bytes == kNoFixedOffset) continue;
      if (first.size_bytes == 0 || second.size_bytes == 0 || !first.lifetime.Overlaps(second.lifetime)) continue;
      if (plan.offsets_bytes[a] + first.size_bytes <= plan.offsets_bytes[b] ||
          plan.offsets_bytes[b] + second.size_bytes <= plan.offsets_bytes[a]) {
        continue;
      }
      if (plan.offline_shared_pairs++ == 0) plan.offline_shared_example[0] = first.owner_index;
      if (plan.offline_shared_pairs == 1) plan.offline_shared_example[1] = second.owner_index;
    }
  }

  for (const OverlapPermission& permission : permissions) {
    PlannedOverlap overlap;
    overlap.input_buffer = permission.input_buffer;
    overlap.output_buffer = permission.output_buffer;
    overlap.input_tensor = plan.buffers[permission.input_buffer].owner_index;
    overlap.output_tensor = plan.buffers[permission.output_buffer].owner_index;
    overlap.min_displacement_bytes = permission.min_displacement_bytes;
    const size_t input_begin = plan.offsets_bytes[permission.input_buffer];
    const size_t output_begin = plan.offsets_bytes[permission.output_buffer];
    overlap.used = input_begin < output_begin + plan.buffers[permission.output_buffer].size_bytes &&
                   output_begin < input_begin + plan.buffers[permission.input_buffer].size_bytes;
    plan.overlaps.push_back(overlap);
  }

  if (options.compare) {
    // The comparison plans ignore any offline offsets: they show what each
    // planner would do on its own.
    std::vector<BufferRequest> free_buffers = plan.buffers;
    for (BufferRequest& buffer : free_buffers) buffer.fixed_offset_bytes = kNoFixedOffset;
    PlanningProblem free_problem;
    free_problem.buffers = Span<const BufferRequest>(free_buffers.data(), free_buffers.size());
    free_problem.alignment_bytes = options.alignment_bytes;
    free_problem.overlaps = problem.overlaps;
    for (const Planner* planner : {static_cast<const Planner*>(&linear), static_cast<const Planner*>(&greedy_tflm),
                                   static_cast<const Planner*>(&greedy)}) {
      std::vector<size_t> offsets;
      MICROARENA_ASSIGN_OR_RETURN(PlannedHead head, RunDevicePlanner(*planner, free_problem, offsets));
      MICROARENA_RETURN_IF_ERROR(
          CheckPlan(free_problem, Span<const size_t>(offsets.data(), offsets.size()), head.head_bytes));
      plan.comparison.push_back({planner->name(), head.head_bytes});
    }
  }
  return plan;
}

}  // namespace microarena::report
