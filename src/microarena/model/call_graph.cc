#include "microarena/model/call_graph.h"

namespace microarena {

CalledSubgraphs SubgraphsCalledBy(const OperatorView& op) {
  CalledSubgraphs called;
  const tflite::Operator* raw = op.raw();
  switch (op.code()) {
    case BuiltinOp::kIf:
      if (const auto* options = raw->builtin_options_as_IfOptions()) {
        called.first = options->then_subgraph_index();
        called.second = options->else_subgraph_index();
      }
      break;
    case BuiltinOp::kWhile:
      if (const auto* options = raw->builtin_options_as_WhileOptions()) {
        called.first = options->cond_subgraph_index();
        called.second = options->body_subgraph_index();
      }
      break;
    case BuiltinOp::kCallOnce:
      if (const auto* options = raw->builtin_options_as_CallOnceOptions()) {
        called.first = options->init_subgraph_index();
      }
      break;
    default: break;
  }
  return called;
}

bool HasControlFlow(const ModelView& model) {
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    SubgraphView subgraph = model.subgraph(s);
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      if (SubgraphsCalledBy(subgraph.op(o)).first >= 0) return true;
    }
  }
  return false;
}

namespace {

struct Frame {
  uint32_t subgraph = 0;
  uint32_t op = 0;         // the op being walked
  uint8_t calls_done = 0;  // called subgraphs of `op` already walked (0, 1 or 2)
  bool op_begun = false;
  int32_t op_scope = 0;
};

}  // namespace

Result<int32_t> WalkCallGraph(const ModelView& model, CallGraphVisitor& visitor) {
  Frame stack[kMaxCallDepth + 1];
  size_t depth = 0;
  int32_t scope = 0;
  stack[0] = Frame{};
  MICROARENA_RETURN_IF_ERROR(visitor.Enter(0, scope));
  for (;;) {
    Frame& frame = stack[depth];
    SubgraphView subgraph = model.subgraph(frame.subgraph);
    if (frame.op >= subgraph.operator_count()) {
      MICROARENA_RETURN_IF_ERROR(visitor.Exit(frame.subgraph, scope));
      if (depth == 0) break;
      --depth;
      continue;
    }
    OperatorView op = subgraph.op(frame.op);
    if (!frame.op_begun) {
      if (scope >= kMaxSteps - 1) {
        return Status::Error(ErrorCode::kUnsupported,
                             "the model's subgraphs unroll to more than %d steps (ops and subgraph calls)", kMaxSteps);
      }
      frame.op_scope = ++scope;
      frame.op_begun = true;
      frame.calls_done = 0;
      MICROARENA_RETURN_IF_ERROR(visitor.OpBegin(frame.subgraph, frame.op, frame.op_scope));
    }
    CalledSubgraphs called = SubgraphsCalledBy(op);
    int32_t next = frame.calls_done == 0 ? called.first : frame.calls_done == 1 ? called.second : -1;
    if (next >= 0) {
      ++frame.calls_done;
      if (depth + 1 > kMaxCallDepth) {
        return Status::Error(ErrorCode::kUnsupported,
                             "subgraph %u, op %u (%s) calls subgraph %d at nesting depth %zu: subgraphs that "
                             "call each other in a cycle, or nest deeper than %zu levels, are not supported",
                             frame.subgraph, frame.op, op.name(), next, depth + 1, kMaxCallDepth);
      }
      if (scope >= kMaxSteps - 1) {
        return Status::Error(ErrorCode::kUnsupported,
                             "the model's subgraphs unroll to more than %d steps (ops and subgraph calls)", kMaxSteps);
      }
      ++scope;
      ++depth;
      stack[depth] = Frame{};
      stack[depth].subgraph = static_cast<uint32_t>(next);
      MICROARENA_RETURN_IF_ERROR(visitor.Enter(static_cast<size_t>(next), scope));
      continue;
    }
    MICROARENA_RETURN_IF_ERROR(visitor.OpEnd(frame.subgraph, frame.op, frame.op_scope, scope));
    ++frame.op;
    frame.op_begun = false;
  }
  return scope;
}

}  // namespace microarena
