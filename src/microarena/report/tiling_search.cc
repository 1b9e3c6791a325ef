#include "microarena/report/tiling_search.h"

#include <algorithm>

#include <fmt/format.h>

#include "microarena/plan/greedy.h"
#include "microarena/plan/optimal.h"
#include "microarena/report/format.h"
#include "microarena/plan/lower_bound.h"

namespace microarena::report {
namespace {

// Exact plans of the most promising candidates: each under this many
// search nodes (deterministic), at most kExactCandidates per round.
constexpr uint64_t kExactNodeLimit = 20000;
constexpr size_t kExactCandidates = 24;

struct Evaluator {
  const ModelView& model;
  const TilingSearchOptions& options;
  std::vector<BufferRequest> base;  // the untiled problem
  std::vector<BufferRequest> buffers;
  std::vector<OverlapPermission> permissions;
  std::vector<uint8_t> workspace;
  std::vector<size_t> offsets;
  PlanningProblem problem;
  GreedyPlanner greedy;

  // The problem with `segments` applied, or an error when they cannot be tiled.
  Status Build(const std::vector<TiledSegment>& segments) {
    buffers = base;
    const Span<const TiledSegment> tiling(segments.data(), segments.size());
    MICROARENA_RETURN_IF_ERROR(
        ApplyTiling(model, tiling, options.alignment_bytes, Span<BufferRequest>(buffers.data(), buffers.size())));
    problem = PlanningProblem();
    problem.buffers = Span<const BufferRequest>(buffers.data(), buffers.size());
    problem.alignment_bytes = options.alignment_bytes;
    if (options.overlap) {
      MICROARENA_ASSIGN_OR_RETURN(
          permissions, PermissionsUnderTiling(model, tiling, problem.buffers,
                                              Span<const OverlapDeclaration>(options.overlaps.data(), options.overlaps.size()),
                                              Span<const int32_t>()));
      problem.overlaps = Span<const OverlapPermission>(permissions.data(), permissions.size());
    }
    offsets.resize(buffers.size());
    return OkStatus();
  }

  Result<size_t> Plan(const Planner& planner) {
    workspace.resize(std::max(planner.WorkspaceBytesFor(problem), LowerBoundWorkspaceBytes(buffers.size())));
    PlanSummary summary;
    MICROARENA_RETURN_IF_ERROR(planner.Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
                                            Span<size_t>(offsets.data(), offsets.size()), &summary));
    return summary.head_bytes;
  }

  // The greedy head with `segments`.
  Result<size_t> Head(const std::vector<TiledSegment>& segments) {
    MICROARENA_RETURN_IF_ERROR(Build(segments));
    return Plan(greedy);
  }

  // Bytes x steps of the built problem: what a tiling frees away from the
  // peak, the tie-break between candidates of one head.
  uint64_t Area() const {
    uint64_t area = 0;
    for (const BufferRequest& b : buffers) area += uint64_t{b.size_bytes} * static_cast<uint64_t>(b.lifetime.length());
    return area;
  }

  // The least head any plan of the built problem can have.
  Result<size_t> LowerBound() {
    workspace.resize(LowerBoundWorkspaceBytes(buffers.size()));
    size_t bound = 0;
    MICROARENA_RETURN_IF_ERROR(
        ComputeOverlapLowerBound(problem, Span<uint8_t>(workspace.data(), workspace.size()), &bound));
    return bound;
  }
};

// A candidate the greedy planner could plan, with the bound below it.
struct Scored {
  std::vector<TiledSegment> segments;
  size_t greedy_head = 0;
  size_t lower_bound = 0;
  uint64_t area = 0;
};

// Rounds in a row that may add a segment without lowering the head, when it
// frees bytes elsewhere: two branches each set the peak, and only both tiled
// lower it. The best tiling found never keeps a plateau's segments unless a
// later one lowers the head, and then only those the head still needs.
constexpr size_t kPlateauMoves = 2;

bool Overlaps(const TiledSegment& a, int32_t first, int32_t last) { return first <= a.last_op && a.first_op <= last; }

}  // namespace

