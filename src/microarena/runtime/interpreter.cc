#include "microarena/runtime/interpreter.h"

#include <cstring>

#include "microarena/analysis/lifetimes.h"
#include "microarena/analysis/offline_plan.h"
#include "microarena/analysis/overlaps.h"
#include "microarena/base/align.h"
#include "microarena/base/checked_math.h"
#include "microarena/model/call_graph.h"
#include "microarena/plan/greedy.h"
#include "microarena/plan/greedy_tflm.h"
#include "microarena/plan/linear.h"
#include "microarena/plan/lower_bound.h"
#include "microarena/plan/verify.h"

namespace microarena {

const char* PersistentUseName(PersistentUse use) {
  switch (use) {
    case PersistentUse::kTensorMetadata: return "tensor metadata";
    case PersistentUse::kOpTable: return "op table";
    case PersistentUse::kOpData: return "op data";
    case PersistentUse::kVariableState: return "variable state";
    case PersistentUse::kScratchHandles: return "scratch handles";
    case PersistentUse::kWeightsCopy: return "weights copy";
    case PersistentUse::kTilingState: return "tiling state";
  }
  return "unknown";
}

const char* PlannerChoiceName(PlannerChoice choice) {
  switch (choice) {
    case PlannerChoice::kAuto: return "auto";
    case PlannerChoice::kLinear: return "linear";
    case PlannerChoice::kGreedyTflm: return "greedy-tflm";
    case PlannerChoice::kGreedy: return "greedy";
    case PlannerChoice::kOffline: return "offline";
    case PlannerChoice::kCustom: return "custom";
    case PlannerChoice::kPrecomputed: return "precomputed";
  }
  return "unknown";
}

namespace {

bool IsSupportedAlignment(size_t alignment) {
  return alignment == 4 || alignment == 8 || alignment == 16 || alignment == 32 || alignment == 64;
}

// Appends "INT8 1x49x10x1" for each tensor index in `list` to `text`.
void DescribeTensors(const SubgraphView& subgraph, Span<const int32_t> list, char* text, size_t text_bytes) {
  size_t used = std::strlen(text);
  for (size_t i = 0; i < list.size() && used + 1 < text_bytes; ++i) {
    int written = 0;
    if (list[i] < 0) {
      written = FormatText(text + used, text_bytes - used, "%s-", i == 0 ? "" : ", ");
    } else {
      TensorView t = subgraph.tensor(static_cast<size_t>(list[i]));
      written = FormatText(text + used, text_bytes - used, "%s%s", i == 0 ? "" : ", ", TensorTypeName(t.type()));
      for (size_t d = 0; d < t.rank() && written > 0; ++d) {
        size_t at = used + static_cast<size_t>(written);
        if (at + 1 >= text_bytes) break;
        written += FormatText(text + at, text_bytes - at, "%s%d", d == 0 ? " " : "x", t.shape()[d]);
      }
    }
    if (written < 0) break;
    used += static_cast<size_t>(written);
    if (used >= text_bytes) used = text_bytes - 1;
  }
}

// Prepare leaves two kinds of records in temp, one after the other: scratch
// requests (a ScratchRequest, whose op_index is >= 0) and, with
// allow_overlap, overlap declarations, which start with this tag instead.
constexpr int32_t kOverlapRecordTag = INT32_MIN;
struct OverlapRecord {
  int32_t tag = kOverlapRecordTag;
  OverlapDeclaration declaration;
};

// `verified` named as the offline plan's or the planner's fault. Its own
// frame, off the success path: AllocateTensors' stack does not carry the
// message buffer.
[[gnu::noinline, gnu::cold]] Status InvalidPlan(Status verified, bool offline, const char* offline_name,
                                                const char* planner_name) {
  char where[96];
  if (offline) {
    FormatText(where, sizeof(where), "the offline plan (%s) is an invalid plan", offline_name);
  } else {
    FormatText(where, sizeof(where), "planner '%s' made an invalid plan", planner_name);
  }
  return verified.Prefix(where);
}

}  // namespace

const TargetLayout& HostLayout() {
  // kCortexMLayout states these sizes for the host's tools: hold it to the
  // compiler's on every 32-bit Arm build.
#if defined(__arm__) && UINTPTR_MAX == 0xFFFFFFFFu
static_assert(sizeof(void*) == kCortexMLayout.pointer_bytes && sizeof(size_t) == kCortexMLayout.pointer_bytes);
static_assert(sizeof(EvalTensor) == kCortexMLayout.eval_tensor_bytes);
static_assert(sizeof(Interpreter::Node) == kCortexMLayout.node_bytes);
static_assert(sizeof(Interpreter::Resource) == kCortexMLayout.resource_bytes);
static_assert(sizeof(ScratchRequest) == kCortexMLayout.scratch_request_bytes);
static_assert(sizeof(OverlapRecord) == kCortexMLayout.overlap_record_bytes);
static_assert(sizeof(OverlapDeclaration) == kCortexMLayout.overlap_declaration_bytes);
static_assert(sizeof(OverlapPermission) == kCortexMLayout.overlap_permission_bytes);
static_assert(sizeof(BufferRequest) == kCortexMLayout.buffer_request_bytes);
#endif
  static constexpr TargetLayout kLayout{"host",
                                        "this build",
                                        sizeof(void*),
                                        sizeof(EvalTensor),
                                        sizeof(Interpreter::Node),
                                        sizeof(Interpreter::Resource),
                                        sizeof(ScratchRequest),
                                        sizeof(OverlapRecord),
                                        sizeof(OverlapDeclaration),
                                        sizeof(OverlapPermission),
                                        sizeof(BufferRequest)};
  return kLayout;
}


const TargetLayout* FindTargetLayout(const char* name) {
  if (name == nullptr) return nullptr;
  if (std::strcmp(name, "host") == 0) return &HostLayout();
  if (std::strcmp(name, kCortexMLayout.name) == 0) return &kCortexMLayout;
  return nullptr;
}

const char* TargetLayoutNames() { return "host, cortex-m"; }

namespace {

// Whether `bytes` at `offset` lie inside a head of `head_bytes`, aligned.
bool FitsInHead(uint32_t offset, size_t bytes, size_t head_bytes, size_t alignment) {
  return offset % alignment == 0 && offset <= head_bytes && bytes <= head_bytes - offset;
}

[[gnu::cold]] Status OutsideHead(const char* what, size_t index, uint32_t offset, size_t bytes, size_t head_bytes,
                                 size_t alignment) {
  return Status::Error(ErrorCode::kInvalidArgument,
                       "precomputed plan: %s %zu (%zu B at offset %u) is not inside the %zu B head at a multiple of "
                       "%zu (the plan is for another model or other options)",
                       what, index, bytes, static_cast<unsigned>(offset), head_bytes, alignment);
}

}  // namespace

class Interpreter::PrepareContextImpl final : public PrepareContext {
 public:
  PrepareContextImpl(Interpreter& interpreter, size_t subgraph_index, size_t op_index, size_t scratch_stride)
      : interpreter_(interpreter),
        subgraph_index_(subgraph_index),
        op_index_(op_index),
        scratch_stride_(scratch_stride) {}
  const ModelView& model() const override { return interpreter_.model_; }
  SubgraphView subgraph() const override { return interpreter_.model_.subgraph(subgraph_index_); }
  GraphContext* graph() override { return &interpreter_.graph_; }
  OperatorView op() const override { return subgraph().op(op_index_); }
  void* AllocatePersistent(size_t bytes, size_t alignment) override {
    const size_t arena_alignment = interpreter_.arena_.granule();
    if (!IsPowerOfTwo(alignment) || alignment > 64) {
      last_error_ =
          Error(ErrorCode::kInvalidArgument, "op data alignment %zu is not a power of two up to 64", alignment);
      return nullptr;
    }
    // Stricter than the arena (e.g. 8 in a 4-aligned arena): take the extra
    // bytes whatever the address, so the figures do not depend on where the
    // arena starts, and align up inside them.
    const size_t extra = alignment > arena_alignment ? alignment - arena_alignment : 0;
    size_t padded = 0;
    if (!CheckedAdd(bytes, extra, &padded)) padded = static_cast<size_t>(-1);
    // Op data is pointer-free (kernels/kernel.h), so only the padding can
    // differ on the target, whose granule may be smaller.
    const size_t target_granule = interpreter_.TargetGranule();
    size_t target_padded = padded;
    if (alignment > target_granule) (void)CheckedAdd(bytes, alignment - target_granule, &target_padded);
    // The counters before it, kept in the interpreter (not on the stack
    // under the kernel's Prepare), to give it back exactly when the model's
    // copy is used.
    OpDataAllocation& a = interpreter_.op_data_allocation_;
    interpreter_.MarkPersistent(PersistentUse::kOpData, &a.before);
    Result<uint8_t*> memory =
        interpreter_.AllocatePersistentFor(padded, PersistentUse::kOpData, bytes, target_padded);
    if (!memory.ok()) {
      last_error_ = memory.status();
      last_error_.Prefix("op data");
      return nullptr;
    }
    const auto address = reinterpret_cast<uintptr_t>(*memory);
    uint8_t* data = *memory + ((alignment - (address & (alignment - 1))) & (alignment - 1));
    // Zeroed: bytes a kernel leaves unwritten (struct padding) then compare
    // equal with the model's copy whatever the arena held before.
    std::memset(data, 0, bytes);
    ++a.count;
    a.data = data;
    a.bytes = bytes;
    a.alignment = alignment;
    a.tail_after = interpreter_.arena_.persistent_bytes();
    return data;
  }
  Status OutOfMemory() const override {
    if (!last_error_.ok()) return last_error_;
    return Error(ErrorCode::kInternal, "OutOfMemory() called without a failed allocation");
  }
  Status RequestScratch(size_t bytes, int32_t* scratch_index) override {
    if (interpreter_.precomputed_plan_ != nullptr) {
      // Checked against the plan now: nothing waits in temp.
      const PrecomputedPlan& plan = *interpreter_.precomputed_plan_;
      const size_t s = interpreter_.scratch_count_;
      if (s >= plan.scratch_count || plan.scratch_offsets == nullptr) {
        return Error(ErrorCode::kInvalidArgument,
                     "precomputed plan: it places %zu scratch buffers; the kernels ask for more (the plan is for "
                     "another model or other options)",
                     plan.scratch_count);
      }
      if (!FitsInHead(plan.scratch_offsets[s], bytes, plan.head_bytes, interpreter_.arena_.alignment())) {
        return OutsideHead("scratch buffer", s, plan.scratch_offsets[s], bytes, plan.head_bytes,
                           interpreter_.arena_.alignment());
      }
      *scratch_index = static_cast<int32_t>(interpreter_.scratch_count_++);
      return OkStatus();
    }
    const TargetLayout* target = interpreter_.options_.figures_for;
    Result<uint8_t*> entry = interpreter_.AllocateTempFor(
        scratch_stride_, target == nullptr ? 0 : AlignUpUnchecked(target->scratch_request_bytes, interpreter_.TargetGranule()));
    if (!entry.ok()) {
      Status status = entry.status();
      return status.Prefix("scratch request");
    }
    ScratchRequest request{static_cast<int32_t>(op_index_), bytes, static_cast<int32_t>(subgraph_index_)};
    std::memcpy(*entry, &request, sizeof(request));
    *scratch_index = static_cast<int32_t>(interpreter_.scratch_count_++);
    return OkStatus();
  }
  Status AllowOutputOverlap(size_t input, size_t output, size_t min_displacement_bytes) override {
    // With several subgraphs the plan keeps every tensor disjoint (the
    // lifetimes span whole subgraph calls; docs/control_flow.md).
    if (!interpreter_.options_.allow_overlap || interpreter_.precomputed_ || interpreter_.model_.subgraph_count() != 1) {
      return OkStatus();
    }
    return RecordOverlap(input, output, min_displacement_bytes);
  }

