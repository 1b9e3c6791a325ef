#include "microarena/report/tiling_search.h"

#include <algorithm>

#include <fmt/format.h>

#include "microarena/plan/greedy.h"
#include "microarena/report/format.h"
#include "microarena/plan/lower_bound.h"

namespace microarena::report {
namespace {

struct Evaluator {
  const ModelView& model;
  size_t alignment_bytes;
  std::vector<BufferRequest> base;  // the untiled problem
  std::vector<BufferRequest> buffers;
  std::vector<uint8_t> workspace;
  std::vector<size_t> offsets;
  GreedyPlanner greedy;

  // The greedy head with `segments`, or an error when they cannot be tiled.
  Result<size_t> Head(const std::vector<TiledSegment>& segments) {
    buffers = base;
    MICROARENA_RETURN_IF_ERROR(ApplyTiling(model, Span<const TiledSegment>(segments.data(), segments.size()),
                                           alignment_bytes, Span<BufferRequest>(buffers.data(), buffers.size())));
    PlanningProblem problem;
    problem.buffers = Span<const BufferRequest>(buffers.data(), buffers.size());
    problem.alignment_bytes = alignment_bytes;
    workspace.resize(greedy.WorkspaceBytesFor(problem));
    offsets.resize(buffers.size());
    PlanSummary summary;
    MICROARENA_RETURN_IF_ERROR(greedy.Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
                                           Span<size_t>(offsets.data(), offsets.size()), &summary));
    return summary.head_bytes;
  }
};

bool Overlaps(const TiledSegment& a, int32_t first, int32_t last) { return first <= a.last_op && a.first_op <= last; }

}  // namespace

Result<TilingChoice> ChooseTiling(const ModelView& model, const TilingSearchOptions& options) {
  if (model.subgraph_count() != 1) {
    return Status::Error(ErrorCode::kUnsupported, "tiling needs a model with one subgraph (this one has %zu)",
                         model.subgraph_count());
  }
  Evaluator evaluator{model, options.alignment_bytes, {}, {}, {}, {}, {}};
  LifetimeOptions lifetime_options;
  lifetime_options.alignment_bytes = options.alignment_bytes;
  evaluator.base.resize(LifetimeCapacity(model, options.scratch.size()));
  MICROARENA_ASSIGN_OR_RETURN(
      size_t count, AnalyzeLifetimes(model, 0, Span<const ScratchRequest>(options.scratch.data(), options.scratch.size()),
                                     lifetime_options, Span<BufferRequest>(evaluator.base.data(), evaluator.base.size())));
  evaluator.base.resize(count);

  TilingChoice choice;
  MICROARENA_ASSIGN_OR_RETURN(choice.untiled_head_bytes, evaluator.Head({}));
  std::vector<uint8_t> bound_workspace(LowerBoundWorkspaceBytes(count));
  MICROARENA_RETURN_IF_ERROR(ComputeLowerBound(Span<const BufferRequest>(evaluator.base.data(), count),
                                               Span<uint8_t>(bound_workspace.data(), bound_workspace.size()),
                                               &choice.untiled_lower_bound_bytes));
  choice.head_bytes = choice.untiled_head_bytes;

  const auto op_count = static_cast<int32_t>(model.subgraph(0).operator_count());
  std::vector<bool> can_band(static_cast<size_t>(op_count));
  for (int32_t o = 0; o < op_count; ++o) {
    BandOp band_op;
    can_band[static_cast<size_t>(o)] = DescribeBandOp(model, o, &band_op).ok();
  }
  while (choice.segments.size() < options.max_segments) {
    bool improved = false;
    std::vector<TiledSegment> best = choice.segments;
    size_t best_head = choice.head_bytes;
    for (int32_t first = 0; first < op_count; ++first) {
      if (!can_band[static_cast<size_t>(first)]) continue;
      for (int32_t last = first; last < op_count && can_band[static_cast<size_t>(last)] &&
                                 static_cast<size_t>(last - first) < kMaxSegmentOps;
           ++last) {
        bool clash = false;
        for (const TiledSegment& chosen : choice.segments) clash |= Overlaps(chosen, first, last);
        if (clash) break;
        for (int32_t rows : options.band_rows) {
          std::vector<TiledSegment> candidate = choice.segments;
          candidate.push_back(TiledSegment{first, last, rows});
          std::sort(candidate.begin(), candidate.end(),
                    [](const TiledSegment& a, const TiledSegment& b) { return a.first_op < b.first_op; });
          Result<size_t> head = evaluator.Head(candidate);
          ++choice.candidates;
          if (!head.ok()) break;  // this segment cannot be tiled at any height
          // Strictly smaller, or as small with taller bands (fewer calls).
          if (*head < best_head) {
            best_head = *head;
            best = candidate;
            improved = true;
          }
        }
      }
    }
    if (!improved) break;
    choice.segments = best;
    choice.head_bytes = best_head;
  }
  return choice;
}