Result<std::vector<OverlapPermission>> PermissionsUnderTiling(const ModelView& model,
                                                              Span<const TiledSegment> tiling,
                                                              Span<const BufferRequest> buffers,
                                                              Span<const OverlapDeclaration> declarations,
                                                              Span<const int32_t> order) {
  std::vector<OverlapPermission> permissions(declarations.size());
  MICROARENA_ASSIGN_OR_RETURN(size_t permitted,
                              ResolveOverlaps(model, buffers, declarations, order,
                                              Span<OverlapPermission>(permissions.data(), permissions.size())));
  permissions.resize(permitted);
  if (tiling.empty()) return permissions;
  const auto tiled = [&](uint32_t buffer) {
    const BufferRequest& request = buffers[buffer];
    return request.kind == BufferKind::kTensor && IsTiledTensor(model, tiling, request.owner_index);
  };
  permissions.erase(std::remove_if(permissions.begin(), permissions.end(),
                                   [&](const OverlapPermission& p) { return tiled(p.input_buffer) || tiled(p.output_buffer); }),
                    permissions.end());
  MICROARENA_ASSIGN_OR_RETURN(size_t most, TilingOverlapCount(model, tiling));
  const size_t kept = permissions.size();
  permissions.resize(kept + most);
  MICROARENA_ASSIGN_OR_RETURN(size_t added,
                              TilingOverlaps(model, tiling, buffers, Span<OverlapPermission>(permissions.data() + kept, most)));
  permissions.resize(kept + added);
  return permissions;
}

namespace {

// The untiled figures every tiling is measured against: the greedy head, the
// exact one (with options.exact) and the lower bound.
Status StartChoice(const ModelView& model, const TilingSearchOptions& options, Evaluator& evaluator,
                   const Planner& exact, TilingChoice& choice) {
  if (model.subgraph_count() != 1) {
    return Status::Error(ErrorCode::kUnsupported, "tiling needs a model with one subgraph (this one has %zu)",
                         model.subgraph_count());
  }
  LifetimeOptions lifetime_options;
  lifetime_options.alignment_bytes = options.alignment_bytes;
  evaluator.base.resize(LifetimeCapacity(model, options.scratch.size()));
  MICROARENA_ASSIGN_OR_RETURN(
      size_t count, AnalyzeLifetimes(model, 0, Span<const ScratchRequest>(options.scratch.data(), options.scratch.size()),
                                     lifetime_options, Span<BufferRequest>(evaluator.base.data(), evaluator.base.size())));
  evaluator.base.resize(count);
  MICROARENA_ASSIGN_OR_RETURN(choice.untiled_head_bytes, evaluator.Head({}));
  std::vector<uint8_t> bound_workspace(LowerBoundWorkspaceBytes(count));
  MICROARENA_RETURN_IF_ERROR(ComputeLowerBound(Span<const BufferRequest>(evaluator.base.data(), count),
                                               Span<uint8_t>(bound_workspace.data(), bound_workspace.size()),
                                               &choice.untiled_lower_bound_bytes));
  choice.head_bytes = choice.untiled_head_bytes;
  // A tiling must beat the untiled model as the same planner plans it.
  if (options.exact) {
    Result<size_t> untiled = evaluator.Plan(exact);  // the problem Head({}) built
    ++choice.exact_plans;
    if (untiled.ok()) choice.head_bytes = std::min(choice.head_bytes, *untiled);
  }
  return OkStatus();
}

OptimalOptions ExactOptions() {
  OptimalOptions exact_options;
  exact_options.time_limit_seconds = 0;
  exact_options.node_limit = kExactNodeLimit;
  return exact_options;
}

}  // namespace

