// Interpreter: runs a model inside one caller-owned arena, with no heap.
//
//   alignas(16) static uint8_t tensor_arena[kTensorArenaSize];
//   microarena::Interpreter interpreter(model, microarena::AllOpsResolver(),
//                                       tensor_arena, kTensorArenaSize);
//   if (!interpreter.AllocateTensors().ok()) { /* message says what is missing */ }
//   memcpy(interpreter.input(0)->data, features, interpreter.input_bytes(0));
//   interpreter.Invoke();
//   const int8_t* scores = interpreter.output(0)->As<int8_t>();
//
// AllocateTensors, in order (everything from the arena, see arena/arena.h):
//   1. tail: one EvalTensor (24 B on a 64-bit host) per tensor, or, for a
//      one-subgraph model, per tensor that is not a constant (plus a 2 B
//      index per tensor and a window for one op's constant inputs: constants
//      are read through the model) and one node per op (kernel + op data
//      pointers, 16 B); variable tensors (zeroed: int8
//      state at its zero point, else 0); constant weights when
//      copy_weights_to_arena is set;
//   2. each op's kernel prepares: validates, keeps op data in the tail, asks
//      for scratch and, with allow_overlap, declares the output overlaps it
//      tolerates (the requests and declarations wait in temp);
//   3. the scratch offset table (tail), then lifetimes, the overlap
//      permissions the lifetimes allow (analysis/overlaps.h), the planner's
//      working memory and the offsets, all in temp; a plan with permissions
//      or from a custom planner is verified (plan/verify.h);
//   4. temp is released and the head committed; tensors and scratch get their
//      addresses in the head.
// The model, the resolver and the arena are borrowed: they must outlive the
// interpreter. The interpreter itself holds only pointers and counts.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/arena/arena.h"
#include "microarena/base/status.h"
#include "microarena/kernels/eval_tensor.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/plan/planner.h"
#include "microarena/runtime/kernel_data.h"
#include "microarena/runtime/precomputed_plan.h"
#include "microarena/runtime/shared_arena.h"
#include "microarena/runtime/stored_plan.h"
#include "microarena/runtime/target_layout.h"

