#include "microarena/plan/guillotine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "microarena/base/split_mix64.h"
#include "microarena/plan/check.h"
#include "microarena/plan/optimal.h"
#include "microarena/plan/plan_test_util.h"
#include "microarena/plan/problem_generator.h"

namespace microarena {
namespace {

using Clock = std::chrono::steady_clock;

// A buffer live over [first, end), in the order the lifetime diagrams read.
BufferRequest Request(int32_t first, int32_t end, size_t size) { return plan_test::Buffer(size, first, end); }

PlanningProblem Problem(const std::vector<BufferRequest>& buffers) { return plan_test::MakeProblem(buffers, 1); }

// The head of a plan: the highest offset + size.
size_t HeadOf(const std::vector<BufferRequest>& buffers, const std::vector<size_t>& offsets) {
  size_t head = 0;
  for (size_t i = 0; i < buffers.size(); ++i) head = std::max(head, offsets[i] + buffers[i].size_bytes);
  return head;
}

GuillotineSearch::Outcome RunWithoutDeadline(GuillotineSearch* search, size_t capacity, uint64_t budget,
                                             std::vector<size_t>* offsets) {
  return search->Run(capacity, budget, Clock::time_point(), false, offsets);
}

// Five buffers tile the 3 steps x 3 bytes square as a pinwheel (by hand):
//
//   byte 2 | D C C |     A: steps 0-1, byte 0    D: step 0, bytes 1-2
//   byte 1 | D E B |     B: step 2, bytes 0-1    E: step 1, byte 1
//   byte 0 | A A B |     C: steps 1-2, byte 2
//            0 1 2  step
//
// No cut crosses the square without cutting a buffer: A crosses step 1, C
// step 2, and no set of buffers holds exactly one byte at every step (A
// would need C at step 2, which makes two at step 1; without A, step 0 holds
// only D's two). So no guillotine plan fits in 3 bytes, while the pinwheel
// does: the search says none, the branch and bound finds the pinwheel.
std::vector<BufferRequest> Pinwheel() {
  return {Request(0, 2, 1), Request(2, 3, 2), Request(1, 3, 1), Request(0, 1, 2), Request(1, 2, 1)};
}

TEST(GuillotineSearch, PinwheelHasNoGuillotinePlanButTheSolverFindsOne) {
  const std::vector<BufferRequest> buffers = Pinwheel();
  const PlanningProblem problem = Problem(buffers);
  ASSERT_TRUE(GuillotineSearch::Applies(problem, 3));
  GuillotineSearch search(problem);
  std::vector<size_t> offsets;
  EXPECT_EQ(RunWithoutDeadline(&search, 3, 1000000, &offsets), GuillotineSearch::Outcome::kNone);
  // With one more byte the cut at step 1 or 2 is no longer needed: A and D
  // side by side need 3 at step 0, and C goes on top.
  EXPECT_EQ(RunWithoutDeadline(&search, 4, 1000000, &offsets), GuillotineSearch::Outcome::kFound);
  const size_t head = HeadOf(buffers, offsets);
  EXPECT_LE(head, 4u);
  EXPECT_TRUE(CheckPlan(problem, Span<const size_t>(offsets.data(), offsets.size()), head).ok());

  OptimalOptions options;
  options.capacity_bytes = 3;
  options.node_limit = 100000;
  std::vector<size_t> plan(buffers.size());
  Result<OptimalResult> solved = OptimalPlanner(options).Solve(problem, Span<size_t>(plan.data(), plan.size()));
  ASSERT_TRUE(solved.ok()) << solved.status().message();
  EXPECT_EQ(solved->capacity_outcome, CapacityOutcome::kFits);
  EXPECT_TRUE(CheckPlan(problem, Span<const size_t>(plan.data(), plan.size()), 3).ok());
}

// The generator cuts the rectangle into pieces by straight cuts: without
// drops every step is full, so at the first step of each strip the thinner
// strip's buffers sum to its height (a height tried), and the search, which
// is exhaustive over those heights, finds a plan for every one.
TEST(GuillotineSearch, FindsAPlanForEveryTilingOfTheRectangle) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    ProblemGeneratorOptions options;
    options.seed = seed;
    options.min_buffers = 40;
    options.max_buffers = 120;
    options.max_dropped = 0;
    options.space_cut_permille = seed % 2 == 0 ? 650 : 0;
    Result<GeneratedProblem> generated = GenerateProblem(options);
    ASSERT_TRUE(generated.ok()) << generated.status().message();
    const std::vector<BufferRequest>& buffers = generated->problem.buffers;
    const PlanningProblem problem = Problem(buffers);
    ASSERT_TRUE(GuillotineSearch::Applies(problem, generated->capacity_bytes));
    GuillotineSearch search(problem);
    std::vector<size_t> offsets;
    ASSERT_EQ(RunWithoutDeadline(&search, generated->capacity_bytes, 100000000, &offsets),
              GuillotineSearch::Outcome::kFound)
        << "seed " << seed;
    const size_t head = HeadOf(buffers, offsets);
    EXPECT_LE(head, generated->capacity_bytes) << "seed " << seed;
    const Status checked = CheckPlan(problem, Span<const size_t>(offsets.data(), offsets.size()), head);
    EXPECT_TRUE(checked.ok()) << "seed " << seed << ": " << checked.message();
  }
}

