// Lifetime analysis: from a subgraph and an execution order to the buffer
// requests a planner places in the head.
//
// Rules (those of TFLM's allocator, so that plans are comparable byte for byte):
//  1. Steps are positions in the execution order: step s runs op order[s].
//  2. A tensor lives from the step that first writes it to the step that last
//     reads it, both included; as a half-open lifetime [first_op, end_op) that
//     is [first write, last read + 1).
//  3. Subgraph inputs live from step 0; subgraph outputs live to the last step.
//  4. An op output that no later op reads lives for its own step only.
//  5. Constant tensors (data in the model) are not planned: they stay in the
//     model (read-only persistent). Variable tensors are not planned: they go
//     to the persistent area. Tensors no op touches and that are neither input
//     nor output are not planned (op intermediates included).
//  6. Each scratch request lives for its op's step only: [step, step + 1).
//  7. Sizes are rounded up to the alignment (default 16; 4, 8, 16, 32 or 64).
//  8. Requests come out in TFLM's order: planned tensors by ascending tensor
//     index, then scratch requests in the order given.
//  9. With an offline plan (OfflineMemoryAllocation metadata), a tensor whose
//     entry is not -1 gets that fixed offset.
// 10. A tensor that an op reads before any op writes it (not an input,
//     constant or variable; e.g. the scratch areas of Arm Vela's `ethos-u`
//     op) is open at the start: it lives from step 0 to its last read. TFLM
//     gives it "first created -1"; only inputs, op outputs and subgraph
//     outputs start a lifetime there, so -1 and our 0 overlap the same
//     buffers (no op runs before step 0). When an op writes it later, the
//     earlier reads do not count and it lives from that write, as in TFLM
//     (such a read sees whatever the bytes hold, in TFLM too).
// 11. A subgraph output that no op writes or reads lives at the last step.
// 12. The output of VAR_HANDLE is not planned: it points at the op's own
//     data, which holds the resource variable's id (as in TFLM, whose
//     VAR_HANDLE sets the pointer at prepare, before planning).
//
// TFLM numbers its steps one later than ours (inputs are created at its step
// 0, op k runs at its step k + 1): its inclusive [first, last] is our
// [max(first - 1, 0), last) — `tflm_oracle --print-plan` prints its numbers.
//
// Models with several subgraphs (IF, WHILE, CALL_ONCE) are analysed whole,
// with TFLM's allocation scopes (model/call_graph.h): every subgraph's tensors
// share one head; a called subgraph's tensors live within the calling op's
// scopes; the calling op's inputs and outputs, and its scratch, live over
// all the subgraphs it calls; each subgraph's inputs and outputs are created
// at its entry and its outputs kept to its exit. Steps are TFLM's scopes
// minus one, so an entry into a called subgraph is a step of its own with no
// op. Two differences from TFLM, both for safety: a subgraph called by two
// ops keeps its tensors over both calls (TFLM keeps the last call's), and
// the output of VAR_HANDLE is not planned (it points at the op's data, as in
// TFLM). The model's own execution order only.
//
// Cost: O(tensors + sum of op input/output counts + scratch requests) time;
// no heap: the caller's output array doubles as working memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/result.h"
#include "microarena/base/span.h"
#include "microarena/model/model_view.h"
#include "microarena/analysis/planning_problem.h"

namespace microarena {

// A kernel's request for scratch memory during one op.
struct ScratchRequest {
  int32_t op_index = 0;   // the op that asked (an index into the subgraph's operators)
  size_t size_bytes = 0;  // bytes asked for, before rounding to the alignment
  int32_t subgraph_index = 0;  // the op's subgraph
};

struct LifetimeOptions {
  size_t alignment_bytes = 16;  // 4, 8, 16, 32 or 64
  // Op execution order: order[step] = op index; a permutation of all ops.
  // Empty: the order stored in the model.
  Span<const int32_t> order;
  // Fixed offsets per tensor (-1 = plan online), e.g. from ReadOfflinePlan;
  // empty for none. Size must equal the subgraph's tensor count (with
  // several subgraphs: all tensors, subgraph after subgraph).
  Span<const int32_t> fixed_offsets_bytes;
};

// Capacity the output array of AnalyzeLifetimes needs: tensors + scratch
// requests; for a model with several subgraphs, the tensors of all of them.
size_t LifetimeCapacity(const SubgraphView& subgraph, size_t scratch_request_count);
size_t LifetimeCapacity(const ModelView& model, size_t scratch_request_count);

// Tensors over all subgraphs, and the index of subgraph s's tensor 0 when
// they are numbered one subgraph after the other (as TFLM and the offline
// plan number them).
size_t TotalTensorCount(const ModelView& model);
size_t FirstTensorOf(const ModelView& model, size_t subgraph_index);

// Writes the buffer requests of `subgraph` into `requests` (capacity at least
// LifetimeCapacity(...)) and returns how many were written. Errors: bad
// alignment, an order that is not a permutation of the ops, a scratch request
// naming an op outside the subgraph, a size that overflows when aligned, a
// model with several subgraphs and an order, an output array too small.
Result<size_t> AnalyzeLifetimes(const ModelView& model, size_t subgraph_index,
                                Span<const ScratchRequest> scratch, const LifetimeOptions& options,
                                Span<BufferRequest> requests);

// The same analysis of a model with one subgraph, with its working memory
// apart: `work` holds one Lifetime per tensor of the subgraph while the ops
// are walked, and `requests` only the result, CompactLifetimeCapacity(...)
// entries (tensors that are neither constant nor variable, plus scratch).
// 8 B per tensor and one request per planned buffer, instead of one request
// per tensor: what the interpreter uses on a device, where most tensors are
// weights.
size_t CompactLifetimeCapacity(const SubgraphView& subgraph, size_t scratch_request_count);
Result<size_t> AnalyzeLifetimes(const ModelView& model, size_t subgraph_index,
                                Span<const ScratchRequest> scratch, const LifetimeOptions& options,
                                Span<Lifetime> work, Span<BufferRequest> requests);

// The scope walk over the whole model, which AnalyzeLifetimes uses for
// models with several subgraphs; on a single subgraph in its own order it
// gives what AnalyzeLifetimes gives (tested). `requests` needs
// LifetimeCapacity(model, scratch.size()) entries; options.order must be empty.
Result<size_t> AnalyzeModelLifetimes(const ModelView& model, Span<const ScratchRequest> scratch,
                                     const LifetimeOptions& options, Span<BufferRequest> requests);

// Live bytes at each step, as plain numbers, are in plan/lower_bound.h.

}  // namespace microarena
