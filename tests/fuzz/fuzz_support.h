// Helpers shared by the fuzz targets: an aligned copy of the fuzzer's bytes
// (LoadModel needs a 4-byte aligned start, libFuzzer gives none), a check
// that turns a broken invariant into a crash libFuzzer reports, and the
// planners' invariants on any problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "microarena/base/span.h"
#include "microarena/base/status.h"
#include "microarena/plan/check.h"
#include "microarena/plan/lower_bound.h"
#include "microarena/plan/planner.h"

namespace microarena::fuzz {

// The fuzzer's bytes copied into 8-byte aligned storage.
class AlignedBytes {
 public:
  AlignedBytes(const uint8_t* data, size_t size) : storage_((size + 7) / 8 + 1), size_(size) {
    if (size != 0) std::memcpy(storage_.data(), data, size);
  }
  Span<const uint8_t> span() const { return Span<const uint8_t>(reinterpret_cast<const uint8_t*>(storage_.data()), size_); }

 private:
  std::vector<uint64_t> storage_;
  size_t size_;
};

// A property that must hold whatever the input: abort (a finding) when it does not.
inline void Require(bool condition, const char* what, const Status& status = OkStatus()) {
  if (condition) return;
  std::fprintf(stderr, "fuzz invariant broken: %s: %s\n", what, status.ok() ? "" : status.message());
  std::abort();
}

// Every error message must be non-empty text: the contract is "a clear error".
inline void RequireMessage(const Status& status, const char* where) {
  if (status.ok()) return;
  Require(status.message() != nullptr && status.message()[0] != '\0', where, status);
}

// Every device planner on `buffers`: a plan it makes must pass the
// independent checker and have a head no smaller than the lower bound
// (device planners never overlap buffers); every error must say something.
inline void PlanWithEveryPlanner(Span<const BufferRequest> buffers, size_t alignment) {
  PlanningProblem problem{buffers, alignment};
  std::vector<uint8_t> bound_workspace(LowerBoundWorkspaceBytes(buffers.size()));
  size_t lower_bound = 0;
  Status bound =
      ComputeLowerBound(buffers, Span<uint8_t>(bound_workspace.data(), bound_workspace.size()), &lower_bound);
  RequireMessage(bound, "ComputeLowerBound error without a message");

  PlannerRegistry planners = DevicePlanners();
  for (size_t p = 0; p < planners.size(); ++p) {
    const Planner& planner = *planners.at(p);
    std::vector<uint8_t> workspace(planner.WorkspaceBytes(buffers.size()));
    std::vector<size_t> offsets(buffers.size());
    PlanSummary summary;
    Status planned = planner.Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
                                  Span<size_t>(offsets.data(), offsets.size()), &summary);
    if (!planned.ok()) {
      RequireMessage(planned, "planner error without a message");
      continue;
    }
    Status checked = CheckPlan(problem, Span<const size_t>(offsets.data(), offsets.size()), summary.head_bytes);
    Require(checked.ok(), planner.name(), checked);
    if (bound.ok()) Require(summary.head_bytes >= lower_bound, "head below the lower bound");
  }
}

}  // namespace microarena::fuzz