 private:
  // AllowOutputOverlap's record, in its own frame: without overlap, the
  // kernels' Prepare (on AllocateTensors' stack) does not carry it.
  [[gnu::noinline]] Status RecordOverlap(size_t input, size_t output, size_t min_displacement_bytes) {
    if (input >= input_count() || output >= output_count() || !has_input(input)) {
      return Error(ErrorCode::kInternal, "overlap declared for input %zu and output %zu of %zu and %zu", input, output,
                   input_count(), output_count());
    }
    const TargetLayout* target = interpreter_.options_.figures_for;
    Result<uint8_t*> entry = interpreter_.AllocateTempFor(
        AlignUpUnchecked(sizeof(OverlapRecord), interpreter_.arena_.granule()),
        target == nullptr ? 0 : AlignUpUnchecked(target->overlap_record_bytes, interpreter_.TargetGranule()));
    if (!entry.ok()) {
      Status status = entry.status();
      return status.Prefix("overlap declaration");
    }
    OverlapRecord record;
    record.declaration = OverlapDeclaration{static_cast<int32_t>(op_index_), input_index(input), output_index(output),
                                            min_displacement_bytes};
    std::memcpy(*entry, &record, sizeof(record));
    ++interpreter_.overlap_declaration_count_;
    return OkStatus();
  }

  Interpreter& interpreter_;
  size_t subgraph_index_;
  size_t op_index_;
  size_t scratch_stride_;
  Status last_error_;
};

class Interpreter::EvalContextImpl final : public EvalContext {
 public:
  // `tensors` is the op's subgraph's first EvalTensor.
  EvalContextImpl(Interpreter& interpreter, const OperatorView& op, EvalTensor* tensors)
      : interpreter_(interpreter), op_(op), tensors_(tensors) {}
  size_t input_count() const override { return op_.inputs().size(); }
  size_t output_count() const override { return op_.outputs().size(); }
  EvalTensor* input(size_t i) override {
    int32_t t = op_.inputs()[i];
    if (t < 0) return nullptr;
    if (interpreter_.record_index_ == nullptr) return &tensors_[static_cast<size_t>(t)];
    const uint16_t r = interpreter_.RecordOf(static_cast<size_t>(t));
    return r != kNoRecord ? &tensors_[r] : interpreter_.ConstantInput(op_, i);
  }
  EvalTensor* output(size_t i) override {
    const auto t = static_cast<size_t>(op_.outputs()[i]);
    return interpreter_.record_index_ == nullptr ? &tensors_[t] : &tensors_[interpreter_.RecordOf(t)];
  }
  void* scratch(int32_t scratch_index) override {
    return interpreter_.arena_.head_start() + interpreter_.scratch_offsets_[static_cast<size_t>(scratch_index)];
  }
  GraphContext* graph() override { return &interpreter_.graph_; }

