// IF, WHILE and CALL_ONCE: ops that run other subgraphs of the model.
//
// Values cross between the op and a called subgraph by copy, as in TFLM:
// IF copies its inputs 1.. into the branch's inputs and the branch's outputs
// into its own; WHILE keeps the loop state in its outputs (copied from its
// inputs first) and copies it into the cond and body subgraphs' inputs and
// the body's outputs back, as long as the cond subgraph's first output is
// true. The lifetimes (analysis/lifetimes.h) keep the op's inputs and outputs
// live over every subgraph it calls, so no copy lands on bytes still needed
// and no intermediate buffer is required (TFLM's IF keeps one per op).
//
// Prepare checks what every copy relies on: the subgraph's input and output
// counts, and equal types and byte sizes for each pair (TFLM checks the
// counts of one branch at prepare and the sizes at eval; a mismatch there
// would copy past a tensor's end).
#include <cstring>

#include "microarena/kernels/registrations.h"
#include "microarena/model/call_graph.h"

namespace microarena {
namespace {

// Checks that tensor list `ours` (from position `first`) pairs with the
// subgraph's list `theirs` (type and byte size), naming `what`. Values are
// copied into `theirs` (into_theirs) or into `ours`, and the destination may
// not be a constant, whose bytes are the model's (in flash on a device).
Status CheckPairs(PrepareContext& context, Span<const int32_t> ours, size_t first, size_t subgraph_index,
                  Span<const int32_t> theirs, const char* what, bool into_theirs) {
  SubgraphView subgraph = context.model().subgraph(subgraph_index);
  if (ours.size() < first || ours.size() - first != theirs.size()) {
    return context.Error(ErrorCode::kMalformedModel, "the op has %zu %ss for subgraph %zu, which has %zu",
                         ours.size() < first ? 0 : ours.size() - first, what, subgraph_index, theirs.size());
  }
  for (size_t i = 0; i < theirs.size(); ++i) {
    if (ours[first + i] < 0) {
      return context.Error(ErrorCode::kMalformedModel, "%s %zu is omitted", what, first + i);
    }
    TensorView mine = context.subgraph().tensor(static_cast<size_t>(ours[first + i]));
    TensorView other = subgraph.tensor(static_cast<size_t>(theirs[i]));
    const TensorView& destination = into_theirs ? other : mine;
    if (destination.is_constant()) {
      return context.Error(ErrorCode::kMalformedModel,
                           "%s %zu pairs with a constant tensor %d of subgraph %zu, "
                           "which a copy would overwrite",
                           what, first + i, destination.index(),
                           into_theirs ? subgraph_index : static_cast<size_t>(context.subgraph().index()));
    }
    if (mine.type() != other.type() || mine.byte_size() != other.byte_size()) {
      return context.Error(ErrorCode::kMalformedModel,
                           "%s %zu (%s, %zu bytes) does not match %s %zu of subgraph %zu (%s, %zu bytes)", what,
                           first + i, TensorTypeName(mine.type()), mine.byte_size(), what, i, subgraph_index,
                           TensorTypeName(other.type()), other.byte_size());
    }
  }
  return OkStatus();
}

Status RequireGraph(PrepareContext& context) {
  if (context.graph() == nullptr) {
    return context.Error(ErrorCode::kUnsupported, "this interpreter cannot run subgraphs");
  }
  return OkStatus();
}

// Copies `source` into `destination` (same byte size, checked at prepare).
void CopyTensor(const EvalTensor* source, EvalTensor* destination) {
  if (source->data == destination->data) return;
  const size_t bytes = (source->element_count() * TensorTypeBits(source->type) + 7) / 8;
  std::memmove(destination->data, source->data, bytes);
}

// Subgraph `subgraph`'s input (or output) `i`.
EvalTensor* SubgraphInput(GraphContext& graph, uint32_t subgraph, size_t i) {
  return graph.tensor(subgraph, static_cast<size_t>(graph.model().subgraph(subgraph).inputs()[i]));
}
EvalTensor* SubgraphOutput(GraphContext& graph, uint32_t subgraph, size_t i) {
  return graph.tensor(subgraph, static_cast<size_t>(graph.model().subgraph(subgraph).outputs()[i]));
}

// Op data holds subgraph numbers only (no pointers: kernel.h); the tensor
// lists are read from the op's context and the model at eval.

// --- IF ---

struct IfData {
  uint32_t then_branch = 0;
  uint32_t else_branch = 0;
};

Status IfPrepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireGraph(context));
  if (context.input_count() < 1 || !context.has_input(0)) {
    return context.Error(ErrorCode::kMalformedModel, "IF needs a condition as input 0");
  }
  TensorView condition = context.input(0);
  if (condition.type() != TensorType::kBool || condition.element_count() != 1) {
    return context.Error(ErrorCode::kMalformedModel, "the condition must be one BOOL (it is %s with %zu elements)",
                         TensorTypeName(condition.type()), condition.element_count());
  }
  CalledSubgraphs called = SubgraphsCalledBy(context.op());
  for (int32_t branch : {called.first, called.second}) {
    SubgraphView subgraph = context.model().subgraph(static_cast<size_t>(branch));
    MICROARENA_RETURN_IF_ERROR(
        CheckPairs(context, context.op().inputs(), 1, static_cast<size_t>(branch), subgraph.inputs(), "input", true));
    MICROARENA_RETURN_IF_ERROR(CheckPairs(context, context.op().outputs(), 0, static_cast<size_t>(branch),
                                          subgraph.outputs(), "output", false));
  }
  auto* data = static_cast<IfData*>(context.AllocatePersistent(sizeof(IfData), alignof(IfData)));
  if (data == nullptr) return context.OutOfMemory();
  data->then_branch = static_cast<uint32_t>(called.first);
  data->else_branch = static_cast<uint32_t>(called.second);
  *op_data = data;
  return OkStatus();
}