Result<TilingChoice> EvaluateTiling(const ModelView& model, const TilingSearchOptions& options,
                                    Span<const TiledSegment> segments) {
  Evaluator evaluator{model, options, {}, {}, {}, {}, {}, {}, {}};
  const OptimalPlanner exact(ExactOptions());
  TilingChoice choice;
  MICROARENA_RETURN_IF_ERROR(StartChoice(model, options, evaluator, exact, choice));
  choice.segments.assign(segments.begin(), segments.end());
  choice.stored = true;
  MICROARENA_ASSIGN_OR_RETURN(choice.head_bytes, evaluator.Head(choice.segments));
  if (options.exact) {
    Result<size_t> head = evaluator.Plan(exact);
    ++choice.exact_plans;
    if (head.ok()) choice.head_bytes = std::min(choice.head_bytes, *head);
  }
  return choice;
}

Result<TilingChoice> ChooseTiling(const ModelView& model, const TilingSearchOptions& options) {
  Evaluator evaluator{model, options, {}, {}, {}, {}, {}, {}, {}};
  const OptimalPlanner exact(ExactOptions());
  TilingChoice choice;
  MICROARENA_RETURN_IF_ERROR(StartChoice(model, options, evaluator, exact, choice));

  const auto op_count = static_cast<int32_t>(model.subgraph(0).operator_count());
  std::vector<bool> can_band(static_cast<size_t>(op_count));
  for (int32_t o = 0; o < op_count; ++o) {
    BandOp band_op;
    can_band[static_cast<size_t>(o)] = DescribeBandOp(model, o, &band_op).ok();
  }
  // The search moves through `current`; `choice` keeps the best found.
  std::vector<TiledSegment> current;
  size_t current_head = choice.head_bytes;
  MICROARENA_RETURN_IF_ERROR(evaluator.Build(current));
  uint64_t current_area = evaluator.Area();
  size_t plateau_moves = 0;
  bool kept_plateau_move = false;
  while (current.size() < options.max_segments) {
    std::vector<Scored> scored;
    for (int32_t first = 0; first < op_count; ++first) {
      if (!can_band[static_cast<size_t>(first)]) continue;
      for (int32_t last = first; last < op_count && can_band[static_cast<size_t>(last)] &&
                                 static_cast<size_t>(last - first) < kMaxSegmentOps;
           ++last) {
        bool clash = false;
        for (const TiledSegment& chosen : current) clash |= Overlaps(chosen, first, last);
        if (clash) break;
        for (int32_t rows : options.band_rows) {
          std::vector<TiledSegment> candidate = current;
          candidate.push_back(TiledSegment{first, last, rows});
          std::sort(candidate.begin(), candidate.end(),
                    [](const TiledSegment& a, const TiledSegment& b) { return a.first_op < b.first_op; });
          Result<size_t> head = evaluator.Head(candidate);
          ++choice.candidates;
          if (!head.ok()) break;  // this segment cannot be tiled at any height
          MICROARENA_ASSIGN_OR_RETURN(size_t bound, evaluator.LowerBound());
          scored.push_back(Scored{std::move(candidate), *head, bound, evaluator.Area()});
        }
      }
    }
    // The greedy planner's best, strictly smaller than the best head found.
    // Candidates listed earlier win ties: shorter segments, then fewer rows.
    std::vector<TiledSegment> best = current;
    size_t best_head = choice.head_bytes;
    for (const Scored& candidate : scored) {
      if (candidate.greedy_head < best_head) {
        best_head = candidate.greedy_head;
        best = candidate.segments;
      }
    }
    // The greedy planner can miss a tiling's best plan (with overlap: a sink
    // inside its consumed input); the exact planner, under a node limit,
    // plans the candidates whose lower bound leaves the most room, while it
    // may still beat the best head.
    std::stable_sort(scored.begin(), scored.end(),
                     [](const Scored& a, const Scored& b) { return a.lower_bound < b.lower_bound; });
    for (size_t i = 0; options.exact && i < scored.size() && i < kExactCandidates && scored[i].lower_bound < best_head;
         ++i) {
      if (scored[i].greedy_head == scored[i].lower_bound) continue;  // nothing to gain
      MICROARENA_RETURN_IF_ERROR(evaluator.Build(scored[i].segments));
      Result<size_t> head = evaluator.Plan(exact);
      ++choice.exact_plans;
      if (head.ok() && *head < best_head) {
        best_head = *head;
        best = scored[i].segments;
      }
    }
    if (best_head < choice.head_bytes) {
      kept_plateau_move |= plateau_moves > 0;
      choice.segments = best;
      choice.head_bytes = best_head;
      current = std::move(best);
      current_head = best_head;
      MICROARENA_RETURN_IF_ERROR(evaluator.Build(current));
      current_area = evaluator.Area();
      plateau_moves = 0;
      continue;
    }
    // No candidate lowers the head: move to the one of no greater head that
    // frees the most bytes x steps, a few times at most.
    if (plateau_moves == kPlateauMoves) break;
    const Scored* plateau = nullptr;
    for (const Scored& candidate : scored) {
      if (candidate.greedy_head <= current_head && candidate.area < current_area &&
          (plateau == nullptr || candidate.area < plateau->area)) {
        plateau = &candidate;
      }
    }
    if (plateau == nullptr) break;
    current = plateau->segments;
    current_head = plateau->greedy_head;
    current_area = plateau->area;
    ++plateau_moves;
  }
  // A segment added on a plateau may have become unneeded by a later one:
  // drop each segment whose removal does not raise the head (fewer bands
  // to run, less walk memory).
  for (size_t i = choice.segments.size(); kept_plateau_move && i-- > 0;) {
    std::vector<TiledSegment> fewer = choice.segments;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
    MICROARENA_ASSIGN_OR_RETURN(size_t head, evaluator.Head(fewer));
    if (options.exact && head > choice.head_bytes) {
      Result<size_t> exact_head = evaluator.Plan(exact);
      ++choice.exact_plans;
      if (exact_head.ok()) head = std::min(head, *exact_head);
    }
    if (head <= choice.head_bytes) {
      choice.segments = std::move(fewer);
      choice.head_bytes = head;
    }
  }
  return choice;
}