 private:
  Interpreter& interpreter_;
  const OperatorView& op_;
  EvalTensor* tensors_;
};

EvalTensor* Interpreter::GraphImpl::tensor(size_t subgraph, size_t tensor) {
  if (interpreter_.record_index_ != nullptr) return interpreter_.RecordOrView(tensor);  // one subgraph
  return &interpreter_.tensors_[FirstTensorOf(interpreter_.model_, subgraph) + tensor];
}

EvalTensor Interpreter::ConstantView(size_t tensor_index) const {
  TensorView view = model_.subgraph(0).tensor(tensor_index);
  EvalTensor eval;
  // Constants are read-only; kernels never write inputs.
  eval.data = const_cast<uint8_t*>(view.data().data());
  eval.dims = view.shape().data();
  eval.rank = static_cast<uint8_t>(view.rank());
  eval.type = view.type();
  return eval;
}

EvalTensor* Interpreter::ConstantInput(const OperatorView& op, size_t input) {
  // The window holds one view per constant input of the op, in input order.
  size_t slot = 0;
  for (size_t j = 0; j < input; ++j) {
    const int32_t t = op.inputs()[j];
    slot += t >= 0 && RecordOf(static_cast<size_t>(t)) == kNoRecord;
  }
  constant_window_[slot] = ConstantView(static_cast<size_t>(op.inputs()[input]));
  return &constant_window_[slot];
}

EvalTensor* Interpreter::RecordOrView(size_t tensor_index) {
  if (record_index_ == nullptr) return &tensors_[tensor_index];
  const uint16_t r = RecordOf(tensor_index);
  if (r != kNoRecord) return &tensors_[r];
  constant_view_ = ConstantView(tensor_index);
  return &constant_view_;
}

EvalTensor* Interpreter::Record(size_t tensor_index) {
  if (record_index_ == nullptr) return &tensors_[tensor_index];
  const uint16_t r = RecordOf(tensor_index);
  return r != kNoRecord ? &tensors_[r] : nullptr;
}

Status Interpreter::GraphImpl::InvokeSubgraph(size_t subgraph) {
  if (!interpreter_.allocated_) {
    return Status::Error(ErrorCode::kInvalidArgument, "subgraph %zu can only run in Invoke", subgraph);
  }
  return interpreter_.InvokeSubgraph(subgraph);
}

Result<int32_t> Interpreter::GraphImpl::FindOrCreateResource(const char* container, const char* shared_name) {
  Interpreter& in = interpreter_;
  for (size_t r = 0; r < in.resource_count_; ++r) {
    if (std::strcmp(in.resources_[r].container, container) == 0 &&
        std::strcmp(in.resources_[r].shared_name, shared_name) == 0) {
      return static_cast<int32_t>(r);
    }
  }
  if (in.resource_count_ >= in.resource_capacity_) {
    return Status::Error(ErrorCode::kInternal, "more resource variables than VAR_HANDLE ops (%zu)",
                         in.resource_capacity_);
  }
  in.resources_[in.resource_count_] = Resource{container, shared_name, nullptr, 0, 0};
  return static_cast<int32_t>(in.resource_count_++);
}

Status Interpreter::GraphImpl::AllocateResource(int32_t id, size_t bytes, uint8_t fill) {
  Interpreter& in = interpreter_;
  if (id < 0 || static_cast<size_t>(id) >= in.resource_count_) {
    return Status::Error(ErrorCode::kInvalidArgument, "resource variable %d does not exist", id);
  }
  Resource& resource = in.resources_[id];
  if (resource.data != nullptr || bytes == 0) return OkStatus();
  Result<uint8_t*> memory = in.AllocatePersistentFor(bytes, PersistentUse::kVariableState);
  if (!memory.ok()) {
    Status status = memory.status();
    char context[96];
    FormatText(context, sizeof(context), "resource variable '%.40s'", resource.shared_name);
    return status.Prefix(context);
  }
  resource.data = *memory;
  resource.bytes = bytes;
  resource.fill = fill;
  std::memset(resource.data, fill, bytes);
  return OkStatus();
}

Status Interpreter::GraphImpl::CountLoopTurn() {
  const size_t limit = interpreter_.options_.max_loop_iterations;
  if (limit != 0 && ++interpreter_.loop_turns_ > limit) {
    return Status::Error(
        ErrorCode::kInvalidArgument,
        "WHILE loops took more than %zu turns in this Invoke (InterpreterOptions::max_loop_iterations)", limit);
  }
  return OkStatus();
}

Span<uint8_t> Interpreter::GraphImpl::resource(int32_t id) {
  Interpreter& in = interpreter_;
  if (id < 0 || static_cast<size_t>(id) >= in.resource_count_ || in.resources_[id].data == nullptr) return {};
  return Span<uint8_t>(in.resources_[id].data, in.resources_[id].bytes);
}

Interpreter::Interpreter(const ModelView& model, const OpResolver& resolver, uint8_t* arena, size_t arena_bytes,
                         const InterpreterOptions& options)
    : model_(model),
      resolver_(resolver),
      options_(options),
      own_arena_(arena, arena_bytes, IsSupportedAlignment(options.alignment_bytes) ? options.alignment_bytes : 16),
      arena_(own_arena_) {}

Interpreter::Interpreter(const ModelView& model, const OpResolver& resolver, SharedArena& shared_arena,
                         const InterpreterOptions& options)
    : model_(model),
      resolver_(resolver),
      options_(options),
      own_arena_(nullptr, 0),
      arena_(shared_arena.arena_),
      shared_(&shared_arena) {
  ++shared_->attached_;
}

Interpreter::~Interpreter() {
  // The tail stays reserved: later tails sit below it. SharedArena::Reset
  // frees every tail once no interpreter uses the arena.
  if (shared_ != nullptr) --shared_->attached_;
}

Status Interpreter::CheckCanAllocate() {
  if (allocated_ || failed_) {
    return Status::Error(ErrorCode::kInvalidArgument, "AllocateTensors may be called once per interpreter");
  }
  failed_ = true;  // until everything after this succeeds
  if (!IsSupportedAlignment(options_.alignment_bytes)) {
    return Status::Error(ErrorCode::kInvalidArgument, "alignment %zu is not supported (use 4, 8, 16, 32 or 64)",
                         options_.alignment_bytes);
  }
  if (arena_.head_start() == nullptr) {
    return Status::Error(ErrorCode::kInvalidArgument, "the arena pointer is null");
  }
  if (options_.tiling != nullptr) {
    if (model_.subgraph_count() != 1 || shared_ != nullptr || options_.preserve_all_tensors) {
      return Status::Error(ErrorCode::kUnsupported, "tiling needs one subgraph, an own arena, no preserve_all_tensors");
    }
  }
  return OkStatus();
}

Status Interpreter::AllocateTensors() {
  MICROARENA_RETURN_IF_ERROR(CheckCanAllocate());
  if (shared_ != nullptr) return AllocateTensorsShared();
  // A plan the model carries: no planning at boot. Only the automatic
  // choice: `offline` asks for the model's offline plan (TFLM's format)
  // planned around at boot.
  if (options_.planner == PlannerChoice::kAuto &&
      model_.has_metadata(options_.tiling == nullptr ? kStoredPlanMetadataName : kTiledPlanMetadataName)) {
    return AllocateWithStoredPlan();
  }
  return AllocateTensorsInArena();
}

Status Interpreter::AllocateWithStoredPlan() {
  StoredPlan stored;
  if (!FindStoredPlan(&stored)) return AllocateTensorsInArena();
  lower_bound_bytes_ = stored.lower_bound_bytes;
  stored_plan_used_ = true;
  return AllocateWithPlan(stored.plan);
}

Status Interpreter::AllocateTensors(const PrecomputedPlan& plan) {
  MICROARENA_RETURN_IF_ERROR(CheckCanAllocate());
  if ((options_.tiling != nullptr) != plan.tiled) {
    return Status::Error(ErrorCode::kInvalidArgument, "the precomputed plan and the interpreter differ on tiling");
  }
  if (shared_ != nullptr) {
    return Status::Error(ErrorCode::kUnsupported, "a precomputed plan needs the interpreter's own arena, not a shared one");
  }
  if (model_.subgraph_count() != 1) {
    return Status::Error(ErrorCode::kUnsupported,
                         "a precomputed plan is for models with one subgraph; this one has %zu (plan on the device)",
                         model_.subgraph_count());
  }
  return AllocateWithPlan(plan);
}

Status Interpreter::AllocateWithPlan(const PrecomputedPlan& plan) {
  precomputed_ = true;
  precomputed_plan_ = &plan;
  MICROARENA_RETURN_IF_ERROR(AllocateTailStructures());
  MICROARENA_RETURN_IF_ERROR(PrepareOps());
  MICROARENA_RETURN_IF_ERROR(CommitPrecomputedPlan(plan));
  precomputed_plan_ = nullptr;
  planner_used_ = PlannerChoice::kPrecomputed;
  failed_ = false;
  allocated_ = true;
  return OkStatus();
}

uint64_t Interpreter::Fingerprint() {
  if (!fingerprint_known_) {
    fingerprint_ = ModelFingerprint(model_);
    fingerprint_known_ = true;
  }
  return fingerprint_;
}

bool Interpreter::FindStoredPlan(StoredPlan* stored) {
  if (options_.preserve_all_tensors || options_.custom_planner != nullptr || model_.subgraph_count() != 1) {
    return false;
  }
  // A tiled plan holds windows: only for the tiling it was made with (its
  // own name, and a fingerprint of the model and the tiling together).
  const bool tiled = options_.tiling != nullptr;
  const Span<const uint8_t> blob = model_.metadata(tiled ? kTiledPlanMetadataName : kStoredPlanMetadataName);
  const uint64_t fingerprint = tiled ? options_.tiling->PlanFingerprint(Fingerprint()) : Fingerprint();
  if (blob.empty() || !ParseStoredPlan(blob, fingerprint, model_.subgraph(0).tensor_count(), stored) ||
      stored->tiled != tiled) {
    return false;
  }
  return stored->alignment_bytes == arena_.alignment() && (!stored->uses_overlap || options_.allow_overlap);
}

Status Interpreter::CommitPrecomputedPlan(const PrecomputedPlan& plan) {
  if (plan.tensor_count != tensor_count_ || plan.scratch_count != scratch_count_ ||
      (plan.tensor_count > 0 && plan.tensor_offsets == nullptr) ||
      (plan.scratch_count > 0 && plan.scratch_offsets == nullptr)) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "precomputed plan: it places %zu tensors and %zu scratch buffers; this model has %zu tensors "
                         "and its kernels asked for %zu scratch buffers (the plan is for another model or other "
                         "options)",
                         plan.tensor_count, plan.scratch_count, tensor_count_, scratch_count_);
  }
  const size_t alignment = arena_.alignment();
  // Each scratch buffer was checked against the plan when its kernel asked.
  ResetTemp();
  Status committed = arena_.CommitHead(plan.head_bytes);
  if (!committed.ok()) return committed.Prefix("precomputed head");
  own_head_bytes_ = AlignUpUnchecked(plan.head_bytes, alignment);
  scratch_offsets_ = plan.scratch_offsets;
  SubgraphView subgraph = model_.subgraph(0);
  for (size_t t = 0; t < tensor_count_; ++t) {
    const uint32_t offset = plan.tensor_offsets[t];
    if (offset == PrecomputedPlan::kNotInHead) continue;
    TensorView view = subgraph.tensor(t);
    EvalTensor* record = Record(t);  // none for a tensor no op reads or writes
    const size_t bytes = options_.tiling == nullptr
                             ? view.byte_size()
                             : options_.tiling->BufferBytes(model_, static_cast<int32_t>(t), alignment, tiling_state_);
    if (view.is_constant() || view.is_variable() || record == nullptr ||
        !FitsInHead(offset, bytes, plan.head_bytes, alignment)) {
      return OutsideHead(view.is_constant()   ? "constant tensor"
                         : view.is_variable() ? "variable tensor"
                         : record == nullptr  ? "tensor no op uses"
                                              : "tensor",
                         t, offset, bytes, plan.head_bytes, alignment);
    }
    record->data = arena_.head_start() + offset;
  }
  return CheckEveryUsedTensorHasMemory();
}

