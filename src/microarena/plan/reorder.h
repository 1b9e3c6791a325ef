// Operator reordering (host): the execution order of a subgraph's ops that
// makes the busiest step smallest.
//
// The head can never be smaller than the bytes live at the busiest step (the
// lower bound, plan/lower_bound.h), and those bytes depend on the order: on a
// graph with branches (residual blocks, multi-head models) running one branch
// to completion before starting the other keeps fewer tensors alive. Our
// planners meet the lower bound on every model we know, so minimising the
// bound over orders is minimising the head.
//
// Live bytes follow the lifetime rules of analysis/lifetimes.h exactly (the
// same alignment rounding, inputs live from step 0, outputs to the end, an
// unread op output for its own step, scratch for its op's step), so that the
// peak reported here equals ComputeLowerBound over AnalyzeLifetimes for the
// returned order (a test holds the two to each other).
//
// Method:
//  1. Dependencies: op b after op a when b reads a tensor a writes; ops that
//     touch the same variable tensor (RNN state) keep their stored order.
//  2. An upper bound: the better of the stored order and a greedy order (at
//     each step the ready op with the smallest step memory, then the one that
//     frees most, then the lowest index).
//  3. Exact search: f(S) = min over ready ops o of max(step bytes of o after
//     S, f(S + o)), memoised over the sets S of executed ops (the "working
//     sets" of operator-reordering work for microcontrollers; a set fixes the
//     live tensors). Children whose step already reaches the best value found
//     are cut. Within the state and time limits the result is proven optimal
//     over every valid order; beyond them the upper bound is returned, not
//     proven.
// Cost: O(states x ops x degree) time; memory ~ (ops/64 + 6) words per state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "microarena/analysis/lifetimes.h"
#include "microarena/base/result.h"
#include "microarena/model/model_view.h"

namespace microarena {

struct ReorderOptions {
  size_t alignment_bytes = 16;      // as for AnalyzeLifetimes
  double time_limit_seconds = 10.0; // exact search; <= 0: no limit
  size_t max_states = 4000000;      // exact search memo entries
};

struct ReorderResult {
  std::vector<int32_t> order;       // order[step] = op index
  size_t peak_bytes = 0;            // bytes live at the busiest step of `order`
  size_t stored_peak_bytes = 0;     // the same for the order stored in the model
  bool proven_optimal = false;      // no valid order has a smaller peak
  std::string method;               // "exact", "stored" (nothing to reorder) or "heuristic"
  std::string note;                 // why the search stopped short, if it did
  size_t states = 0;                // sets memoised by the exact search
  double seconds = 0.0;

  size_t saved_bytes() const { return stored_peak_bytes - peak_bytes; }
  // Whether `order` is the stored order (0, 1, 2, ...).
  bool is_stored_order() const {
    for (size_t i = 0; i < order.size(); ++i) {
      if (order[i] != static_cast<int32_t>(i)) return false;
    }
    return true;
  }
};

// Finds the order for subgraph 0 of `model`, given the kernels' scratch
// requests. Never returns an order whose peak exceeds the stored order's.
// Errors: what AnalyzeLifetimes rejects (several subgraphs, bad alignment, a
// tensor read before it is written).
Result<ReorderResult> FindBestOrder(const ModelView& model, Span<const ScratchRequest> scratch,
                                    const ReorderOptions& options = {});

// Bytes live at the busiest step of `order` (empty = stored order), computed
// through AnalyzeLifetimes and ComputeLowerBound: the independent measure.
Result<size_t> PeakLiveBytes(const ModelView& model, Span<const ScratchRequest> scratch,
                             const std::vector<int32_t>& order, size_t alignment_bytes);

}  // namespace microarena
