#include "microarena/runtime/tiled_execution.h"

#include <cstring>

#include "microarena/base/status.h"
#include "microarena/runtime/stored_tiling.h"

namespace microarena {

// Moves window rows and runs each band's ops on views of their rows.
class TiledExecution::BandRunner final : public BandVisitor {
 public:
  explicit BandRunner(Interpreter& interpreter) : interpreter_(interpreter) {}

  Status BeforeWrite(SegmentTensor& output, int32_t keep_first, const BandStep&) override {
    // The rows still read move to the window's start.
    if (output.role != SegmentRole::kWindow || keep_first <= output.first_row || output.done <= keep_first) {
      return OkStatus();
    }
    const EvalTensor* record = Whole(output.tensor);
    const size_t row = RowBytes(*record);
    std::memmove(record->data, record->data + static_cast<size_t>(keep_first - output.first_row) * row,
                 static_cast<size_t>(output.done - keep_first) * row);
    return OkStatus();
  }

  Status Run(const BandStep& step, const SegmentTensor* tensors) override {
    int32_t input_dims[2][4];
    int32_t output_dims[4];
    EvalTensor input_views[2];
    EvalTensor* inputs[2] = {nullptr, nullptr};
    for (size_t i = 0; i < 2; ++i) {
      if (step.input_slot[i] < 0) continue;
      const SegmentTensor& tensor = tensors[step.input_slot[i]];
      input_views[i] = View(*Whole(tensor.tensor), tensor, step.inputs[i], input_dims[i]);
      inputs[i] = &input_views[i];
    }
    const SegmentTensor& out = tensors[step.output_slot];
    EvalTensor output_view = View(*Whole(out.tensor), out, step.output, output_dims);
    return interpreter_.InvokeOnViews(static_cast<size_t>(step.op), inputs, &output_view, step.output.first,
                                      step.inputs[0].first);
  }

 private:
  static size_t RowBytes(const EvalTensor& tensor) {
    return static_cast<size_t>(tensor.dim(2)) * static_cast<size_t>(tensor.dim(3)) * TensorTypeBits(tensor.type) / 8;
  }
  EvalTensor* Whole(int32_t tensor) { return interpreter_.Record(static_cast<size_t>(tensor)); }
  // Rows `rows` of `tensor`, held in `whole`'s buffer from row first_row on.
  static EvalTensor View(const EvalTensor& whole, const SegmentTensor& tensor, RowRange rows, int32_t dims[4]) {
    EvalTensor view = whole;
    for (size_t d = 0; d < 4; ++d) dims[d] = whole.dim(d);
    dims[1] = rows.rows();
    view.dims = dims;
    // No rows (a band of padding only): the window's start, never read.
    if (!rows.empty()) view.data = whole.data + static_cast<size_t>(rows.first - tensor.first_row) * RowBytes(whole);
    return view;
  }

  Interpreter& interpreter_;
};

// The walks' memory, then the check of every segment (which walks in it).
// Int32 and int16 fields only: the same bytes on every target.
Status TiledExecution::Start(Interpreter& interpreter) const {
  const ModelView& model = interpreter.model_;
  const size_t bytes = TilingStateBytes(model, segments_);
  if (bytes > 0) {
    Result<uint8_t*> state = interpreter.AllocatePersistentFor(bytes, PersistentUse::kTilingState);
    if (!state.ok()) return Status(state.status()).Prefix("tiling state");
    interpreter.tiling_state_ = Span<uint8_t>(*state, bytes);
  }
  const WalkMemory memory = WalkMemoryIn(interpreter.tiling_state_, model, segments_);
  return CheckTiling(model, segments_, &memory);
}

Status TiledExecution::Apply(const ModelView& model, size_t alignment_bytes, Span<BufferRequest> buffers,
                             Span<uint8_t> state) const {
  const WalkMemory memory = WalkMemoryIn(state, model, segments_);
  return ApplyTiling(model, segments_, alignment_bytes, buffers, &memory);
}

size_t TiledExecution::BufferBytes(const ModelView& model, int32_t tensor, size_t alignment_bytes,
                                   Span<uint8_t> state) const {
  const WalkMemory memory = WalkMemoryIn(state, model, segments_);
  return TiledBufferBytes(model, segments_, tensor, alignment_bytes, &memory);
}

uint64_t TiledExecution::PlanFingerprint(uint64_t model_fingerprint) const {
  return TilingFingerprint(model_fingerprint, segments_);
}

Result<size_t> TiledExecution::OverlapCount(const ModelView& model, Span<uint8_t> state) const {
  const WalkMemory memory = WalkMemoryIn(state, model, segments_);
  return TilingOverlapCount(model, segments_, &memory);
}

Result<size_t> TiledExecution::Overlaps(const ModelView& model, Span<const BufferRequest> buffers,
                                        Span<OverlapPermission> permissions, size_t resolved, bool add_own,
                                        Span<uint8_t> state) const {
  auto touches = [&](uint32_t buffer) {
    return buffers[buffer].kind == BufferKind::kTensor && IsTiledTensor(model, segments_, buffers[buffer].owner_index);
  };
  size_t kept = 0;
  for (size_t i = 0; i < resolved; ++i) {
    if (touches(permissions[i].input_buffer) || touches(permissions[i].output_buffer)) continue;
    permissions[kept++] = permissions[i];
  }
  if (!add_own) return kept;
  const WalkMemory memory = WalkMemoryIn(state, model, segments_);
  Result<size_t> added = TilingOverlaps(model, segments_, buffers,
                                        Span<OverlapPermission>(permissions.data() + kept, permissions.size() - kept),
                                        &memory);
  if (!added.ok()) return added.status();
  return kept + *added;
}

Status TiledExecution::InvokeSegment(Interpreter& interpreter, const TiledSegment& segment,
                                     const WalkMemory& memory) const {
  SegmentWalk walk(memory);
  MICROARENA_RETURN_IF_ERROR(walk.Start(interpreter.model_, segment));
  BandRunner runner(interpreter);
  return walk.Walk(runner);
}

Status TiledExecution::Invoke(Interpreter& interpreter, Span<uint8_t> state) const {
  const WalkMemory memory = WalkMemoryIn(state, interpreter.model_, segments_);
  const size_t op_count = interpreter.model_.subgraph(0).operator_count();
  size_t next = 0;
  for (size_t o = 0; o < op_count; ++o) {
    if (next < segments_.size() && static_cast<size_t>(segments_[next].first_op) == o) {
      const TiledSegment& segment = segments_[next++];
      MICROARENA_RETURN_IF_ERROR(InvokeSegment(interpreter, segment, memory));
      o = static_cast<size_t>(segment.last_op);
      continue;
    }
    MICROARENA_RETURN_IF_ERROR(interpreter.InvokeMainOp(o));
  }
  return OkStatus();
}

}  // namespace microarena
