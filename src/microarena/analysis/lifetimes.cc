#include "microarena/analysis/lifetimes.h"

#include "microarena/base/align.h"
#include "microarena/model/call_graph.h"

namespace microarena {

size_t LifetimeCapacity(const SubgraphView& subgraph, size_t scratch_request_count) {
  return subgraph.tensor_count() + scratch_request_count;
}

size_t LifetimeCapacity(const ModelView& model, size_t scratch_request_count) {
  return TotalTensorCount(model) + scratch_request_count;
}

size_t TotalTensorCount(const ModelView& model) {
  size_t total = 0;
  for (size_t s = 0; s < model.subgraph_count(); ++s) total += model.subgraph(s).tensor_count();
  return total;
}

size_t FirstTensorOf(const ModelView& model, size_t subgraph_index) {
  size_t first = 0;
  for (size_t s = 0; s < subgraph_index && s < model.subgraph_count(); ++s) first += model.subgraph(s).tensor_count();
  return first;
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

// The walk of TFLM's allocation scopes over every subgraph (see
// model/call_graph.h). While it runs, requests[g] (g a tensor's index over
// all subgraphs) holds the tensor's first and last scope in `lifetime`
// (kUnknownStep when unknown) and, in size_bytes, the visit that created it.
class ScopeMarker final : public CallGraphVisitor {
 public:
  // Scratch request r keeps its scopes in requests[scratch_base + r].
  ScopeMarker(const ModelView& model, Span<const ScratchRequest> scratch, Span<BufferRequest> requests,
              size_t scratch_base)
      : model_(model), scratch_(scratch), requests_(requests), scratch_base_(scratch_base) {}

  Status Enter(size_t subgraph, int32_t scope) override {
    visits_[depth_++] = ++visit_count_;
    SubgraphView view = model_.subgraph(subgraph);
    const size_t first = FirstTensorOf(model_, subgraph);
    for (int32_t t : view.inputs()) Create(first + static_cast<size_t>(t), scope);
    for (int32_t t : view.outputs()) Create(first + static_cast<size_t>(t), scope);
    return OkStatus();
  }
  Status OpBegin(size_t subgraph, size_t op, int32_t op_scope) override {
    const size_t first = FirstTensorOf(model_, subgraph);
    for (int32_t t : model_.subgraph(subgraph).op(op).outputs()) Create(first + static_cast<size_t>(t), op_scope);
    return OkStatus();
  }
  Status OpEnd(size_t subgraph, size_t op, int32_t op_scope, int32_t scope) override {
    const size_t first = FirstTensorOf(model_, subgraph);
    OperatorView view = model_.subgraph(subgraph).op(op);
    for (int32_t t : view.inputs()) {
      if (t >= 0) Use(first + static_cast<size_t>(t), scope);
    }
    for (int32_t t : view.outputs()) Use(first + static_cast<size_t>(t), scope);
    for (size_t r = 0; r < scratch_.size(); ++r) {
      if (scratch_[r].subgraph_index == static_cast<int32_t>(subgraph) &&
          scratch_[r].op_index == static_cast<int32_t>(op)) {
        // Over the op's own scope and every subgraph it called (as TFLM).
        Lifetime& scopes = requests_[scratch_base_ + r].lifetime;
        if (scopes.first_op == kUnknownStep) scopes.first_op = op_scope;
        scopes.end_op = scope;
      }
    }
    return OkStatus();
  }
  Status Exit(size_t subgraph, int32_t scope) override {
    const size_t first = FirstTensorOf(model_, subgraph);
    for (int32_t t : model_.subgraph(subgraph).outputs()) Use(first + static_cast<size_t>(t), scope);
    --depth_;
    return OkStatus();
  }

 private:
  // TFLM's UpdateFirstCreated: a creation restarts the lifetime (earlier
  // reads of unwritten bytes do not count). One change: a tensor created in
  // an earlier call of its subgraph keeps that start, so that a subgraph
  // called twice keeps its bytes over both calls (TFLM would plan only the
  // last call and let other buffers overwrite them during the first).
  void Create(size_t g, int32_t scope) {
    Lifetime& life = requests_[g].lifetime;
    const size_t visit = visits_[depth_ - 1];
    if (life.first_op == kUnknownStep || requests_[g].size_bytes == visit) {
      life.first_op = scope;
      life.end_op = scope;
    } else if (life.end_op < scope) {
      life.end_op = scope;
    }
    requests_[g].size_bytes = visit;
  }
  void Use(size_t g, int32_t scope) {
    Lifetime& life = requests_[g].lifetime;
    if (life.end_op < scope) life.end_op = scope;
  }

  const ModelView& model_;
  Span<const ScratchRequest> scratch_;
  Span<BufferRequest> requests_;
  size_t scratch_base_;
  size_t visits_[kMaxCallDepth + 1] = {};
  size_t depth_ = 0;
  size_t visit_count_ = 0;
};

}  // namespace

Result<size_t> AnalyzeModelLifetimes(const ModelView& model, Span<const ScratchRequest> scratch,
                                     const LifetimeOptions& options, Span<BufferRequest> requests) {
  if (!IsSupportedAlignment(options.alignment_bytes)) {
    return Status::Error(ErrorCode::kInvalidArgument, "alignment %zu is not supported (use 4, 8, 16, 32 or 64)",
                         options.alignment_bytes);
  }
  const size_t tensor_count = TotalTensorCount(model);
  if (requests.size() < tensor_count + scratch.size()) {
    return Status::Error(ErrorCode::kInvalidArgument, "the request array holds %zu entries but %zu are needed",
                         requests.size(), tensor_count + scratch.size());
  }
  if (!options.fixed_offsets_bytes.empty() && options.fixed_offsets_bytes.size() != tensor_count) {
    return Status::Error(ErrorCode::kInvalidArgument, "the offline plan has %zu entries but the model has %zu tensors",
                         options.fixed_offsets_bytes.size(), tensor_count);
  }
  for (const ScratchRequest& request : scratch) {
    if (request.subgraph_index < 0 || static_cast<size_t>(request.subgraph_index) >= model.subgraph_count() ||
        request.op_index < 0 ||
        static_cast<size_t>(request.op_index) >=
            model.subgraph(static_cast<size_t>(request.subgraph_index)).operator_count()) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "a scratch request names subgraph %d, op %d, which does not exist", request.subgraph_index,
                           request.op_index);
    }
  }
  for (size_t g = 0; g < tensor_count + scratch.size(); ++g) {
    requests[g] = BufferRequest{};
    requests[g].lifetime = Lifetime{kUnknownStep, kUnknownStep};
  }
  ScopeMarker marker(model, scratch, requests, tensor_count);
  Result<int32_t> last_scope = WalkCallGraph(model, marker);
  if (!last_scope.ok()) return last_scope.status();

  // TFLM's scope k is our step k - 1 (its scope 0 only creates subgraph 0's
  // inputs): [first, last] in scopes is [max(first - 1, 0), last) in steps.
  auto to_steps = [](Lifetime scopes) {
    int32_t begin = scopes.first_op <= 0 ? 0 : scopes.first_op - 1;  // kUnknownStep: read before written
    int32_t end = scopes.end_op > begin ? scopes.end_op : begin + 1;
    return Lifetime{begin, end};
  };
  size_t count = 0;
  size_t g = 0;
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    SubgraphView subgraph = model.subgraph(s);
    // VAR_HANDLE's output holds a resource id kept in the op's own data.
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      OperatorView op = subgraph.op(o);
      if (op.code() != BuiltinOp::kVarHandle) continue;
      for (int32_t t : op.outputs())
        requests[g + static_cast<size_t>(t)].lifetime = Lifetime{kUnknownStep, kUnknownStep};
    }
    for (size_t t = 0; t < subgraph.tensor_count(); ++t, ++g) {
      TensorView tensor = subgraph.tensor(t);
      Lifetime scopes = requests[g].lifetime;
      const bool used = scopes.first_op != kUnknownStep || scopes.end_op != kUnknownStep;
      if (tensor.is_constant() || tensor.is_variable() || tensor.byte_size() == 0 || !used) continue;
      size_t size_bytes = 0;
      if (!AlignUp(tensor.byte_size(), options.alignment_bytes, &size_bytes)) {
        return Status::Error(ErrorCode::kMalformedModel,
                             "subgraph %zu, tensor %zu '%s': %zu bytes overflow when aligned", s, t, tensor.name(),
                             tensor.byte_size());
      }
      BufferRequest& out = requests[count++];  // count <= g: never over an unread entry
      out = BufferRequest{};
      out.size_bytes = size_bytes;
      out.lifetime = to_steps(scopes);
      out.kind = BufferKind::kTensor;
      out.subgraph_index = static_cast<int32_t>(s);
      out.owner_index = static_cast<int32_t>(t);
      out.fixed_offset_bytes = kNoFixedOffset;
      if (!options.fixed_offsets_bytes.empty() && options.fixed_offsets_bytes[g] >= 0) {
        out.fixed_offset_bytes = options.fixed_offsets_bytes[g];
      }
    }
  }
  for (size_t r = 0; r < scratch.size(); ++r) {
    const ScratchRequest& request = scratch[r];
    Lifetime scopes = requests[tensor_count + r].lifetime;
    if (scopes.first_op == kUnknownStep) {
      // The op is in a subgraph no call reaches: it never runs.
      scopes = Lifetime{1, 1};
    }
    size_t size_bytes = 0;
    if (!AlignUp(request.size_bytes, options.alignment_bytes, &size_bytes)) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "subgraph %d, op %d: scratch of %zu bytes overflows when aligned", request.subgraph_index,
                           request.op_index, request.size_bytes);
    }
    BufferRequest& out = requests[count++];  // count <= tensor_count + r
    out = BufferRequest{};
    out.size_bytes = size_bytes;
    out.lifetime = to_steps(scopes);
    out.kind = BufferKind::kScratch;
    out.subgraph_index = request.subgraph_index;
    out.owner_index = request.op_index;
  }
  return count;
}

