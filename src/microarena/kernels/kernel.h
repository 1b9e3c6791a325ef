// The kernel interface: how an op's implementation meets the interpreter.
//
// Protocol (validate at the boundary, then trust):
//   AllocateTensors -> prepare(PrepareContext&, &op_data) once per op:
//       validate types, shapes and parameters (errors name the op index and
//       name, the tensors and the numbers); compute what eval needs (e.g.
//       per-channel multipliers) into persistent op data taken from the tail
//       with AllocatePersistent; ask for head scratch with RequestScratch.
//   Invoke -> eval(EvalContext&, op_data) once per op per run: pure
//       arithmetic on EvalTensors; no checks that prepare already made.
//
// Op data holds no pointer and no size_t (fixed-width integers, floats,
// enums; arrays follow the struct in the same allocation and are found from
// its address): so it has one layout on every target, and the arena the host
// counts for a device (runtime/target_layout.h, `plan --target`) is exact.
// Pointers into the model or other tensors are read at eval instead.
//
// Kernels keep no global or static mutable state; everything lives in the
// arena. The reference math each eval calls is a pure function in
// kernels/reference/ over a params struct, shapes and raw pointers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/result.h"
#include "microarena/base/span.h"
#include "microarena/base/status.h"
#include "microarena/kernels/eval_tensor.h"
#include "microarena/model/model_view.h"

namespace microarena {

// Tensor index of an omitted optional input.
constexpr int32_t kOmittedTensor = -1;

// What control-flow (IF, WHILE, CALL_ONCE) and resource-variable
// (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) kernels need from the
// interpreter: other subgraphs' tensors, running a subgraph, and the
// resource variables (TFLM's MicroGraph and MicroResourceVariables).
// Subgraph and tensor indices are the model's, checked by the caller.
class GraphContext {
 public:
  virtual ~GraphContext() = default;
  // Tensor `tensor` of subgraph `subgraph`. At prepare, `data` is set for
  // constants, variables and VAR_HANDLE outputs only (the plan comes later).
  virtual EvalTensor* tensor(size_t subgraph, size_t tensor) = 0;
  // Runs every op of `subgraph` in order (Invoke only).
  virtual Status InvokeSubgraph(size_t subgraph) = 0;
  // The id of the resource variable (container, shared_name), created at its
  // first use (prepare only). `container` may be "" (no container).
  virtual Result<int32_t> FindOrCreateResource(const char* container, const char* shared_name) = 0;
  // Gives resource `id` its buffer at the first call (prepare only): `bytes`
  // from the persistent area, every byte `fill`. Later calls keep the first.
  virtual Status AllocateResource(int32_t id, size_t bytes, uint8_t fill) = 0;
  // The buffer of resource `id`; empty when the id is unknown or no buffer
  // was allocated for it.
  virtual Span<uint8_t> resource(int32_t id) = 0;
  // Counts one turn of a WHILE loop; an error once the turns of all loops
  // in this Invoke pass the interpreter's limit (none by default, as TFLM).
  virtual Status CountLoopTurn() { return OkStatus(); }
  // The model (its subgraphs' input and output lists, read at eval rather
  // than kept as pointers in op data).
  virtual const ModelView& model() const = 0;
};

class PrepareContext {
 public:
  virtual ~PrepareContext() = default;

  virtual const ModelView& model() const = 0;
  virtual SubgraphView subgraph() const = 0;
  virtual OperatorView op() const = 0;

  size_t input_count() const { return op().inputs().size(); }
  size_t output_count() const { return op().outputs().size(); }
  // Tensor index of input/output `i`; kOmittedTensor for an omitted input.
  int32_t input_index(size_t i) const { return op().inputs()[i]; }
  int32_t output_index(size_t i) const { return op().outputs()[i]; }
  bool has_input(size_t i) const { return i < input_count() && input_index(i) != kOmittedTensor; }
  // The model's view of input/output `i` (shape, type, quantization, constant
  // data). Precondition: has_input(i) / i < output_count().
  TensorView input(size_t i) const { return subgraph().tensor(static_cast<size_t>(input_index(i))); }
  TensorView output(size_t i) const { return subgraph().tensor(static_cast<size_t>(output_index(i))); }

  // `bytes` of persistent memory (tail) aligned to `alignment`, valid until
  // the interpreter is destroyed; nullptr when the tail is full (return the
  // status from OutOfMemory() then).
  virtual void* AllocatePersistent(size_t bytes, size_t alignment = 8) = 0;
  // The status to return after AllocatePersistent gave nullptr.
  virtual Status OutOfMemory() const = 0;

  // Asks for `bytes` of head scratch for this op's eval; writes a handle for
  // EvalContext::scratch. Scratch lives only during this op's eval.
  virtual Status RequestScratch(size_t bytes, int32_t* scratch_index) = 0;

  // Declares that eval may write output `output` over the bytes of input
  // `input` when offset(input) - offset(output) >= min_displacement_bytes,
  // because of the order in which it reads and writes (see
  // kernels/overlap.h). The interpreter turns a declaration into a planner
  // permission only when overlap is enabled and the lifetimes allow it (the
  // input's last reader is this op, the output's first writer is this op).
  // The default ignores declarations.
  virtual Status AllowOutputOverlap(size_t input, size_t output, size_t min_displacement_bytes) {
    (void)input;
    (void)output;
    (void)min_displacement_bytes;
    return OkStatus();
  }

  // Control flow and resource variables; nullptr where they are not
  // available (kernels then refuse the op).
  virtual GraphContext* graph() { return nullptr; }
  // An error that names this op: "op 3 (CONV_2D): <message>".
  Status Error(ErrorCode code, const char* format, ...) const __attribute__((format(printf, 3, 4)));
};

class EvalContext {
 public:
  virtual ~EvalContext() = default;
  virtual size_t input_count() const = 0;
  virtual size_t output_count() const = 0;
  // nullptr for an omitted optional input.
  virtual EvalTensor* input(size_t i) = 0;
  virtual EvalTensor* output(size_t i) = 0;
  // The scratch buffer requested at prepare under `scratch_index`.
  virtual void* scratch(int32_t scratch_index) = 0;
  // As PrepareContext::graph().
  virtual GraphContext* graph() { return nullptr; }
};

struct KernelRegistration {
  BuiltinOp op;
  // Validates and precomputes; *op_data may stay null for ops that need none.
  Status (*prepare)(PrepareContext& context, const void** op_data);
  // Runs the op. Returns an error only for conditions prepare cannot know.
  Status (*eval)(EvalContext& context, const void* op_data);
  // The op data must stay in the arena: eval writes it (e.g. a counter), or
  // Prepare hands its address to a tensor (VAR_HANDLE's id). Other op data
  // is read-only after Prepare and reached only through the op data pointer,
  // so the interpreter may serve it from the model's flash
  // (runtime/kernel_data.h).
  bool op_data_in_ram = false;
  // Runs the op on a band of rows (analysis/tiling.h): output 0 is a view of
  // the output map's rows from `output_first_row` on, input 0 a view of the
  // input map's rows from `input_first_row` on; the op shifts its window
  // (padding above) to match. nullptr: the op runs in bands only when its
  // rows map one to one (elementwise), through `eval` on the views.
  Status (*eval_band)(EvalContext& context, const void* op_data, int32_t output_first_row,
                      int32_t input_first_row) = nullptr;
};

}  // namespace microarena
