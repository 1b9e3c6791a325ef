// VAR_HANDLE, READ_VARIABLE and ASSIGN_VARIABLE: state kept across Invoke
// calls in resource variables, as streaming models and CALL_ONCE
// initialisers use them.
//
// As in TFLM: VAR_HANDLE finds or creates the variable named by its
// (container, shared_name) at prepare and outputs its id, kept in the op's
// own data (its output is not planned). ASSIGN_VARIABLE gives the variable
// its buffer at prepare, sized by the value it assigns and filled with the
// value's zero point (int8) when it is quantized, else 0; it copies the value
// in at eval. READ_VARIABLE copies the buffer out. ResetVariableTensors
// refills every buffer. Differences, for safety: a size mismatch or a read of
// a variable without a buffer is an error, where TFLM only asserts in debug
// builds.
#include <cstring>

#include "microarena/kernels/registrations.h"

namespace microarena {
namespace {

Status RequireGraph(PrepareContext& context) {
  if (context.graph() == nullptr) {
    return context.Error(ErrorCode::kUnsupported, "this interpreter has no resource variables");
  }
  return OkStatus();
}

Status RequireResourceId(PrepareContext& context, size_t input) {
  if (!context.has_input(input))
    return context.Error(ErrorCode::kMalformedModel, "input %zu (the variable) is missing", input);
  TensorView id = context.input(input);
  if ((id.type() != TensorType::kResource && id.type() != TensorType::kInt32) || id.element_count() != 1) {
    return context.Error(ErrorCode::kMalformedModel, "input %zu must be one RESOURCE id (it is %s with %zu elements)",
                         input, TensorTypeName(id.type()), id.element_count());
  }
  return OkStatus();
}

// --- VAR_HANDLE ---

Status VarHandlePrepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireGraph(context));
  if (context.output_count() != 1) {
    return context.Error(ErrorCode::kMalformedModel, "VAR_HANDLE has %zu outputs (expected 1)", context.output_count());
  }
  TensorView output = context.output(0);
  if ((output.type() != TensorType::kResource && output.type() != TensorType::kInt32) || output.element_count() != 1) {
    return context.Error(ErrorCode::kMalformedModel, "the output must be one RESOURCE id (it is %s with %zu elements)",
                         TensorTypeName(output.type()), output.element_count());
  }
  const auto* options = context.op().raw()->builtin_options_as_VarHandleOptions();
  const char* container = options != nullptr && options->container() != nullptr ? options->container()->c_str() : "";
  const char* shared_name =
      options != nullptr && options->shared_name() != nullptr ? options->shared_name()->c_str() : "";
  MICROARENA_ASSIGN_OR_RETURN(int32_t id, context.graph()->FindOrCreateResource(container, shared_name));
  auto* data = static_cast<int32_t*>(context.AllocatePersistent(sizeof(int32_t), alignof(int32_t)));
  if (data == nullptr) return context.OutOfMemory();
  *data = id;
  // The output points at the id (a tensor of the op data, never planned).
  EvalTensor* tensor = context.graph()->tensor(static_cast<size_t>(context.subgraph().index()),
                                               static_cast<size_t>(context.output_index(0)));
  tensor->data = reinterpret_cast<uint8_t*>(data);
  *op_data = data;
  return OkStatus();
}

Status VarHandleEval(EvalContext& context, const void* op_data) {
  // The output already points at the id; nothing to compute.
  (void)context;
  (void)op_data;
  return OkStatus();
}

// --- ASSIGN_VARIABLE ---

Status AssignVariablePrepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireGraph(context));
  if (context.input_count() != 2 || context.output_count() != 0) {
    return context.Error(ErrorCode::kMalformedModel,
                         "ASSIGN_VARIABLE takes 2 inputs and no output (it has %zu and %zu)", context.input_count(),
                         context.output_count());
  }
  MICROARENA_RETURN_IF_ERROR(RequireResourceId(context, 0));
  if (!context.has_input(1)) return context.Error(ErrorCode::kMalformedModel, "input 1 (the value) is missing");
  // The id is known now when a VAR_HANDLE of this subgraph made it; an id
  // that comes from another subgraph is only known at eval, and its buffer
  // must have been allocated by another ASSIGN_VARIABLE (as in TFLM).
  const EvalTensor* id = context.graph()->tensor(static_cast<size_t>(context.subgraph().index()),
                                                 static_cast<size_t>(context.input_index(0)));
  if (id->data != nullptr) {
    TensorView value = context.input(1);
    uint8_t fill = 0;
    if (value.quantization().is_quantized())
      fill = static_cast<uint8_t>(static_cast<int8_t>(value.quantization().zero_point(0)));
    int32_t resource = 0;
    std::memcpy(&resource, id->data, sizeof(resource));
    MICROARENA_RETURN_IF_ERROR(context.graph()->AllocateResource(resource, value.byte_size(), fill));
  }
  *op_data = nullptr;
  return OkStatus();
}

Status AssignVariableEval(EvalContext& context, const void* op_data) {
  (void)op_data;
  int32_t id = 0;
  std::memcpy(&id, context.input(0)->data, sizeof(id));
  const EvalTensor* value = context.input(1);
  const size_t bytes = (value->element_count() * TensorTypeBits(value->type) + 7) / 8;
  Span<uint8_t> buffer = context.graph()->resource(id);
  if (buffer.empty() && bytes != 0) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "resource variable %d has no buffer: no ASSIGN_VARIABLE of its own subgraph sized it", id);
  }
  if (buffer.size() != bytes) {
    return Status::Error(ErrorCode::kInvalidArgument, "resource variable %d holds %zu bytes but the value has %zu", id,
                         buffer.size(), bytes);
  }
  std::memcpy(buffer.data(), value->data, bytes);
  return OkStatus();
}

// --- READ_VARIABLE ---

Status ReadVariablePrepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireGraph(context));
  if (context.input_count() != 1 || context.output_count() != 1) {
    return context.Error(ErrorCode::kMalformedModel, "READ_VARIABLE takes 1 input and 1 output (it has %zu and %zu)",
                         context.input_count(), context.output_count());
  }
  MICROARENA_RETURN_IF_ERROR(RequireResourceId(context, 0));
  *op_data = nullptr;
  return OkStatus();
}

Status ReadVariableEval(EvalContext& context, const void* op_data) {
  (void)op_data;
  int32_t id = 0;
  std::memcpy(&id, context.input(0)->data, sizeof(id));
  EvalTensor* output = context.output(0);
  const size_t bytes = (output->element_count() * TensorTypeBits(output->type) + 7) / 8;
  Span<uint8_t> buffer = context.graph()->resource(id);
  if (buffer.size() != bytes) {
    return Status::Error(ErrorCode::kInvalidArgument, "resource variable %d holds %zu bytes but the output needs %zu%s",
                         id, buffer.size(), bytes, buffer.empty() ? " (no ASSIGN_VARIABLE sized it)" : "");
  }
  std::memcpy(output->data, buffer.data(), bytes);
  return OkStatus();
}

}  // namespace

// The output tensor points at the op data: it stays in RAM.
const KernelRegistration kVarHandleKernel = {BuiltinOp::kVarHandle, VarHandlePrepare, VarHandleEval,
                                             /*op_data_in_ram=*/true};
const KernelRegistration kAssignVariableKernel = {BuiltinOp::kAssignVariable, AssignVariablePrepare,
                                                  AssignVariableEval};
const KernelRegistration kReadVariableKernel = {BuiltinOp::kReadVariable, ReadVariablePrepare, ReadVariableEval};

}  // namespace microarena