namespace microarena {

enum class PlannerChoice : uint8_t {
  kAuto = 0,        // offline when the model carries a plan (see kOffline), else greedy
  kLinear = 1,      // no reuse (every tensor kept; what preserve_all_tensors uses)
  kGreedyTflm = 2,  // TFLM's GreedyMemoryPlanner, byte for byte
  kGreedy = 3,      // microarena's device heuristic
  kOffline = 4,     // the model's offline offsets; the rest planned with greedy-tflm. With
                    // allow_overlap, microarena's overlap plan when the model has one
                    // (kOverlapPlanMetadataName), else OfflineMemoryAllocation. Every
                    // offline plan is verified before use.
  kCustom = 5,      // InterpreterOptions::custom_planner (set by the interpreter, not chosen)
  kPrecomputed = 6, // AllocateTensors(const PrecomputedPlan&) (set by the interpreter, not chosen)
};
const char* PlannerChoiceName(PlannerChoice choice);

// What a persistent (tail) allocation is for; the interpreter counts its own
// tail bytes per use so reports can break the persistent area down.
enum class PersistentUse : uint8_t {
  kTensorMetadata = 0,  // EvalTensor records (and their index, one-subgraph models)
  kOpTable = 1,         // one node per op (kernel + op data pointers)
  kOpData = 2,          // kernels' op data (e.g. per-channel multipliers and shifts)
  kVariableState = 3,   // variable tensors (LSTM/RNN state)
  kScratchHandles = 4,  // the scratch offset table
  kWeightsCopy = 5,     // constant data copied in with copy_weights_to_arena
  kTilingState = 6,     // the band walk's memory (InterpreterOptions::tiling)
};
constexpr size_t kPersistentUseCount = 7;
// A stable, lower-case name ("tensor metadata").
const char* PersistentUseName(PersistentUse use);

// Sees every op's kernel data as Prepare leaves it, when the data may live
// in flash (read-only after Prepare, nothing else taken from the tail after
// it): `microarena optimize` stores what it sees in the model
// (runtime/kernel_data.h). `op` counts over all subgraphs.
class KernelDataObserver {
 public:
  virtual ~KernelDataObserver() = default;
  virtual void OnKernelData(size_t op, const uint8_t* data, size_t bytes, size_t alignment) = 0;
};

class Interpreter;

// What the interpreter asks of a tiled execution (InterpreterOptions::tiling;
// runtime/tiled_execution.h is the one there is). Reached only through this
// interface, so a firmware that runs no tiled model links none of it.
class TilingHooks {
 public:
  virtual ~TilingHooks() = default;
  // At AllocateTensors: takes the memory the segments' walks need from the
  // interpreter's persistent area (PersistentUse::kTilingState; the
  // interpreter gives it, as `state`, to every call below, so no walk keeps
  // its state on the stack), then errors when the model cannot run this
  // tiling. Here, not in the interpreter, so that a firmware that never
  // tiles links none of it.
  virtual Status Start(Interpreter& interpreter) const = 0;
  // The planning problem under the tiling: windows shrink, lifetimes span segments.
  virtual Status Apply(const ModelView& model, size_t alignment_bytes, Span<BufferRequest> buffers,
                       Span<uint8_t> state) const = 0;
  // The bytes tensor `tensor`'s buffer has (a window's rows, else whole):
  // what a stored plan's bounds are checked with.
  virtual size_t BufferBytes(const ModelView& model, int32_t tensor, size_t alignment_bytes,
                             Span<uint8_t> state) const = 0;
  // The fingerprint of a plan stored for this tiling (stored_tiling.h
  // TilingFingerprint of the model's).
  virtual uint64_t PlanFingerprint(uint64_t model_fingerprint) const = 0;
  // The most overlap permissions the segments' order makes safe (a sink over
  // the rows of an input no later step reads; analysis/tiling.h TilingOverlaps).
  virtual Result<size_t> OverlapCount(const ModelView& model, Span<uint8_t> state) const = 0;
  // Of the kernels' permissions, permissions[0, resolved), keeps those that
  // touch no segment's map (a kernel approves overlaps of whole maps), then
  // with `add_own` appends the segments' own; returns how many there are.
  virtual Result<size_t> Overlaps(const ModelView& model, Span<const BufferRequest> buffers,
                                  Span<OverlapPermission> permissions, size_t resolved, bool add_own,
                                  Span<uint8_t> state) const = 0;
  // Runs subgraph 0: the segments band by band, every other op as usual.
  virtual Status Invoke(Interpreter& interpreter, Span<uint8_t> state) const = 0;
};

struct InterpreterOptions {
  PlannerChoice planner = PlannerChoice::kAuto;
  size_t alignment_bytes = 16;        // 4, 8, 16, 32 or 64
  bool preserve_all_tensors = false;  // linear plan: every tensor readable after Invoke
  bool copy_weights_to_arena = false; // constant data copied into the tail (slow flash)
  // Let the greedy planner use the overlaps the kernels approve (an op's
  // output sharing bytes with an input that dies there; docs/overlap.md).
  // Off: every plan and figure is as without overlap.
  bool allow_overlap = false;
  // A planner of the caller's (borrowed; must outlive AllocateTensors), used
  // instead of `planner`, e.g. the host's OptimalPlanner. Its plan is
  // verified (plan/verify.h) before use. nullptr: the built-in choice.
  const Planner* custom_planner = nullptr;
  // Trust the model's offline plan (OfflineMemoryAllocation) where it puts
  // two live tensors in the same bytes, as TFLM always does: compilers such
  // as Arm Vela do so on purpose (scratch areas and the input at offset 0).
  // Off: such a plan is refused as corrupted. On or off, a buffer planned
  // online never shares bytes with an offline one (docs/custom_ops.md).
  bool trust_offline_plan = false;
  // Most turns all WHILE ops may take in one Invoke before Invoke fails; 0:
  // no limit, as in TFLM (a model whose loop never ends never returns).
  size_t max_loop_iterations = 0;
  // Read kernel data the model carries (runtime/kernel_data.h) from the
  // model where it is identical to what Prepare computes, instead of keeping
  // it in the persistent area. Off: every op's data in RAM.
  bool use_kernel_data = true;
  // Host tools: told every op's kernel data (borrowed; nullptr: none).
  KernelDataObserver* kernel_data_observer = nullptr;
  // Also count the arena as a target with this layout would use it (host
  // tools: the exact figures for a device; see target_figures()). nullptr:
  // only this build's own figures. Not with a shared arena.
  const TargetLayout* figures_for = nullptr;
  // Run segments of ops band by band (runtime/tiled_execution.h; borrowed,
  // must outlive the interpreter): their inner maps get windows of rows in
  // the plan instead of whole buffers. One subgraph, planned at
  // AllocateTensors (not with a stored or precomputed plan, nor
  // preserve_all_tensors). nullptr: every op runs whole.
  const TilingHooks* tiling = nullptr;
};

// The arena figures of a model on the target InterpreterOptions::figures_for
// names, counted during AllocateTensors (at an aligned arena start).
struct TargetArenaFigures {
  size_t persistent_bytes = 0;
  size_t persistent_by_use[kPersistentUseCount] = {};  // sums to persistent_bytes
  size_t persistent_requested_bytes = 0;               // before rounding and op data alignment
  size_t head_bytes = 0;       // the same on every target
  size_t temp_peak_bytes = 0;
  size_t used_bytes = 0;       // persistent + max(head, temp peak): the minimum arena there
};

class Interpreter {
 public:
  Interpreter(const ModelView& model, const OpResolver& resolver, uint8_t* arena, size_t arena_bytes,
              const InterpreterOptions& options = {});
  // Runs the model in an arena shared with other interpreters (see
  // runtime/shared_arena.h): own persistent area, shared head.
  // options.alignment_bytes must equal the shared arena's alignment.
  Interpreter(const ModelView& model, const OpResolver& resolver, SharedArena& shared_arena,
              const InterpreterOptions& options = {});
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Init, Prepare, plan, commit. Call once; errors leave the interpreter unusable.
  [[nodiscard]] Status AllocateTensors();
  // The same with a head layout computed ahead of time (runtime/
  // precomputed_plan.h; single-subgraph models, own arena): Init and Prepare as
  // above, then every tensor and scratch buffer at the plan's offset. No
  // lifetime analysis, planner or plan verifier runs, and a firmware that
  // calls only this overload links none of them. The kernels' overlap
  // declarations are not recorded (the plan already used them). `plan`'s
  // scratch offsets are borrowed: they must outlive the interpreter.
  [[nodiscard]] Status AllocateTensors(const PrecomputedPlan& plan);
  // Runs every op in order. Requires a successful AllocateTensors.
  [[nodiscard]] Status Invoke();
  // Variable tensors back to their reset value (as after AllocateTensors).
  [[nodiscard]] Status ResetVariableTensors();