// Two generated problems (512 x 512 grid, 70 and 97 buffers) that the
// branch and bound alone does not solve within 100,000 nodes; with the
// guillotine search between its rounds, a plan within the capacity comes
// from it within the same node limit.
TEST(GuillotineSearch, SolveFindsPlansTheBranchAndBoundDoesNotWithinItsNodes) {
  struct Case {
    uint64_t seed;
    bool like_a_f;  // dropped down to an area share, cuts mostly across space
    size_t buffers;
  };
  for (const Case& c : {Case{94, false, 70}, Case{269, true, 97}}) {
    ProblemGeneratorOptions options;
    options.seed = c.seed;
    options.min_buffers = 50;
    options.max_buffers = 110;
    options.units = 512;
    options.max_dropped = 3;
    if (c.like_a_f) {
      options.max_dropped = 6;
      options.min_area_permille = 900;
      options.max_area_permille = 990;
      options.min_peak_permille = 940;
      options.space_cut_permille = 650;
    }
    Result<GeneratedProblem> generated = GenerateProblem(options);
    ASSERT_TRUE(generated.ok()) << generated.status().message();
    const std::vector<BufferRequest>& buffers = generated->problem.buffers;
    ASSERT_EQ(buffers.size(), c.buffers) << "seed " << c.seed;
    const PlanningProblem problem = Problem(buffers);
    OptimalOptions solve;
    solve.capacity_bytes = generated->capacity_bytes;
    solve.node_limit = 100000;
    solve.time_limit_seconds = 0;
    std::vector<size_t> plan(buffers.size());
    solve.guillotine = false;
    Result<OptimalResult> alone = OptimalPlanner(solve).Solve(problem, Span<size_t>(plan.data(), plan.size()));
    ASSERT_TRUE(alone.ok()) << alone.status().message();
    EXPECT_EQ(alone->capacity_outcome, CapacityOutcome::kUnknown) << "seed " << c.seed;
    solve.guillotine = true;
    Result<OptimalResult> with = OptimalPlanner(solve).Solve(problem, Span<size_t>(plan.data(), plan.size()));
    ASSERT_TRUE(with.ok()) << with.status().message();
    EXPECT_EQ(with->capacity_outcome, CapacityOutcome::kFits) << "seed " << c.seed;
    EXPECT_EQ(with->stats.found_by_guillotine, 1u) << "seed " << c.seed;
    EXPECT_GT(with->stats.guillotine_nodes, 0u);
    EXPECT_LE(with->head_bytes, generated->capacity_bytes);
    const Status checked = CheckPlan(problem, Span<const size_t>(plan.data(), plan.size()), HeadOf(buffers, plan));
    EXPECT_TRUE(checked.ok()) << "seed " << c.seed << ": " << checked.message();
  }
}

