#include "microarena/plan/optimal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "microarena/plan/check.h"
#include "microarena/plan/greedy.h"
#include "microarena/plan/plan_test_util.h"
#include "microarena/plan/problem_csv.h"
#include "microarena/plan/problem_generator.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using plan_test::Buffer;
using plan_test::MakeProblem;

OptimalResult SolveChecked(const PlanningProblem& problem, const OptimalOptions& options,
                           std::vector<size_t>* offsets) {
  offsets->assign(problem.buffers.size(), 0);
  Result<OptimalResult> result =
      OptimalPlanner(options).Solve(problem, Span<size_t>(offsets->data(), offsets->size()));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok()) return {};
  const Status check = CheckPlan(problem, Span<const size_t>(offsets->data(), offsets->size()),
                                 result->head_bytes);
  EXPECT_TRUE(check.ok()) << check.message();
  return *result;
}

// The greedy planner's plan (what the optimal planner writes when it does
// not search, or finds nothing better); false if it failed.
bool GreedyPlan(const PlanningProblem& problem, std::vector<size_t>* offsets, PlanSummary* summary) {
  std::vector<uint8_t> workspace(GreedyPlanner().WorkspaceBytesFor(problem));
  offsets->assign(problem.buffers.size(), 0);
  return GreedyPlanner()
      .Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
            Span<size_t>(offsets->data(), offsets->size()), summary)
      .ok();
}

// A node budget instead of the default clock, so "proven optimal" is the same
// verdict on a busy machine; these hand-made problems need a few dozen nodes.
OptimalOptions NodeBudget() {
  OptimalOptions options;
  options.time_limit_seconds = 0;
  options.node_limit = 10000;
  return options;
}

TEST(OptimalPlan, BeatsGreedyWhereOrderMatters) {
  // MiniMalloc's example: five 4-byte buffers, lifetimes [0,3) [3,9) [0,9)
  // [9,21) [0,21). At most three are live at once, so 12 bytes is the lower
  // bound, and a plan meets it: b1 and b2 share one 4-byte row, b3 and b4
  // another, b5 the third.
  const std::vector<BufferRequest> buffers = {Buffer(4, 0, 3), Buffer(4, 3, 9), Buffer(4, 0, 9),
                                              Buffer(4, 9, 21), Buffer(4, 0, 21)};
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 4), NodeBudget(), &offsets);
  EXPECT_EQ(result.head_bytes, 12u);
  EXPECT_TRUE(result.proven_optimal);
}

TEST(OptimalPlan, MeetsLowerBoundWithMixedLifetimes) {
  // a [0,2), b [1,3), c [0,3) (16 B each) and d (32 B, [1,2)) are all live
  // at step 1: 80 bytes, the lower bound, which a plan meets.
  const std::vector<BufferRequest> buffers = {Buffer(16, 0, 2), Buffer(16, 1, 3),
                                              Buffer(16, 0, 3), Buffer(32, 1, 2)};
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 16), NodeBudget(), &offsets);
  EXPECT_EQ(result.head_bytes, 80u);
  EXPECT_EQ(result.lower_bound_bytes, 80u);
  EXPECT_TRUE(result.proven_optimal);
}

TEST(OptimalPlan, GapForcedByFixedBuffer) {
  // A fixed buffer at 16 over [0,2) and a free 32-byte buffer over [0,2):
  // the free one cannot go below it (gap of 16), so it sits at 32: head 64,
  // above the lower bound of 48, and proven.
  const std::vector<BufferRequest> buffers = {Buffer(16, 0, 2, 16), Buffer(32, 0, 2)};
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 16), NodeBudget(), &offsets);
  EXPECT_EQ(offsets, (std::vector<size_t>{16, 32}));
  EXPECT_EQ(result.head_bytes, 64u);
  EXPECT_TRUE(result.proven_optimal);
  EXPECT_EQ(result.lower_bound_bytes, 64u);
}

TEST(OptimalPlan, CapacityFitsOrInfeasible) {
  const std::vector<BufferRequest> buffers = {Buffer(4, 0, 3), Buffer(4, 3, 9), Buffer(4, 0, 9),
                                              Buffer(4, 9, 21), Buffer(4, 0, 21)};
  OptimalOptions options = NodeBudget();
  options.capacity_bytes = 12;
  std::vector<size_t> offsets;
  EXPECT_EQ(SolveChecked(MakeProblem(buffers, 4), options, &offsets).capacity_outcome,
            CapacityOutcome::kFits);
  options.capacity_bytes = 11;
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 1), options, &offsets);
  EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kInfeasible);
  // Through the Planner interface: a kInfeasible status.
  PlanSummary summary;
  const Status status = OptimalPlanner(options).Plan(
      MakeProblem(buffers, 1), Span<uint8_t>(), Span<size_t>(offsets.data(), offsets.size()),
      &summary);
  EXPECT_EQ(status.code(), ErrorCode::kInfeasible);
}

// The dive (optimal.h, step 1), by hand. a [0,2), b [1,3), c [0,1), d [2,3),
// 2 bytes each, capacity 4 (the most live at once). Static order 0 (length,
// area, busiest, index): a, b, c, d. All candidates 0: a goes at 0 and lifts
// b and c (live with it) to 2; d (still 0) at 0 lifts b to 2 again; b and c
// (both 2, b first) at 2. Head 4, no search node.
TEST(OptimalPlan, DiveFindsTheSimplestPlanWithoutASearchNode) {
  const std::vector<BufferRequest> buffers = {Buffer(2, 0, 2), Buffer(2, 1, 3), Buffer(2, 0, 1),
                                              Buffer(2, 2, 3)};
  OptimalOptions options = NodeBudget();
  options.capacity_bytes = 4;
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 1), options, &offsets);
  EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_EQ(offsets, (std::vector<size_t>{0, 2, 2, 0}));
  EXPECT_EQ(result.stats.found_by_dive, 1u);
  EXPECT_EQ(result.nodes, 0u);
  EXPECT_EQ(result.stats.attempts, 0u);
  // Without it, the search finds a plan as before.
  options.dive = false;
  const OptimalResult searched = SolveChecked(MakeProblem(buffers, 1), options, &offsets);
  EXPECT_EQ(searched.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_EQ(searched.stats.found_by_dive, 0u);
  EXPECT_GT(searched.nodes, 0u);
}

