// OptimalPlanner: the smallest head, by branch and bound (host only).
//
// The search space is that of canonical plans (in the spirit of MiniMalloc,
// ASPLOS 2023): buffers are placed one at a time in order of non-decreasing
// offset, each at the lowest aligned offset above everything placed before it
// in its lifetime. Every plan can be pushed down into such a form without
// growing, so searching these orders is complete.
//
//   offset
//     ^         +---- b ----+             placing b at level L: every section's
//     |  +- a -+|           |   +- c -+   floor is at least L from now on, so
//   L +--------++-----------+---+.....+   the space under L is given up
//     +-----------------------------------> step
//
// Steps:
//   1. Upper bound: the greedy planner's plan. Lower bound: the most bytes
//      live at one step. If they meet, done.
//   2. Split time into sections (between consecutive lifetime ends). State:
//      the floor of each section, the level L (offset of the last buffer
//      placed), the bytes still to place in each section.
//   3. At a node, each remaining buffer's lowest offset is
//      low = align(max(L, highest floor in its lifetime)) (a fixed buffer's
//      is its fixed offset). Prune when some buffer cannot fit under the
//      capacity, when a fixed buffer is already under the level or a floor,
//      or when in some section max(floor, L) + bytes left > capacity.
//   4. Branch only on buffers b with low(b) < low(c) + size(c) for every other
//      placeable c: if c fits entirely below b, putting c first is never
//      worse (dominance). Try them lowest first, then longest lifetime, then
//      largest. Two buffers that are not live together and land at the same
//      offset are tried in one order only (symmetry).
//   5. Minimising: first ask for a plan at the lower bound (with part of the
//      time); then search below the best head found, tightening the capacity
//      after every plan, until the search space is exhausted (proven
//      optimal) or time runs out (best plan, not proven).
// Cost: exponential in the worst case; each node costs O(n + sections).
// Anytime: the best plan found so far is always returned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "microarena/base/result.h"
#include "microarena/plan/check.h"
#include "microarena/plan/planner.h"

namespace microarena {

// Where the search stands, for a progress display.
struct OptimalProgress {
  double elapsed_seconds = 0.0;
  size_t best_head_bytes = 0;    // head of the best plan found so far
  size_t lower_bound_bytes = 0;  // no plan has a smaller head
  uint64_t nodes = 0;            // search nodes visited so far
};

struct OptimalOptions {
  double time_limit_seconds = 10.0;      // <= 0: no limit
  size_t capacity_bytes = kNoCapacity;   // if set: find a plan within it, or prove there is none
  uint64_t node_limit = 0;               // 0: no limit; a limit makes the result deterministic
  // Called about every progress_interval_seconds while searching; may be empty.
  std::function<void(const OptimalProgress&)> progress;
  double progress_interval_seconds = 0.5;
};

// The answer to "does a plan fit in the capacity?".
enum class CapacityOutcome : uint8_t {
  kNotAsked = 0,    // no capacity given
  kFits = 1,        // the plan written fits
  kInfeasible = 2,  // proven: no plan fits
  kUnknown = 3,     // the time or node limit ran out first
};
const char* CapacityOutcomeName(CapacityOutcome outcome);

struct OptimalResult {
  size_t head_bytes = 0;         // head of the plan written (the best found)
  size_t lower_bound_bytes = 0;  // proven: no plan has a smaller head
  bool proven_optimal = false;   // head_bytes == the minimum
  CapacityOutcome capacity_outcome = CapacityOutcome::kNotAsked;
  bool limit_reached = false;    // the time or node limit stopped the search
  double elapsed_seconds = 0.0;
  uint64_t nodes = 0;            // search nodes visited
};

class OptimalPlanner final : public Planner {
 public:
  // Problems with more buffers than this get the greedy plan without search.
  static constexpr size_t kMaxSearchBuffers = 20000;

  explicit OptimalPlanner(OptimalOptions options = {}) : options_(std::move(options)) {}

  const char* name() const override { return "optimal"; }
  size_t WorkspaceBytes(size_t /*buffer_count*/) const override { return 0; }

  // Planner interface. With a capacity: kInfeasible when proven that no plan
  // fits, kTimeout when the limit ran out before one was found (the offsets
  // then hold the best plan found, which does not fit).
  [[nodiscard]] Status Plan(const PlanningProblem& problem, Span<uint8_t> workspace,
                            Span<size_t> offsets_bytes, PlanSummary* summary) const override;

  // The full answer. Writes the best plan found into `offsets_bytes` (one per
  // buffer) whenever it returns a result.
  Result<OptimalResult> Solve(const PlanningProblem& problem, Span<size_t> offsets_bytes) const;

  const OptimalOptions& options() const { return options_; }

 private:
  OptimalOptions options_;
};

}  // namespace microarena
