#include "microarena/analysis/lifetimes.h"

#include "microarena/base/align.h"

namespace microarena {

size_t LifetimeCapacity(const SubgraphView& subgraph, size_t scratch_request_count) {
  return subgraph.tensor_count() + scratch_request_count;
}

namespace {

bool IsSupportedAlignment(size_t alignment) {
  return alignment == 4 || alignment == 8 || alignment == 16 || alignment == 32 || alignment == 64;
}

// While analysing, requests[t].lifetime holds tensor t's first write and last
// read as inclusive steps, -1 when unknown.
constexpr int32_t kUnknownStep = -1;
// first_op of a tensor read before any op wrote it, until a write sets it:
// TFLM's "first created -1", open at the start (rule 10).
constexpr int32_t kReadBeforeWrite = -2;

}  // namespace

Result<size_t> AnalyzeLifetimes(const ModelView& model, size_t subgraph_index,
                                Span<const ScratchRequest> scratch, const LifetimeOptions& options,
                                Span<BufferRequest> requests) {
  if (!IsSupportedAlignment(options.alignment_bytes)) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "alignment %zu is not supported (use 4, 8, 16, 32 or 64)", options.alignment_bytes);
  }
  if (model.subgraph_count() != 1) {
    return Status::Error(ErrorCode::kUnsupported,
                         "the model has %zu subgraphs; models with control flow (IF, WHILE, "
                         "CALL_ONCE) are not supported yet",
                         model.subgraph_count());
  }
  if (subgraph_index >= model.subgraph_count()) {
    return Status::Error(ErrorCode::kInvalidArgument, "subgraph %zu outside [0, %zu)", subgraph_index,
                         model.subgraph_count());
  }
  SubgraphView subgraph = model.subgraph(subgraph_index);
  const size_t tensor_count = subgraph.tensor_count();
  const size_t op_count = subgraph.operator_count();
  if (requests.size() < LifetimeCapacity(subgraph, scratch.size())) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "the request array holds %zu entries but %zu are needed", requests.size(),
                         LifetimeCapacity(subgraph, scratch.size()));
  }
  if (!options.order.empty() && options.order.size() != op_count) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "the execution order lists %zu ops but the subgraph has %zu",
                         options.order.size(), op_count);
  }
  if (!options.fixed_offsets_bytes.empty() && options.fixed_offsets_bytes.size() != tensor_count) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "the offline plan has %zu entries but the subgraph has %zu tensors",
                         options.fixed_offsets_bytes.size(), tensor_count);
  }
  // The order must be a permutation of the ops. The output array serves as
  // the "seen" marks when it is long enough; otherwise a quadratic check.
  if (!options.order.empty()) {
    const bool marks_fit = op_count <= requests.size();
    for (size_t i = 0; marks_fit && i < op_count; ++i) requests[i].owner_index = 0;
    for (size_t step = 0; step < op_count; ++step) {
      int32_t op = options.order[step];
      if (op < 0 || static_cast<size_t>(op) >= op_count) {
        return Status::Error(ErrorCode::kInvalidArgument,
                             "execution order step %zu names op %d, outside [0, %zu)", step, op, op_count);
      }
      bool repeated = false;
      if (marks_fit) {
        repeated = requests[static_cast<size_t>(op)].owner_index != 0;
        requests[static_cast<size_t>(op)].owner_index = 1;
      } else {
        for (size_t earlier = 0; earlier < step; ++earlier) repeated |= options.order[earlier] == op;
      }
      if (repeated) {
        return Status::Error(ErrorCode::kInvalidArgument, "execution order names op %d twice (again at step %zu)",
                             op, step);
      }
    }
  }
  for (size_t t = 0; t < tensor_count; ++t) {
    requests[t] = BufferRequest{};
    requests[t].lifetime = Lifetime{kUnknownStep, kUnknownStep};
  }
  for (const ScratchRequest& request : scratch) {
    if (request.op_index < 0 || static_cast<size_t>(request.op_index) >= op_count) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "a scratch request names op %d, outside [0, %zu)", request.op_index, op_count);
    }
  }

  auto op_at = [&](size_t step) {
    return options.order.empty() ? subgraph.op(step) : subgraph.op(static_cast<size_t>(options.order[step]));
  };
  const auto last_step = static_cast<int32_t>(op_count == 0 ? 0 : op_count - 1);

  // Rule 3: inputs from step 0, outputs to the last step.
  for (int32_t t : subgraph.inputs()) requests[static_cast<size_t>(t)].lifetime.first_op = 0;
  for (int32_t t : subgraph.outputs()) requests[static_cast<size_t>(t)].lifetime.end_op = last_step;
  // Rule 2: first write and last read over the order.
  for (size_t step = 0; step < op_count; ++step) {
    OperatorView op = op_at(step);
    auto s = static_cast<int32_t>(step);
    for (int32_t t : op.inputs()) {
      if (t < 0) continue;
      Lifetime& life = requests[static_cast<size_t>(t)].lifetime;
      if (life.first_op == kUnknownStep) life.first_op = kReadBeforeWrite;  // rule 10
      if (life.end_op < s) life.end_op = s;
    }
    for (int32_t t : op.outputs()) {
      Lifetime& life = requests[static_cast<size_t>(t)].lifetime;
      // A read before this write does not count: TFLM starts a lifetime only
      // at an input, an op output or a subgraph output.
      if (life.first_op < 0 || life.first_op > s) life.first_op = s;
    }
  }
  // Rule 4: a written tensor that nobody reads lives for its writer's step.
  // Rule 5: decide which tensors are planned; compact them to the front.
  size_t count = 0;
  for (size_t t = 0; t < tensor_count; ++t) {
    TensorView tensor = subgraph.tensor(t);
    Lifetime inclusive = requests[t].lifetime;
    bool used = inclusive.first_op != kUnknownStep || inclusive.end_op != kUnknownStep;
    if (tensor.is_constant() || tensor.is_variable() || !used) continue;
    // Rule 10: read, never written: open at the start. Rule 11: a subgraph
    // output nothing writes or reads exists at the last step only.
    if (inclusive.first_op == kReadBeforeWrite) inclusive.first_op = 0;
    if (inclusive.first_op == kUnknownStep) inclusive.first_op = last_step;
    if (inclusive.end_op < inclusive.first_op) inclusive.end_op = inclusive.first_op;
    size_t size_bytes = 0;
    if (!AlignUp(tensor.byte_size(), options.alignment_bytes, &size_bytes)) {
      return Status::Error(ErrorCode::kMalformedModel, "tensor %zu '%s': %zu bytes overflow when aligned", t,
                           tensor.name(), tensor.byte_size());
    }
    BufferRequest& out = requests[count++];  // count <= t: compaction never overwrites unread entries
    out.size_bytes = size_bytes;
    out.lifetime = Lifetime{inclusive.first_op, inclusive.end_op + 1};
    out.kind = BufferKind::kTensor;
    out.subgraph_index = static_cast<int32_t>(subgraph_index);
    out.owner_index = static_cast<int32_t>(t);
    out.fixed_offset_bytes = kNoFixedOffset;
    if (!options.fixed_offsets_bytes.empty() && options.fixed_offsets_bytes[t] >= 0) {
      out.fixed_offset_bytes = options.fixed_offsets_bytes[t];
    }
  }
  // Rule 6: scratch buffers, each for its op's step (the step that runs it).
  for (const ScratchRequest& request : scratch) {
    int32_t step = request.op_index;
    if (!options.order.empty()) {
      for (size_t s = 0; s < op_count; ++s) {
        if (options.order[s] == request.op_index) step = static_cast<int32_t>(s);
      }
    }
    size_t size_bytes = 0;
    if (!AlignUp(request.size_bytes, options.alignment_bytes, &size_bytes)) {
      return Status::Error(ErrorCode::kInvalidArgument, "op %d: scratch of %zu bytes overflows when aligned",
                           request.op_index, request.size_bytes);
    }
    BufferRequest& out = requests[count++];
    out = BufferRequest{};
    out.size_bytes = size_bytes;
    out.lifetime = Lifetime{step, step + 1};
    out.kind = BufferKind::kScratch;
    out.subgraph_index = static_cast<int32_t>(subgraph_index);
    out.owner_index = request.op_index;
  }
  return count;
}

}  // namespace microarena
