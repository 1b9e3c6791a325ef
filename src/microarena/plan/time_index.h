// TimeIndex: finds the buffers whose lifetimes overlap a given lifetime.
//
// A static interval index over the caller's buffers, with no heap:
//   1. Build: sort the buffer indices by first_op (ties by index) into
//      `by_start`, then view that array as an implicit balanced binary tree
//      (the root of range [lo, hi) is its middle element) and store in
//      `max_end[i]` the largest end_op in the subtree rooted at position i.
//      Cost O(n log n) time, 8 bytes per buffer.
//   2. ForEachOverlapping(lifetime, visit): walk the tree, skipping a subtree
//      when its largest end_op is <= lifetime.first_op (everything in it ended
//      before) and the right part of a range once first_op >= lifetime.end_op
//      (everything there starts after). Cost O(log n + k log n) for k hits.
//
// Used by the greedy planners to find, for the buffer being placed, the
// already-placed buffers that are live at the same time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/span.h"
#include "microarena/analysis/planning_problem.h"

namespace microarena {

class TimeIndex {
 public:
  static constexpr size_t kBytesPerBuffer = 2 * sizeof(uint32_t);

  // Builds the index over `buffers` in the caller's arrays `by_start` and
  // `max_end`, each with buffers.size() elements; all three must outlive the
  // index. Precondition: buffers.size() < 2^32.
  TimeIndex(Span<const BufferRequest> buffers, uint32_t* by_start, int32_t* max_end);

  // Calls visit(buffer_index) for every buffer whose lifetime overlaps
  // `lifetime`, including the buffer itself when it is in the index.
  template <typename Visit>
  void ForEachOverlapping(const Lifetime& lifetime, Visit&& visit) const {
    Walk(0, static_cast<uint32_t>(buffers_.size()), lifetime, visit);
  }

 private:
  // In order over the implicit tree, without recursion (the greedy planners
  // run inside AllocateTensors, whose stack a device budgets; a frame per
  // level cost more than this one frame). The path from the root to the
  // range being walked is kept as bits, 1 for each step to a left half
  // (whose middle is still to visit), 0 for each step to a right half; a
  // middle's range is found again by replaying the path from the root.
  // Depth is log2(n) + 1, at most 33 for 32-bit indices: 64 bits suffice.
  template <typename Visit>
  void Walk(uint32_t lo, uint32_t hi, const Lifetime& lifetime, Visit& visit) const {
    const uint32_t root_lo = lo;
    const uint32_t root_hi = hi;
    uint64_t path = 0;
    uint32_t length = 0;
    for (;;) {
      // Down the left halves while the range may hold a hit.
      while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (max_end_[mid] <= lifetime.first_op) break;  // everything in it ended before
        path |= uint64_t{1} << length;
        ++length;
        hi = mid;
      }
      // Up to the deepest left step: its middle is next in order.
      if (path == 0) return;
      uint32_t level = length - 1;
      while (((path >> level) & 1) == 0) --level;
      path &= (uint64_t{1} << level) - 1;
      lo = root_lo;
      hi = root_hi;
      for (uint32_t step = 0; step < level; ++step) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if ((path >> step) & 1) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      const uint32_t mid = lo + (hi - lo) / 2;
      const Lifetime& here = buffers_[by_start_[mid]].lifetime;
      if (here.first_op >= lifetime.end_op) return;  // everything after starts later
      if (here.end_op > lifetime.first_op) visit(by_start_[mid]);
      // On to its right half.
      length = level + 1;
      lo = mid + 1;
    }
  }
  int32_t Build(uint32_t lo, uint32_t hi);

  Span<const BufferRequest> buffers_;
  uint32_t* by_start_;
  int32_t* max_end_;
};

}  // namespace microarena
