// OptimalPlanner: the smallest head, by branch and bound (host only).
//
// The core is a decision procedure in the manner of MiniMalloc (ASPLOS
// 2023): "is there a plan whose head fits in C bytes?". It searches
// canonical plans only: every buffer sits at offset 0 or directly on a
// buffer live with it, and buffers are placed one at a time in order of
// non-decreasing offset. Any plan can be pushed down into that form without
// growing, so the search is complete.
//
//   offset
//     ^         +---- b ----+             the next buffer goes at the lowest
//     |  +- a -+|           |   +- c -+   candidate offset: the highest top
//   L +--------++-----------+---+.....+   below it in its lifetime; nothing
//     +-----------------------------------> step   placed later goes lower
//
// Steps:
//   1. Upper bound: the greedy planner's plan. Lower bound: the most bytes
//      live at one step (where trusted fixed buffers overlap, a model's own
//      offline plan: the highest fixed top or largest buffer, and no search
//      at all, which places fixed buffers as any other). If they meet,
//      done. (Asked about a capacity, first dives under each static order
//      of step 5: the buffer with the lowest
//      candidate offset goes there next, no bounds, no backtracking, O(n)
//      per buffer: the search's own first path wherever no bound prunes it,
//      for a fraction of the cost. A second round moves the buffer that did
//      not fit to the front of each order. Then
//      the rounds of restarts of step 5 run before the greedy passes until
//      the search has cost about what the passes would, which usually makes
//      them unneeded: it finds a plan that fits for less. Not with overlap
//      permissions, trusted fixed overlaps or more than
//      kFirstRoundBeforeGreedyBuffers buffers; no dive with fixed buffers,
//      nor with a capacity too large for a dive's 64-bit keys: 2^56 bytes
//      or more with 129-256 buffers, 2^54 with up to 1,000.)
//   2. Split time into sections (between consecutive lifetime ends). Where no
//      unplaced buffer crosses from one section to the next, the problem falls
//      apart into independent parts, each searched on its own (again after
//      every placement that opens such a cut). A part already answered (same
//      buffers, same floors) is not searched again: under the same or a
//      larger capacity if it had a plan, the same or a smaller if none.
//   3. At a node, each unplaced buffer's candidate offset is the highest top
//      of the placed buffers live with it, aligned up (a fixed buffer's is its
//      fixed offset). Prune when a buffer cannot fit under C, or when in some
//      section the unplaced buffers live there, stacked from the level L in
//      order of candidate offset, do not fit under C (this counts the gaps
//      that no remaining buffer can fill). A cheaper form runs first, from
//      per-section sums kept as buffers are placed (the unplaced bytes above
//      max(L, the highest placed top)): most nodes fail it. When a placement
//      splits the part, the whole part is checked at the placement's offset
//      before its pieces are searched, each from level 0 (a plan reached in
//      offset order has every unplaced buffer above that offset); without
//      it the pieces re-search plans reached along other paths.
//   4. Branch, lowest candidate first, on buffers b whose candidate o is at or
//      above L (a buffer whose candidate fell below L can only go higher,
//      on top of one placed later), with these symmetry and dominance rules:
//      at o == L only buffers after the last one in the current order; no b
//      when another buffer c would fit entirely below o (c belongs there);
//      no b above an unplaced fixed buffer's offset; not b directly on a
//      buffer with the same lifetime that is smaller, or as large with a
//      higher index (swap them).
//   5. Restarts: six orders are tried in turn with a node budget doubling
//      each round; an exhausted search under any order is a proof. The first
//      three are static (lifetime length, area, busiest section, as in
//      MiniMalloc); the other three use the same keys but re-sort each
//      independent part when it splits off, with "busiest" counted over the
//      bytes still unplaced (as MiniMalloc orders its sub-partitions). Which
//      of the two kinds gets stuck differs from problem to problem. States whose
//      subtree was searched to the end without a plan are remembered (a
//      128-bit key of the level, the unplaced buffers with their floors and
//      rule flags; a lossy table) and skipped when met again, by another
//      path or in a later restart under any order: the orders change the
//      sequence of placements at one offset, never the plans reachable, so
//      a dead state is dead under all of them (re-sorted parts included) and
//      every smaller capacity. Each round ends with one more order, learned:
//      the buffers of the sections whose bounds pruned most often so far
//      first (the conflict met near the root instead of deep in the tree).
//      On A-F it costs 7-12 % more nodes; on generated problems shaped like
//      A-F that no static order solves in 30 s it often finds the plan in
//      well under a second. Asked about a capacity above the lower bound,
//      each round after the greedy passes (step 1) also asks about two
//      tighter capacities, three quarters of the way up from the lower
//      bound and the bound itself, with the same budget and a learned order
//      of their own: a plan within them fits, and how long the search takes
//      to find one varies widely with the capacity (the section bounds
//      prune by it), neither way always faster. A proven "no" there raises
//      the lower bound. Each round (at the lower bound too) then looks for
//      a guillotine plan (guillotine.h: strips cut across time and space,
//      for problems that fill the capacity almost without gaps, where this
//      search fails deep in the tree) with eight times the round's
//      per-attempt node budget; it finds plans only.
//   6. Minimising: rounds with a growing node budget, each first asking for a
//      plan at the lower bound, then a sixteenth of the gap below the best
//      head (again after each plan found: a plan found under a capacity sits
//      just below it, so this is what lowers the head where the minimum is
//      open), then bisecting between the lower bound and the best head. Every
//      head is a multiple of a unit (the gcd of the sizes, fixed offsets and
//      permitted displacements, or its gcd with the alignment where that does
//      not divide it): capacities are rounded down to it, and a proven "no"
//      raises the lower bound to the next multiple. A plan lowers the best
//      head; the search stops when they meet (proven optimal) or the time
//      runs out (best plan, not proven).
// Overlap permissions (PlanningProblem::overlaps): a placed output lifts its
// permitted input's candidate only to its offset + min(D, size) (the input
// may sit D above the output's start); the per-section stacking bound is
// skipped in sections where a permitted pair lives; the lower bound is
// ComputeOverlapLowerBound. With D > 0 everywhere (convolutions) the search
// stays complete; with an in-place pair (D = 0) or fixed offsets beside
// permissions an exhausted search is not taken as a proof (only plans found
// and the closed-form bound count). The search starts from the best plan
// without the permissions (solved first, with half the time limit and its
// own node budget), so its head is never larger than without them.
// Cost: exponential in the worst case; each node costs O(n + the sections
// spanned by the unplaced buffers). Anytime: the best plan found so far is
// always returned.
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
  size_t best_head_bytes = 0;    // head of the best plan found so far; 0: none yet
  size_t lower_bound_bytes = 0;  // no plan has a smaller head
  uint64_t nodes = 0;            // search nodes visited so far
};

