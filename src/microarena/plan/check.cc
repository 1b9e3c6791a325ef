#include "microarena/plan/check.h"

#include <algorithm>
#include <map>
#include <memory_resource>
#include <numeric>
#include <queue>
#include <utility>
#include <vector>

namespace microarena {
namespace {

// The pairwise rule when approved overlaps exist: live buffers may then
// share bytes, so the map of disjoint neighbours below does not apply.
// Sweep by first_op keeping the live buffers in a list and compare each new
// buffer with all of them: O(n k) for k buffers live at once.
Status CheckWithOverlaps(const PlanningProblem& problem, Span<const size_t> offsets_bytes) {
  const Span<const BufferRequest> buffers = problem.buffers;
  std::map<std::pair<size_t, size_t>, size_t> displacement;  // (input, output) -> D
  for (size_t p = 0; p < problem.overlaps.size(); ++p) {
    const OverlapPermission& permission = problem.overlaps[p];
    if (permission.input_buffer >= buffers.size() || permission.output_buffer >= buffers.size() ||
        permission.input_buffer == permission.output_buffer) {
      return Status::Error(ErrorCode::kInternal, "overlap permission %zu names buffers %u and %u of %zu", p,
                           permission.input_buffer, permission.output_buffer, buffers.size());
    }
    displacement[{permission.input_buffer, permission.output_buffer}] = permission.min_displacement_bytes;
  }
  std::vector<size_t> by_first(buffers.size());
  std::iota(by_first.begin(), by_first.end(), size_t{0});
  std::stable_sort(by_first.begin(), by_first.end(), [&](size_t a, size_t b) {
    return buffers[a].lifetime.first_op < buffers[b].lifetime.first_op;
  });
  std::vector<size_t> live;
  for (size_t b : by_first) {
    const BufferRequest& buffer = buffers[b];
    if (buffer.size_bytes == 0) continue;
    const int32_t step = buffer.lifetime.first_op;
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](size_t other) { return buffers[other].lifetime.end_op <= step; }),
               live.end());
    const size_t begin = offsets_bytes[b];
    const size_t end = begin + buffer.size_bytes;
    for (size_t other : live) {
      const size_t other_begin = offsets_bytes[other];
      const size_t other_end = other_begin + buffers[other].size_bytes;
      if (other_end <= begin || end <= other_begin) continue;
      // They share bytes: only the model's own trusted offline placements,
      // or an approved pair at a safe displacement, may.
      const bool both_fixed =
          buffer.fixed_offset_bytes != kNoFixedOffset && buffers[other].fixed_offset_bytes != kNoFixedOffset;
      if (both_fixed && problem.trust_fixed_overlaps) continue;
      bool approved = false;
      for (const auto& [input, output] : {std::pair<size_t, size_t>{b, other}, std::pair<size_t, size_t>{other, b}}) {
        const auto found = displacement.find({input, output});
        if (found == displacement.end()) continue;
        const auto have = static_cast<long long>(offsets_bytes[input]) - static_cast<long long>(offsets_bytes[output]);
        if (have >= 0 && static_cast<size_t>(have) >= found->second) {
          approved = true;
          break;
        }
        return Status::Error(ErrorCode::kInternal,
                             "buffers %zu (input) and %zu (output) overlap: bytes [%zu, %zu) and [%zu, %zu), both "
                             "live at step %d; their overlap permission needs offset(input) - offset(output) >= %zu "
                             "but it is %lld",
                             input, output, offsets_bytes[input], offsets_bytes[input] + buffers[input].size_bytes,
                             offsets_bytes[output], offsets_bytes[output] + buffers[output].size_bytes, step,
                             found->second, have);
      }
      if (approved) continue;
      const char* why = both_fixed ? kUntrustedOfflineOverlap
                        : buffer.fixed_offset_bytes != kNoFixedOffset ||
                                buffers[other].fixed_offset_bytes != kNoFixedOffset
                            ? "; a planned buffer over a fixed one: a corrupted plan"
                            : ", and no overlap permission names them";
      return Status::Error(ErrorCode::kInternal,
                           "buffers %zu and %zu overlap: bytes [%zu, %zu) and [%zu, %zu), both live at step %d%s",
                           std::min(b, other), std::max(b, other), std::min(b, other) == b ? begin : other_begin,
                           std::min(b, other) == b ? end : other_end, std::min(b, other) == b ? other_begin : begin,
                           std::min(b, other) == b ? other_end : end, step, why);
    }
    live.push_back(b);
  }
  return OkStatus();
}

}  // namespace

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

  // Fixed buffers may be trusted to share bytes: the pairwise sweep says
  // which pair broke which rule.
  bool any_fixed = false;
  for (const BufferRequest& buffer : buffers) any_fixed |= buffer.fixed_offset_bytes != kNoFixedOffset;
  if (!problem.overlaps.empty() || any_fixed) return CheckWithOverlaps(problem, offsets_bytes);

  std::vector<size_t> by_first(count);
  std::iota(by_first.begin(), by_first.end(), size_t{0});
  std::sort(by_first.begin(), by_first.end(), [&](size_t a, size_t b) {
    return buffers[a].lifetime.first_op < buffers[b].lifetime.first_op;
  });
  // offset -> buffer index, pairwise disjoint. Its nodes come from one block
  // (monotonic: an erased node's bytes are not reused, at most one node per
  // buffer): a node allocated and freed per buffer was most of the check of
  // a small plan (193 of a 192-buffer problem's 1,043 allocations).
  std::pmr::monotonic_buffer_resource nodes(std::max<size_t>(count, 1) * 64);
  std::pmr::map<size_t, size_t> live_by_offset(&nodes);
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