namespace {

// Where the single-subgraph analysis keeps each tensor's first write and last
// read while it walks the ops: in the output array itself (tensor t in
// requests[t], compacted in place afterwards), or in a separate array of
// Lifetimes (8 B per tensor) so that the output needs room for the planned
// buffers only.
struct InPlaceWork {
  Span<BufferRequest> requests;
  size_t size() const { return requests.size(); }
  Lifetime& life(size_t t) { return requests[t].lifetime; }
  int32_t& mark(size_t i) { return requests[i].owner_index; }
};

struct SeparateWork {
  Span<Lifetime> lifetimes;
  size_t size() const { return lifetimes.size(); }
  Lifetime& life(size_t t) { return lifetimes[t]; }
  int32_t& mark(size_t i) { return lifetimes[i].first_op; }
};

Status CheckSubgraphArguments(const ModelView& model, size_t subgraph_index, const LifetimeOptions& options) {
  if (!IsSupportedAlignment(options.alignment_bytes)) {
    return Status::Error(ErrorCode::kInvalidArgument, "alignment %zu is not supported (use 4, 8, 16, 32 or 64)",
                         options.alignment_bytes);
  }
  if (subgraph_index >= model.subgraph_count()) {
    return Status::Error(ErrorCode::kInvalidArgument, "subgraph %zu outside [0, %zu)", subgraph_index,
                         model.subgraph_count());
  }
  return OkStatus();
}

template <typename Work>
Result<size_t> AnalyzeSubgraph(const ModelView& model, size_t subgraph_index, Span<const ScratchRequest> scratch,
                               const LifetimeOptions& options, Work work, Span<BufferRequest> requests) {
  SubgraphView subgraph = model.subgraph(subgraph_index);
  const size_t tensor_count = subgraph.tensor_count();
  const size_t op_count = subgraph.operator_count();
  if (!options.order.empty() && options.order.size() != op_count) {
    return Status::Error(ErrorCode::kInvalidArgument, "the execution order lists %zu ops but the subgraph has %zu",
                         options.order.size(), op_count);
  }
  if (!options.fixed_offsets_bytes.empty() && options.fixed_offsets_bytes.size() != tensor_count) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "the offline plan has %zu entries but the subgraph has %zu tensors",
                         options.fixed_offsets_bytes.size(), tensor_count);
  }
  // The order must be a permutation of the ops. The working array serves as
  // the "seen" marks when it is long enough; otherwise a quadratic check.
  if (!options.order.empty()) {
    const bool marks_fit = op_count <= work.size();
    for (size_t i = 0; marks_fit && i < op_count; ++i) work.mark(i) = 0;
    for (size_t step = 0; step < op_count; ++step) {
      int32_t op = options.order[step];
      if (op < 0 || static_cast<size_t>(op) >= op_count) {
        return Status::Error(ErrorCode::kInvalidArgument, "execution order step %zu names op %d, outside [0, %zu)",
                             step, op, op_count);
      }
      bool repeated = false;
      if (marks_fit) {
        repeated = work.mark(static_cast<size_t>(op)) != 0;
        work.mark(static_cast<size_t>(op)) = 1;
      } else {
        for (size_t earlier = 0; earlier < step; ++earlier) repeated |= options.order[earlier] == op;
      }
      if (repeated) {
        return Status::Error(ErrorCode::kInvalidArgument, "execution order names op %d twice (again at step %zu)", op,
                             step);
      }
    }
  }
  for (size_t t = 0; t < tensor_count; ++t) work.life(t) = Lifetime{kUnknownStep, kUnknownStep};
  for (const ScratchRequest& request : scratch) {
    if (request.op_index < 0 || static_cast<size_t>(request.op_index) >= op_count) {
      return Status::Error(ErrorCode::kInvalidArgument, "a scratch request names op %d, outside [0, %zu)",
                           request.op_index, op_count);
    }
  }

  auto op_at = [&](size_t step) {
    return options.order.empty() ? subgraph.op(step) : subgraph.op(static_cast<size_t>(options.order[step]));
  };
  const auto last_step = static_cast<int32_t>(op_count == 0 ? 0 : op_count - 1);

  // Rule 3: inputs from step 0, outputs to the last step.
  for (int32_t t : subgraph.inputs()) work.life(static_cast<size_t>(t)).first_op = 0;
  for (int32_t t : subgraph.outputs()) work.life(static_cast<size_t>(t)).end_op = last_step;
  // Rule 2: first write and last read over the order.
  for (size_t step = 0; step < op_count; ++step) {
    OperatorView op = op_at(step);
    auto s = static_cast<int32_t>(step);
    for (int32_t t : op.inputs()) {
      if (t < 0) continue;
      Lifetime& life = work.life(static_cast<size_t>(t));
      if (life.first_op == kUnknownStep) life.first_op = kReadBeforeWrite;  // rule 10
      if (life.end_op < s) life.end_op = s;
    }
    for (int32_t t : op.outputs()) {
      Lifetime& life = work.life(static_cast<size_t>(t));
      // A read before this write does not count: TFLM starts a lifetime only
      // at an input, an op output or a subgraph output.
      if (life.first_op < 0 || life.first_op > s) life.first_op = s;
    }
  }
  // Rule 12: VAR_HANDLE's output points at the op's own data (a resource id).
  for (size_t o = 0; o < op_count; ++o) {
    OperatorView op = subgraph.op(o);
    if (op.code() != BuiltinOp::kVarHandle) continue;
    for (int32_t t : op.outputs()) work.life(static_cast<size_t>(t)) = Lifetime{kUnknownStep, kUnknownStep};
  }
  // Rule 4: a written tensor that nobody reads lives for its writer's step.
  // Rule 5: decide which tensors are planned; compact them to the front.
  size_t count = 0;
  for (size_t t = 0; t < tensor_count; ++t) {
    TensorView tensor = subgraph.tensor(t);
    Lifetime inclusive = work.life(t);
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
    // In place, count <= t: compaction never overwrites unread entries.
    BufferRequest& out = requests[count++];
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

}  // namespace