namespace {

}  // namespace

std::vector<TilingWindow> SegmentWindows(const ModelView& model, const TiledSegment& segment) {
  std::vector<TilingWindow> windows;
  BoundedSegmentWalk walk;
  if (!walk.Start(model, segment).ok() || !WindowRowsOf(walk).ok()) return windows;
  const Span<int32_t> rows = walk.window_rows();
  for (size_t s = 0; s < rows.size(); ++s) {
    const SegmentTensor& t = walk.tensors()[s];
    if (t.role != SegmentRole::kWindow) continue;
    const size_t whole = model.subgraph(0).tensor(static_cast<size_t>(t.tensor)).byte_size();
    windows.push_back({t.tensor, rows[s], t.height, whole / static_cast<size_t>(t.height) * static_cast<size_t>(rows[s])});
  }
  return windows;
}

int32_t SegmentBands(const ModelView& model, const TiledSegment& segment) {
  BoundedSegmentWalk walk;
  if (!walk.Start(model, segment).ok()) return 0;
  for (const SegmentTensor& t : walk.tensors()) {
    if (t.role == SegmentRole::kSink) return (t.height + segment.band_rows - 1) / segment.band_rows;
  }
  return 0;
}

std::string SegmentLabel(const ModelView& model, const TiledSegment& segment) {
  return fmt::format("ops {}-{} in {} bands of {} row{}", segment.first_op, segment.last_op,
                     SegmentBands(model, segment), segment.band_rows, segment.band_rows == 1 ? "" : "s");
}

namespace {

double PercentBelow(size_t value, size_t reference) {
  if (reference == 0) return 0.0;
  return 100.0 * (static_cast<double>(reference) - static_cast<double>(value)) / static_cast<double>(reference);
}

}  // namespace