// The dive keeps a candidate and a rank in one 64-bit key: with 4 buffers
// the rank takes 2 bits, so candidates (at most the capacity aligned up)
// must stay below 2^62. A capacity of 2^62 - 1 still dives (the plan of the
// test above); 2^62 does not, and the search finds a plan instead.
TEST(OptimalPlan, DiveOnlyWhereTheCapacityFitsItsKeys) {
  const std::vector<BufferRequest> buffers = {Buffer(2, 0, 2), Buffer(2, 1, 3), Buffer(2, 0, 1),
                                              Buffer(2, 2, 3)};
  OptimalOptions options = NodeBudget();
  options.capacity_bytes = (size_t{1} << 62) - 1;
  std::vector<size_t> offsets;
  const OptimalResult dived = SolveChecked(MakeProblem(buffers, 1), options, &offsets);
  EXPECT_EQ(dived.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_EQ(dived.stats.found_by_dive, 1u);
  EXPECT_EQ(offsets, (std::vector<size_t>{0, 2, 2, 0}));
  options.capacity_bytes = size_t{1} << 62;
  const OptimalResult searched = SolveChecked(MakeProblem(buffers, 1), options, &offsets);
  EXPECT_EQ(searched.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_EQ(searched.stats.found_by_dive, 0u);
  EXPECT_GT(searched.nodes, 0u);
}

// The lower bound without permissions comes from the search's per-section
// sums; where they overflow, the planner says so, naming the step, before
// any search (the greedy plan, tried when the search finds none, would
// refuse the problem with the same words). Two buffers of 2^63 bytes live
// together at step 0: 2^64 does not fit size_t.
TEST(OptimalPlan, LiveBytesThatOverflowAreAnError) {
  const size_t half = size_t{1} << 63;
  const std::vector<BufferRequest> buffers = {Buffer(half, 0, 2), Buffer(half, 0, 1)};
  const PlanningProblem problem = MakeProblem(buffers, 1);
  OptimalOptions options = NodeBudget();
  options.capacity_bytes = SIZE_MAX;
  std::vector<size_t> offsets(buffers.size());
  const Result<OptimalResult> result =
      OptimalPlanner(options).Solve(problem, Span<size_t>(offsets.data(), offsets.size()));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(result.status().message()).find("live bytes at step 0 overflow"), std::string::npos)
      << result.status().message();
}

// A zero-size buffer takes no part in the dive but keeps its fixed offset
// (64 here, above the two 16-byte buffers' plan: the head is 64).
TEST(OptimalPlan, DiveKeepsTheFixedOffsetOfAZeroSizeBuffer) {
  const std::vector<BufferRequest> buffers = {Buffer(16, 0, 2), Buffer(0, 0, 2, 64), Buffer(16, 1, 3)};
  OptimalOptions options = NodeBudget();
  options.capacity_bytes = 128;
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 16), options, &offsets);
  EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_EQ(result.stats.found_by_dive, 1u);
  EXPECT_EQ(offsets, (std::vector<size_t>{0, 64, 16}));
  EXPECT_EQ(result.head_bytes, 64u);
}

// Where lowest-candidate-first is a trap. Capacity 5 (the most live at
// once), buffers (lifetime, size): b0 [3,4) 3, b1 [1,3) 1, b2 [0,2) 2, b3
// [0,3) 2, b4 [2,4) 2. First round, each static order puts b3 first at 0
// (lifting b1, b2, b4 to 2), b0 at 0 (lifting b4 to 3), b2 at 2 (lowest
// candidate; lifts b1 to 4), b4 at 3 (lifts b1 to 5), and b1 would end at
// 6 > 5: all three dives fail on b1. Second round, order 0 with b1 moved to
// its front: b1 at 0 (lifting b2, b3, b4 to 1), b0 at 0 (b4 to 3), b3 at 1
// (b2 to 3), b2 and b4 at 3: head 5. Without the dive the search finds
// another plan (b1 at 2, under b2 and b4).
TEST(OptimalPlan, ASecondRoundOfDivesMovesTheBufferThatDidNotFitFirst) {
  const std::vector<BufferRequest> buffers = {Buffer(3, 3, 4), Buffer(1, 1, 3), Buffer(2, 0, 2),
                                              Buffer(2, 0, 3), Buffer(2, 2, 4)};
  OptimalOptions options = NodeBudget();
  options.capacity_bytes = 5;
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 1), options, &offsets);
  EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_EQ(result.stats.found_by_dive, 1u);
  EXPECT_EQ(result.nodes, 0u);
  EXPECT_EQ(offsets, (std::vector<size_t>{0, 0, 3, 1, 3}));
  options.dive = false;
  const OptimalResult searched = SolveChecked(MakeProblem(buffers, 1), options, &offsets);
  EXPECT_EQ(searched.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_GT(searched.nodes, 0u);
  EXPECT_EQ(offsets[1], 2u);
}

// A node budget, not a clock: the verdict must not depend on how busy the
// machine is (speed is measured in bench/planner_benchmark). Each of these
// needs well under 1,000 nodes.
TEST(OptimalPlan, ProvenOptimalOnTflmProblemsWithinNodeBudget) {
  MICROARENA_REQUIRE_SHARED();
  for (const char* model :
       {"kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8"}) {
    SCOPED_TRACE(model);
    const std::vector<BufferRequest> buffers =
        plan_test::TflmPlanRequests(testing::SharedDir(), model);
    ASSERT_FALSE(buffers.empty());
    OptimalOptions options;
    options.time_limit_seconds = 0;
    options.node_limit = 100000;
    std::vector<size_t> offsets;
    const OptimalResult result = SolveChecked(MakeProblem(buffers, 16), options, &offsets);
    EXPECT_TRUE(result.proven_optimal);
    EXPECT_FALSE(result.limit_reached);
    EXPECT_EQ(result.head_bytes, result.lower_bound_bytes);
  }
}