Status Interpreter::CheckEveryUsedTensorHasMemory() {
  SubgraphView subgraph = model_.subgraph(0);
  auto missing = [&](Span<const int32_t> list) -> int32_t {
    for (int32_t t : list) {
      if (t < 0) continue;
      EvalTensor* record = Record(static_cast<size_t>(t));
      if (record == nullptr || record->data != nullptr) continue;  // constants are in the model
      // An empty tensor needs no bytes, only a pointer that is not null
      // (planned, it sits somewhere in the head too).
      if (subgraph.tensor(static_cast<size_t>(t)).byte_size() == 0) {
        record->data = arena_.head_start();
        continue;
      }
      return t;
    }
    return -1;
  };
  int32_t lacking = missing(subgraph.inputs());
  if (lacking < 0) lacking = missing(subgraph.outputs());
  for (size_t o = 0; o < subgraph.operator_count() && lacking < 0; ++o) {
    OperatorView op = subgraph.op(o);
    lacking = missing(op.inputs());
    if (lacking < 0) lacking = missing(op.outputs());
  }
  if (lacking < 0) return OkStatus();
  return Status::Error(ErrorCode::kInvalidArgument,
                       "precomputed plan: tensor %d is used but has no bytes in the head (the plan is for another "
                       "model or other options)",
                       static_cast<int>(lacking));
}

Status Interpreter::AllocateTensorsShared() {
  if (options_.alignment_bytes != arena_.alignment()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "the interpreter's alignment %zu differs from the shared arena's %zu; every model in a "
                         "shared arena must use the arena's alignment",
                         options_.alignment_bytes, arena_.alignment());
  }
  if (arena_.temp_bytes() != 0) {
    return Status::Error(ErrorCode::kInternal, "the shared arena has %zu temp bytes in use", arena_.temp_bytes());
  }
  const size_t tail_before = arena_.persistent_bytes();
  arena_.MarkTempPeak();
  Status status = AllocateTensorsInArena();
  if (!status.ok()) {
    // Give back what this model took, so the others keep their room.
    arena_.ResetTemp();
    arena_.ShrinkTailTo(tail_before);
    return status.Prefix("shared arena");
  }
  own_persistent_bytes_ = arena_.persistent_bytes() - tail_before;
  own_temp_peak_bytes_ = arena_.temp_peak_since_mark_bytes();
  return OkStatus();
}

Result<uint8_t*> Interpreter::AllocatePersistentFor(size_t bytes, PersistentUse use, size_t requested_bytes,
                                                   size_t target_bytes) {
  const size_t tail_before = arena_.persistent_bytes();
  Result<uint8_t*> memory = arena_.AllocatePersistent(bytes);
  if (memory.ok()) {
    persistent_by_use_[static_cast<size_t>(use)] += arena_.persistent_bytes() - tail_before;
    persistent_requested_bytes_ += requested_bytes == kSameAsBytes ? bytes : requested_bytes;
    if (options_.figures_for != nullptr) {
      // No overflow: the target's bytes never exceed what was just allocated here.
      const size_t counted = AlignUpUnchecked(target_bytes == kSameAsBytes ? bytes : target_bytes, TargetGranule());
      target_tail_bytes_ += counted;
      target_requested_bytes_ += requested_bytes != kSameAsBytes ? requested_bytes
                                 : target_bytes != kSameAsBytes  ? target_bytes
                                                                 : bytes;
      target_by_use_[static_cast<size_t>(use)] += counted;
      NoteTargetPeak();
    }
  }
  return memory;
}

Result<uint8_t*> Interpreter::AllocateTempFor(size_t bytes, size_t target_bytes) {
  Result<uint8_t*> memory = arena_.AllocateTemp(bytes);
  if (memory.ok() && options_.figures_for != nullptr) {
    target_temp_bytes_ += AlignUpUnchecked(target_bytes, TargetGranule());
    if (target_temp_bytes_ > target_temp_peak_bytes_) target_temp_peak_bytes_ = target_temp_bytes_;
    NoteTargetPeak();
  }
  return memory;
}

void Interpreter::MarkPersistent(PersistentUse use, PersistentMark* mark) const {
  const auto u = static_cast<size_t>(use);
  mark->use = use;
  mark->tail = arena_.persistent_bytes();
  mark->by_use = persistent_by_use_[u];
  mark->requested = persistent_requested_bytes_;
  mark->target_tail = target_tail_bytes_;
  mark->target_requested = target_requested_bytes_;
  mark->target_by_use = target_by_use_[u];
}

void Interpreter::ReleasePersistentTo(const PersistentMark& mark) {
  // Only the newest allocations, all of mark.use: the counts go back as they were.
  const auto u = static_cast<size_t>(mark.use);
  arena_.ShrinkTailTo(mark.tail);
  persistent_by_use_[u] = mark.by_use;
  persistent_requested_bytes_ = mark.requested;
  target_tail_bytes_ = mark.target_tail;
  target_requested_bytes_ = mark.target_requested;
  target_by_use_[u] = mark.target_by_use;
}

void Interpreter::NoteTargetPeak() {
  const size_t low = arena_.head_bytes() > target_temp_bytes_ ? arena_.head_bytes() : target_temp_bytes_;
  if (target_tail_bytes_ + low > target_peak_bytes_) target_peak_bytes_ = target_tail_bytes_ + low;
}

void Interpreter::ResetTemp() {
  arena_.ResetTemp();
  target_temp_bytes_ = 0;
}

void Interpreter::ReleaseTempTo(size_t temp_bytes, size_t target_temp_bytes) {
  arena_.ReleaseTempTo(temp_bytes);
  if (target_temp_bytes < target_temp_bytes_) target_temp_bytes_ = target_temp_bytes;
}

const TargetLayout& Interpreter::Target() const {
  return options_.figures_for != nullptr ? *options_.figures_for : HostLayout();
}

size_t Interpreter::TargetGranule() const {
  const size_t pointer_bytes = options_.figures_for == nullptr ? sizeof(void*) : options_.figures_for->pointer_bytes;
  return options_.alignment_bytes > pointer_bytes ? options_.alignment_bytes : pointer_bytes;
}

TargetArenaFigures Interpreter::target_figures() const {
  TargetArenaFigures figures;
  if (options_.figures_for == nullptr || !allocated_) return figures;
  figures.persistent_bytes = target_tail_bytes_;
  figures.persistent_requested_bytes = target_requested_bytes_;
  for (size_t u = 0; u < kPersistentUseCount; ++u) figures.persistent_by_use[u] = target_by_use_[u];
  figures.head_bytes = arena_.head_bytes();
  figures.temp_peak_bytes = target_temp_peak_bytes_;
  figures.used_bytes = target_tail_bytes_ + (figures.head_bytes > figures.temp_peak_bytes ? figures.head_bytes
                                                                                         : figures.temp_peak_bytes);
  // Op data given back after it was found in flash peaked above the final tail.
  if (target_peak_bytes_ > figures.used_bytes) figures.used_bytes = target_peak_bytes_;
  return figures;
}

// PrepareOps in a frame of its own: AllocateTensorsInArena's frame stays
// small under the planner.
Status Interpreter::PrepareOpsInOwnFrame() { return PrepareOps(); }

Status Interpreter::AllocateTensorsInArena() {
  MICROARENA_RETURN_IF_ERROR(AllocateTailStructures());
  MICROARENA_RETURN_IF_ERROR(PrepareOpsInOwnFrame());
  MICROARENA_RETURN_IF_ERROR(PlanAndCommit());
  failed_ = false;
  allocated_ = true;
  return OkStatus();
}

