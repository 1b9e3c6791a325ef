// Control flow: which subgraphs an op calls, and the walk over a model's
// steps in the order TFLM numbers them.
//
// IF calls its then and else subgraphs, WHILE its cond and body subgraphs,
// CALL_ONCE its init subgraph. TFLM plans all subgraphs in one head: it walks
// subgraph 0 op by op and, at an op that calls subgraphs, walks each called
// subgraph (then before else, cond before body) before the op's inputs end.
// Each op and each entry into a called subgraph is one "allocation scope";
// CallGraphWalker visits them in that order:
//
//   scope 0        Enter(0)                 subgraph 0's inputs are created
//   scope 1        OpBegin(0, op 0)         op 0's outputs are created
//   ...            OpEnd(0, op 0)           op 0's inputs are last used
//   scope k        OpBegin(0, op j = IF)
//   scope k+1        Enter(1)               then-subgraph's inputs
//   scope k+2        OpBegin(1, op 0) ... OpEnd(1, op 0)
//                    Exit(1)
//   scope k+m        Enter(2) ... Exit(2)   else-subgraph
//                  OpEnd(0, op j)           at the last scope of the calls
//                  Exit(0)
//
// A subgraph called from several ops is walked once per call. The walk needs
// no heap and no recursion: a fixed stack of kMaxCallDepth frames. LoadModel
// walks every model once, so a model whose subgraphs call each other in a
// cycle, nest deeper than kMaxCallDepth or unroll to more than kMaxSteps
// scopes is refused at load, and every later walk (lifetimes, Invoke) is
// bounded.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/status.h"
#include "microarena/model/model_view.h"

namespace microarena {

// Deepest nesting of control flow (subgraph 0 is depth 0). TFLM has no
// limit; converted models nest one or two levels.
constexpr size_t kMaxCallDepth = 8;
// Most scopes a walk may visit (ops and subgraph entries, calls unrolled).
constexpr int32_t kMaxSteps = 1 << 22;

// The subgraphs `op` calls, in walk order; -1 for none. Only IF, WHILE and
// CALL_ONCE call subgraphs. Indices are checked by LoadModel.
struct CalledSubgraphs {
  int32_t first = -1;
  int32_t second = -1;
};
CalledSubgraphs SubgraphsCalledBy(const OperatorView& op);

// True when some op of the model calls a subgraph.
bool HasControlFlow(const ModelView& model);

// Receives the walk's events. `scope` is TFLM's allocation scope count.
class CallGraphVisitor {
 public:
  virtual ~CallGraphVisitor() = default;
  virtual Status Enter(size_t subgraph, int32_t scope) {
    (void)subgraph;
    (void)scope;
    return OkStatus();
  }
  // op_scope: the scope of the op itself (before any called subgraph).
  virtual Status OpBegin(size_t subgraph, size_t op, int32_t op_scope) {
    (void)subgraph;
    (void)op;
    (void)op_scope;
    return OkStatus();
  }
  // scope: the last scope of the subgraphs the op called (op_scope without calls).
  virtual Status OpEnd(size_t subgraph, size_t op, int32_t op_scope, int32_t scope) {
    (void)subgraph;
    (void)op;
    (void)op_scope;
    (void)scope;
    return OkStatus();
  }
  virtual Status Exit(size_t subgraph, int32_t scope) {
    (void)subgraph;
    (void)scope;
    return OkStatus();
  }
};

// Walks the model from subgraph 0. Returns the last scope (TFLM's final
// allocation scope count), which is also the number of steps microarena
// plans over (its steps are TFLM's scopes minus one; see analysis/lifetimes.h). Errors: nesting deeper than
// kMaxCallDepth (or a cycle), more than kMaxSteps scopes, or the visitor's own error.
Result<int32_t> WalkCallGraph(const ModelView& model, CallGraphVisitor& visitor);

}  // namespace microarena