// The smallest head by exhaustive search over every aligned offset up to
// the sum of the sizes (tiny problems only). Trusted: fixed buffers may
// overlap each other (PlanningProblem::trust_fixed_overlaps).
size_t BruteForceMinimumHead(const std::vector<BufferRequest>& buffers, size_t alignment,
                             bool trusted = false) {
  size_t limit = 0;
  for (const BufferRequest& buffer : buffers) {
    limit += buffer.size_bytes;
    if (buffer.fixed_offset_bytes != kNoFixedOffset) {
      limit = std::max(limit, static_cast<size_t>(buffer.fixed_offset_bytes) + buffer.size_bytes);
    }
  }
  limit += buffers.size() * alignment;
  size_t best = SIZE_MAX;
  std::vector<size_t> offsets(buffers.size());
  std::function<void(size_t, size_t)> place = [&](size_t index, size_t head) {
    if (head >= best) return;
    if (index == buffers.size()) {
      best = head;
      return;
    }
    const BufferRequest& buffer = buffers[index];
    for (size_t offset = 0; offset + buffer.size_bytes <= limit; offset += alignment) {
      if (buffer.fixed_offset_bytes != kNoFixedOffset &&
          offset != static_cast<size_t>(buffer.fixed_offset_bytes)) {
        continue;
      }
      bool clash = false;
      for (size_t other = 0; other < index && !clash; ++other) {
        if (trusted && buffer.fixed_offset_bytes != kNoFixedOffset &&
            buffers[other].fixed_offset_bytes != kNoFixedOffset) {
          continue;
        }
        clash = buffer.size_bytes > 0 && buffers[other].size_bytes > 0 &&
                buffer.lifetime.Overlaps(buffers[other].lifetime) &&
                offset < offsets[other] + buffers[other].size_bytes &&
                offsets[other] < offset + buffer.size_bytes;
      }
      if (clash) continue;
      offsets[index] = offset;
      place(index + 1, std::max(head, offset + buffer.size_bytes));
    }
  };
  place(0, 0);
  return best;
}

// Random tiny problems, some with fixed offsets, some with an alignment
// larger than the size unit: the proven minimum must be the brute-force
// minimum, and the capacity answers must agree with it on both sides.
// `dead_states_after_nodes` 0 keeps the table of dead states from the
// first node (the default takes it only in large searches), so that its
// skips are checked against the brute force too.
// `size_unit` multiplies every size (and fixed offset): heads are then
// multiples of a unit larger than one, which the search's capacities and
// raised bounds are rounded to (optimal.cc, HeadUnit); the brute force knows
// nothing of it. Asked about a capacity one unit below the minimum, a proof
// by search must raise the bound to the minimum itself.
void ExpectBruteForceMinimum(uint64_t dead_states_after_nodes, size_t size_unit = 1) {
  std::mt19937 random(20240611);
  int searched = 0;
  int proofs = 0;
  for (int trial = 0; trial < 600; ++trial) {
    SCOPED_TRACE(trial);
    // Larger even units: an alignment of 4 (the brute force then steps as
    // far), and at most four buffers (it grows with the sums).
    const size_t alignment = trial % 3 == 0 ? (size_unit % 2 == 0 ? 4 : 2) : 1;
    const size_t count = 2 + random() % (size_unit == 1 ? 5 : 3);
    std::vector<BufferRequest> buffers;
    for (size_t i = 0; i < count; ++i) {
      const int32_t first = static_cast<int32_t>(random() % 6);
      const int32_t end = first + 1 + static_cast<int32_t>(random() % 4);
      const size_t size = size_unit * (1 + random() % 4);
      int64_t fixed = kNoFixedOffset;
      if (trial % 4 == 1 && random() % 4 == 0) {
        fixed = static_cast<int64_t>(size_unit * alignment * (random() % 4));
      }
      buffers.push_back(Buffer(size, first, end, fixed));
    }
    // Fixed buffers must not clash with each other for a plan to exist.
    const size_t expected = BruteForceMinimumHead(buffers, alignment);
    if (expected == SIZE_MAX) continue;
    const PlanningProblem problem = MakeProblem(buffers, alignment);
    OptimalOptions options;
    options.time_limit_seconds = 0;  // no limit: tiny problems
    options.dead_states_after_nodes = dead_states_after_nodes;
    std::vector<size_t> offsets;
    const OptimalResult result = SolveChecked(problem, options, &offsets);
    EXPECT_TRUE(result.proven_optimal);
    EXPECT_EQ(result.head_bytes, expected);
    options.capacity_bytes = expected;
    EXPECT_EQ(SolveChecked(problem, options, &offsets).capacity_outcome, CapacityOutcome::kFits);
    options.capacity_bytes = expected - 1;
    const OptimalResult below = SolveChecked(problem, options, &offsets);
    EXPECT_EQ(below.capacity_outcome, CapacityOutcome::kInfeasible);
    EXPECT_LE(below.lower_bound_bytes, expected);
    if (size_unit > 1) {
      options.capacity_bytes = expected - size_unit;
      const OptimalResult unit_below = SolveChecked(problem, options, &offsets);
      EXPECT_EQ(unit_below.capacity_outcome, CapacityOutcome::kInfeasible);
      // Heads are in units of size_unit where the alignment divides it (else
      // of their gcd: 1 here).
      if (unit_below.nodes > 0 && size_unit % alignment == 0) {
        EXPECT_EQ(unit_below.lower_bound_bytes, expected);
      }
    }
    searched += result.nodes > 0 ? 1 : 0;
    proofs += below.nodes > 0 ? 1 : 0;
  }
  // Enough of them needed the search (not just greedy or the lower bound).
  std::printf("  searched %d minimisations, %d infeasibility proofs\n", searched, proofs);
  EXPECT_GE(searched, 20);
  EXPECT_GE(proofs, 20);
}

TEST(OptimalPlan, MatchesBruteForceOnSmallRandomProblems) { ExpectBruteForceMinimum(16384); }

// Sizes in units of 3 (alignment 1 or 2: heads in units of 3 or 1), of 4
// (alignment 1 or 4: units of 4) and of 6 (alignment 1 or 4: units of 6 or 2).
TEST(OptimalPlan, MatchesBruteForceWithSizesInLargerUnits) {
  ExpectBruteForceMinimum(16384, 3);
  ExpectBruteForceMinimum(16384, 4);
  ExpectBruteForceMinimum(16384, 6);
}

TEST(OptimalPlan, MatchesBruteForceWithDeadStatesFromTheFirstNode) {
  ExpectBruteForceMinimum(0);
}