struct OptimalOptions {
  double time_limit_seconds = 10.0;      // <= 0: no limit
  size_t capacity_bytes = kNoCapacity;   // if set: find a plan within it, or prove there is none
  uint64_t node_limit = 0;               // 0: no limit; a limit makes the result deterministic
  // States whose subtree was searched without a plan are remembered (a
  // table of 96 KiB that grows to at most 96 MiB) and skipped when met
  // again, once a search has visited this many nodes; UINT64_MAX: never.
  uint64_t dead_states_after_nodes = 16384;
  // End each round of restarts with the order learned from where the
  // section bounds pruned (step 5 above); false: the six fixed orders only.
  bool learn_order = true;
  // Stack every section at every node (step 3's full bound) instead of
  // only those that may overflow: the same verdicts and nodes, slower; for
  // tests and measurement.
  bool stack_every_section = false;
  // Asked about a capacity above the lower bound, each round of restarts
  // after the greedy passes also asks about tighter capacities (see
  // Solve); false: the capacity alone, for tests and measurement.
  bool tighter_capacities = true;
  // Asked about a capacity, dive first (step 1); false: the search from its
  // first node, for tests of the search itself and measurement.
  bool dive = true;
  // Asked about a capacity, each round of restarts after the greedy passes
  // also looks for a guillotine plan (guillotine.h) with eight times the
  // round's per-attempt node budget (its nodes are counted apart from
  // node_limit's, which still ends the rounds). The rounds run with
  // tighter_capacities and where an exhausted search is a proof; otherwise
  // the search runs in one attempt and this is not used. false: the branch
  // and bound alone, for tests and measurement.
  bool guillotine = true;
  // Problems whose buffers are live together in more pairs than this get
  // the greedy plan without search (as those above kMaxSearchBuffers): the
  // search keeps each pair in its overlap lists (8 bytes a pair) and visits
  // a buffer's pairs at every placement. A-F have 2,900-12,500 pairs.
  uint64_t max_search_pairs = uint64_t{1} << 24;
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

// Where the search spent its nodes: the figures for studying a problem it
// does not solve (which pruning rule cuts, how deep it gets, how often it
// restarts). Counted over every decision of one Solve.
struct OptimalSearchStats {
  uint64_t pruned_too_high = 0;       // nodes cut: a buffer's candidate offset leaves it above the capacity
  uint64_t pruned_section_bound = 0;  // nodes cut: a section's stacked unplaced buffers exceed the capacity
  uint64_t pruned_fixed = 0;          // nodes cut: a fixed buffer lies below the level or its floor
  uint64_t dead_ends = 0;             // nodes that passed the bounds, but no child led to a plan
  uint64_t cache_hits = 0;            // independent parts answered from the cache
  uint64_t dead_state_hits = 0;       // nodes skipped: the same state failed before
  uint64_t attempts = 0;              // searches from the root (orders x budget rounds)
  uint64_t found_sorting_parts = 0;   // plans found under an order that re-sorts each part
  uint64_t found_learned_order = 0;   // plans found under the order learned from the prunes
  uint64_t found_tighter_capacity = 0;  // 1: the plan came from a tighter capacity (Solve)
  uint64_t found_by_dive = 0;         // 1: the plan came from the dive before the search (step 1)
  uint64_t found_by_guillotine = 0;   // 1: the plan came from the guillotine search (step 5)
  uint64_t guillotine_nodes = 0;      // nodes of the guillotine search (not in OptimalResult::nodes)
  uint64_t deepest = 0;               // most buffers placed at once
};

struct OptimalResult {
  size_t head_bytes = 0;         // head of the plan written (the best found)
  size_t lower_bound_bytes = 0;  // proven: no plan has a smaller head
  bool proven_optimal = false;   // head_bytes == the minimum
  CapacityOutcome capacity_outcome = CapacityOutcome::kNotAsked;
  bool limit_reached = false;    // the time or node limit stopped the search
  double elapsed_seconds = 0.0;
  uint64_t nodes = 0;            // search nodes visited
  OptimalSearchStats stats;
};

class OptimalPlanner final : public Planner {
 public:
  // Problems with more buffers than this get the greedy plan without search
  // (as do those with more than OptimalOptions::max_search_pairs pairs).
  static constexpr size_t kMaxSearchBuffers = 20000;
  // Asked about a capacity, problems with at most this many buffers (of
  // non-zero size) get rounds of restarts before the greedy passes.
  // Measured on generated problems at a capacity the greedy plan meets:
  // at 1,000 buffers the search's first plan and the passes took the same
  // time (0.04 s); at 2,000 the search took 0.22 s, the passes 0.17 s.
  static constexpr size_t kFirstRoundBeforeGreedyBuffers = 1000;

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
