// PrecomputedPlan: the head's layout, computed ahead of time for one model
// and one set of InterpreterOptions, so that a device allocates tensors
// without lifetime analysis, planner or plan verifier (none of them is then
// linked into the firmware, and AllocateTensors needs less stack and temp).
// `microarena plan MODEL --header FILE --precomputed-plan` writes one into
// the arena header, planned on the host (with the exact planner by default)
// and verified there against the model's lifetimes and the kernels' overlap
// permissions; the header binds it to the model's size and SHA-256.
//
//   microarena::Interpreter interpreter(model, resolver, arena, size, options);
//   Status status = interpreter.AllocateTensors(
//       microarena_arena::PrecomputedPlanOf<microarena::PrecomputedPlan>());
//
// The device trusts the plan for which buffers may share bytes, not for
// bounds: every buffer must lie inside the head and be aligned, and every
// tensor an op or the model reads or writes must have memory, or
// AllocateTensors fails with kInvalidArgument. A stale plan can at worst give
// wrong outputs; it never makes the runtime write outside the arena.
#pragma once

#include <cstddef>
#include <cstdint>

namespace microarena {

struct PrecomputedPlan {
  // A tensor with no bytes in the head: a constant, a variable, one no op uses.
  static constexpr uint32_t kNotInHead = 0xFFFFFFFFu;

  const uint32_t* tensor_offsets = nullptr;  // per tensor of subgraph 0: head offset or kNotInHead
  size_t tensor_count = 0;
  // Per scratch buffer, in the order the kernels request them during
  // Prepare. Borrowed by the interpreter for its whole life (kept in flash;
  // no scratch table is allocated in the arena).
  const uint32_t* scratch_offsets = nullptr;
  size_t scratch_count = 0;
  size_t head_bytes = 0;
  // Made for a tiling (InterpreterOptions::tiling): its windows' buffers are
  // their rows, and the maps of a segment live through all of it. Used only
  // by an interpreter running that tiling.
  bool tiled = false;
};

}  // namespace microarena