Status Interpreter::AllocateTailStructures() {
  tensor_count_ = TotalTensorCount(model_);
  op_count_ = 0;
  size_t var_handles = 0;
  for (size_t sg = 0; sg < model_.subgraph_count(); ++sg) {
    SubgraphView subgraph = model_.subgraph(sg);
    op_count_ += subgraph.operator_count();
    for (size_t o = 0; o < subgraph.operator_count(); ++o)
      var_handles += subgraph.op(o).code() == BuiltinOp::kVarHandle;
  }
  if (options_.use_kernel_data) {
    const Span<const uint8_t> blob = model_.metadata(kKernelDataMetadataName);
    if (!blob.empty()) kernel_data_ = KernelDataView::Parse(blob, op_count_, Fingerprint());
    kernel_data_use_.state = kernel_data_.state();
    kernel_data_use_.blob_bytes = blob.size();
  }
  const TargetLayout& target = options_.figures_for != nullptr ? *options_.figures_for : HostLayout();
  MICROARENA_RETURN_IF_ERROR(AllocateTensorRecords(target));
  Result<uint8_t*> nodes =
      AllocatePersistentFor(op_count_ * sizeof(Node), PersistentUse::kOpTable, kSameAsBytes, op_count_ * target.node_bytes);
  if (!nodes.ok()) return Status(nodes.status()).Prefix("op table");
  nodes_ = reinterpret_cast<Node*>(*nodes);
  for (size_t o = 0; o < op_count_; ++o) nodes_[o] = Node{};
  if (options_.tiling != nullptr) MICROARENA_RETURN_IF_ERROR(options_.tiling->Start(*this));
  if (var_handles > 0) {
    // At most one resource variable per VAR_HANDLE op.
    Result<uint8_t*> table = AllocatePersistentFor(var_handles * sizeof(Resource), PersistentUse::kVariableState,
                                                   kSameAsBytes, var_handles * target.resource_bytes);
    if (!table.ok()) return Status(table.status()).Prefix("resource variable table");
    resources_ = reinterpret_cast<Resource*>(*table);
    resource_capacity_ = var_handles;
  }

  size_t t = 0;
  for (size_t sg = 0; sg < model_.subgraph_count(); ++sg) {
    SubgraphView subgraph = model_.subgraph(sg);
    for (size_t local = 0; local < subgraph.tensor_count(); ++local, ++t) {
      EvalTensor* record = Record(t);
      if (record == nullptr) continue;  // a constant read through the model
      TensorView view = subgraph.tensor(local);
      EvalTensor& eval = *record;
      eval = EvalTensor{};
      eval.dims = view.shape().data();
      eval.rank = static_cast<uint8_t>(view.rank());
      eval.type = view.type();
      if (view.is_constant()) {
        if (options_.copy_weights_to_arena) {
          Result<uint8_t*> copy = AllocatePersistentFor(view.byte_size(), PersistentUse::kWeightsCopy);
          if (!copy.ok()) {
            Status status = copy.status();
            char context[96];
            FormatText(context, sizeof(context), "weights of tensor %zu", t);
            return status.Prefix(context);
          }
          std::memcpy(*copy, view.data().data(), view.byte_size());
          eval.data = *copy;
        } else {
          // Constants are read-only; kernels never write inputs.
          eval.data = const_cast<uint8_t*>(view.data().data());
        }
      } else if (view.is_variable()) {
        Result<uint8_t*> state = AllocatePersistentFor(view.byte_size(), PersistentUse::kVariableState);
        if (!state.ok()) {
          Status status = state.status();
          char context[96];
          FormatText(context, sizeof(context), "variable tensor %zu '%.40s'", t, view.name());
          return status.Prefix(context);
        }
        eval.data = *state;
        ResetVariable(t);
      }
    }
  }
  return OkStatus();
}

Status Interpreter::AllocateTensorRecords(const TargetLayout& target) {
  // One subgraph and weights in the model: records only for the tensors an
  // op or the model reads or writes that are not constants (and for
  // constants an op writes or the model reads or writes) and for variables;
  // constants are read through the model into the constant window when an
  // eval asks for them. Tensors no op lists (an LSTM's intermediates, which
  // carry only quantization) need none.
  const bool compact = model_.subgraph_count() == 1 && !options_.copy_weights_to_arena && tensor_count_ < kNoRecord;
  size_t records = tensor_count_;
  size_t window = 0;
  if (compact) {
    SubgraphView subgraph = model_.subgraph(0);
    narrow_index_ = tensor_count_ < kNoNarrowRecord;
    const size_t entry_bytes = narrow_index_ ? sizeof(uint8_t) : sizeof(uint16_t);
    // To give the index back when every tensor needs a record.
    PersistentMark before;
    MarkPersistent(PersistentUse::kTensorMetadata, &before);
    Result<uint8_t*> map = AllocatePersistentFor(tensor_count_ * entry_bytes, PersistentUse::kTensorMetadata);
    if (!map.ok()) return Status(map.status()).Prefix("tensor record index");
    record_index_ = *map;
    // First 0 for "keeps a record", kUnseen for a tensor that is not a
    // constant and not yet seen in use; numbered below. (Marks, not model
    // look-ups, in the loops over the ops: AllocateTensors' stack.)
    constexpr uint16_t kUnseen = 1;
    for (size_t t = 0; t < tensor_count_; ++t) {
      TensorView view = subgraph.tensor(t);
      SetRecordOf(t, view.is_variable() ? 0 : view.is_constant() ? kNoRecord : kUnseen);
    }
    auto keep = [&](Span<const int32_t> list, bool constants_too) {
      for (int32_t t : list) {
        if (t >= 0 && (constants_too || RecordOf(static_cast<size_t>(t)) == kUnseen)) {
          SetRecordOf(static_cast<size_t>(t), 0);
        }
      }
    };
    keep(subgraph.inputs(), true);
    keep(subgraph.outputs(), true);
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      keep(subgraph.op(o).inputs(), false);
      keep(subgraph.op(o).outputs(), true);
    }
    records = 0;
    for (size_t t = 0; t < tensor_count_; ++t) {
      SetRecordOf(t, RecordOf(t) == 0 ? static_cast<uint16_t>(records++) : kNoRecord);
    }
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      size_t constants = 0;
      for (int32_t t : subgraph.op(o).inputs()) constants += t >= 0 && RecordOf(static_cast<size_t>(t)) == kNoRecord;
      if (constants > window) window = constants;
    }
    if (records == tensor_count_) {
      // Nothing to save: one record per tensor, no index.
      ReleasePersistentTo(before);
      record_index_ = nullptr;
      narrow_index_ = false;
      window = 0;
    }
  }
  size_t bytes = 0;
  if (!CheckedMul(records + window, sizeof(EvalTensor), &bytes)) {
    return Status::Error(ErrorCode::kOutOfMemory, "%zu tensors overflow the size arithmetic", tensor_count_);
  }
  Result<uint8_t*> tensors = AllocatePersistentFor(bytes, PersistentUse::kTensorMetadata, kSameAsBytes,
                                                   (records + window) * target.eval_tensor_bytes);
  if (!tensors.ok()) return Status(tensors.status()).Prefix("tensor metadata");
  tensors_ = reinterpret_cast<EvalTensor*>(*tensors);
  constant_window_ = tensors_ + records;
  record_count_ = records;
  return OkStatus();
}

TensorView Interpreter::TensorAt(size_t tensor_index) const {
  size_t sg = 0;
  while (sg + 1 < model_.subgraph_count() && tensor_index >= model_.subgraph(sg).tensor_count()) {
    tensor_index -= model_.subgraph(sg).tensor_count();
    ++sg;
  }
  return model_.subgraph(sg).tensor(tensor_index);
}

void Interpreter::ResetVariable(size_t tensor_index) {
  TensorView view = TensorAt(tensor_index);
  int value = 0;
  if (view.type() == TensorType::kInt8 && view.quantization().is_quantized()) {
    value = static_cast<int>(static_cast<int8_t>(view.quantization().zero_point(0)));
  }
  std::memset(Record(tensor_index)->data, value, view.byte_size());
}

