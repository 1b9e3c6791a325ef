#include "microarena/plan/verify.h"

#include <cstdint>

namespace microarena {
namespace {

// The permission between buffers a and b, or nullptr.
const OverlapPermission* FindPermission(Span<const OverlapPermission> overlaps, size_t a, size_t b) {
  for (const OverlapPermission& permission : overlaps) {
    if ((permission.input_buffer == a && permission.output_buffer == b) ||
        (permission.input_buffer == b && permission.output_buffer == a)) {
      return &permission;
    }
  }
  return nullptr;
}

}  // namespace

Status VerifyPlan(const PlanningProblem& problem, Span<const size_t> offsets_bytes, size_t head_bytes) {
  const Span<const BufferRequest> buffers = problem.buffers;
  if (offsets_bytes.size() != buffers.size()) {
    return Status::Error(ErrorCode::kInternal, "plan has %zu offsets for %zu buffers", offsets_bytes.size(),
                         buffers.size());
  }
  const size_t alignment = problem.alignment_bytes == 0 ? 1 : problem.alignment_bytes;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const size_t offset = offsets_bytes[i];
    if (offset % alignment != 0) {
      return Status::Error(ErrorCode::kInternal, "buffer %zu: offset %zu is not a multiple of the alignment %zu", i,
                           offset, alignment);
    }
    if (buffers[i].fixed_offset_bytes != kNoFixedOffset &&
        static_cast<int64_t>(offset) != buffers[i].fixed_offset_bytes) {
      return Status::Error(ErrorCode::kInternal, "buffer %zu: offset %zu but fixed at %lld", i, offset,
                           static_cast<long long>(buffers[i].fixed_offset_bytes));
    }
    if (offset > head_bytes || buffers[i].size_bytes > head_bytes - offset) {
      return Status::Error(ErrorCode::kInternal, "buffer %zu: bytes [%zu, +%zu) pass the head of %zu bytes", i,
                           offset, buffers[i].size_bytes, head_bytes);
    }
  }
  for (size_t a = 0; a < buffers.size(); ++a) {
    for (size_t b = a + 1; b < buffers.size(); ++b) {
      if (buffers[a].size_bytes == 0 || buffers[b].size_bytes == 0) continue;
      if (!buffers[a].lifetime.Overlaps(buffers[b].lifetime)) continue;
      const size_t begin_a = offsets_bytes[a];
      const size_t begin_b = offsets_bytes[b];
      if (begin_a + buffers[a].size_bytes <= begin_b || begin_b + buffers[b].size_bytes <= begin_a) continue;
      const bool both_fixed =
          buffers[a].fixed_offset_bytes != kNoFixedOffset && buffers[b].fixed_offset_bytes != kNoFixedOffset;
      if (both_fixed && problem.trust_fixed_overlaps) continue;  // the model's own placement
      const OverlapPermission* permission = FindPermission(problem.overlaps, a, b);
      if (permission == nullptr) {
        const char* why = both_fixed ? kUntrustedOfflineOverlap
                          : buffers[a].fixed_offset_bytes != kNoFixedOffset ||
                                  buffers[b].fixed_offset_bytes != kNoFixedOffset
                              ? "; a planned buffer over a fixed one: a corrupted plan"
                              : "";
        return Status::Error(ErrorCode::kInternal,
                             "buffers %zu and %zu overlap: bytes [%zu, %zu) and [%zu, %zu), both live at step %d%s",
                             a, b, begin_a, begin_a + buffers[a].size_bytes, begin_b,
                             begin_b + buffers[b].size_bytes,
                             buffers[a].lifetime.first_op > buffers[b].lifetime.first_op
                                 ? buffers[a].lifetime.first_op
                                 : buffers[b].lifetime.first_op,
                             why);
      }
      const size_t input_offset = offsets_bytes[permission->input_buffer];
      const size_t output_offset = offsets_bytes[permission->output_buffer];
      if (input_offset < output_offset || input_offset - output_offset < permission->min_displacement_bytes) {
        return Status::Error(ErrorCode::kInternal,
                             "buffers %u (input, offset %zu) and %u (output, offset %zu) overlap with the output "
                             "less than the %zu bytes below the input that their kernel needs",
                             permission->input_buffer, input_offset, permission->output_buffer, output_offset,
                             permission->min_displacement_bytes);
      }
    }
  }
  return OkStatus();
}

}  // namespace microarena
