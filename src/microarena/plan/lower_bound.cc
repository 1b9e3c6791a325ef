#include "microarena/plan/lower_bound.h"

#include <algorithm>
#include <cstdint>

#include "microarena/base/checked_math.h"
#include "microarena/plan/planner.h"

namespace microarena {

size_t LowerBoundWorkspaceBytes(size_t buffer_count) {
  return 2 * WorkspaceCarver::BytesFor<uint32_t>(buffer_count);
}

Status ComputeLowerBound(Span<const BufferRequest> buffers, Span<uint8_t> workspace,
                         size_t* lower_bound_bytes) {
  const size_t count = buffers.size();
  if (lower_bound_bytes == nullptr || count >= UINT32_MAX) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "lower bound: null output or too many buffers (%zu)", count);
  }
  WorkspaceCarver carver(workspace);
  uint32_t* by_start = carver.Take<uint32_t>(count);
  uint32_t* by_end = carver.Take<uint32_t>(count);
  if (!carver.ok()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "lower bound: workspace of %zu bytes is too small, %zu needed",
                         workspace.size(), LowerBoundWorkspaceBytes(count));
  }
  for (uint32_t i = 0; i < count; ++i) by_start[i] = by_end[i] = i;
  std::sort(by_start, by_start + count, [&buffers](uint32_t a, uint32_t b) {
    return buffers[a].lifetime.first_op < buffers[b].lifetime.first_op;
  });
  std::sort(by_end, by_end + count, [&buffers](uint32_t a, uint32_t b) {
    return buffers[a].lifetime.end_op < buffers[b].lifetime.end_op;
  });
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
      return Status::Error(ErrorCode::kInvalidArgument,
                           "lower bound: live bytes at step %d overflow", buffer.lifetime.first_op);
    }
    best = std::max(best, live);
  }
  *lower_bound_bytes = best;
  return OkStatus();
}

}  // namespace microarena
