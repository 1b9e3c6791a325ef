// GreedyPlanner: microarena's default device planner. Several greedy passes,
// each a different buffer order and gap rule; the smallest head wins.
//
// Steps:
//   1. Lower bound (lower_bound.h; ComputeOverlapLowerBound when the problem
//      has overlap permissions): if a pass reaches it, stop early and say
//      the plan is proven optimal.
//   2. Passes, in this fixed order (ties between orders broken by request
//      index, so the result is deterministic):
//        order                                      gap rule
//        size desc, higher index first (TFLM)       first fit   = greedy-tflm
//        size desc                                  best fit
//        lifetime length desc, then size            first fit, best fit
//        area (size x length) desc                  first fit, best fit
//        conflict (bytes live alongside) desc       first fit, best fit
//        first_op asc, then size desc               first fit, best fit
//        with overlap permissions, also:
//        first_op desc, end_op desc, size desc     first fit, best fit
//      Fixed buffers are placed first at their offsets in every pass.
//   3. Placing one buffer: the placed buffers live at the same time (found
//      with TimeIndex), sorted by offset, bound gaps. First fit takes the
//      lowest gap that holds the buffer; best fit the smallest such gap
//      (lowest on ties); with no such gap the buffer goes on top of them.
//      With overlap permissions (PlanningProblem::overlaps), a placed
//      partner blocks less: an output may start D below its input's start
//      (and overlap it), an input may start D above its output's start;
//      the gaps are bound by these shorter blocked ranges. Finding the
//      permissions of a buffer scans them all: O(p) per buffer placed.
//   4. Keep the pass with the smallest head (the earliest on ties).
//      Above 10,000 buffers only the first two passes run (time).
//   5. With overlap permissions, the passes of step 2 (not the two extra
//      ones) run again without the permissions, and step 4 picks among all:
//      a permission moves buffers and can make a pass's head larger, while
//      a plan that shares no bytes is valid under any permissions. So the
//      head with permissions is never larger than without.
// Because the first pass is exactly greedy-tflm, greedy's head is never
// larger than greedy-tflm's.
//
// Cost: O(P (n log n + n k log k)) for P = 10 passes (22 with permissions) and k buffers live
// alongside one buffer. Workspace: kWorkspaceBytesPerBuffer = 32 bytes per
// buffer (TimeIndex 8, order 4, neighbours 4, sort key 8, trial offsets 8,
// best offsets kept in the caller's output), plus alignment padding.
#pragma once

#include "microarena/plan/planner.h"

namespace microarena {

class GreedyPlanner final : public Planner {
 public:
  static constexpr size_t kWorkspaceBytesPerBuffer = 32;

  const char* name() const override { return "greedy"; }
  size_t WorkspaceBytes(size_t buffer_count) const override;
  size_t TargetWorkspaceBytesFor(const PlanningProblem& problem, size_t size_t_bytes) const override;
  [[nodiscard]] Status Plan(const PlanningProblem& problem, Span<uint8_t> workspace,
                            Span<size_t> offsets_bytes, PlanSummary* summary) const override;
};

}  // namespace microarena