// A wrong skip of a dead state shows as a plan not found: generated
// problems (each with a known plan) at their capacity, with the table of
// dead states from the first node, must all be solved, where a wrongly
// skipped state would leave the search exhausted ("infeasible") or lost.
// 20-40 pieces, 1-3 dropped: the largest of the 300 needs about 60,000
// nodes without the table (measured), so 400,000 leaves room.
// A generated problem (with its known plan) asked at its capacity, under a
// node limit only; the answer's plan is checked.
OptimalResult SolveGeneratedAtCapacity(const ProblemGeneratorOptions& generator,
                                       OptimalOptions options) {
  Result<GeneratedProblem> generated = GenerateProblem(generator);
  EXPECT_TRUE(generated.ok()) << generated.status().message();
  if (!generated.ok()) return {};
  options.time_limit_seconds = 0;
  options.capacity_bytes = generated->capacity_bytes;
  std::vector<size_t> offsets;
  return SolveChecked(MakeProblem(generated->problem.buffers, 1), options, &offsets);
}

// The generator's settings of bench/solver_versus_minimalloc.py's family
// like-a-f (problems shaped like A-F).
ProblemGeneratorOptions LikeAF(uint64_t seed) {
  ProblemGeneratorOptions generator;
  generator.seed = seed;
  generator.units = 512;
  generator.unit_bytes = 2048;
  generator.unit_steps = 2048;
  generator.min_buffers = 150;
  generator.max_buffers = 300;
  generator.min_area_permille = 660;
  generator.max_area_permille = 980;
  generator.min_peak_permille = 940;
  generator.space_cut_permille = 650;
  return generator;
}

TEST(OptimalPlan, DeadStatesLoseNoPlan) {
  uint64_t skipped_states = 0;
  uint64_t found_sorting_parts = 0;
  uint64_t found_learned = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ProblemGeneratorOptions generator;
    generator.seed = seed;
    generator.min_buffers = 20;
    generator.max_buffers = 40;
    generator.min_dropped = 1;
    generator.max_dropped = 3;
    OptimalOptions options;
    options.node_limit = 400000;
    options.dead_states_after_nodes = 0;
    options.dive = false;  // every problem through the search
    const OptimalResult result = SolveGeneratedAtCapacity(generator, options);
    EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kFits) << result.nodes << " nodes";
    skipped_states += result.stats.dead_state_hits;
    found_sorting_parts += result.stats.found_sorting_parts;
    found_learned += result.stats.found_learned_order;
  }
  std::printf("  %llu states skipped as dead, %llu plans found re-sorting parts, %llu under the "
              "learned order\n",
              static_cast<unsigned long long>(skipped_states),
              static_cast<unsigned long long>(found_sorting_parts),
              static_cast<unsigned long long>(found_learned));
  EXPECT_GT(skipped_states, 100u);
  // The orders that re-sort each part ran and found checked plans (with the
  // states the static orders proved dead in the table).
  EXPECT_GT(found_sorting_parts, 0u);
  // So did the learned order, checked the same way.
  EXPECT_GT(found_learned, 0u);
}