Status Interpreter::UnsupportedOp(size_t subgraph_index, size_t op_index) const {
  SubgraphView subgraph = model_.subgraph(subgraph_index);
  OperatorView op = subgraph.op(op_index);
  char where[48] = "";
  if (subgraph_index != 0) FormatText(where, sizeof(where), "subgraph %zu, ", subgraph_index);
  char inputs[128] = "";
  char outputs[96] = "";
  DescribeTensors(subgraph, op.inputs(), inputs, sizeof(inputs));
  DescribeTensors(subgraph, op.outputs(), outputs, sizeof(outputs));
  if (op.is_custom()) {
    return Status::Error(ErrorCode::kUnsupported,
                         "%sop %zu (custom op '%s'): no kernel is registered for this custom op; register one by "
                         "name with OpResolver::WithCustom (inputs: %s; outputs: %s)",
                         where, op_index, op.name(), inputs, outputs);
  }
  return Status::Error(ErrorCode::kUnsupported, "%sop %zu (%s): no kernel for this op (inputs: %s; outputs: %s)", where,
                       op_index, op.name(), inputs, outputs);
}


Status Interpreter::PrepareOps() {
  size_t n = 0;
  for (size_t sg = 0; sg < model_.subgraph_count(); ++sg) {
    SubgraphView subgraph = model_.subgraph(sg);
    for (size_t o = 0; o < subgraph.operator_count(); ++o, ++n) {
      nodes_[n].kernel = resolver_.Find(subgraph.op(o));
      if (nodes_[n].kernel == nullptr) return UnsupportedOp(sg, o);
    }
  }
  // Subgraph after subgraph, each in op order (as TFLM prepares them).
  const size_t stride = AlignUpUnchecked(sizeof(ScratchRequest), arena_.granule());
  n = 0;
  for (size_t sg = 0; sg < model_.subgraph_count(); ++sg) {
    for (size_t o = 0; o < model_.subgraph(sg).operator_count(); ++o, ++n) {
      PrepareContextImpl context(*this, sg, o, stride);
      op_data_allocation_.count = 0;
      MICROARENA_RETURN_IF_ERROR(nodes_[n].kernel->prepare(context, &nodes_[n].op_data));
      if (op_data_allocation_.count != 0) SettleOpData(n);
    }
  }
  return OkStatus();
}

void Interpreter::SettleOpData(size_t op) {
  const OpDataAllocation& allocation = op_data_allocation_;
  Node& node = nodes_[op];
  // Only data that stays read-only, that the kernel points at, and that is
  // the newest tail allocation (so it can be given back) may move to flash.
  if (node.kernel->op_data_in_ram || allocation.count != 1 || node.op_data != allocation.data ||
      arena_.persistent_bytes() != allocation.tail_after) {
    return;
  }
  if (options_.kernel_data_observer != nullptr) {
    options_.kernel_data_observer->OnKernelData(op, allocation.data, allocation.bytes, allocation.alignment);
  }
  if (!kernel_data_.usable()) return;
  while (next_kernel_data_entry_ < kernel_data_.entry_count() &&
         kernel_data_.entry(next_kernel_data_entry_).op < op) {
    ++next_kernel_data_entry_;
  }
  if (next_kernel_data_entry_ == kernel_data_.entry_count()) return;
  const KernelDataEntry entry = kernel_data_.entry(next_kernel_data_entry_);
  if (entry.op != op) return;
  ++next_kernel_data_entry_;
  const uint8_t* stored = kernel_data_.data(entry);
  if (entry.bytes != allocation.bytes || reinterpret_cast<uintptr_t>(stored) % allocation.alignment != 0 ||
      std::memcmp(stored, allocation.data, allocation.bytes) != 0) {
    ++kernel_data_use_.ops_recomputed;  // stale for this op: its RAM copy stays
    return;
  }
  node.op_data = stored;
  kernel_data_use_.ram_bytes_saved += arena_.persistent_bytes() - allocation.before.tail;
  ReleasePersistentTo(allocation.before);
  ++kernel_data_use_.ops_in_flash;
  kernel_data_use_.flash_bytes += entry.bytes;
}

// What PlanAndCommit's steps hand on to each other.
struct Interpreter::PlanState {
  OverlapDeclaration* declarations = nullptr;  // overlap_declaration_count_ of them
  const char* offline_name = kOfflinePlanMetadataName;
  PlannerChoice choice = PlannerChoice::kAuto;
  BufferRequest* requests = nullptr;
  size_t count = 0;
  size_t* offsets = nullptr;
  size_t head_bytes = 0;
  uint32_t* scratch_table = nullptr;  // scratch_count_ head offsets, in the tail
};

// Each step has its own frame (noinline): only the planner's caller, not the
// locals of every step, is on the stack while the planner runs.
Status Interpreter::PlanAndCommit() {
  PlanState state;
  MICROARENA_RETURN_IF_ERROR(PackTempRecords(state));
  MICROARENA_RETURN_IF_ERROR(AnalyzeBuffers(state));
  MICROARENA_RETURN_IF_ERROR(RunPlanner(state));
  return CommitPlan(state);
}

Status Interpreter::PackTempRecords(PlanState& state) {
  const TargetLayout& target = Target();
  // The scratch table goes in the tail before planning, so that the tail is
  // final when temp peaks: this makes arena_used_bytes() exact.
  if (scratch_count_ > 0) {
    Result<uint8_t*> table = AllocatePersistentFor(scratch_count_ * sizeof(uint32_t), PersistentUse::kScratchHandles);
    if (!table.ok()) return Status(table.status()).Prefix("scratch table");
    state.scratch_table = reinterpret_cast<uint32_t*>(*table);
    scratch_offsets_ = state.scratch_table;
  }
  // The scratch requests (and overlap declarations) sit in temp, each at a
  // stride of whole alignment units. Copy the declarations to an array above
  // them; then pack the scratch requests into a plain array in place (each
  // moves down, never over one unread).
  uint8_t* temp_base = arena_.head_start();
  const size_t stride = AlignUpUnchecked(sizeof(ScratchRequest), arena_.granule());
  const size_t overlap_stride = AlignUpUnchecked(sizeof(OverlapRecord), arena_.granule());
  const size_t record_count = scratch_count_ + overlap_declaration_count_;
  auto is_overlap_record = [](const uint8_t* record) {
    int32_t tag = 0;
    std::memcpy(&tag, record, sizeof(tag));
    return tag == kOverlapRecordTag;
  };
  if (overlap_declaration_count_ > 0) {
    Result<uint8_t*> memory = AllocateTempFor(overlap_declaration_count_ * sizeof(OverlapDeclaration),
                                              overlap_declaration_count_ * target.overlap_declaration_bytes);
    if (!memory.ok()) return Status(memory.status()).Prefix("overlap declarations");
    state.declarations = reinterpret_cast<OverlapDeclaration*>(*memory);
    size_t position = 0;
    size_t copied = 0;
    for (size_t r = 0; r < record_count; ++r) {
      if (is_overlap_record(temp_base + position)) {
        OverlapRecord record;
        std::memcpy(&record, temp_base + position, sizeof(record));
        state.declarations[copied++] = record.declaration;
        position += overlap_stride;
      } else {
        position += stride;
      }
    }
  }
  auto* packed = reinterpret_cast<ScratchRequest*>(temp_base);
  size_t position = 0;
  size_t scratch_packed = 0;
  for (size_t r = 0; r < record_count; ++r) {
    if (overlap_declaration_count_ > 0 && is_overlap_record(temp_base + position)) {
      position += overlap_stride;
      continue;
    }
    ScratchRequest request;
    std::memcpy(&request, temp_base + position, sizeof(request));
    packed[scratch_packed++] = request;
    position += stride;
  }
  return OkStatus();
}

