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
//   1. tail: one EvalTensor per tensor (24 B on a 64-bit host) and one node per
//      op (kernel + op data pointers, 16 B); variable tensors (zeroed: int8
//      state at its zero point, else 0); constant weights when
//      copy_weights_to_arena is set;
//   2. each op's kernel prepares: validates, keeps op data in the tail, asks
//      for scratch (the requests wait in temp);
//   3. the scratch offset table (tail), then lifetimes, the planner's working
//      memory and the offsets, all in temp; the plan is checked;
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
#include "microarena/runtime/shared_arena.h"

namespace microarena {

enum class PlannerChoice : uint8_t {
  kAuto = 0,        // offline when the model carries OfflineMemoryAllocation, else greedy
  kLinear = 1,      // no reuse (every tensor kept; what preserve_all_tensors uses)
  kGreedyTflm = 2,  // TFLM's GreedyMemoryPlanner, byte for byte
  kGreedy = 3,      // microarena's device heuristic
  kOffline = 4,     // the model's offline offsets; the rest planned with greedy-tflm
};
const char* PlannerChoiceName(PlannerChoice choice);

struct InterpreterOptions {
  PlannerChoice planner = PlannerChoice::kAuto;
  size_t alignment_bytes = 16;        // 4, 8, 16, 32 or 64
  bool preserve_all_tensors = false;  // linear plan: every tensor readable after Invoke
  bool copy_weights_to_arena = false; // constant data copied into the tail (slow flash)
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
  // Any tensor of subgraph 0 (data is valid after Invoke only for inputs,
  // outputs, variables and constants, unless preserve_all_tensors).
  EvalTensor* tensor(size_t tensor_index);
  size_t tensors_size() const { return tensor_count_; }

  // Arena figures, in bytes: this model's own persistent area, planned head
  // and temp peak (in a shared arena too).
  size_t arena_persistent_size() const { return shared_ ? own_persistent_bytes_ : arena_.persistent_bytes(); }
  size_t arena_scratch_size() const { return shared_ ? own_head_bytes_ : arena_.head_bytes(); }
  size_t arena_temp_peak() const { return shared_ ? own_temp_peak_bytes_ : arena_.temp_peak_bytes(); }
  // The minimum arena this model needs with these options (at an aligned
  // start: the start padding of this arena is included). In a shared arena:
  // what the whole arena needs for every model allocated in it so far.
  size_t arena_used_bytes() const { return arena_.used_bytes(); }
  // Where a tensor / scratch buffer sits in the head (bytes from the head
  // start); SIZE_MAX for a tensor that is not in the head or a bad index.
  size_t tensor_offset_bytes(size_t tensor_index) const;
  size_t scratch_offset_bytes(size_t scratch_index) const;
  // Head size the planner found and the lower bound for these lifetimes.
  size_t planned_head_bytes() const { return arena_scratch_size(); }
  size_t lower_bound_bytes() const { return lower_bound_bytes_; }
  size_t scratch_buffer_count() const { return scratch_count_; }
  PlannerChoice planner_used() const { return planner_used_; }
  const ModelView& model() const { return model_; }

  // Test hook: see Arena::FailAllocationNumber.
  void FailAllocationNumber(uint32_t n) { arena_.FailAllocationNumber(n); }
  // Arena allocations made so far (see Arena::allocation_count).
  uint32_t arena_allocation_count() const { return arena_.allocation_count(); }

 private:
  struct Node {
    const KernelRegistration* kernel = nullptr;
    const void* op_data = nullptr;
  };
  class PrepareContextImpl;
  class EvalContextImpl;

  Status AllocateTensorsInArena();
  Status AllocateTailStructures();
  Status PrepareOps();
  Status PlanAndCommit();
  void ResetVariable(size_t tensor_index);
  Status UnsupportedOp(size_t op_index) const;

  const ModelView& model_;
  const OpResolver& resolver_;
  InterpreterOptions options_;
  Arena own_arena_;               // the arena when it is not shared
  Arena& arena_;                  // own_arena_ or the shared arena's
  SharedArena* shared_ = nullptr;
  size_t own_persistent_bytes_ = 0;  // figures of this model in a shared arena
  size_t own_head_bytes_ = 0;
  size_t own_temp_peak_bytes_ = 0;
  EvalTensor* tensors_ = nullptr;
  Node* nodes_ = nullptr;
  uint32_t* scratch_offsets_ = nullptr;  // one per scratch request, head offsets
  size_t tensor_count_ = 0;
  size_t op_count_ = 0;
  size_t scratch_count_ = 0;
  size_t lower_bound_bytes_ = 0;
  PlannerChoice planner_used_ = PlannerChoice::kAuto;
  bool allocated_ = false;
  bool failed_ = false;
};

}  // namespace microarena