// The learned order on problems shaped like A-F (bench family like-a-f,
// seeds 42, 53, 146 and 186 of its 200): measured once (solve), the six
// fixed orders found no plan in 30 s (millions of nodes), the learned one
// in about 10,000 nodes. Held here with a limit of 200,000 nodes: every
// plan found with it, none without. (Should the fixed orders come to solve
// one of these, the test fails on purpose: pick seeds they still miss.)
TEST(OptimalPlan, LearnedOrderSolvesWhatTheFixedOrdersDoNot) {
  for (const uint64_t seed : {42u, 53u, 146u, 186u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const ProblemGeneratorOptions generator = LikeAF(seed);
    OptimalOptions options;
    options.node_limit = 200000;
    options.dive = false;                 // about the search's orders
    options.tighter_capacities = false;  // under the capacity alone
    const OptimalResult learned = SolveGeneratedAtCapacity(generator, options);
    EXPECT_EQ(learned.capacity_outcome, CapacityOutcome::kFits) << learned.nodes << " nodes";
    EXPECT_GT(learned.stats.found_learned_order, 0u);
    options.learn_order = false;
    const OptimalResult fixed = SolveGeneratedAtCapacity(generator, options);
    EXPECT_EQ(fixed.capacity_outcome, CapacityOutcome::kUnknown) << fixed.nodes << " nodes";
  }
}

// Tighter capacities on problems shaped like A-F (bench family like-a-f,
// seeds 165 and 167 of its 200, capacity 2^20, lower bounds 1,030,144 and
// 1,040,384): measured once (solve), the search under the capacity alone
// took 2.1 s on 165 and found nothing in 10 s on 167; asked also about
// tighter capacities, it found plans in 19,200 and 192,325 nodes. Held here
// with a limit of 300,000 nodes: a plan with them, from a tighter capacity,
// and none without. (Should the capacity alone come to solve one of these,
// the test fails on purpose: pick seeds it still misses.)
TEST(OptimalPlan, TighterCapacitiesSolveWhatTheCapacityAloneDoesNot) {
  for (const uint64_t seed : {165u, 167u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const ProblemGeneratorOptions generator = LikeAF(seed);
    OptimalOptions options;
    options.node_limit = 300000;
    const OptimalResult tighter = SolveGeneratedAtCapacity(generator, options);
    EXPECT_EQ(tighter.capacity_outcome, CapacityOutcome::kFits) << tighter.nodes << " nodes";
    EXPECT_EQ(tighter.stats.found_tighter_capacity, 1u);
    options.tighter_capacities = false;
    const OptimalResult alone = SolveGeneratedAtCapacity(generator, options);
    EXPECT_EQ(alone.capacity_outcome, CapacityOutcome::kUnknown) << alone.nodes << " nodes";
  }
}

// Fixed buffers that overlap, trusted (a model's own offline plan, which
// CheckPlan accepts): neither the bytes live at one step bound the head
// (the pair shares bytes) nor does a search that finds no plan prove
// anything (it places fixed buffers as any other, so the pair fails every
// path). Small random problems, two fixed buffers and 1-4 free ones on a
// 16-byte grid, against the smallest head by brute force (fixed pairs
// allowed to overlap): asked at that head, never
// "infeasible"; minimising, the lower bound never above it. Before the
// solver knew this, 8 of these 1,000 were called infeasible (either half of
// the mend alone: the same 8).
TEST(OptimalPlan, TrustedFixedOverlapsAreNeverCalledInfeasible) {
  std::mt19937 random(7);
  int overlapping = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::vector<BufferRequest> buffers;
    const size_t count = 3 + random() % 4;
    for (size_t i = 0; i < count; ++i) {
      const int32_t first = static_cast<int32_t>(random() % 6);
      const int32_t end = first + 1 + static_cast<int32_t>(random() % 4);
      const size_t size = 16 * (1 + random() % 4);
      const int64_t fixed = i < 2 ? static_cast<int64_t>(16 * (random() % 4)) : kNoFixedOffset;
      buffers.push_back(Buffer(size, first, end, fixed));
    }
    const BufferRequest& a = buffers[0];
    const BufferRequest& b = buffers[1];
    const bool overlap =
        a.lifetime.Overlaps(b.lifetime) &&
        a.fixed_offset_bytes < b.fixed_offset_bytes + static_cast<int64_t>(b.size_bytes) &&
        b.fixed_offset_bytes < a.fixed_offset_bytes + static_cast<int64_t>(a.size_bytes);
    overlapping += overlap ? 1 : 0;
    const size_t smallest = BruteForceMinimumHead(buffers, 16, /*trusted=*/true);
    PlanningProblem problem = MakeProblem(buffers, 16);
    problem.trust_fixed_overlaps = true;
    OptimalOptions options = NodeBudget();
    options.capacity_bytes = smallest;
    std::vector<size_t> plan;
    const OptimalResult asked = SolveChecked(problem, options, &plan);
    EXPECT_NE(asked.capacity_outcome, CapacityOutcome::kInfeasible) << "smallest head " << smallest;
    EXPECT_LE(asked.lower_bound_bytes, smallest);
    // Where the pair overlaps, not searched (every plan the search reaches
    // has the pair apart).
    if (overlap) EXPECT_EQ(asked.stats.attempts, 0u);
    options.capacity_bytes = kNoCapacity;
    const OptimalResult minimised = SolveChecked(problem, options, &plan);
    EXPECT_LE(minimised.lower_bound_bytes, smallest);
    EXPECT_GE(minimised.head_bytes, smallest);
  }
  EXPECT_GT(overlapping, 100);  // the case in question came up
}

// Above max_search_pairs (pairs of buffers live together) the search does
// not run: the answer is the greedy plan, and a capacity it misses stays
// unknown, not infeasible. A generated like-a-f problem (seed 111, 192
// buffers) whose capacity the greedy plan misses and the first dive meets.
TEST(OptimalPlan, TooManyPairsGetTheGreedyPlanWithoutSearch) {
  Result<GeneratedProblem> generated = GenerateProblem(LikeAF(111));
  ASSERT_TRUE(generated.ok()) << generated.status().message();
  const PlanningProblem problem = MakeProblem(generated->problem.buffers, 1);
  uint64_t pairs = 0;
  for (size_t a = 0; a < problem.buffers.size(); ++a) {
    for (size_t b = a + 1; b < problem.buffers.size(); ++b) {
      pairs += problem.buffers[a].lifetime.Overlaps(problem.buffers[b].lifetime) ? 1 : 0;
    }
  }
  std::vector<size_t> greedy_offsets;
  PlanSummary greedy;
  ASSERT_TRUE(GreedyPlan(problem, &greedy_offsets, &greedy));
  ASSERT_GT(greedy.head_bytes, generated->capacity_bytes);

  OptimalOptions options = NodeBudget();
  options.capacity_bytes = generated->capacity_bytes;
  options.max_search_pairs = pairs - 1;
  std::vector<size_t> offsets;
  OptimalResult result = SolveChecked(problem, options, &offsets);
  EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kUnknown);
  EXPECT_EQ(result.head_bytes, greedy.head_bytes);
  EXPECT_EQ(offsets, greedy_offsets);
  EXPECT_EQ(result.nodes, 0u);
  EXPECT_EQ(result.stats.attempts, 0u);
  EXPECT_EQ(result.stats.found_by_dive, 0u);
  options.capacity_bytes = kNoCapacity;  // minimising: the greedy plan, not proven
  result = SolveChecked(problem, options, &offsets);
  EXPECT_EQ(result.head_bytes, greedy.head_bytes);
  EXPECT_FALSE(result.proven_optimal);
  EXPECT_EQ(result.stats.attempts, 0u);

  options.capacity_bytes = generated->capacity_bytes;
  options.max_search_pairs = pairs;  // all of them: searched
  result = SolveChecked(problem, options, &offsets);
  EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kFits);
}

