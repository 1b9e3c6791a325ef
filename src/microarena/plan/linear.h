// LinearPlanner: no reuse at all, the baseline every other planner beats.
//
//   offset:  0        a.size    a.size + b.size
//            [== a ==][=== b ===][= c =] ...
//
// Steps: fixed buffers go at their fixed offsets; every other buffer follows
// the previous one in request order, starting at the end of the highest fixed
// buffer, its offset rounded up to the alignment. This is what TFLM's
// LinearMemoryPlanner does (it has no fixed offsets).
// Cost: O(n) time, no workspace.
#pragma once

#include "microarena/plan/planner.h"

namespace microarena {

class LinearPlanner final : public Planner {
 public:
  static constexpr size_t kWorkspaceBytesPerBuffer = 0;

  const char* name() const override { return "linear"; }
  size_t WorkspaceBytes(size_t buffer_count) const override;
  [[nodiscard]] Status Plan(const PlanningProblem& problem, Span<uint8_t> workspace,
                            Span<size_t> offsets_bytes, PlanSummary* summary) const override;
};

}  // namespace microarena
