// The planning vocabulary: buffer requests, lifetimes and planning problems.
// It sits in analysis/ because analysis produces these requests; the
// planners (plan/) and the runtime consume them.
//
// A planning problem is a list of buffers, each with a size and a half-open
// lifetime over op steps. A plan gives every buffer an offset in the head so
// that no two buffers that are live at the same step share a byte.
//
//   step:      0   1   2   3   4
//   buffer a:  [=======)              lifetime [0, 2)
//   buffer b:      [===========)      lifetime [1, 4)   overlaps a at step 1
//   buffer c:              [===)      lifetime [3, 4)   may share memory with a
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/span.h"

namespace microarena {

// Half-open interval of op steps [first_op, end_op): the buffer must hold its
// data from the start of step first_op until step end_op starts.
// Invariant: 0 <= first_op < end_op.
struct Lifetime {
  int32_t first_op = 0;  // first step that writes or reads the buffer
  int32_t end_op = 1;    // one past the last step that reads it

  constexpr bool Overlaps(const Lifetime& other) const {
    return first_op < other.end_op && other.first_op < end_op;
  }
  constexpr bool Contains(int32_t op_step) const { return first_op <= op_step && op_step < end_op; }
  constexpr int32_t length() const { return end_op - first_op; }
};

enum class BufferKind : uint8_t {
  kTensor = 0,   // an activation tensor (owner_index is a tensor index)
  kScratch = 1,  // an op's scratch buffer (owner_index is an op index)
};

const char* BufferKindName(BufferKind kind);

// No fixed offset: the planner chooses.
constexpr int64_t kNoFixedOffset = -1;

// One thing to place in the head.
struct BufferRequest {
  size_t size_bytes = 0;               // bytes to reserve (already rounded to the alignment)
  Lifetime lifetime;                   // when the bytes must be kept
  BufferKind kind = BufferKind::kTensor;
  int32_t subgraph_index = 0;          // subgraph of the owner
  int32_t owner_index = -1;            // tensor index or op index, per kind; -1 for none (CSV)
  int64_t fixed_offset_bytes = kNoFixedOffset;  // offline offset, or kNoFixedOffset
};

// An approved overlap: the output buffer of an op may share bytes with one of
// its inputs, because the kernel reads and writes in a known order (see
// docs/overlap.md). The pair may share bytes when
//     offset(input) - offset(output) >= min_displacement_bytes   (= D),
// otherwise the two must be disjoint as usual. In terms of
// delta = offset(output) - offset(input), the forbidden set is the open
// interval (max(-size_output, -D), size_input) instead of (-size_output, size_input):
//
//   D = 0 (elementwise, in place):   output [====)          output may start at or
//                                    input     [====)       below the input's start
//   D > 0 (row-lagged convolution):  output [==========)    the output's start lies
//                                    input      [=====)     at least D below the input's
struct OverlapPermission {
  uint32_t input_buffer = 0;          // index into PlanningProblem::buffers: the op's input
  uint32_t output_buffer = 0;         // index into PlanningProblem::buffers: the op's output
  size_t min_displacement_bytes = 0;  // D: the least offset(input) - offset(output) that is safe
};

// The bytes an approved pair can share at most: max(0, min(size_output - D, size_input)),
// D rounded up to the alignment first (offsets are aligned, so their
// difference is too). What an overlap-aware lower bound may subtract.
size_t OverlapSavingBytes(const OverlapPermission& permission, size_t input_size_bytes, size_t output_size_bytes,
                          size_t alignment_bytes);

// A problem: the buffers and the alignment every chosen offset must have.
// The requests and permissions are borrowed: they must outlive the problem.
struct PlanningProblem {
  Span<const BufferRequest> buffers;
  size_t alignment_bytes = 16;  // power of two; every offset must be a multiple
  // Approved overlaps (empty: every pair of buffers live together is
  // disjoint). Planners that ignore them still make valid plans.
  Span<const OverlapPermission> overlaps;
  // Two buffers that both have a fixed offset may share bytes while live:
  // the model's own offline plan placed them so on purpose (Arm Vela puts
  // its scratch areas and the input at offset 0), and TFLM trusts every
  // offline plan. Only the caller can say a model is trusted
  // (InterpreterOptions::trust_offline_plan); a fixed buffer still may not
  // share bytes with one placed by a planner.
  bool trust_fixed_overlaps = false;
};

// The end of the checkers' message for two fixed buffers that share bytes
// without trust_fixed_overlaps.
inline constexpr const char* kUntrustedOfflineOverlap =
    "; both are fixed by the offline plan: a trusted compiler (Arm Vela) shares bytes on purpose, TFLM "
    "trusts all; accept with trust_offline_plan (--trust-offline-plan)";

}  // namespace microarena