// 1,500 random small problems (2-9 buffers over 6 steps, alignment 16 or
// 32, sizes 1-4 alignments, capacities one alignment below the bytes live
// at the busiest step or from there up to twice that): every plan the
// search reports passes the checker, and none is reported where the branch
// and bound proves that no plan fits.
TEST(GuillotineSearch, EveryPlanItReportsIsValidAndNoneWhereNoneExists) {
  SplitMix64 random(2026);
  size_t found = 0;
  size_t infeasible = 0;
  for (int round = 0; round < 1500; ++round) {
    const size_t count = 2 + random.Next() % 8;
    const size_t alignment = random.Next() % 2 == 0 ? 16 : 32;
    std::vector<BufferRequest> buffers;
    for (size_t i = 0; i < count; ++i) {
      const int32_t first = static_cast<int32_t>(random.Next() % 5);
      const int32_t end = first + 1 + static_cast<int32_t>(random.Next() % static_cast<uint64_t>(6 - first));
      buffers.push_back(Request(first, end, alignment * (1 + random.Next() % 4)));
    }
    PlanningProblem problem = Problem(buffers);
    problem.alignment_bytes = alignment;
    size_t busiest = 0;
    for (int32_t step = 0; step < 6; ++step) {
      size_t live = 0;
      for (const BufferRequest& b : buffers) live += b.lifetime.Contains(step) ? b.size_bytes : 0;
      busiest = std::max(busiest, live);
    }
    // One in four an alignment below the busiest step (no plan), else up to twice it.
    const size_t capacity = random.Next() % 4 == 0
                                ? busiest - alignment
                                : busiest + alignment * (random.Next() % (busiest / alignment + 1));
    ASSERT_TRUE(GuillotineSearch::Applies(problem, capacity)) << "round " << round;
    GuillotineSearch search(problem);
    std::vector<size_t> offsets;
    const GuillotineSearch::Outcome outcome = RunWithoutDeadline(&search, capacity, 1000000, &offsets);
    ASSERT_NE(outcome, GuillotineSearch::Outcome::kBudget) << "round " << round;
    OptimalOptions solve;
    solve.capacity_bytes = capacity;
    solve.time_limit_seconds = 0;
    solve.guillotine = false;
    std::vector<size_t> plan(count);
    Result<OptimalResult> exact = OptimalPlanner(solve).Solve(problem, Span<size_t>(plan.data(), count));
    ASSERT_TRUE(exact.ok()) << exact.status().message();
    ASSERT_NE(exact->capacity_outcome, CapacityOutcome::kUnknown) << "round " << round;
    if (outcome == GuillotineSearch::Outcome::kFound) {
      ++found;
      const size_t head = HeadOf(buffers, offsets);
      EXPECT_LE(head, capacity) << "round " << round;
      const Status checked = CheckPlan(problem, Span<const size_t>(offsets.data(), offsets.size()), head);
      EXPECT_TRUE(checked.ok()) << "round " << round << ": " << checked.message();
      EXPECT_EQ(exact->capacity_outcome, CapacityOutcome::kFits) << "round " << round;
    }
    if (exact->capacity_outcome == CapacityOutcome::kInfeasible) ++infeasible;
  }
  // Both answers occur often enough for the checks above to mean something.
  EXPECT_GT(found, 500u);
  EXPECT_GT(infeasible, 20u);
}

TEST(GuillotineSearch, StopsAtItsNodeBudget) {
  ProblemGeneratorOptions options;
  options.seed = 3;
  options.min_buffers = 60;
  options.max_buffers = 60;
  Result<GeneratedProblem> generated = GenerateProblem(options);
  ASSERT_TRUE(generated.ok()) << generated.status().message();
  const PlanningProblem problem = Problem(generated->problem.buffers);
  GuillotineSearch search(problem);
  std::vector<size_t> offsets;
  EXPECT_EQ(RunWithoutDeadline(&search, generated->capacity_bytes, 5, &offsets), GuillotineSearch::Outcome::kBudget);
  // The node that finds the budget spent is counted; a cut is charged a few
  // nodes for its scans of the heights tables (17 words here: one node).
  EXPECT_GT(search.nodes(), 5u);
  EXPECT_LE(search.nodes(), 8u);
  EXPECT_TRUE(offsets.empty());
}

TEST(GuillotineSearch, AppliesOnlyWhereEveryOffsetItWritesIsValid) {
  std::vector<BufferRequest> buffers = Pinwheel();
  PlanningProblem problem = Problem(buffers);
  EXPECT_TRUE(GuillotineSearch::Applies(problem, 3));
  problem.alignment_bytes = 2;  // sizes 1: an offset 1 would not be aligned
  EXPECT_FALSE(GuillotineSearch::Applies(problem, 3));
  problem.alignment_bytes = 1;
  buffers[1].fixed_offset_bytes = 0;
  EXPECT_FALSE(GuillotineSearch::Applies(problem, 3));
  buffers[1].fixed_offset_bytes = kNoFixedOffset;
  const OverlapPermission permission{0, 4, 0};
  problem.overlaps = Span<const OverlapPermission>(&permission, 1);
  EXPECT_FALSE(GuillotineSearch::Applies(problem, 3));
  problem.overlaps = Span<const OverlapPermission>();
  // kMaxCapacityUnits units of the sizes' gcd (here 1 byte) at most.
  EXPECT_TRUE(GuillotineSearch::Applies(problem, GuillotineSearch::kMaxCapacityUnits));
  EXPECT_FALSE(GuillotineSearch::Applies(problem, GuillotineSearch::kMaxCapacityUnits + 1));
}

}  // namespace
}  // namespace microarena