// Above a capacity of 2^32 the search's undo logs keep an entry in two
// words instead of one; the search must not change: a generated problem
// (like-a-f seed 1: the search backtracks, the dive is off) and the same
// problem with every size and the capacity times 2^16 (a capacity of 2^36;
// the areas, lifetime x size, stay below 2^64) visit the same nodes (fewer
// than the 16,384 after which dead states are hashed, the one place the
// values' bits matter) and give the same plan, scaled.
TEST(OptimalPlan, WideUndoLogsSearchTheSameTree) {
  Result<GeneratedProblem> generated = GenerateProblem(LikeAF(1));
  ASSERT_TRUE(generated.ok()) << generated.status().message();
  const PlanningProblem problem = MakeProblem(generated->problem.buffers, 1);
  OptimalOptions options = NodeBudget();
  options.dive = false;
  options.capacity_bytes = generated->capacity_bytes;
  std::vector<size_t> offsets;
  const OptimalResult narrow = SolveChecked(problem, options, &offsets);
  ASSERT_EQ(narrow.capacity_outcome, CapacityOutcome::kFits);
  ASSERT_GT(narrow.stats.dead_ends, 0u);
  ASSERT_LT(options.node_limit, options.dead_states_after_nodes);

  constexpr int kShift = 16;
  std::vector<BufferRequest> scaled(generated->problem.buffers.begin(), generated->problem.buffers.end());
  for (BufferRequest& buffer : scaled) buffer.size_bytes <<= kShift;
  options.capacity_bytes = generated->capacity_bytes << kShift;
  ASSERT_GT(options.capacity_bytes, size_t{UINT32_MAX});
  std::vector<size_t> scaled_offsets;
  const OptimalResult wide = SolveChecked(MakeProblem(scaled, 1), options, &scaled_offsets);
  EXPECT_EQ(wide.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_EQ(wide.nodes, narrow.nodes);
  EXPECT_EQ(wide.stats.dead_ends, narrow.stats.dead_ends);
  EXPECT_EQ(wide.head_bytes, narrow.head_bytes << kShift);
  for (size_t& offset : offsets) offset <<= kShift;
  EXPECT_EQ(scaled_offsets, offsets);
}

TEST(OptimalPlan, CapacitySearchRunsItsFirstRoundBeforeTheGreedyPasses) {
  // Asked about a capacity, at least the first round of restarts runs
  // before the greedy passes (more rounds while they have cost less than
  // the passes would, checked below), and the search then goes on from the
  // next round.
  // like-a-f seed 4 (no plan found by either solver in 10 s, every attempt
  // spends its whole budget): each round is the 6 fixed orders and the
  // learned one, 7 attempts of B0 = 2 x buffers nodes in the first round,
  // 2 x B0 in the second. So after 21 x B0 nodes both rounds are done and a
  // limit of 21 x B0 + 1 stops the 15th attempt at its first node. (Were
  // the first round run again after the greedy passes, the limit would
  // fall in the 18th.)
  Result<GeneratedProblem> generated = GenerateProblem(LikeAF(4));
  ASSERT_TRUE(generated.ok()) << generated.status().message();
  const PlanningProblem problem = MakeProblem(generated->problem.buffers, 1);
  const uint64_t first_budget = 2 * problem.buffers.size();
  std::vector<size_t> greedy;
  PlanSummary greedy_summary;
  ASSERT_TRUE(GreedyPlan(problem, &greedy, &greedy_summary));
  ASSERT_GT(greedy_summary.head_bytes, generated->capacity_bytes);
  OptimalOptions options;
  options.time_limit_seconds = 0;
  options.capacity_bytes = generated->capacity_bytes;
  options.node_limit = 21 * first_budget + 1;
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(problem, options, &offsets);
  EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kUnknown);
  EXPECT_EQ(result.nodes, options.node_limit);
  EXPECT_EQ(result.stats.attempts, 15u);
  // Stopped inside the second round, before the passes ran, it runs them
  // and writes their plan.
  options.node_limit = 14 * first_budget;
  const OptimalResult second = SolveChecked(problem, options, &offsets);
  EXPECT_EQ(second.capacity_outcome, CapacityOutcome::kUnknown);
  EXPECT_EQ(second.head_bytes, greedy_summary.head_bytes);
  EXPECT_EQ(offsets, greedy);
  // Stopped inside the first round, it still writes the greedy plan.
  options.node_limit = first_budget - 1;
  const OptimalResult stopped = SolveChecked(problem, options, &offsets);
  EXPECT_EQ(stopped.capacity_outcome, CapacityOutcome::kUnknown);
  EXPECT_EQ(stopped.stats.attempts, 1u);
  EXPECT_EQ(stopped.head_bytes, greedy_summary.head_bytes);
  EXPECT_EQ(offsets, greedy);
  // The passes run once the rounds have cost about what they would: 7 x the
  // sum over buffers of k log2(k + 2) / n nodes (k: the buffers live with
  // one), here between the first round's 7 x B0 nodes and the second's end
  // at 21 x B0; so the greedy plan appears (in the progress, reported every
  // 256 nodes at interval 0) in the first report after node 21 x B0.
  double greedy_sum = 0;
  for (const BufferRequest& a : problem.buffers) {
    size_t live_with = 0;
    for (const BufferRequest& b : problem.buffers) live_with += &a != &b && a.lifetime.Overlaps(b.lifetime);
    greedy_sum += static_cast<double>(live_with) * std::log2(static_cast<double>(live_with) + 2);
  }
  const double greedy_nodes = 7 * greedy_sum / static_cast<double>(problem.buffers.size());
  ASSERT_GT(greedy_nodes, static_cast<double>(7 * first_budget));
  ASSERT_LT(greedy_nodes, static_cast<double>(21 * first_budget));
  uint64_t first_plan_report = 0;
  options.node_limit = 21 * first_budget + 1024;
  options.progress_interval_seconds = 0;
  options.progress = [&first_plan_report](const OptimalProgress& progress) {
    if (first_plan_report == 0 && progress.best_head_bytes != 0) first_plan_report = progress.nodes;
  };
  SolveChecked(problem, options, &offsets);
  EXPECT_GT(first_plan_report, 21 * first_budget);
  EXPECT_LE(first_plan_report, 21 * first_budget + 256);
  options.progress = nullptr;
  // At a capacity the greedy plan meets, the dive answers before anything
  // else; without it the search still runs first (and finds a plan at once:
  // nothing is tight).
  options.node_limit = 0;
  options.capacity_bytes = greedy_summary.head_bytes;
  const OptimalResult loose = SolveChecked(problem, options, &offsets);
  EXPECT_EQ(loose.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_EQ(loose.stats.found_by_dive, 1u);
  EXPECT_EQ(loose.stats.attempts, 0u);
  options.dive = false;
  const OptimalResult searched = SolveChecked(problem, options, &offsets);
  EXPECT_EQ(searched.capacity_outcome, CapacityOutcome::kFits);
  EXPECT_EQ(searched.stats.attempts, 1u);
  EXPECT_GT(searched.nodes, 0u);
}

// Node's stack bound stacks only the sections whose unplaced bytes could
// overflow above their floor; stacking every section must give the same
// search: the same nodes, prunes, attempts and plans (a different first
// overflowing section would show too: the learned order reads them). Random
// small problems minimised (sizes of 1-2 up to 1-8 units, so stacks end
// exactly at the capacity often; a quarter with a fixed offset, a third with
// alignment 2, a fifth with overlap permissions, whose sections the bound
// skips) and like-a-f problems at their capacity (tight: most nodes prune).
TEST(OptimalPlan, StackingOnlyTheSectionsAtRiskChangesNoNode) {
  const auto expect_same = [](const PlanningProblem& problem, OptimalOptions options) {
    options.time_limit_seconds = 0;
    options.dive = false;  // every problem through the search
    std::vector<size_t> at_risk_offsets;
    const OptimalResult at_risk = SolveChecked(problem, options, &at_risk_offsets);
    options.stack_every_section = true;
    std::vector<size_t> every_offsets;
    const OptimalResult every = SolveChecked(problem, options, &every_offsets);
    EXPECT_EQ(at_risk.nodes, every.nodes);
    EXPECT_EQ(at_risk.head_bytes, every.head_bytes);
    EXPECT_EQ(at_risk.proven_optimal, every.proven_optimal);
    EXPECT_EQ(at_risk.capacity_outcome, every.capacity_outcome);
    EXPECT_EQ(at_risk.stats.pruned_section_bound, every.stats.pruned_section_bound);
    EXPECT_EQ(at_risk.stats.attempts, every.stats.attempts);
    EXPECT_EQ(at_risk_offsets, every_offsets);
    return every.stats.pruned_section_bound;
  };
  std::mt19937 random(20261206);
  uint64_t pruned = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const size_t count = 6 + random() % 11;
    const size_t largest = 2 + static_cast<size_t>(trial % 7);
    const size_t alignment = trial % 3 == 0 ? 2 : 1;
    std::vector<BufferRequest> buffers;
    for (size_t i = 0; i < count; ++i) {
      const int32_t first = static_cast<int32_t>(random() % 12);
      const int32_t end = first + 1 + static_cast<int32_t>(random() % 6);
      int64_t fixed = kNoFixedOffset;
      // At most one fixed buffer, so that no two of them clash.
      if (trial % 4 == 1 && i == 0) fixed = static_cast<int64_t>(alignment * (random() % 4));
      buffers.push_back(Buffer(alignment * (1 + random() % largest), first, end, fixed));
    }
    PlanningProblem problem = MakeProblem(buffers, alignment);
    std::vector<OverlapPermission> permissions;
    if (trial % 5 == 2) {
      for (uint32_t a = 0; a + 1 < count && permissions.size() < 2; ++a) {
        if (buffers[a].lifetime.Overlaps(buffers[a + 1].lifetime) && buffers[a].fixed_offset_bytes == kNoFixedOffset) {
          permissions.push_back({a, a + 1, alignment * (random() % 3)});
        }
      }
      problem.overlaps = Span<const OverlapPermission>(permissions.data(), permissions.size());
    }
    OptimalOptions options;
    options.node_limit = 20000;
    pruned += expect_same(problem, options);
  }
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE("like-a-f seed " + std::to_string(seed));
    Result<GeneratedProblem> generated = GenerateProblem(LikeAF(seed));
    ASSERT_TRUE(generated.ok()) << generated.status().message();
    OptimalOptions options;
    options.node_limit = 30000;
    options.capacity_bytes = generated->capacity_bytes;
    pruned += expect_same(MakeProblem(generated->problem.buffers, 1), options);
  }
  // The section bounds (this one and the cheaper one before it) pruned: the
  // comparison was about something.
  EXPECT_GT(pruned, 10000u);
}

