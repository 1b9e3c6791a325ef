// Planner: the interface every memory planner implements, and a small
// registry that finds one by name.
//
//   PlannerRegistry planners = DevicePlanners();      // linear, greedy-tflm, greedy
//   const Planner* planner = planners.Find("greedy");
//   size_t workspace_bytes = planner->WorkspaceBytes(problem.buffers.size());
//   // ... take workspace_bytes from arena temp memory ...
//   PlanSummary summary;
//   Status status = planner->Plan(problem, workspace, offsets, &summary);
//
// A planner gives every buffer an offset in the head. It is deterministic
// (same problem, same offsets) and honours BufferRequest::fixed_offset_bytes:
// a fixed buffer is placed exactly there and the others around it.
//
// The device planners (linear, greedy-tflm, greedy) use no heap, no
// exceptions and no iostreams: all their working memory is the caller's
// `workspace`, whose size WorkspaceBytes() states. The host-only optimal
// planner (optimal.h) takes no workspace and uses the standard library.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/span.h"
#include "microarena/base/status.h"
#include "microarena/analysis/planning_problem.h"

namespace microarena {

// What a planner says about the plan it wrote.
struct PlanSummary {
  size_t head_bytes = 0;        // largest offset + size over all buffers (0 when none)
  bool proven_optimal = false;  // true when no plan with a smaller head exists
};

class Planner {
 public:
  virtual ~Planner() = default;

  // A stable, lower-case name ("greedy"), used on the command line.
  virtual const char* name() const = 0;

  // Bytes of workspace Plan() needs for a problem of `buffer_count` buffers.
  virtual size_t WorkspaceBytes(size_t buffer_count) const = 0;
  // Bytes of workspace Plan() needs for `problem` (its overlap permissions
  // included). Use this one when the problem may carry permissions.
  virtual size_t WorkspaceBytesFor(const PlanningProblem& problem) const {
    return WorkspaceBytes(problem.buffers.size());
  }
  // The same on a target whose size_t has `size_t_bytes` (the host's tools
  // count a device's arena: runtime/target_layout.h). Planners whose
  // workspace holds no size_t need not override it.
  virtual size_t TargetWorkspaceBytesFor(const PlanningProblem& problem, size_t /*size_t_bytes*/) const {
    return WorkspaceBytesFor(problem);
  }

  // Plans `problem`, writing one offset per buffer into `offsets_bytes`
  // (offsets_bytes.size() == problem.buffers.size()) and the head size into
  // `*summary`. `workspace` is scratch memory the planner may overwrite; it
  // needs at least WorkspaceBytes(buffer count) bytes. Nothing is kept after
  // the call returns. Fails with kInvalidArgument on a malformed problem
  // (bad alignment, empty lifetime, misaligned fixed offset) or too small a
  // workspace.
  [[nodiscard]] virtual Status Plan(const PlanningProblem& problem, Span<uint8_t> workspace,
                                    Span<size_t> offsets_bytes, PlanSummary* summary) const = 0;

 protected:
  Planner() = default;
  Planner(const Planner&) = default;
  Planner& operator=(const Planner&) = default;
};

// Checks what every planner needs of a problem: a power-of-two alignment,
// non-empty lifetimes starting at step >= 0, fixed offsets that are
// non-negative and aligned, offset + size of every fixed buffer that
// fits in size_t, and overlap permissions that name two different buffers in
// range, no pair twice.
[[nodiscard]] Status ValidateProblem(const PlanningProblem& problem);

// Checks the arguments of Planner::Plan (problem, workspace size, offsets
// size, summary pointer) for the planner named `planner_name`.
[[nodiscard]] Status ValidatePlanArguments(const char* planner_name,
                                           const PlanningProblem& problem,
                                           size_t workspace_bytes_needed,
                                           Span<uint8_t> workspace, Span<size_t> offsets_bytes,
                                           const PlanSummary* summary);

// The largest offset + size over the buffers (0 for none). Preconditions:
// offsets_bytes.size() == buffers.size() and no sum overflows (planners
// guarantee it).
size_t HeadBytes(Span<const BufferRequest> buffers, Span<const size_t> offsets_bytes);

// Name -> planner. Holds borrowed pointers (the planners must outlive the
// registry) in a fixed array: no heap.
class PlannerRegistry {
 public:
  static constexpr size_t kMaxPlanners = 8;

  // Adds `planner`; fails when the name is taken or the registry is full.
  [[nodiscard]] Status Add(const Planner* planner);

  // The planner called `name`, or nullptr.
  const Planner* Find(const char* name) const;

  size_t size() const { return count_; }
  // Precondition: index < size(). In the order they were added.
  const Planner* at(size_t index) const { return planners_[index]; }

  // Writes "linear, greedy-tflm, ..." into `text` (cut to fit; always NUL-terminated
  // when text_bytes > 0).
  void JoinNames(char* text, size_t text_bytes) const;

 private:
  const Planner* planners_[kMaxPlanners] = {};
  size_t count_ = 0;
};

// A registry holding the device planners, in this order: "linear",
// "greedy-tflm", "greedy". They are stateless constants with static storage.
PlannerRegistry DevicePlanners();

// Carves typed arrays out of a workspace, each aligned for its type.
// Used by the planners; ok() turns false once a request does not fit.
class WorkspaceCarver {
 public:
  explicit WorkspaceCarver(Span<uint8_t> workspace) : workspace_(workspace) {}

  // `count` elements of T, or nullptr (and ok() == false) when they do not fit.
  template <typename T>
  T* Take(size_t count) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(workspace_.data());
    const size_t misalignment = (base + used_) % alignof(T);
    const size_t padding = misalignment == 0 ? 0 : alignof(T) - misalignment;
    if (!ok_ || count > (workspace_.size() - used_) / sizeof(T) ||
        padding > workspace_.size() - used_ - count * sizeof(T)) {
      ok_ = false;
      return nullptr;
    }
    used_ += padding;
    T* result = reinterpret_cast<T*>(workspace_.data() + used_);
    used_ += count * sizeof(T);
    return result;
  }
  bool ok() const { return ok_; }

  // Bytes for `count` elements of T plus the worst-case alignment padding.
  template <typename T>
  static constexpr size_t BytesFor(size_t count) {
    return count * sizeof(T) + alignof(T) - 1;
  }

 private:
  Span<uint8_t> workspace_;
  size_t used_ = 0;
  bool ok_ = true;
};

}  // namespace microarena