  size_t inputs_size() const;
  size_t outputs_size() const;
  // nullptr when the index is out of range or before AllocateTensors.
  EvalTensor* input(size_t index);
  EvalTensor* output(size_t index);
  size_t input_bytes(size_t index) const;
  size_t output_bytes(size_t index) const;
  // Any tensor (data is valid after Invoke only for inputs, outputs,
  // variables and constants, unless preserve_all_tensors). Tensors are
  // numbered over all subgraphs, one after the other (FirstTensorOf in
  // analysis/lifetimes.h): subgraph 0's indices are the model's own.
  EvalTensor* tensor(size_t tensor_index);
  size_t tensors_size() const { return tensor_count_; }
  // Resource variables the model created (VAR_HANDLE), after AllocateTensors.
  size_t resource_count() const { return resource_count_; }

  // Arena figures, in bytes: this model's own persistent area, planned head
  // and temp peak (in a shared arena too).
  size_t arena_persistent_size() const { return shared_ ? own_persistent_bytes_ : arena_.persistent_bytes(); }
  size_t arena_scratch_size() const { return shared_ ? own_head_bytes_ : arena_.head_bytes(); }
  size_t arena_temp_peak() const { return shared_ ? own_temp_peak_bytes_ : arena_.temp_peak_bytes(); }
  // This model's persistent bytes per use (rounded up to the alignment, as
  // allocated); they sum to arena_persistent_size(). Requested: what was
  // asked for before rounding and op data alignment.
  size_t arena_persistent_size(PersistentUse use) const { return persistent_by_use_[static_cast<size_t>(use)]; }
  size_t arena_persistent_requested_size() const { return persistent_requested_bytes_; }
  // The minimum arena this model needs with these options (at an aligned
  // start: the start padding of this arena is included). In a shared arena:
  // what the whole arena needs for every model allocated in it so far.
  size_t arena_used_bytes() const { return arena_.used_bytes(); }
  // The same figures for InterpreterOptions::figures_for (all zero without it
  // or before a successful AllocateTensors).
  TargetArenaFigures target_figures() const;
  // Where a tensor / scratch buffer sits in the head (bytes from the head
  // start); SIZE_MAX for a tensor that is not in the head or a bad index.
  size_t tensor_offset_bytes(size_t tensor_index) const;
  size_t scratch_offset_bytes(size_t scratch_index) const;
  // Head size the planner found and the lower bound for these lifetimes
  // without overlap (with allow_overlap the head may be below it).
  size_t planned_head_bytes() const { return arena_scratch_size(); }
  size_t lower_bound_bytes() const { return lower_bound_bytes_; }
  // Overlap permissions the plan was made with (0 without allow_overlap).
  size_t overlap_permission_count() const { return overlap_permission_count_; }
  size_t scratch_buffer_count() const { return scratch_count_; }
  // What became of the kernel data the model carries (after AllocateTensors).
  const KernelDataUse& kernel_data_use() const { return kernel_data_use_; }
  PlannerChoice planner_used() const { return planner_used_; }
  // The model's own precomputed plan was used (runtime/stored_plan.h).
  bool stored_plan_used() const { return stored_plan_used_; }
  const ModelView& model() const { return model_; }

#ifdef MICROARENA_TEST_HOOKS
  // Test hook (host builds only): see Arena::FailAllocationNumber.
  void FailAllocationNumber(uint32_t n) { arena_.FailAllocationNumber(n); }
  // Arena allocations made so far (see Arena::allocation_count).
  uint32_t arena_allocation_count() const { return arena_.allocation_count(); }
#endif

