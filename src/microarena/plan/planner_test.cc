// Property tests over every planner: random problems, every plan checked.
#include "microarena/plan/planner.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "microarena/base/align.h"
#include "microarena/plan/check.h"
#include "microarena/plan/greedy.h"
#include "microarena/plan/greedy_tflm.h"
#include "microarena/plan/linear.h"
#include "microarena/plan/lower_bound.h"
#include "microarena/plan/optimal.h"
#include "microarena/plan/plan_test_util.h"

namespace microarena {
namespace {

using plan_test::PlanOutput;
using plan_test::RunPlanner;

size_t LowerBoundOf(const PlanningProblem& problem) {
  std::vector<uint8_t> workspace(LowerBoundWorkspaceBytes(problem.buffers.size()));
  size_t bound = 0;
  EXPECT_TRUE(ComputeLowerBound(problem.buffers, Span<uint8_t>(workspace.data(), workspace.size()),
                                &bound)
                  .ok());
  return bound;
}

void ExpectValid(const PlanningProblem& problem, const PlanOutput& output, const char* planner,
                 int seed) {
  ASSERT_TRUE(output.status.ok()) << planner << " seed " << seed << ": "
                                  << output.status.message();
  const Status check = CheckPlan(
      problem, Span<const size_t>(output.offsets_bytes.data(), output.offsets_bytes.size()),
      output.summary.head_bytes);
  ASSERT_TRUE(check.ok()) << planner << " seed " << seed << ": " << check.message();
}

// A random problem: 1-40 buffers, sizes rounded to a random alignment 4..64,
// lifetimes over 1-30 steps, and with probability 1/4 up to two fixed
// buffers stacked one above the other (so they never collide).
std::vector<BufferRequest> RandomProblem(std::mt19937& random, size_t max_buffers,
                                         size_t* alignment) {
  *alignment = size_t{4} << (random() % 5);
  const size_t count = 1 + random() % max_buffers;
  const int32_t steps = 1 + static_cast<int32_t>(random() % 30);
  std::vector<BufferRequest> buffers;
  for (size_t i = 0; i < count; ++i) {
    const int32_t first = static_cast<int32_t>(random() % static_cast<uint32_t>(steps));
    const int32_t end = first + 1 + static_cast<int32_t>(random() % static_cast<uint32_t>(steps - first));
    const size_t raw_size = random() % 8 == 0 ? random() % 4096 : random() % 512;
    buffers.push_back(plan_test::Buffer(AlignUpUnchecked(raw_size, *alignment), first, end));
  }
  if (random() % 4 == 0) {
    size_t next_fixed = AlignUpUnchecked(random() % 256, *alignment);
    for (size_t f = 0; f < 2 && f < count; ++f) {
      BufferRequest& fixed = buffers[random() % count];
      if (fixed.fixed_offset_bytes != kNoFixedOffset) continue;
      fixed.fixed_offset_bytes = static_cast<int64_t>(next_fixed);
      next_fixed = AlignUpUnchecked(next_fixed + fixed.size_bytes + random() % 128, *alignment);
    }
  }
  return buffers;
}

TEST(PlannerProperty, RandomProblemsAllPlannersValidAndOrdered) {
  const LinearPlanner linear;
  const GreedyTflmPlanner greedy_tflm;
  const GreedyPlanner greedy;
  OptimalOptions options;
  options.time_limit_seconds = 0;
  options.node_limit = 2000;  // deterministic and quick
  const OptimalPlanner optimal(options);
  int optimal_runs = 0;
  for (int seed = 0; seed < 10000; ++seed) {
    std::mt19937 random(static_cast<uint32_t>(seed));
    size_t alignment = 16;
    const std::vector<BufferRequest> buffers = RandomProblem(random, 40, &alignment);
    const PlanningProblem problem = plan_test::MakeProblem(buffers, alignment);
    const size_t bound = LowerBoundOf(problem);
    const PlanOutput by_linear = RunPlanner(linear, problem);
    const PlanOutput by_tflm = RunPlanner(greedy_tflm, problem);
    const PlanOutput by_greedy = RunPlanner(greedy, problem);
    ExpectValid(problem, by_linear, "linear", seed);
    ExpectValid(problem, by_tflm, "greedy-tflm", seed);
    ExpectValid(problem, by_greedy, "greedy", seed);
    ASSERT_LE(by_greedy.summary.head_bytes, by_tflm.summary.head_bytes) << "seed " << seed;
    ASSERT_LE(by_greedy.summary.head_bytes, by_linear.summary.head_bytes) << "seed " << seed;
    ASSERT_GE(by_greedy.summary.head_bytes, bound) << "seed " << seed;
    ASSERT_EQ(by_greedy.summary.proven_optimal, by_greedy.summary.head_bytes == bound);
    if (seed % 5 == 0 && buffers.size() <= 16) {
      ++optimal_runs;
      const PlanOutput by_optimal = RunPlanner(optimal, problem);
      ExpectValid(problem, by_optimal, "optimal", seed);
      ASSERT_LE(by_optimal.summary.head_bytes, by_greedy.summary.head_bytes) << "seed " << seed;
      ASSERT_GE(by_optimal.summary.head_bytes, bound) << "seed " << seed;
    }
  }
  EXPECT_GT(optimal_runs, 500);
}

TEST(PlannerProperty, OptimalReachesPerfectPackings) {
  // Problems cut from a full rectangle: the lower bound is attainable, so a
  // complete search must prove it.
  OptimalOptions options;
  options.time_limit_seconds = 0;      // a node budget, not a clock: the same verdict on any machine
  options.node_limit = 5'000'000;
  const OptimalPlanner optimal(options);
  for (int seed = 0; seed < 200; ++seed) {
    std::mt19937 random(static_cast<uint32_t>(seed));
    std::vector<size_t> packing;
    const size_t pieces = 2 + static_cast<size_t>(seed % 12);
    const size_t unit = size_t{4} << (seed % 5);
    const std::vector<BufferRequest> buffers =
        plan_test::PerfectPacking(random, 12, 16, unit, pieces, &packing);
    const PlanningProblem problem = plan_test::MakeProblem(buffers, unit);
    ASSERT_TRUE(CheckPlan(problem, Span<const size_t>(packing.data(), packing.size()), 16 * unit)
                    .ok());
    const PlanOutput output = RunPlanner(optimal, problem);
    ExpectValid(problem, output, "optimal", seed);
    EXPECT_EQ(output.summary.head_bytes, 16 * unit) << "seed " << seed;
    EXPECT_TRUE(output.summary.proven_optimal) << "seed " << seed;
  }
}

TEST(PlannerRegistryTest, FindsDevicePlannersByName) {
  PlannerRegistry registry = DevicePlanners();
  ASSERT_EQ(registry.size(), 3u);
  EXPECT_STREQ(registry.Find("linear")->name(), "linear");
  EXPECT_STREQ(registry.Find("greedy-tflm")->name(), "greedy-tflm");
  EXPECT_STREQ(registry.Find("greedy")->name(), "greedy");
  EXPECT_EQ(registry.Find("optimal"), nullptr);
  const OptimalPlanner optimal;
  ASSERT_TRUE(registry.Add(&optimal).ok());
  EXPECT_EQ(registry.Find("optimal"), &optimal);
  EXPECT_FALSE(registry.Add(&optimal).ok());  // name taken
  char names[64];
  registry.JoinNames(names, sizeof(names));
  EXPECT_STREQ(names, "linear, greedy-tflm, greedy, optimal");
}

TEST(PlannerArguments, RejectBadProblemsAndWorkspaces) {
  const GreedyPlanner greedy;
  std::vector<BufferRequest> buffers = {plan_test::Buffer(16, 0, 1)};
  std::vector<size_t> offsets(1);
  PlanSummary summary;
  // Workspace too small: the message says how much is missing.
  Status status = greedy.Plan(plan_test::MakeProblem(buffers, 16), Span<uint8_t>(),
                              Span<size_t>(offsets.data(), 1), &summary);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("missing"), std::string::npos);
  std::vector<uint8_t> workspace(greedy.WorkspaceBytes(1));
  const Span<uint8_t> ws(workspace.data(), workspace.size());
  EXPECT_FALSE(greedy.Plan(plan_test::MakeProblem(buffers, 12), ws,
                           Span<size_t>(offsets.data(), 1), &summary).ok());  // alignment
  buffers[0].lifetime = {3, 3};
  EXPECT_FALSE(greedy.Plan(plan_test::MakeProblem(buffers, 16), ws,
                           Span<size_t>(offsets.data(), 1), &summary).ok());  // empty lifetime
  buffers[0] = plan_test::Buffer(16, 0, 1, 8);
  EXPECT_FALSE(greedy.Plan(plan_test::MakeProblem(buffers, 16), ws,
                           Span<size_t>(offsets.data(), 1), &summary).ok());  // misaligned fixed
}

TEST(PlannerProperty, WorkspacePerBufferMatchesHeaders) {
  // The per-buffer costs the headers state, plus bounded padding.
  for (size_t count : {size_t{1}, size_t{100}, size_t{100000}}) {
    EXPECT_LE(GreedyTflmPlanner().WorkspaceBytes(count),
              GreedyTflmPlanner::kWorkspaceBytesPerBuffer * count + 64);
    EXPECT_LE(GreedyPlanner().WorkspaceBytes(count),
              GreedyPlanner::kWorkspaceBytesPerBuffer * count + 64);
    EXPECT_EQ(LinearPlanner().WorkspaceBytes(count), 0u);
  }
}

}  // namespace
}  // namespace microarena
