// From the kernels' overlap declarations to the planner's overlap
// permissions (analysis/planning_problem.h: OverlapPermission).
//
// A kernel declares at prepare that its output may overlap one of its inputs
// at a displacement D (kernels/overlap.h). The declaration becomes a
// permission only when the lifetimes make it safe for the whole model:
//  1. both tensors are planned buffers (not constants or variables);
//  2. the input's last reader is this op: its lifetime ends at the op's step
//     (end_op == step + 1), so no later op needs the bytes the op overwrites;
//  3. the input is not a subgraph output (its bytes must survive Invoke);
//  4. the output's first writer is this op (first_op == step).
// A subgraph input whose last reader is the op may be overwritten: as with
// any planned tensor, its bytes are reused once its last reader ran (TFLM
// reuses them the same way), so an input's data is not kept after Invoke.
// A pair declared twice (e.g. ADD(x, x)) gives one permission with the
// larger D.
//
// Cost: O(declarations x buffers) time (each tensor is found by a scan); no
// heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/result.h"
#include "microarena/base/span.h"
#include "microarena/model/model_view.h"
#include "microarena/analysis/planning_problem.h"

namespace microarena {

// One kernel's declaration: op `op_index` may write tensor `output_tensor`
// over tensor `input_tensor` when offset(input) - offset(output) >= D.
struct OverlapDeclaration {
  int32_t op_index = 0;
  int32_t input_tensor = 0;
  int32_t output_tensor = 0;
  size_t min_displacement_bytes = 0;  // D
};

// Writes the permissions the lifetime rules above allow into `permissions`
// (at least declarations.size() entries) and returns how many. `buffers` are
// AnalyzeLifetimes' requests for subgraph 0 with the same `order` (empty:
// model order). Errors: a declaration naming an op or tensor out of range,
// too small an output array.
Result<size_t> ResolveOverlaps(const ModelView& model, Span<const BufferRequest> buffers,
                               Span<const OverlapDeclaration> declarations, Span<const int32_t> order,
                               Span<OverlapPermission> permissions);

}  // namespace microarena