Status Interpreter::AnalyzeBuffers(PlanState& state) {
  // Which planner.
  Result<Span<const int32_t>> offline_plan = ReadOfflinePlan(model_);
  if (!offline_plan.ok()) return offline_plan.status();
  Span<const int32_t> offline = *offline_plan;
  // A plan stored in the model places whole maps; a tiling plans windows.
  if (options_.tiling != nullptr) {
    if (options_.planner == PlannerChoice::kOffline) {
      return Status::Error(ErrorCode::kUnsupported, "a tiling with planner 'offline' (its plan is of whole maps)");
    }
    offline = Span<const int32_t>();
  } else if (options_.allow_overlap) {
    // An overlap plan relies on these kernels' read/write order: only with overlap.
    Result<Span<const int32_t>> overlap_plan = ReadOfflinePlan(model_, kOverlapPlanMetadataName);
    if (!overlap_plan.ok()) return overlap_plan.status();
    if (!overlap_plan->empty()) {
      offline = *overlap_plan;
      state.offline_name = kOverlapPlanMetadataName;
    }
  }
  PlannerChoice choice = options_.planner;
  if (options_.preserve_all_tensors) choice = PlannerChoice::kLinear;
  if (choice == PlannerChoice::kAuto) choice = offline.empty() ? PlannerChoice::kGreedy : PlannerChoice::kOffline;
  if (choice == PlannerChoice::kOffline && offline.empty()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "planner 'offline' needs OfflineMemoryAllocation metadata%s, which this model does not have",
                         options_.allow_overlap ? " (or an overlap plan)" : "");
  }
  planner_used_ = choice;
  state.choice = choice;

  LifetimeOptions lifetime_options;
  lifetime_options.alignment_bytes = arena_.alignment();
  if (choice == PlannerChoice::kOffline) lifetime_options.fixed_offsets_bytes = offline;
  // The scratch requests, packed at the start of temp (PackTempRecords).
  const auto* packed = reinterpret_cast<const ScratchRequest*>(arena_.head_start());
  const Span<const ScratchRequest> scratch(packed, scratch_count_);
  const size_t request_bytes = Target().buffer_request_bytes;
  Result<size_t> count = 0;
  if (model_.subgraph_count() == 1) {
    // One request per planned buffer, and 8 B per tensor of working memory
    // above them, given back before the planner takes its own: most tensors
    // are weights, which need no request.
    const size_t capacity = CompactLifetimeCapacity(model_.subgraph(0), scratch_count_);
    Result<uint8_t*> request_memory = AllocateTempFor(capacity * sizeof(BufferRequest), capacity * request_bytes);
    if (!request_memory.ok()) return Status(request_memory.status()).Prefix("lifetimes");
    state.requests = reinterpret_cast<BufferRequest*>(*request_memory);
    const size_t temp_mark = arena_.temp_bytes();
    const size_t target_temp_mark = target_temp_bytes_;
    const size_t tensor_count = model_.subgraph(0).tensor_count();
    Result<uint8_t*> work_memory =
        AllocateTempFor(tensor_count * sizeof(Lifetime), tensor_count * sizeof(Lifetime));
    if (!work_memory.ok()) return Status(work_memory.status()).Prefix("lifetime analysis");
    count = AnalyzeLifetimes(model_, 0, scratch, lifetime_options,
                             Span<Lifetime>(reinterpret_cast<Lifetime*>(*work_memory), tensor_count),
                             Span<BufferRequest>(state.requests, capacity));
    ReleaseTempTo(temp_mark, target_temp_mark);
  } else {
    const size_t capacity = LifetimeCapacity(model_, scratch_count_);
    Result<uint8_t*> request_memory = AllocateTempFor(capacity * sizeof(BufferRequest), capacity * request_bytes);
    if (!request_memory.ok()) return Status(request_memory.status()).Prefix("lifetimes");
    state.requests = reinterpret_cast<BufferRequest*>(*request_memory);
    count = AnalyzeLifetimes(model_, 0, scratch, lifetime_options, Span<BufferRequest>(state.requests, capacity));
  }
  if (!count.ok()) return count.status();
  state.count = *count;
  if (options_.tiling != nullptr) {
    MICROARENA_RETURN_IF_ERROR(
        options_.tiling->Apply(model_, arena_.alignment(), Span<BufferRequest>(state.requests, state.count),
                               tiling_state_));
  }
  // The scratch requests below the buffer requests are read: move the buffer
  // requests down over them and give back the rest, so the planner's memory
  // starts lower. (Overlap declarations sit between the two and are still
  // needed; then nothing moves.)
  if (scratch_count_ > 0 && overlap_declaration_count_ == 0) {
    uint8_t* temp_base = arena_.head_start();
    std::memmove(temp_base, state.requests, state.count * sizeof(BufferRequest));
    state.requests = reinterpret_cast<BufferRequest*>(temp_base);
    ReleaseTempTo(AlignUpUnchecked(state.count * sizeof(BufferRequest), arena_.granule()),
                  AlignUpUnchecked(state.count * request_bytes, TargetGranule()));
  }
  return OkStatus();
}

Status Interpreter::RunPlanner(PlanState& state) {
  const PlannerChoice choice = state.choice;
  const size_t count = state.count;
  static const LinearPlanner kLinear;
  static const GreedyTflmPlanner kGreedyTflm;
  static const GreedyPlanner kGreedy;
  const Planner& planner = options_.custom_planner != nullptr ? *options_.custom_planner
                           : choice == PlannerChoice::kLinear ? static_cast<const Planner&>(kLinear)
                           : choice == PlannerChoice::kGreedy ? static_cast<const Planner&>(kGreedy)
                                                              : static_cast<const Planner&>(kGreedyTflm);
  if (options_.custom_planner != nullptr) planner_used_ = PlannerChoice::kCustom;
  PlanningProblem problem;
  problem.buffers = Span<const BufferRequest>(state.requests, count);
  problem.alignment_bytes = arena_.alignment();
  // Offline offsets that share bytes are the model's own only when the caller
  // says so, and only in OfflineMemoryAllocation: an overlap plan's shared
  // bytes stay under the kernels' permissions.
  problem.trust_fixed_overlaps = options_.trust_offline_plan && choice == PlannerChoice::kOffline &&
                                 state.offline_name == kOfflinePlanMetadataName;
  // One Status for every step (returned in place), not one per call: this
  // frame is under the planner's.
  const bool tiling_overlaps = options_.tiling != nullptr && options_.allow_overlap;
  Status status = overlap_declaration_count_ > 0 || tiling_overlaps ? ResolvePermissions(state, problem) : OkStatus();
  Span<uint8_t> workspace;
  if (status.ok()) status = AllocatePlanMemory(state, planner, problem, &workspace);
  PlanSummary summary;
  if (status.ok()) status = planner.Plan(problem, workspace, Span<size_t>(state.offsets, count), &summary);
  if (status.ok()) status = ComputeLowerBound(problem.buffers, workspace, &lower_bound_bytes_);
  state.head_bytes = summary.head_bytes;
  // A plan that lets buffers share bytes, or one from the caller's planner,
  // is verified before any address comes from it.
  if (status.ok() &&
      (!problem.overlaps.empty() || options_.custom_planner != nullptr || choice == PlannerChoice::kOffline)) {
    status = Verify(state, problem, planner.name());
  }
  return status;
}

Status Interpreter::AllocatePlanMemory(PlanState& state, const Planner& planner, const PlanningProblem& problem,
                                       Span<uint8_t>* workspace) {
  const TargetLayout& target = Target();
  const size_t count = state.count;
  size_t workspace_bytes = planner.WorkspaceBytesFor(problem);
  if (LowerBoundWorkspaceBytes(count) > workspace_bytes) workspace_bytes = LowerBoundWorkspaceBytes(count);
  size_t target_workspace_bytes = planner.TargetWorkspaceBytesFor(problem, target.pointer_bytes);
  if (LowerBoundWorkspaceBytes(count) > target_workspace_bytes)
    target_workspace_bytes = LowerBoundWorkspaceBytes(count);
  Result<uint8_t*> offsets_memory = AllocateTempFor(count * sizeof(size_t), count * target.pointer_bytes);
  if (!offsets_memory.ok()) return Status(offsets_memory.status()).Prefix("plan offsets");
  Result<uint8_t*> memory = AllocateTempFor(workspace_bytes, target_workspace_bytes);
  if (!memory.ok()) return Status(memory.status()).Prefix("planner working memory");
  state.offsets = reinterpret_cast<size_t*>(*offsets_memory);
  *workspace = Span<uint8_t>(*memory, workspace_bytes);
  return OkStatus();
}

Status Interpreter::ResolvePermissions(const PlanState& state, PlanningProblem& problem) {
  size_t tiling_count = 0;
  if (options_.tiling != nullptr && options_.allow_overlap) {
    Result<size_t> count = options_.tiling->OverlapCount(model_, tiling_state_);
    if (!count.ok()) return count.status();
    tiling_count = *count;
  }
  const size_t capacity = overlap_declaration_count_ + tiling_count;
  if (capacity == 0) return OkStatus();
  Result<uint8_t*> memory =
      AllocateTempFor(capacity * sizeof(OverlapPermission), capacity * Target().overlap_permission_bytes);
  if (!memory.ok()) return Status(memory.status()).Prefix("overlap permissions");
  auto* permissions = reinterpret_cast<OverlapPermission*>(*memory);
  Result<size_t> resolved = ResolveOverlaps(
      model_, problem.buffers, Span<const OverlapDeclaration>(state.declarations, overlap_declaration_count_),
      Span<const int32_t>(), Span<OverlapPermission>(permissions, overlap_declaration_count_));
  if (!resolved.ok()) return resolved.status();
  // A kernel's overlap reads and writes whole maps; in a tiled segment it
  // sees windows, so its permissions go. The segments' own come instead.
  size_t kept = *resolved;
  if (options_.tiling != nullptr) {
    Result<size_t> total = options_.tiling->Overlaps(model_, problem.buffers, Span<OverlapPermission>(permissions, capacity),
                                                     kept, tiling_count > 0, tiling_state_);
    if (!total.ok()) return total.status();
    kept = *total;
  }
  overlap_permission_count_ = kept;
  problem.overlaps = Span<const OverlapPermission>(permissions, kept);
  return OkStatus();
}