TEST(OptimalPlan, NodeLimitIsDeterministic) {
  // Perfect packings the greedy planner does not reach: with only a node
  // limit (no time limit), two runs give the same plan and node count.
  int searched = 0;
  for (uint32_t seed = 1; seed <= 40 && searched < 3; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 random(seed);
    std::vector<size_t> packing;
    const std::vector<BufferRequest> buffers =
        plan_test::PerfectPacking(random, 30, 24, 16, 40, &packing);
    OptimalOptions options;
    options.time_limit_seconds = 0;
    options.node_limit = 3000;
    std::vector<size_t> first;
    std::vector<size_t> second;
    const OptimalResult a = SolveChecked(MakeProblem(buffers, 16), options, &first);
    if (a.nodes == 0) continue;  // greedy already met the lower bound
    ++searched;
    const OptimalResult b = SolveChecked(MakeProblem(buffers, 16), options, &second);
    EXPECT_EQ(first, second);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.head_bytes, b.head_bytes);
    EXPECT_LE(a.nodes, options.node_limit);
  }
  EXPECT_GE(searched, 1);
}

// Problems of <shared>/dsa: the file name says the capacity (X.<capacity>.csv).
struct DsaFile {
  std::string stem;
  std::string path;
  size_t capacity_bytes = 0;
};

std::vector<DsaFile> DsaFiles() {
  namespace fs = std::filesystem;
  std::vector<DsaFile> files;
  const fs::path dir = fs::path(testing::SharedDir()) / "dsa";
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".csv") continue;
    DsaFile file;
    file.stem = entry.path().stem().string();
    file.path = entry.path().string();
    file.capacity_bytes = std::stoull(file.stem.substr(file.stem.find('.') + 1));
    files.push_back(file);
  }
  std::sort(files.begin(), files.end(),
            [](const DsaFile& a, const DsaFile& b) { return a.stem < b.stem; });
  return files;
}

TEST(OptimalPlan, DsaProblemsFitTheirCapacity) {
  // MiniMalloc's challenging problems A-F (and the small example) at their
  // capacity. Each must give a checked plan that fits. In an optimised
  // build (NDEBUG, no sanitizer) all of them run (0.1-11 s each on a
  // 2-core machine); in Debug and sanitizer builds, which are
  // 10-30x slower, only the three fastest (A, C, F) and the example run.
  MICROARENA_REQUIRE_SHARED_PATH("dsa");
  const std::vector<DsaFile> files = DsaFiles();
  ASSERT_FALSE(files.empty()) << "no " << testing::SharedDir() << "/dsa/*.csv";
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
  const bool all = true;
#else
  const bool all = false;
#endif
  // A node budget instead of a clock, so the verdict is the same on any
  // machine: E, the hardest, needs about 3.6 million nodes (6 s here).
  const uint64_t node_limit = 60'000'000;
  for (const DsaFile& file : files) {
    SCOPED_TRACE(file.stem);
    const char letter = file.stem[0];
    if (!all && (letter == 'B' || letter == 'D' || letter == 'E')) {
      std::printf("  %s: skipped in this build (slow without optimisation)\n", file.stem.c_str());
      continue;
    }
    Result<ProblemCsv> csv = ReadProblemCsv(file.path);
    ASSERT_TRUE(csv.ok()) << csv.status().message();
    const PlanningProblem problem = MakeProblem(csv->buffers, 1);
    OptimalOptions options;
    options.capacity_bytes = file.capacity_bytes;
    options.time_limit_seconds = 0;
    options.node_limit = node_limit;
    std::vector<size_t> offsets;
    const OptimalResult result = SolveChecked(problem, options, &offsets);
    EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kFits);
    EXPECT_LE(result.head_bytes, file.capacity_bytes);
    const Status check = CheckPlan(problem, Span<const size_t>(offsets.data(), offsets.size()),
                                   result.head_bytes, file.capacity_bytes);
    EXPECT_TRUE(check.ok()) << check.message();
    std::printf("  %s: %s, head %zu, lower bound %zu, %llu nodes, %.2f s\n", file.stem.c_str(),
                CapacityOutcomeName(result.capacity_outcome), result.head_bytes,
                result.lower_bound_bytes, static_cast<unsigned long long>(result.nodes),
                result.elapsed_seconds);
  }
}

