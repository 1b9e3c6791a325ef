#include "microarena/plan/linear.h"

#include "microarena/base/align.h"
#include "microarena/base/checked_math.h"

namespace microarena {

size_t LinearPlanner::WorkspaceBytes(size_t /*buffer_count*/) const { return 0; }

Status LinearPlanner::Plan(const PlanningProblem& problem, Span<uint8_t> workspace,
                           Span<size_t> offsets_bytes, PlanSummary* summary) const {
  MICROARENA_RETURN_IF_ERROR(
      ValidatePlanArguments(name(), problem, 0, workspace, offsets_bytes, summary));
  const Span<const BufferRequest> buffers = problem.buffers;
  size_t next_offset = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].fixed_offset_bytes == kNoFixedOffset) continue;
    offsets_bytes[i] = static_cast<size_t>(buffers[i].fixed_offset_bytes);
    const size_t end = offsets_bytes[i] + buffers[i].size_bytes;  // checked by ValidateProblem
    if (end > next_offset) next_offset = end;
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].fixed_offset_bytes != kNoFixedOffset) continue;
    size_t offset = 0;
    size_t end = 0;
    if (!AlignUp(next_offset, problem.alignment_bytes, &offset) ||
        !CheckedAdd(offset, buffers[i].size_bytes, &end)) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "linear planner: buffer %zu: the head size overflows", i);
    }
    offsets_bytes[i] = offset;
    next_offset = end;
  }
  summary->head_bytes =
      HeadBytes(buffers, Span<const size_t>(offsets_bytes.data(), offsets_bytes.size()));
  summary->proven_optimal = false;
  return OkStatus();
}

}  // namespace microarena
