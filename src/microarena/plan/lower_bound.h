// The lower bound of a planning problem: the most bytes live at one op step.
//
//   step:        0     1     2     3
//   a (16 B):  [=====)                      live bytes: step 0: 16
//   b (32 B):  [===========)                            step 1: 48
//   c (16 B):        [===========)                      step 2: 16
//                                           lower bound = 48
//
// No plan without overlap can have a smaller head: the buffers live at the
// busiest step need that many distinct bytes. Written independently of the
// planners so tests can hold them to it.
//
// Steps: sort the buffer indices by first_op and by end_op; sweep both lists
// in step order, removing buffers whose end_op <= the step before adding those
// that start there (lifetimes are half-open); keep the largest running sum.
// Cost: O(n log n) time, LowerBoundWorkspaceBytes(n) = 8 bytes per buffer
// (+ padding). No heap.
#pragma once

#include <cstddef>

#include "microarena/base/span.h"
#include "microarena/base/status.h"
#include "microarena/analysis/planning_problem.h"

namespace microarena {

// Workspace bytes ComputeLowerBound needs for `buffer_count` buffers.
size_t LowerBoundWorkspaceBytes(size_t buffer_count);

// Writes the largest sum of sizes live at one step into *lower_bound_bytes
// (0 for no buffers). `workspace` is overwritten scratch memory. Fails with
// kInvalidArgument when the workspace is too small or the sum overflows.
[[nodiscard]] Status ComputeLowerBound(Span<const BufferRequest> buffers, Span<uint8_t> workspace,
                                       size_t* lower_bound_bytes);

// The bound for a problem with overlap permissions (PlanningProblem::overlaps),
// where ComputeLowerBound is no bound at all. At each step s the live buffers
// cover at least  live(s) - sum of OverlapSavingBytes over the permissions
// whose two buffers are both live at s  bytes: the union of sets is at least
// the sum of their sizes minus the sum of their pairwise intersections, and
// only permitted pairs may intersect, each by at most its saving. The bound
// is the largest of these over the steps where some lifetime starts or ends.
// Equals ComputeLowerBound without permissions. Same workspace; cost
// O(n log n + n p) for p permissions. No heap.
[[nodiscard]] Status ComputeOverlapLowerBound(const PlanningProblem& problem, Span<uint8_t> workspace,
                                              size_t* lower_bound_bytes);

}  // namespace microarena
