#include "microarena/report/timeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "microarena/report/format.h"
#include "microarena/report/plan_details.h"
#include "microarena/report/tiling_search.h"

namespace microarena::report {
namespace {

constexpr const char kCharacters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr size_t kCharacterCount = sizeof(kCharacters) - 1;
constexpr size_t kStepWidth = 4;
constexpr size_t kOpWidth = 17;
constexpr size_t kMinLiveWidth = 10;  // "live" column: at least "999,999 B"
constexpr size_t kMinChartColumns = 20;

}  // namespace

char TimelineCharacter(size_t index) { return kCharacters[index % kCharacterCount]; }

std::string PlanTimeline(const ModelView& model, const ModelPlan& plan, const TimelineOptions& options) {
  const PlanDetails details = AnalyzePlan(model, plan);
  // "step op | chart | live <- peak ~ N bands": the labels take the fixed
  // widths, the marks after the live bytes at most " <- peak" and a tiled
  // segment's first-row mark.
  size_t marks_width = 8;
  size_t tiled_mark = 0;
  for (const TiledSegment& segment : plan.tiling) {
    tiled_mark = std::max(tiled_mark, fmt::format(" ~ {} bands", SegmentBands(model, segment)).size());
  }
  marks_width += tiled_mark;
  // The live column fits the largest step's bytes ("1,234,567 B" is 11).
  size_t live_width = kMinLiveWidth;
  for (const StepLive& step : details.steps) {
    live_width = std::max(live_width, Thousands(step.total_bytes()).size() + 2);
  }
  const size_t fixed = kStepWidth + 1 + kOpWidth + 2 + 1 + live_width + marks_width;
  const size_t chart = options.columns > fixed + kMinChartColumns ? options.columns - fixed : kMinChartColumns;
  const size_t head = std::max<size_t>(plan.head_bytes, 1);
  const size_t bytes_per_column = (head + chart - 1) / chart;
  const size_t used_columns = (head + bytes_per_column - 1) / bytes_per_column;

  std::string out;
  out += fmt::format("Timeline: one row per op step, offsets across; 1 column = {}, head = {}\n",
                     Bytes(bytes_per_column), Bytes(plan.head_bytes));
  const std::string right = Bytes(plan.head_bytes);
  std::string axis = "0";
  if (used_columns > axis.size() + right.size()) axis += std::string(used_columns - axis.size() - right.size(), ' ');
  axis += right;
  // A tiled plan: its segments run band by band (rows marked '~'), and
  // their inner maps are windows (the legend says how many rows).
  std::vector<TilingWindow> windows;
  for (const TiledSegment& segment : plan.tiling) {
    out += fmt::format("Tiled: {} (rows marked ~): their inner maps are windows of rows\n",
                       SegmentLabel(model, segment));
    for (const TilingWindow& w : SegmentWindows(model, segment)) windows.push_back(w);
  }
  const auto segment_of = [&plan](const StepLive& step) -> const TiledSegment* {
    for (const TiledSegment& segment : plan.tiling) {
      if (step.subgraph == 0 && step.op_index >= segment.first_op && step.op_index <= segment.last_op) return &segment;
    }
    return nullptr;
  };
  out += fmt::format("{:>{}} {:<{}}|{}| {:>{}}\n", "step", kStepWidth, "op", kOpWidth, axis, "live", live_width);

  std::vector<size_t> cover(used_columns);
  std::string row;
  for (const StepLive& step : details.steps) {
    row.assign(used_columns, '.');
    std::fill(cover.begin(), cover.end(), 0);
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      const BufferRequest& b = plan.buffers[i];
      if (!b.lifetime.Contains(step.step) || b.size_bytes == 0) continue;
      const size_t begin = plan.offsets_bytes[i];
      const size_t end = begin + b.size_bytes;
      for (size_t c = begin / bytes_per_column; c < used_columns && c * bytes_per_column < end; ++c) {
        const size_t cell_begin = c * bytes_per_column;
        const size_t cell_end = cell_begin + bytes_per_column;
        const size_t overlap = std::min(end, cell_end) - std::max(begin, cell_begin);
        if (overlap > cover[c]) {
          cover[c] = overlap;
          row[c] = TimelineCharacter(i);
        }
      }
    }
    // A buffer smaller than a column that lost every cell to a larger one
    // still shows, at the cell of its start.
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      const BufferRequest& b = plan.buffers[i];
      if (!b.lifetime.Contains(step.step) || b.size_bytes == 0) continue;
      const size_t first = plan.offsets_bytes[i] / bytes_per_column;
      const size_t last = std::min(used_columns, (plan.offsets_bytes[i] + b.size_bytes - 1) / bytes_per_column + 1);
      bool shown = false;
      for (size_t c = first; c < last && !shown; ++c) shown = row[c] == TimelineCharacter(i);
      if (!shown && first < used_columns) row[first] = TimelineCharacter(i);
    }
    SubgraphView subgraph = model.subgraph(static_cast<size_t>(step.subgraph));
    std::string op = step.op_index >= 0 && static_cast<size_t>(step.op_index) < subgraph.operator_count()
                         ? subgraph.op(static_cast<size_t>(step.op_index)).name()
                         : "";
    if (step.subgraph != 0) op = fmt::format("s{} {}", step.subgraph, step.op_index < 0 ? "entry" : op);
    const TiledSegment* segment = segment_of(step);
    std::string marks = step.step == details.live_peak_step ? " <- peak" : "";
    if (segment != nullptr) {
      marks += step.op_index == segment->first_op
                   ? fmt::format(" ~ {} band{}", SegmentBands(model, *segment), SegmentBands(model, *segment) == 1 ? "" : "s")
                   : " ~";
    }
    out += fmt::format("{:>{}} {:<{}}|{}| {:>{}}{}\n", step.step, kStepWidth, Clip(op, kOpWidth), kOpWidth, row,
                       Thousands(step.total_bytes()) + " B", live_width, marks);
  }

  out += "\nLegend (character, buffer, owner, bytes, lifetime [first, end), offset)\n";
  TextTable legend({"", "#", "owner", "bytes", "lifetime", "offset"}, {false, true, false, true, false, true});
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& b = plan.buffers[i];
    std::string owner = Clip(BufferLabel(model, b), options.name_width);
    for (const TilingWindow& w : windows) {
      if (b.kind == BufferKind::kTensor && b.subgraph_index == 0 && b.owner_index == w.tensor) {
        owner += fmt::format(" (window: {} of {} rows)", w.rows, w.height);
      }
    }
    legend.AddRow({std::string(1, TimelineCharacter(i)), std::to_string(i), owner, Thousands(b.size_bytes),
                   fmt::format("[{}, {})", b.lifetime.first_op, b.lifetime.end_op), Thousands(plan.offsets_bytes[i])});
  }
  out += legend.Render("  ");
  if (plan.buffers.size() > kCharacterCount) {
    out += fmt::format("  (characters repeat every {} buffers: read the offset column to tell them apart)\n",
                       kCharacterCount);
  }
  return out;
}

}  // namespace microarena::report
