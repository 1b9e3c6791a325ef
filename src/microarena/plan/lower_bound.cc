#include "microarena/plan/lower_bound.h"

#include <algorithm>
#include <cstdint>

#include "microarena/base/checked_math.h"
#include "microarena/base/heap_sort.h"
#include "microarena/plan/planner.h"

namespace microarena {

namespace {

// The buffers' indices by first_op and by end_op. The sweeps below handle
// every buffer of a step together, so the order of ties does not matter.
// Without recursion (HeapSort): this runs inside AllocateTensors.
void SortByStartAndEnd(Span<const BufferRequest> buffers, uint32_t* by_start, uint32_t* by_end) {
  for (uint32_t i = 0; i < buffers.size(); ++i) by_start[i] = by_end[i] = i;
  HeapSort(by_start, buffers.size(),
           [&buffers](uint32_t a, uint32_t b) { return buffers[a].lifetime.first_op < buffers[b].lifetime.first_op; });
  HeapSort(by_end, buffers.size(),
           [&buffers](uint32_t a, uint32_t b) { return buffers[a].lifetime.end_op < buffers[b].lifetime.end_op; });
}

// The error both bounds return for arguments they refuse: a null output,
// too many buffers, or a workspace too small for the two index arrays.
// (The callers test and return it directly: a Status local in their frame
// would sit on the stack under the sort.)
Status ArgumentError(size_t count, size_t workspace_bytes, const size_t* lower_bound_bytes) {
  if (lower_bound_bytes == nullptr || count >= UINT32_MAX) {
    return Status::Error(ErrorCode::kInvalidArgument, "lower bound: null output or too many buffers (%zu)", count);
  }
  return Status::Error(ErrorCode::kInvalidArgument, "lower bound: workspace of %zu bytes is too small, %zu needed",
                       workspace_bytes, LowerBoundWorkspaceBytes(count));
}

// What both bounds do before their sweep: carve the two index arrays from
// `workspace`, refuse bad arguments, sort; then `sweep(by_start, by_end)`
// gives the Status. A template, so that each bound compiles to one frame as
// if written out (AllocateTensors' stack peak runs through here).
template <typename Sweep>
Status SweepSortedIndices(Span<const BufferRequest> buffers, Span<uint8_t> workspace, const size_t* lower_bound_bytes,
                          Sweep sweep) {
  const size_t count = buffers.size();
  WorkspaceCarver carver(workspace);
  uint32_t* by_start = carver.Take<uint32_t>(count);
  uint32_t* by_end = carver.Take<uint32_t>(count);
  if (lower_bound_bytes == nullptr || count >= UINT32_MAX || !carver.ok()) {
    return ArgumentError(count, workspace.size(), lower_bound_bytes);
  }
  SortByStartAndEnd(buffers, by_start, by_end);
  return sweep(by_start, by_end);
}

}  // namespace

size_t LowerBoundWorkspaceBytes(size_t buffer_count) { return 2 * WorkspaceCarver::BytesFor<uint32_t>(buffer_count); }

Status ComputeLowerBound(Span<const BufferRequest> buffers, Span<uint8_t> workspace, size_t* lower_bound_bytes) {
  return SweepSortedIndices(
      buffers, workspace, lower_bound_bytes, [&](const uint32_t* by_start, const uint32_t* by_end) {
        const size_t count = buffers.size();
        size_t live = 0;
        size_t best = 0;
        size_t ended = 0;
        for (size_t started = 0; started < count; ++started) {
          const BufferRequest& buffer = buffers[by_start[started]];
          while (ended < count && buffers[by_end[ended]].lifetime.end_op <= buffer.lifetime.first_op) {
            live -= buffers[by_end[ended]].size_bytes;
            ++ended;
          }
          if (!CheckedAdd(live, buffer.size_bytes, &live)) {
            return Status::Error(ErrorCode::kInvalidArgument, "lower bound: live bytes at step %d overflow",
                                 buffer.lifetime.first_op);
          }
          best = std::max(best, live);
        }
        *lower_bound_bytes = best;
        return OkStatus();
      });
}

namespace {

// ComputeOverlapLowerBound with permissions. Its own frame, so that the
// plain lower bound does not run below this one's locals.
[[gnu::noinline]] Status ComputeLowerBoundWithOverlaps(const PlanningProblem& problem, Span<uint8_t> workspace,
                                                       size_t* lower_bound_bytes) {
  const Span<const BufferRequest> buffers = problem.buffers;
  return SweepSortedIndices(
      buffers, workspace, lower_bound_bytes, [&](const uint32_t* by_start, const uint32_t* by_end) {
        const size_t count = buffers.size();
        // Saving of the permissions whose buffers are both live at `step`.
        auto saving_at = [&](int32_t step) {
          size_t saving = 0;
          for (const OverlapPermission& permission : problem.overlaps) {
            const BufferRequest& input = buffers[permission.input_buffer];
            const BufferRequest& output = buffers[permission.output_buffer];
            if (!input.lifetime.Contains(step) || !output.lifetime.Contains(step)) continue;
            saving += OverlapSavingBytes(permission, input.size_bytes, output.size_bytes, problem.alignment_bytes);
          }
          return saving;
        };
        size_t live = 0;
        size_t best = 0;
        size_t started = 0;
        size_t ended = 0;
        while (started < count || ended < count) {
          // The next step where a lifetime starts or ends, then everything there.
          int32_t step = INT32_MAX;
          if (started < count) step = buffers[by_start[started]].lifetime.first_op;
          if (ended < count) step = std::min(step, buffers[by_end[ended]].lifetime.end_op);
          while (ended < count && buffers[by_end[ended]].lifetime.end_op <= step) {
            live -= buffers[by_end[ended]].size_bytes;
            ++ended;
          }
          while (started < count && buffers[by_start[started]].lifetime.first_op <= step) {
            if (!CheckedAdd(live, buffers[by_start[started]].size_bytes, &live)) {
              return Status::Error(ErrorCode::kInvalidArgument, "lower bound: live bytes at step %d overflow", step);
            }
            ++started;
          }
          const size_t saving = saving_at(step);
          if (live > saving) best = std::max(best, live - saving);
        }
        // No plan is smaller than its largest buffer either.
        for (const BufferRequest& buffer : buffers) best = std::max(best, buffer.size_bytes);
        *lower_bound_bytes = best;
        return OkStatus();
      });
}

}  // namespace

Status ComputeOverlapLowerBound(const PlanningProblem& problem, Span<uint8_t> workspace, size_t* lower_bound_bytes) {
  if (problem.overlaps.empty()) return ComputeLowerBound(problem.buffers, workspace, lower_bound_bytes);
  return ComputeLowerBoundWithOverlaps(problem, workspace, lower_bound_bytes);
}

}  // namespace microarena