namespace {

// What the plan of a tiling proves: the head is the least any plan of the
// tiled problem can have, or a heuristic's.
std::string PlanProof(const ModelPlan& plan) {
  if (plan.proven_optimal) return "proven optimal for this tiling (" + plan.planner + " planner)";
  if (plan.planner == "optimal") return "not proven optimal for this tiling (the optimal planner stopped at its limit)";
  return "heuristic (" + plan.planner + " planner), not proven optimal for this tiling";
}

// What the search proves of the tiling itself.
const char* TilingProof(const TilingChoice& choice) {
  return choice.stored ? "the model's own, not searched"
                       : "searched (segments x rows per band, segment by segment), not proven the best tiling";
}

}  // namespace

std::string TilingText(const ModelView& model, const TilingChoice& choice, const ModelPlan& plan) {
  const size_t head_bytes = plan.head_bytes;
  std::string out = fmt::format("\nTiling ({}; line buffers: no row computed twice, 0 extra MACs)\n",
                                choice.stored ? "carried in the model, microarena.Tiling" : "--tile");
  if (choice.segments.empty()) {
    out += fmt::format("  no segment makes the head smaller ({} tilings planned); the model runs whole\n",
                       choice.candidates);
    return out;
  }
  const SubgraphView subgraph = model.subgraph(0);
  for (const TiledSegment& segment : choice.segments) {
    out += fmt::format("  ops {}-{} ({} .. {}), {} row{} per band\n", segment.first_op, segment.last_op,
                       subgraph.op(static_cast<size_t>(segment.first_op)).name(),
                       subgraph.op(static_cast<size_t>(segment.last_op)).name(), segment.band_rows,
                       segment.band_rows == 1 ? "" : "s");
    for (const TilingWindow& w : SegmentWindows(model, segment)) {
      out += fmt::format("    tensor {:>4}  window {:>3} of {:>4} rows  {:>10}\n", w.tensor, w.rows, w.height,
                         Bytes(w.bytes));
    }
  }
  if (choice.stored) {
    out += fmt::format("  head (as stored)  {} untiled (greedy) -> {} tiled (the model's own tiling, not searched)\n",
                       Bytes(choice.untiled_head_bytes), Bytes(choice.head_bytes));
  } else {
    out += fmt::format("  head (search)     {} untiled (greedy) -> {} tiled ({} tilings planned greedily, {} of them "
                       "again exactly)\n",
                       Bytes(choice.untiled_head_bytes), Bytes(choice.head_bytes), choice.candidates,
                       choice.exact_plans);
  }
  const double below = PercentBelow(head_bytes, choice.untiled_lower_bound_bytes);
  out += fmt::format("  head (this plan)  {}: {:.1f}% {} the untiled lower bound {}\n", Bytes(head_bytes),
                     below < 0 ? -below : below, below < 0 ? "above" : "below", Bytes(choice.untiled_lower_bound_bytes));
  out += fmt::format("  proven            the plan: {}\n                    the tiling: {}\n", PlanProof(plan),
                     TilingProof(choice));
  return out;
}

nlohmann::json TilingJson(const ModelView& model, const TilingChoice& choice, const ModelPlan& plan) {
  nlohmann::json segments = nlohmann::json::array();
  for (const TiledSegment& segment : choice.segments) {
    nlohmann::json windows = nlohmann::json::array();
    for (const TilingWindow& w : SegmentWindows(model, segment)) {
      windows.push_back({{"tensor", w.tensor}, {"rows", w.rows}, {"height", w.height}, {"bytes", w.bytes}});
    }
    segments.push_back({{"first_op", segment.first_op},
                        {"last_op", segment.last_op},
                        {"band_rows", segment.band_rows},
                        {"windows", windows}});
  }
  return {{"segments", segments},
          {"mode", "line_buffers"},
          {"extra_macs", choice.extra_macs},
          {"search_head_bytes", choice.head_bytes},
          {"untiled_greedy_head_bytes", choice.untiled_head_bytes},
          {"untiled_lower_bound_bytes", choice.untiled_lower_bound_bytes},
          {"head_bytes", plan.head_bytes},
          {"plan_proven_optimal", plan.proven_optimal},
          {"tiling_proven_best", false},
          {"candidates", choice.candidates},
          {"exact_plans", choice.exact_plans},
          {"stored", choice.stored}};
}

}  // namespace microarena::report