// Minimising D (../shared/dsa), whose minimum is open: the greedy plan's head
// is 1,053,696, the capacity 1,048,576. Without the descent (Solve, step 6)
// the search kept the greedy plan for the first 2,000,000 nodes, its
// bisection asking only capacities half-way down, which it could not
// answer; with it, a plan below the capacity within 1,000,000 nodes (1.6 s
// in an optimised build; not in the slow builds).
TEST(OptimalPlan, MinimisingDescendsBelowTheCapacityOnD) {
  MICROARENA_REQUIRE_SHARED_PATH("dsa/D.1048576.csv");
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
  std::printf("  not in this build (1,000,000 nodes: slow without optimisation)\n");
  return;
#endif
  const std::string path = testing::SharedDir() + "/dsa/D.1048576.csv";
  Result<ProblemCsv> csv = ReadProblemCsv(path);
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  const PlanningProblem problem = MakeProblem(csv->buffers, 1);
  OptimalOptions options;
  options.time_limit_seconds = 0;
  options.node_limit = 1'000'000;
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(problem, options, &offsets);
  EXPECT_LT(result.head_bytes, size_t{1048576});
  EXPECT_GE(result.lower_bound_bytes, size_t{986112});  // the most bytes live at one step
  EXPECT_LE(result.lower_bound_bytes, result.head_bytes);
}

// Generates the problem of `seed` (40-80 buffers, up to `max_dropped` of
// them dropped) and asks for a plan within its capacity in `node_limit` nodes.
OptimalResult SolveGenerated(uint64_t seed, uint32_t max_dropped, uint64_t node_limit,
                             GeneratedProblem* generated, std::vector<size_t>* offsets,
                             bool dive) {
  ProblemGeneratorOptions generator;
  generator.seed = seed;
  generator.min_buffers = 40;
  generator.max_buffers = 80;
  generator.max_dropped = max_dropped;
  Result<GeneratedProblem> made = GenerateProblem(generator);
  EXPECT_TRUE(made.ok()) << made.status().message();
  if (!made.ok()) return OptimalResult{};
  *generated = std::move(*made);
  OptimalOptions options;
  options.capacity_bytes = generated->capacity_bytes;
  options.time_limit_seconds = 0;
  options.node_limit = node_limit;
  options.dive = dive;
  return SolveChecked(MakeProblem(generated->problem.buffers, 1), options, offsets);
}

// Generated problems (plan/problem_generator.h) have a known plan within
// their capacity. With nothing dropped they tile the whole rectangle; at
// 40-80 buffers the search finds a plan for every one of the first 30 seeds
// in at most 1,350 nodes (measured), so a budget of 20,000 each leaves room
// and still fails a search that stops generalising.
// (Each with the dive and without: the search alone must find them too.)
TEST(OptimalPlan, FindsAPlanForEveryGeneratedTiling) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const bool dive = seed > 30;
    SCOPED_TRACE("seed " + std::to_string((seed - 1) % 30 + 1) + (dive ? ", dive" : ""));
    GeneratedProblem generated;
    std::vector<size_t> offsets;
    const OptimalResult result = SolveGenerated((seed - 1) % 30 + 1, 0, 20000, &generated, &offsets, dive);
    const PlanningProblem problem = MakeProblem(generated.problem.buffers, 1);
    EXPECT_EQ(result.capacity_outcome, CapacityOutcome::kFits) << result.nodes << " nodes";
    const Status check = CheckPlan(problem, Span<const size_t>(offsets.data(), offsets.size()),
                                   result.head_bytes, generated.capacity_bytes);
    EXPECT_TRUE(check.ok()) << check.message();
  }
}

// With pieces dropped some problems are hard (seed 12 of this family, 76
// buffers of which 3 dropped, is one that neither this search nor MiniMalloc
// solves in 30 s: `bench/generate_problems --first-seed 12 --count 1
// --min-buffers 40 --max-buffers 80 --max-dropped 3`),
// but a plan exists for every one: the search may run out of nodes, never
// answer "infeasible". The nodes spent are counted where they went.
TEST(OptimalPlan, NeverCallsAGeneratedProblemInfeasible) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const bool dive = seed > 30;
    SCOPED_TRACE("seed " + std::to_string((seed - 1) % 30 + 1) + (dive ? ", dive" : ""));
    GeneratedProblem generated;
    std::vector<size_t> offsets;
    const OptimalResult result = SolveGenerated((seed - 1) % 30 + 1, 3, 5000, &generated, &offsets, dive);
    const PlanningProblem problem = MakeProblem(generated.problem.buffers, 1);
    EXPECT_NE(result.capacity_outcome, CapacityOutcome::kInfeasible);
    const OptimalSearchStats& stats = result.stats;
    // Every node is cut by a bound, ends dead, leads on, or is the last
    // one visited; the cuts and dead ends cannot outnumber the nodes.
    EXPECT_LE(stats.pruned_too_high + stats.pruned_section_bound + stats.pruned_fixed +
                  stats.dead_ends,
              result.nodes);
    // A plan from the dive took no attempt; otherwise the search ran.
    EXPECT_EQ(stats.attempts == 0, stats.found_by_dive == 1);
    EXPECT_LE(stats.deepest, generated.problem.buffers.size());
    if (result.capacity_outcome == CapacityOutcome::kFits) {
      const Status check = CheckPlan(problem, Span<const size_t>(offsets.data(), offsets.size()),
                                     result.head_bytes, generated.capacity_bytes);
      EXPECT_TRUE(check.ok()) << check.message();
    }
  }
}

}  // namespace
}  // namespace microarena