Result<size_t> AnalyzeLifetimes(const ModelView& model, size_t subgraph_index, Span<const ScratchRequest> scratch,
                                const LifetimeOptions& options, Span<BufferRequest> requests) {
  if (model.subgraph_count() != 1) {
    if (!IsSupportedAlignment(options.alignment_bytes)) {
      return Status::Error(ErrorCode::kInvalidArgument, "alignment %zu is not supported (use 4, 8, 16, 32 or 64)",
                           options.alignment_bytes);
    }
    if (subgraph_index != 0) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "a model with several subgraphs is analysed whole, from subgraph 0 (asked: %zu)",
                           subgraph_index);
    }
    if (!options.order.empty()) {
      return Status::Error(ErrorCode::kUnsupported,
                           "the model has %zu subgraphs: an execution order other than the model's own is not "
                           "supported with control flow",
                           model.subgraph_count());
    }
    return AnalyzeModelLifetimes(model, scratch, options, requests);
  }
  MICROARENA_RETURN_IF_ERROR(CheckSubgraphArguments(model, subgraph_index, options));
  const size_t needed = LifetimeCapacity(model.subgraph(subgraph_index), scratch.size());
  if (requests.size() < needed) {
    return Status::Error(ErrorCode::kInvalidArgument, "the request array holds %zu entries but %zu are needed",
                         requests.size(), needed);
  }
  return AnalyzeSubgraph(model, subgraph_index, scratch, options, InPlaceWork{requests}, requests);
}