namespace {

struct WindowFigure {
  int32_t tensor = 0;
  int32_t rows = 0;
  int32_t height = 0;
  size_t bytes = 0;
};

std::vector<WindowFigure> WindowsOf(const ModelView& model, const TiledSegment& segment) {
  std::vector<WindowFigure> windows;
  SegmentWalk walk;
  if (!walk.Start(model, segment).ok()) return windows;
  std::vector<int32_t> rows(walk.tensors().size());
  if (!WindowRowsOf(walk, Span<int32_t>(rows.data(), rows.size())).ok()) return windows;
  for (size_t s = 0; s < rows.size(); ++s) {
    const SegmentTensor& t = walk.tensors()[s];
    if (t.role != SegmentRole::kWindow) continue;
    const size_t whole = model.subgraph(0).tensor(static_cast<size_t>(t.tensor)).byte_size();
    windows.push_back({t.tensor, rows[s], t.height, whole / static_cast<size_t>(t.height) * static_cast<size_t>(rows[s])});
  }
  return windows;
}

double PercentBelow(size_t value, size_t reference) {
  if (reference == 0) return 0.0;
  return 100.0 * (static_cast<double>(reference) - static_cast<double>(value)) / static_cast<double>(reference);
}

}  // namespace

std::string TilingText(const ModelView& model, const TilingChoice& choice, size_t head_bytes) {
  std::string out = "\nTiling (--tile; line buffers: no row computed twice, 0 extra MACs)\n";
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
    for (const WindowFigure& w : WindowsOf(model, segment)) {
      out += fmt::format("    tensor {:>4}  window {:>3} of {:>4} rows  {:>10}\n", w.tensor, w.rows, w.height,
                         Bytes(w.bytes));
    }
  }
  out += fmt::format("  head (greedy)     {} untiled -> {} tiled ({} tilings planned)\n",
                     Bytes(choice.untiled_head_bytes), Bytes(choice.head_bytes), choice.candidates);
  out += fmt::format("  head (this plan)  {}: {:.1f}% below the untiled lower bound {}\n", Bytes(head_bytes),
                     PercentBelow(head_bytes, choice.untiled_lower_bound_bytes), Bytes(choice.untiled_lower_bound_bytes));
  return out;
}

nlohmann::json TilingJson(const ModelView& model, const TilingChoice& choice, size_t head_bytes) {
  nlohmann::json segments = nlohmann::json::array();
  for (const TiledSegment& segment : choice.segments) {
    nlohmann::json windows = nlohmann::json::array();
    for (const WindowFigure& w : WindowsOf(model, segment)) {
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
          {"greedy_head_bytes", choice.head_bytes},
          {"untiled_greedy_head_bytes", choice.untiled_head_bytes},
          {"untiled_lower_bound_bytes", choice.untiled_lower_bound_bytes},
          {"head_bytes", head_bytes},
          {"candidates", choice.candidates}};
}

}  // namespace microarena::report
