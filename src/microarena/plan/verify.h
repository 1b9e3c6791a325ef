// VerifyPlan: the device's own check of a plan it did not make itself (a
// caller's planner, or one with overlap permissions), before any tensor gets
// an address from it. No heap, so a plain pairwise sweep; host code has the
// faster CheckPlan (check.h) for tests.
//
// The rules are CheckPlan's: one aligned offset per buffer, fixed buffers at
// their offsets, the head at least every offset + size, and two buffers live
// at the same step share no byte unless an overlap permission names them and
// offset(input) - offset(output) >= its min_displacement_bytes.
// Cost: O(n^2 + n p) time for n buffers and p permissions; no memory.
#pragma once

#include <cstddef>

#include "microarena/base/span.h"
#include "microarena/base/status.h"
#include "microarena/analysis/planning_problem.h"

namespace microarena {

// OK, or kInternal naming the buffers and the numbers that break a rule.
[[nodiscard]] Status VerifyPlan(const PlanningProblem& problem, Span<const size_t> offsets_bytes,
                                size_t head_bytes);

}  // namespace microarena