Status IfEval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const IfData*>(op_data);
  GraphContext& graph = *context.graph();
  const uint32_t branch = context.input(0)->data[0] != 0 ? data.then_branch : data.else_branch;
  for (size_t i = 1; i < context.input_count(); ++i) {
    CopyTensor(context.input(i), SubgraphInput(graph, branch, i - 1));
  }
  MICROARENA_RETURN_IF_ERROR(graph.InvokeSubgraph(branch));
  for (size_t i = 0; i < context.output_count(); ++i) CopyTensor(SubgraphOutput(graph, branch, i), context.output(i));
  return OkStatus();
}

// --- WHILE ---

struct WhileData {
  uint32_t cond = 0;
  uint32_t body = 0;
};

Status WhilePrepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireGraph(context));
  CalledSubgraphs called = SubgraphsCalledBy(context.op());
  SubgraphView cond = context.model().subgraph(static_cast<size_t>(called.first));
  SubgraphView body = context.model().subgraph(static_cast<size_t>(called.second));
  if (context.input_count() != context.output_count()) {
    return context.Error(ErrorCode::kMalformedModel, "WHILE has %zu inputs but %zu outputs (they must match)",
                         context.input_count(), context.output_count());
  }
  MICROARENA_RETURN_IF_ERROR(
      CheckPairs(context, context.op().inputs(), 0, static_cast<size_t>(called.first), cond.inputs(), "input", true));
  MICROARENA_RETURN_IF_ERROR(
      CheckPairs(context, context.op().inputs(), 0, static_cast<size_t>(called.second), body.inputs(), "input", true));
  MICROARENA_RETURN_IF_ERROR(CheckPairs(context, context.op().outputs(), 0, static_cast<size_t>(called.second),
                                        body.outputs(), "output", false));
  MICROARENA_RETURN_IF_ERROR(
      CheckPairs(context, context.op().outputs(), 0, static_cast<size_t>(called.first), cond.inputs(), "output", true));
  if (cond.outputs().empty() || cond.tensor(static_cast<size_t>(cond.outputs()[0])).byte_size() == 0) {
    return context.Error(ErrorCode::kMalformedModel, "the cond subgraph %d has no output to read a condition from",
                         called.first);
  }
  auto* data = static_cast<WhileData*>(context.AllocatePersistent(sizeof(WhileData), alignof(WhileData)));
  if (data == nullptr) return context.OutOfMemory();
  data->cond = static_cast<uint32_t>(called.first);
  data->body = static_cast<uint32_t>(called.second);
  *op_data = data;
  return OkStatus();
}

