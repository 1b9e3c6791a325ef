// GreedyTflmPlanner: reproduces the offsets of TFLM's GreedyMemoryPlanner
// byte for byte, in O(n log n + n k log k) instead of TFLM's O(n^2) walks
// and bubble sort (k = buffers live at the same time as the one placed).
//
// Steps:
//   1. Order: buffers with a fixed (offline) offset first, in request order;
//      then the others by size, largest first; equal sizes by request index,
//      HIGHER index first (TFLM fills its sort array from the back and its
//      bubble sort is stable; verified against TFLM's own plans in
//      greedy_tflm_test.cc).
//   2. A fixed buffer goes at its offset.
//   3. Any other buffer: take the placed buffers whose lifetimes overlap its
//      own (TimeIndex), in offset order. Walk them with a candidate offset
//      starting at 0: stop at the first one that starts at or above the
//      candidate with a gap >= the buffer's size; otherwise raise the
//      candidate to that buffer's end (rounded up to the alignment). The
//      buffer goes at the candidate: in the first gap big enough, else on top.
//
//          offset ->
//   placed live:  [== x ==]   [= y =]      [==== z ====]
//   wanted (size 5):      ^gap 3       ^gap 6: placed here
//
// Workspace: kWorkspaceBytesPerBuffer = 16 bytes per buffer (TimeIndex 8,
// order 4, gathered neighbours 4), plus a few bytes of alignment padding.
#pragma once

#include "microarena/plan/planner.h"

namespace microarena {

class GreedyTflmPlanner final : public Planner {
 public:
  static constexpr size_t kWorkspaceBytesPerBuffer = 16;

  const char* name() const override { return "greedy-tflm"; }
  size_t WorkspaceBytes(size_t buffer_count) const override;
  [[nodiscard]] Status Plan(const PlanningProblem& problem, Span<uint8_t> workspace,
                            Span<size_t> offsets_bytes, PlanSummary* summary) const override;
};

}  // namespace microarena
