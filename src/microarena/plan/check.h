// CheckPlan: the independent checker every plan in every test goes through.
//
// A plan is valid when
//   - there is one offset per buffer;
//   - every offset is a multiple of the problem's alignment;
//   - a buffer with a fixed offset sits exactly there;
//   - no two buffers with a non-zero size that are live at the same step
//     share a byte (half-open lifetimes: [0, 2) and [2, 4) are never live
//     together; [o, o + size) byte ranges likewise), except a pair named by
//     an overlap permission whose offsets satisfy
//     offset(input) - offset(output) >= its min_displacement_bytes;
//   - the head size stated equals the largest offset + size (0 for none);
//   - and, when a capacity is given, the head fits in it.
//
// Steps: the per-buffer rules in one pass; then sweep the buffers in order
// of first_op, dropping the ones whose lifetime ended, and keep the live
// ones in a map by offset: a new buffer only needs comparing with its two
// neighbours in that map, because the live ones are already disjoint.
// Cost: O(n log n); with overlap permissions, a plain sweep comparing each
// buffer with every live one, O(n k). Host only (std::map). Written apart from the planners,
// sharing none of their code.
#pragma once

#include <cstddef>

#include "microarena/base/span.h"
#include "microarena/base/status.h"
#include "microarena/analysis/planning_problem.h"

namespace microarena {

// No capacity limit.
constexpr size_t kNoCapacity = static_cast<size_t>(-1);

// OK, or kInternal with a message naming the buffer(s) and the numbers that
// break the rule ("buffers 3 and 7 overlap: [0, 64) and [32, 96) bytes, both
// live at step 5").
[[nodiscard]] Status CheckPlan(const PlanningProblem& problem, Span<const size_t> offsets_bytes,
                               size_t head_bytes, size_t capacity_bytes = kNoCapacity);

}  // namespace microarena