 private:
  // Sizes its private structures for the target layouts.
  friend const TargetLayout& HostLayout();
  struct Node {
    const KernelRegistration* kernel = nullptr;
    const void* op_data = nullptr;
  };
  // A resource variable: its name (in the model) and its buffer (tail).
  struct Resource {
    const char* container = nullptr;
    const char* shared_name = nullptr;
    uint8_t* data = nullptr;
    size_t bytes = 0;
    uint8_t fill = 0;
  };
  class PrepareContextImpl;
  class EvalContextImpl;
  class GraphImpl final : public GraphContext {
   public:
    explicit GraphImpl(Interpreter& interpreter) : interpreter_(interpreter) {}
    EvalTensor* tensor(size_t subgraph, size_t tensor) override;
    Status InvokeSubgraph(size_t subgraph) override;
    Result<int32_t> FindOrCreateResource(const char* container, const char* shared_name) override;
    Status AllocateResource(int32_t id, size_t bytes, uint8_t fill) override;
    Span<uint8_t> resource(int32_t id) override;
    Status CountLoopTurn() override;
    const ModelView& model() const override { return interpreter_.model_; }

   private:
    Interpreter& interpreter_;
  };

  Status CheckCanAllocate();
  // Init, Prepare (each scratch request checked against `plan`) and commit.
  // Inlined into both callers: no frame of its own under the kernels' Prepare.
  [[gnu::always_inline]] inline Status AllocateWithPlan(const PrecomputedPlan& plan);
  // The plan the model carries (runtime/stored_plan.h), when it is for
  // these options and this model.
  bool FindStoredPlan(StoredPlan* stored);
  // With the stored plan when FindStoredPlan accepts it, else planned.
  [[gnu::noinline]] Status AllocateWithStoredPlan();
  uint64_t Fingerprint();
  Status AllocateTensorsInArena();
  [[gnu::noinline]] Status CommitPrecomputedPlan(const PrecomputedPlan& plan);
  // Fails for a used tensor the plan left without bytes; gives empty ones a
  // pointer into the head.
  Status CheckEveryUsedTensorHasMemory();
  // AllocateTensors in a shared arena; its own frame, not under the planner
  // of an interpreter with its own arena.
  [[gnu::noinline]] Status AllocateTensorsShared();
  Status AllocateTailStructures();
  // Inlined (interpreter.cc): one frame fewer under the kernels' Prepare.
  [[gnu::always_inline]] inline Status PrepareOps();
  [[gnu::noinline]] Status PrepareOpsInOwnFrame();
  Status PlanAndCommit();
  // PlanAndCommit's steps, each in its own frame (AllocateTensors' stack).
  struct PlanState;
  [[gnu::noinline]] Status PackTempRecords(PlanState& state);
  [[gnu::noinline]] Status AnalyzeBuffers(PlanState& state);
  [[gnu::noinline]] Status RunPlanner(PlanState& state);
  [[gnu::noinline]] Status AllocatePlanMemory(PlanState& state, const Planner& planner, const PlanningProblem& problem,
                                              Span<uint8_t>* workspace);
  [[gnu::noinline]] Status ResolvePermissions(const PlanState& state, PlanningProblem& problem);
  [[gnu::noinline]] Status Verify(const PlanState& state, const PlanningProblem& problem,
                                  const char* planner_name) const;
  [[gnu::noinline]] Status CommitPlan(const PlanState& state);
  void ResetVariable(size_t tensor_index);
  [[gnu::noinline]] Status AllocateTensorRecords(const TargetLayout& target);
  // The record of a tensor (all subgraphs' numbering); nullptr for a constant
  // without one.
  EvalTensor* Record(size_t tensor_index);
  // The record, or a view of the constant in constant_view_ (valid until the
  // next call).
  EvalTensor* RecordOrView(size_t tensor_index);
  EvalTensor ConstantView(size_t tensor_index) const;
  // Input `input` of `op`, a constant without a record, viewed in its window slot.
  EvalTensor* ConstantInput(const OperatorView& op, size_t input);
  Status UnsupportedOp(size_t subgraph_index, size_t op_index) const;
  // After op `op`'s Prepare: its data read from the model's flash when
  // identical (the RAM copy given back), and shown to the observer.
  [[gnu::noinline]] void SettleOpData(size_t op);
  Status InvokeSubgraph(size_t subgraph_index);
  [[gnu::noinline]] Status InvokeTiled();
  // Op `o` of subgraph 0, for a tiled execution's ops outside its segments.
  [[gnu::noinline]] Status InvokeMainOp(size_t o);
  // Op `o` of subgraph 0 on a band's views (runtime/tiled_execution.h):
  // inputs 0 and 1 where not null, output 0; through the kernel's eval_band
  // when it has one (the rows are the views' first), else its eval.
  [[gnu::noinline]] Status InvokeOnViews(size_t o, EvalTensor* const inputs[2], EvalTensor* output,
                                         int32_t output_first_row, int32_t input_first_row);
  friend class TiledExecution;
  TensorView TensorAt(size_t tensor_index) const;
  // Arena::AllocatePersistent, counted under `use`; `requested_bytes` is what
  // the caller needed before any padding (default: `bytes`).
  static constexpr size_t kSameAsBytes = static_cast<size_t>(-1);
  // `target_bytes`: what the allocation takes on InterpreterOptions::figures_for.
  Result<uint8_t*> AllocatePersistentFor(size_t bytes, PersistentUse use, size_t requested_bytes = kSameAsBytes,
                                         size_t target_bytes = kSameAsBytes);
  Result<uint8_t*> AllocateTempFor(size_t bytes, size_t target_bytes);
  // The tail and its counts (here and on the target) at one moment, so that
  // the newest persistent allocations of one use can be given back exactly
  // (op data found in flash, a record index that saves nothing).
  struct PersistentMark {
    PersistentUse use = PersistentUse::kOpData;
    size_t tail = 0;
    size_t by_use = 0;
    size_t requested = 0;
    size_t target_tail = 0;
    size_t target_requested = 0;
    size_t target_by_use = 0;
  };
  // Fills `mark` in place (no temporary on the stack under a kernel's Prepare).
  void MarkPersistent(PersistentUse use, PersistentMark* mark) const;
  void ReleasePersistentTo(const PersistentMark& mark);
  // Releases temp memory here and in the target's count.
  void ResetTemp();
  // Releases the newest temp memory down to a point temp_bytes() and
  // target_temp_bytes_ were at.
  void ReleaseTempTo(size_t temp_bytes, size_t target_temp_bytes);
  void NoteTargetPeak();
  // Rounding of the target's tail and temp allocations.
  size_t TargetGranule() const;
  // InterpreterOptions::figures_for, or this build's layout.
  const TargetLayout& Target() const;

