#include "microarena/plan/greedy_tflm.h"

#include <algorithm>
#include <cstdint>

#include "microarena/base/align.h"
#include "microarena/base/checked_math.h"
#include "microarena/plan/time_index.h"

namespace microarena {
namespace {
constexpr size_t kNoOffsetYet = SIZE_MAX;
}  // namespace

size_t GreedyTflmPlanner::WorkspaceBytes(size_t buffer_count) const {
  return WorkspaceCarver::BytesFor<uint32_t>(buffer_count) * 3 +
         WorkspaceCarver::BytesFor<int32_t>(buffer_count);
}

Status GreedyTflmPlanner::Plan(const PlanningProblem& problem, Span<uint8_t> workspace,
                               Span<size_t> offsets_bytes, PlanSummary* summary) const {
  const size_t count = problem.buffers.size();
  MICROARENA_RETURN_IF_ERROR(ValidatePlanArguments(name(), problem, WorkspaceBytes(count),
                                                   workspace, offsets_bytes, summary));
  const Span<const BufferRequest> buffers = problem.buffers;
  const size_t alignment = problem.alignment_bytes;
  WorkspaceCarver carver(workspace);
  uint32_t* by_start = carver.Take<uint32_t>(count);
  int32_t* max_end = carver.Take<int32_t>(count);
  uint32_t* order = carver.Take<uint32_t>(count);
  uint32_t* gathered = carver.Take<uint32_t>(count);
  if (!carver.ok()) return Status::Error(ErrorCode::kInternal, "greedy-tflm: workspace carving");

  // 1. Fixed buffers first in request order, then the rest by size descending,
  // equal sizes by higher request index first.
  size_t fixed_count = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (buffers[i].fixed_offset_bytes != kNoFixedOffset) order[fixed_count++] = i;
  }
  size_t next = fixed_count;
  for (uint32_t i = 0; i < count; ++i) {
    if (buffers[i].fixed_offset_bytes == kNoFixedOffset) order[next++] = i;
  }
  std::sort(order + fixed_count, order + count, [&buffers](uint32_t a, uint32_t b) {
    const size_t size_a = buffers[a].size_bytes;
    const size_t size_b = buffers[b].size_bytes;
    return size_a != size_b ? size_a > size_b : a > b;
  });

  for (size_t i = 0; i < count; ++i) offsets_bytes[i] = kNoOffsetYet;
  const TimeIndex index(buffers, by_start, max_end);

  for (size_t position = 0; position < count; ++position) {
    const uint32_t id = order[position];
    const BufferRequest& wanted = buffers[id];
    // 2. Fixed buffers go where they were asked to.
    if (wanted.fixed_offset_bytes != kNoFixedOffset) {
      offsets_bytes[id] = static_cast<size_t>(wanted.fixed_offset_bytes);
      continue;
    }
    // 3. The placed buffers live at the same time, in offset order.
    size_t neighbours = 0;
    index.ForEachOverlapping(wanted.lifetime, [&](uint32_t other) {
      if (offsets_bytes[other] != kNoOffsetYet) gathered[neighbours++] = other;
    });
    std::sort(gathered, gathered + neighbours, [offsets_bytes](uint32_t a, uint32_t b) {
      return offsets_bytes[a] != offsets_bytes[b] ? offsets_bytes[a] < offsets_bytes[b] : a < b;
    });
    size_t candidate = 0;
    for (size_t n = 0; n < neighbours; ++n) {
      const size_t other_offset = offsets_bytes[gathered[n]];
      if (other_offset >= candidate && other_offset - candidate >= wanted.size_bytes) break;
      size_t other_end = 0;
      if (!CheckedAdd(other_offset, buffers[gathered[n]].size_bytes, &other_end) ||
          !AlignUp(other_end, alignment, &other_end)) {
        return Status::Error(ErrorCode::kInvalidArgument,
                             "greedy-tflm planner: buffer %u: the head size overflows", id);
      }
      candidate = std::max(candidate, other_end);
    }
    size_t end = 0;
    if (!CheckedAdd(candidate, wanted.size_bytes, &end)) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "greedy-tflm planner: buffer %u: the head size overflows", id);
    }
    offsets_bytes[id] = candidate;
  }
  summary->head_bytes =
      HeadBytes(buffers, Span<const size_t>(offsets_bytes.data(), offsets_bytes.size()));
  summary->proven_optimal = false;
  return OkStatus();
}

}  // namespace microarena
