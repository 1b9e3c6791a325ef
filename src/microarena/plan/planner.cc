#include "microarena/plan/planner.h"

#include <cstdio>
#include <cstring>

#include "microarena/base/align.h"
#include "microarena/base/checked_math.h"
#include "microarena/plan/greedy.h"
#include "microarena/plan/greedy_tflm.h"
#include "microarena/plan/linear.h"

namespace microarena {

Status ValidateProblem(const PlanningProblem& problem) {
  if (!IsPowerOfTwo(problem.alignment_bytes)) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "alignment %zu bytes is not a power of two", problem.alignment_bytes);
  }
  if (problem.buffers.size() >= UINT32_MAX) {
    return Status::Error(ErrorCode::kInvalidArgument, "%zu buffers is more than a planner handles",
                         problem.buffers.size());
  }
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const BufferRequest& buffer = problem.buffers[i];
    if (buffer.lifetime.first_op < 0 || buffer.lifetime.end_op <= buffer.lifetime.first_op) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "buffer %zu: lifetime [%d, %d) is empty or starts before step 0", i,
                           buffer.lifetime.first_op, buffer.lifetime.end_op);
    }
    if (buffer.fixed_offset_bytes != kNoFixedOffset) {
      if (buffer.fixed_offset_bytes < 0) {
        return Status::Error(ErrorCode::kInvalidArgument,
                             "buffer %zu: fixed offset %lld is negative", i,
                             static_cast<long long>(buffer.fixed_offset_bytes));
      }
      const size_t fixed = static_cast<size_t>(buffer.fixed_offset_bytes);
      if (fixed % problem.alignment_bytes != 0) {
        return Status::Error(ErrorCode::kInvalidArgument,
                             "buffer %zu: fixed offset %zu is not a multiple of the alignment %zu",
                             i, fixed, problem.alignment_bytes);
      }
      size_t end = 0;
      if (!CheckedAdd(fixed, buffer.size_bytes, &end)) {
        return Status::Error(ErrorCode::kInvalidArgument,
                             "buffer %zu: fixed offset %zu + size %zu overflows", i, fixed,
                             buffer.size_bytes);
      }
    }
  }
  const Span<const OverlapPermission> overlaps = problem.overlaps;
  for (size_t p = 0; p < overlaps.size(); ++p) {
    const OverlapPermission& permission = overlaps[p];
    if (permission.input_buffer >= problem.buffers.size() || permission.output_buffer >= problem.buffers.size() ||
        permission.input_buffer == permission.output_buffer) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "overlap permission %zu: buffers %u (input) and %u (output) must be two different "
                           "buffers in [0, %zu)",
                           p, permission.input_buffer, permission.output_buffer, problem.buffers.size());
    }
    // Quadratic, but permissions are few (at most one per op input).
    for (size_t q = 0; q < p; ++q) {
      const OverlapPermission& other = overlaps[q];
      const bool same = other.input_buffer == permission.input_buffer && other.output_buffer == permission.output_buffer;
      const bool swapped =
          other.input_buffer == permission.output_buffer && other.output_buffer == permission.input_buffer;
      if (same || swapped) {
        return Status::Error(ErrorCode::kInvalidArgument,
                             "overlap permissions %zu and %zu both name buffers %u and %u", q, p,
                             permission.input_buffer, permission.output_buffer);
      }
    }
  }
  return OkStatus();
}

Status ValidatePlanArguments(const char* planner_name, const PlanningProblem& problem,
                             size_t workspace_bytes_needed, Span<uint8_t> workspace,
                             Span<size_t> offsets_bytes, const PlanSummary* summary) {
  if (summary == nullptr) {
    return Status::Error(ErrorCode::kInvalidArgument, "%s planner: summary is null", planner_name);
  }
  if (offsets_bytes.size() != problem.buffers.size()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "%s planner: %zu offsets for %zu buffers", planner_name,
                         offsets_bytes.size(), problem.buffers.size());
  }
  if (workspace.size() < workspace_bytes_needed) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "%s planner: workspace of %zu bytes is too small: %zu needed for %zu "
                         "buffers, %zu missing",
                         planner_name, workspace.size(), workspace_bytes_needed,
                         problem.buffers.size(), workspace_bytes_needed - workspace.size());
  }
  Status status = ValidateProblem(problem);
  status.Prefix(planner_name);
  return status;
}

size_t HeadBytes(Span<const BufferRequest> buffers, Span<const size_t> offsets_bytes) {
  size_t head = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const size_t end = offsets_bytes[i] + buffers[i].size_bytes;
    if (end > head) head = end;
  }
  return head;
}

Status PlannerRegistry::Add(const Planner* planner) {
  if (planner == nullptr) {
    return Status::Error(ErrorCode::kInvalidArgument, "planner registry: null planner");
  }
  if (Find(planner->name()) != nullptr) {
    return Status::Error(ErrorCode::kInvalidArgument, "planner registry: '%s' is already there",
                         planner->name());
  }
  if (count_ == kMaxPlanners) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "planner registry: full (%zu planners), cannot add '%s'", kMaxPlanners,
                         planner->name());
  }
  planners_[count_++] = planner;
  return OkStatus();
}

const Planner* PlannerRegistry::Find(const char* name) const {
  if (name == nullptr) return nullptr;
  for (size_t i = 0; i < count_; ++i) {
    if (std::strcmp(planners_[i]->name(), name) == 0) return planners_[i];
  }
  return nullptr;
}

void PlannerRegistry::JoinNames(char* text, size_t text_bytes) const {
  if (text == nullptr || text_bytes == 0) return;
  text[0] = '\0';
  size_t used = 0;
  for (size_t i = 0; i < count_ && used < text_bytes; ++i) {
    const int written =
        FormatText(text + used, text_bytes - used, "%s%s", i == 0 ? "" : ", ",
                      planners_[i]->name());
    if (written < 0) return;
    used += static_cast<size_t>(written);
  }
}

PlannerRegistry DevicePlanners() {
  static const LinearPlanner linear;
  static const GreedyTflmPlanner greedy_tflm;
  static const GreedyPlanner greedy;
  PlannerRegistry registry;
  // Three distinct names in an empty registry of eight: these cannot fail.
  registry.Add(&linear).IgnoreError();
  registry.Add(&greedy_tflm).IgnoreError();
  registry.Add(&greedy).IgnoreError();
  return registry;
}

}  // namespace microarena