Status WhileEval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const WhileData*>(op_data);
  GraphContext& graph = *context.graph();
  const size_t count = context.input_count();
  auto condition = [&]() -> Result<bool> {
    MICROARENA_RETURN_IF_ERROR(graph.InvokeSubgraph(data.cond));
    return SubgraphOutput(graph, data.cond, 0)->data[0] != 0;
  };
  for (size_t i = 0; i < count; ++i) CopyTensor(context.input(i), SubgraphInput(graph, data.cond, i));
  for (size_t i = 0; i < count; ++i) CopyTensor(context.input(i), context.output(i));
  MICROARENA_ASSIGN_OR_RETURN(bool again, condition());
  while (again) {
    MICROARENA_RETURN_IF_ERROR(graph.CountLoopTurn());
    for (size_t i = 0; i < count; ++i) CopyTensor(context.output(i), SubgraphInput(graph, data.body, i));
    MICROARENA_RETURN_IF_ERROR(graph.InvokeSubgraph(data.body));
    for (size_t i = 0; i < count; ++i) CopyTensor(SubgraphOutput(graph, data.body, i), context.output(i));
    for (size_t i = 0; i < count; ++i) CopyTensor(context.output(i), SubgraphInput(graph, data.cond, i));
    MICROARENA_ASSIGN_OR_RETURN(again, condition());
  }
  return OkStatus();
}

// --- CALL_ONCE ---

// The one piece of op data that changes at eval: whether the init subgraph
// has run (in the persistent area, which is RAM).
struct CallOnceData {
  uint32_t init_subgraph = 0;
  bool has_run = false;
};

Status CallOncePrepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireGraph(context));
  if (context.input_count() != 0 || context.output_count() != 0) {
    return context.Error(ErrorCode::kMalformedModel, "CALL_ONCE takes no inputs or outputs (it has %zu and %zu)",
                         context.input_count(), context.output_count());
  }
  CalledSubgraphs called = SubgraphsCalledBy(context.op());
  SubgraphView init = context.model().subgraph(static_cast<size_t>(called.first));
  if (!init.inputs().empty() || !init.outputs().empty()) {
    return context.Error(ErrorCode::kMalformedModel,
                         "the init subgraph %d must have no inputs or outputs (it has %zu and %zu)", called.first,
                         init.inputs().size(), init.outputs().size());
  }
  auto* data = static_cast<CallOnceData*>(context.AllocatePersistent(sizeof(CallOnceData), alignof(CallOnceData)));
  if (data == nullptr) return context.OutOfMemory();
  data->init_subgraph = static_cast<uint32_t>(called.first);
  data->has_run = false;
  *op_data = data;
  return OkStatus();
}

Status CallOnceEval(EvalContext& context, const void* op_data) {
  auto* data = const_cast<CallOnceData*>(static_cast<const CallOnceData*>(op_data));
  if (data->has_run) return OkStatus();
  MICROARENA_RETURN_IF_ERROR(context.graph()->InvokeSubgraph(data->init_subgraph));
  data->has_run = true;
  return OkStatus();
}

}  // namespace

const KernelRegistration kIfKernel = {BuiltinOp::kIf, IfPrepare, IfEval};
const KernelRegistration kWhileKernel = {BuiltinOp::kWhile, WhilePrepare, WhileEval};
const KernelRegistration kCallOnceKernel = {BuiltinOp::kCallOnce, CallOncePrepare, CallOnceEval,
                                           /*op_data_in_ram=*/true};

}  // namespace microarena