Status Interpreter::Verify(const PlanState& state, const PlanningProblem& problem, const char* planner_name) const {
  Status verified = VerifyPlan(problem, Span<const size_t>(state.offsets, state.count), state.head_bytes);
  if (verified.ok()) return verified;
  return InvalidPlan(verified, state.choice == PlannerChoice::kOffline && options_.custom_planner == nullptr,
                     state.offline_name, planner_name);
}

Status Interpreter::CommitPlan(const PlanState& state) {
  // Addresses: tensors and scratch in the head.
  size_t scratch_seen = 0;
  for (size_t i = 0; i < state.count; ++i) {
    const BufferRequest& request = state.requests[i];
    if (state.offsets[i] > UINT32_MAX) {
      return Status::Error(ErrorCode::kOutOfMemory, "buffer %zu at offset %zu is beyond 4 GiB", i, state.offsets[i]);
    }
    if (request.kind == BufferKind::kTensor) {
      const size_t first =
          request.subgraph_index == 0 ? 0 : FirstTensorOf(model_, static_cast<size_t>(request.subgraph_index));
      Record(first + static_cast<size_t>(request.owner_index))->data = arena_.head_start() + state.offsets[i];
    } else {
      state.scratch_table[scratch_seen++] = static_cast<uint32_t>(state.offsets[i]);
    }
  }
  ResetTemp();
  Status committed = arena_.CommitHead(state.head_bytes);
  if (!committed.ok()) return committed.Prefix("planned head");
  own_head_bytes_ = AlignUpUnchecked(state.head_bytes, arena_.alignment());
  return OkStatus();
}

Status Interpreter::Invoke() {
  if (!allocated_) {
    return Status::Error(ErrorCode::kInvalidArgument, "Invoke needs a successful AllocateTensors first");
  }
  loop_turns_ = 0;
  // A tiled model runs its segments band by band (runtime/tiled_execution.h).
  return options_.tiling == nullptr ? InvokeSubgraph(0) : InvokeTiled();
}

// Nesting is bounded: LoadModel refuses calls deeper than kMaxCallDepth.
Status Interpreter::InvokeSubgraph(size_t subgraph_index) {
  SubgraphView subgraph = model_.subgraph(subgraph_index);
  size_t first_node = 0;
  for (size_t sg = 0; sg < subgraph_index; ++sg) first_node += model_.subgraph(sg).operator_count();
  EvalTensor* tensors = tensors_ + (subgraph_index == 0 ? 0 : FirstTensorOf(model_, subgraph_index));
  for (size_t o = 0; o < subgraph.operator_count(); ++o) {
    OperatorView op = subgraph.op(o);
    EvalContextImpl context(*this, op, tensors);
    const Node& node = nodes_[first_node + o];
    Status status = node.kernel->eval(context, node.op_data);
    if (!status.ok()) {
      char where[64];
      if (subgraph_index == 0) {
        FormatText(where, sizeof(where), "op %zu (%s)", o, op.name());
      } else {
        FormatText(where, sizeof(where), "subgraph %zu, op %zu (%s)", subgraph_index, o, op.name());
      }
      return status.Prefix(where);
    }
  }
  return OkStatus();
}

// Out of Invoke, whose frame stays as small as without tiling.
Status Interpreter::InvokeTiled() { return options_.tiling->Invoke(*this, tiling_state_); }

// InvokeSubgraph's loop body for one op of subgraph 0, out of that loop so
// that the loop's frame (on every Invoke's stack) stays as it is.
Status Interpreter::InvokeMainOp(size_t o) {
  const OperatorView op = model_.subgraph(0).op(o);
  EvalContextImpl context(*this, op, tensors_);
  Status status = nodes_[o].kernel->eval(context, nodes_[o].op_data);
  if (status.ok()) return status;
  char where[64];
  FormatText(where, sizeof(where), "op %zu (%s)", o, op.name());
  return status.Prefix(where);
}

namespace {

// What a band's op sees: views of the rows its maps hold now; every other
// input as in a whole run.
class BandEvalContext final : public EvalContext {
 public:
  BandEvalContext(EvalContext& whole, EvalTensor* const inputs[2], EvalTensor* output)
      : whole_(whole), output_(output) {
    inputs_[0] = inputs[0];
    inputs_[1] = inputs[1];
  }
  size_t input_count() const override { return whole_.input_count(); }
  size_t output_count() const override { return whole_.output_count(); }
  EvalTensor* input(size_t i) override { return i < 2 && inputs_[i] != nullptr ? inputs_[i] : whole_.input(i); }
  EvalTensor* output(size_t i) override { return i == 0 ? output_ : whole_.output(i); }
  void* scratch(int32_t scratch_index) override { return whole_.scratch(scratch_index); }
  GraphContext* graph() override { return whole_.graph(); }

 private:
  EvalContext& whole_;
  EvalTensor* inputs_[2] = {};
  EvalTensor* output_;
};

}  // namespace

Status Interpreter::InvokeOnViews(size_t o, EvalTensor* const inputs[2], EvalTensor* output,
                                  int32_t output_first_row, int32_t input_first_row) {
  const OperatorView op = model_.subgraph(0).op(o);
  EvalContextImpl whole(*this, op, tensors_);
  BandEvalContext context(whole, inputs, output);
  const Node& node = nodes_[o];
  Status status = node.kernel->eval_band != nullptr
                      ? node.kernel->eval_band(context, node.op_data, output_first_row, input_first_row)
                      : node.kernel->eval(context, node.op_data);
  if (!status.ok()) {
    char where[64];
    FormatText(where, sizeof(where), "op %zu (%s), rows from %d", o, op.name(), static_cast<int>(output_first_row));
    return status.Prefix(where);
  }
  return OkStatus();
}

Status Interpreter::ResetVariableTensors() {
  if (!allocated_) {
    return Status::Error(ErrorCode::kInvalidArgument, "ResetVariableTensors needs a successful AllocateTensors first");
  }
  for (size_t t = 0; t < tensor_count_; ++t) {
    if (TensorAt(t).is_variable()) ResetVariable(t);
  }
  for (size_t r = 0; r < resource_count_; ++r) {
    if (resources_[r].data != nullptr) std::memset(resources_[r].data, resources_[r].fill, resources_[r].bytes);
  }
  return OkStatus();
}

size_t Interpreter::inputs_size() const { return model_.subgraph(0).inputs().size(); }
size_t Interpreter::outputs_size() const { return model_.subgraph(0).outputs().size(); }

EvalTensor* Interpreter::input(size_t index) {
  if (!allocated_ || index >= inputs_size()) return nullptr;
  return RecordOrView(static_cast<size_t>(model_.subgraph(0).inputs()[index]));
}
EvalTensor* Interpreter::output(size_t index) {
  if (!allocated_ || index >= outputs_size()) return nullptr;
  return RecordOrView(static_cast<size_t>(model_.subgraph(0).outputs()[index]));
}
size_t Interpreter::input_bytes(size_t index) const {
  if (index >= inputs_size()) return 0;
  return model_.subgraph(0).tensor(static_cast<size_t>(model_.subgraph(0).inputs()[index])).byte_size();
}
size_t Interpreter::output_bytes(size_t index) const {
  if (index >= outputs_size()) return 0;
  return model_.subgraph(0).tensor(static_cast<size_t>(model_.subgraph(0).outputs()[index])).byte_size();
}
size_t Interpreter::tensor_offset_bytes(size_t tensor_index) const {
  if (!allocated_ || tensor_index >= tensor_count_) return SIZE_MAX;
  const EvalTensor* record = const_cast<Interpreter*>(this)->Record(tensor_index);
  if (record == nullptr) return SIZE_MAX;  // a constant, in the model
  const auto data = reinterpret_cast<uintptr_t>(record->data);
  const auto head = reinterpret_cast<uintptr_t>(arena_.head_start());
  if (data < head || data - head >= arena_.head_bytes()) return SIZE_MAX;
  return static_cast<size_t>(data - head);
}

size_t Interpreter::scratch_offset_bytes(size_t scratch_index) const {
  if (!allocated_ || scratch_index >= scratch_count_) return SIZE_MAX;
  return scratch_offsets_[scratch_index];
}

EvalTensor* Interpreter::tensor(size_t tensor_index) {
  if (!allocated_ || tensor_index >= tensor_count_) return nullptr;
  return RecordOrView(tensor_index);
}

}  // namespace microarena
