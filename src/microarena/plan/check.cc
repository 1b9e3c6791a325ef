#include "microarena/plan/check.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>
#include <utility>
#include <vector>

namespace microarena {

Status CheckPlan(const PlanningProblem& problem, Span<const size_t> offsets_bytes,
                 size_t head_bytes, size_t capacity_bytes) {
  const Span<const BufferRequest> buffers = problem.buffers;
  const size_t count = buffers.size();
  if (offsets_bytes.size() != count) {
    return Status::Error(ErrorCode::kInternal, "plan has %zu offsets for %zu buffers",
                         offsets_bytes.size(), count);
  }
  const size_t alignment = problem.alignment_bytes;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return Status::Error(ErrorCode::kInternal, "alignment %zu is not a power of two", alignment);
  }
  size_t max_end = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t offset = offsets_bytes[i];
    const BufferRequest& buffer = buffers[i];
    if (offset % alignment != 0) {
      return Status::Error(ErrorCode::kInternal,
                           "buffer %zu: offset %zu is not a multiple of the alignment %zu", i,
                           offset, alignment);
    }
    if (buffer.fixed_offset_bytes != kNoFixedOffset &&
        static_cast<long long>(offset) != static_cast<long long>(buffer.fixed_offset_bytes)) {
      return Status::Error(ErrorCode::kInternal, "buffer %zu: offset %zu but fixed at %lld", i,
                           offset, static_cast<long long>(buffer.fixed_offset_bytes));
    }
    if (buffer.size_bytes > SIZE_MAX - offset) {
      return Status::Error(ErrorCode::kInternal, "buffer %zu: offset %zu + size %zu overflows",
                           i, offset, buffer.size_bytes);
    }
    if (buffer.lifetime.end_op <= buffer.lifetime.first_op) {
      return Status::Error(ErrorCode::kInternal, "buffer %zu: empty lifetime [%d, %d)", i,
                           buffer.lifetime.first_op, buffer.lifetime.end_op);
    }
    max_end = std::max(max_end, offset + buffer.size_bytes);
  }
  if (head_bytes != max_end) {
    return Status::Error(ErrorCode::kInternal,
                         "head size %zu differs from the largest offset + size %zu", head_bytes,
                         max_end);
  }
  if (capacity_bytes != kNoCapacity && head_bytes > capacity_bytes) {
    return Status::Error(ErrorCode::kInternal, "head size %zu exceeds the capacity %zu by %zu",
                         head_bytes, capacity_bytes, head_bytes - capacity_bytes);
  }

  std::vector<size_t> by_first(count);
  std::iota(by_first.begin(), by_first.end(), size_t{0});
  std::sort(by_first.begin(), by_first.end(), [&](size_t a, size_t b) {
    return buffers[a].lifetime.first_op < buffers[b].lifetime.first_op;
  });
  std::map<size_t, size_t> live_by_offset;  // offset -> buffer index, pairwise disjoint
  // (end_op, offset) of the live buffers, earliest end on top.
  std::priority_queue<std::pair<int32_t, size_t>, std::vector<std::pair<int32_t, size_t>>,
                      std::greater<>>
      live_by_end;
  for (size_t b : by_first) {
    const BufferRequest& buffer = buffers[b];
    if (buffer.size_bytes == 0) continue;
    const int32_t step = buffer.lifetime.first_op;
    while (!live_by_end.empty() && live_by_end.top().first <= step) {
      live_by_offset.erase(live_by_end.top().second);
      live_by_end.pop();
    }
    const size_t begin = offsets_bytes[b];
    const size_t end = begin + buffer.size_bytes;
    auto report = [&](size_t other) {
      const size_t other_begin = offsets_bytes[other];
      const size_t other_end = other_begin + buffers[other].size_bytes;
      return Status::Error(ErrorCode::kInternal,
                           "buffers %zu and %zu overlap: bytes [%zu, %zu) and [%zu, %zu), both "
                           "live at step %d",
                           std::min(b, other), std::max(b, other),
                           other < b ? other_begin : begin, other < b ? other_end : end,
                           other < b ? begin : other_begin, other < b ? end : other_end, step);
    };
    auto above = live_by_offset.lower_bound(begin);
    if (above != live_by_offset.end() && above->first < end) return report(above->second);
    if (above != live_by_offset.begin()) {
      auto below = std::prev(above);
      if (below->first + buffers[below->second].size_bytes > begin) return report(below->second);
    }
    live_by_offset.emplace(begin, b);
    live_by_end.emplace(buffer.lifetime.end_op, begin);
  }
  return OkStatus();
}

}  // namespace microarena