  const ModelView& model_;
  const OpResolver& resolver_;
  InterpreterOptions options_;
  Arena own_arena_;               // the arena when it is not shared
  Arena& arena_;                  // own_arena_ or the shared arena's
  SharedArena* shared_ = nullptr;
  size_t own_persistent_bytes_ = 0;  // figures of this model in a shared arena
  size_t own_head_bytes_ = 0;
  size_t own_temp_peak_bytes_ = 0;
  size_t persistent_by_use_[kPersistentUseCount] = {};
  Span<uint8_t> tiling_state_;  // the band walk's memory, in the persistent area (TilingHooks::Start)
  size_t persistent_requested_bytes_ = 0;
  // The target's count (InterpreterOptions::figures_for).
  size_t target_tail_bytes_ = 0;
  size_t target_requested_bytes_ = 0;
  size_t target_by_use_[kPersistentUseCount] = {};
  size_t target_temp_bytes_ = 0;
  size_t target_temp_peak_bytes_ = 0;
  size_t target_peak_bytes_ = 0;  // largest tail + max(head, temp) on the target
  // Tensor records: one per tensor, or (one subgraph, weights in the model)
  // one per tensor an op or the model reads or writes that is not a constant
  // (intermediates, which no kernel reads, get none), found through
  // record_index_; constants are then read through the model into
  // constant_window_ (one slot per constant input of the op being evaluated).
  // The index takes one byte per tensor when the model has fewer than 255
  // tensors, else two.
  static constexpr uint16_t kNoRecord = 0xFFFF;
  static constexpr uint8_t kNoNarrowRecord = 0xFF;
  // Tensor `t`'s record in the index, or kNoRecord.
  uint16_t RecordOf(size_t t) const {
    if (narrow_index_) {
      const uint8_t r = static_cast<const uint8_t*>(record_index_)[t];
      return r == kNoNarrowRecord ? kNoRecord : r;
    }
    return static_cast<const uint16_t*>(record_index_)[t];
  }
  void SetRecordOf(size_t t, uint16_t r) {
    if (narrow_index_) {
      static_cast<uint8_t*>(record_index_)[t] = r == kNoRecord ? kNoNarrowRecord : static_cast<uint8_t>(r);
    } else {
      static_cast<uint16_t*>(record_index_)[t] = r;
    }
  }
  EvalTensor* tensors_ = nullptr;
  void* record_index_ = nullptr;  // per tensor: its record (see RecordOf); nullptr: records = tensors
  bool narrow_index_ = false;     // uint8_t entries (kNoNarrowRecord for none), else uint16_t
  EvalTensor* constant_window_ = nullptr;
  size_t record_count_ = 0;
  EvalTensor constant_view_;  // what tensor(), input() and output() return for a constant
  Node* nodes_ = nullptr;  // every op, subgraph after subgraph
  Resource* resources_ = nullptr;
  size_t resource_capacity_ = 0;  // one per VAR_HANDLE op
  size_t resource_count_ = 0;
  size_t loop_turns_ = 0;  // in the current Invoke
  GraphImpl graph_{*this};
  // One per scratch request, head offsets: a table in the tail, or the
  // precomputed plan's own.
  const uint32_t* scratch_offsets_ = nullptr;
  size_t tensor_count_ = 0;
  size_t op_count_ = 0;
  size_t scratch_count_ = 0;
  size_t overlap_declaration_count_ = 0;  // overlap records waiting in temp
  size_t overlap_permission_count_ = 0;
  size_t lower_bound_bytes_ = 0;
  // An op's data allocation during its Prepare, and the counters just
  // before it (SettleOpData gives it back when the model's copy is used).
  struct OpDataAllocation {
    size_t count = 0;               // op data allocations this Prepare made
    const uint8_t* data = nullptr;  // as handed to the kernel (aligned)
    size_t bytes = 0;
    size_t alignment = 0;
    size_t tail_after = 0;  // the arena's tail right after it
    PersistentMark before;
  };
  OpDataAllocation op_data_allocation_;
  KernelDataView kernel_data_;
  size_t next_kernel_data_entry_ = 0;
  KernelDataUse kernel_data_use_;
  PlannerChoice planner_used_ = PlannerChoice::kAuto;
  bool allocated_ = false;
  bool failed_ = false;
  bool precomputed_ = false;  // allocating with a PrecomputedPlan: no overlap records
  bool stored_plan_used_ = false;  // the plan the model carries
  const PrecomputedPlan* precomputed_plan_ = nullptr;  // during AllocateTensors only
  bool fingerprint_known_ = false;
  uint64_t fingerprint_ = 0;
};

}  // namespace microarena