size_t CompactLifetimeCapacity(const SubgraphView& subgraph, size_t scratch_request_count) {
  size_t planned = 0;
  for (size_t t = 0; t < subgraph.tensor_count(); ++t) {
    TensorView tensor = subgraph.tensor(t);
    if (!tensor.is_constant() && !tensor.is_variable()) ++planned;
  }
  return planned + scratch_request_count;
}

Result<size_t> AnalyzeLifetimes(const ModelView& model, size_t subgraph_index, Span<const ScratchRequest> scratch,
                                const LifetimeOptions& options, Span<Lifetime> work, Span<BufferRequest> requests) {
  if (model.subgraph_count() != 1) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "the model has %zu subgraphs: separate working memory is for one subgraph only",
                         model.subgraph_count());
  }
  MICROARENA_RETURN_IF_ERROR(CheckSubgraphArguments(model, subgraph_index, options));
  SubgraphView subgraph = model.subgraph(subgraph_index);
  const size_t needed = CompactLifetimeCapacity(subgraph, scratch.size());
  if (work.size() < subgraph.tensor_count() || requests.size() < needed) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "the working array holds %zu entries and the request array %zu but %zu and %zu are needed",
                         work.size(), requests.size(), subgraph.tensor_count(), needed);
  }
  return AnalyzeSubgraph(model, subgraph_index, scratch, options, SeparateWork{work}, requests);
}

}  // namespace microarena
