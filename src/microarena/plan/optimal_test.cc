#include "microarena/plan/optimal.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "microarena/plan/check.h"
#include "microarena/plan/plan_test_util.h"
#include "microarena/plan/problem_csv.h"
#include "tests/test_support.h"

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

TEST(OptimalPlan, BeatsGreedyWhereOrderMatters) {
  // MiniMalloc's example: five 4-byte buffers, lifetimes [0,3) [3,9) [0,9)
  // [9,21) [0,21). At most three are live at once, so 12 bytes is the lower
  // bound, and a plan meets it: b1 and b2 share one 4-byte row, b3 and b4
  // another, b5 the third.
  const std::vector<BufferRequest> buffers = {Buffer(4, 0, 3), Buffer(4, 3, 9), Buffer(4, 0, 9),
                                              Buffer(4, 9, 21), Buffer(4, 0, 21)};
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 4), {}, &offsets);
  EXPECT_EQ(result.head_bytes, 12u);
  EXPECT_TRUE(result.proven_optimal);
}

TEST(OptimalPlan, MeetsLowerBoundWithMixedLifetimes) {
  // a [0,2), b [1,3), c [0,3) (16 B each) and d (32 B, [1,2)) are all live
  // at step 1: 80 bytes, the lower bound, which a plan meets.
  const std::vector<BufferRequest> buffers = {Buffer(16, 0, 2), Buffer(16, 1, 3),
                                              Buffer(16, 0, 3), Buffer(32, 1, 2)};
  std::vector<size_t> offsets;
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 16), {}, &offsets);
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
  const OptimalResult result = SolveChecked(MakeProblem(buffers, 16), {}, &offsets);
  EXPECT_EQ(offsets, (std::vector<size_t>{16, 32}));
  EXPECT_EQ(result.head_bytes, 64u);
  EXPECT_TRUE(result.proven_optimal);
  EXPECT_EQ(result.lower_bound_bytes, 64u);
}

TEST(OptimalPlan, CapacityFitsOrInfeasible) {
  const std::vector<BufferRequest> buffers = {Buffer(4, 0, 3), Buffer(4, 3, 9), Buffer(4, 0, 9),
                                              Buffer(4, 9, 21), Buffer(4, 0, 21)};
  OptimalOptions options;
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

TEST(OptimalPlan, ProvenOptimalOnTflmProblemsUnderOneSecond) {
  MICROARENA_REQUIRE_SHARED();
  for (const char* model :
       {"kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8"}) {
    SCOPED_TRACE(model);
    const std::vector<BufferRequest> buffers =
        plan_test::TflmPlanRequests(testing::SharedDir(), model);
    ASSERT_FALSE(buffers.empty());
    OptimalOptions options;
    options.time_limit_seconds = 1.0;
    std::vector<size_t> offsets;
    const OptimalResult result = SolveChecked(MakeProblem(buffers, 16), options, &offsets);
    EXPECT_TRUE(result.proven_optimal);
    EXPECT_EQ(result.head_bytes, result.lower_bound_bytes);
    EXPECT_LT(result.elapsed_seconds, 1.0);
  }
}

TEST(OptimalPlan, DsaProblemsGiveValidPlans) {
  MICROARENA_REQUIRE_SHARED();
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::SharedDir()) / "dsa";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no " << dir.string();
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    Result<ProblemCsv> csv = ReadProblemCsv(file.string());
    ASSERT_TRUE(csv.ok()) << csv.status().message();
    const PlanningProblem problem = MakeProblem(csv->buffers, 1);
    // The file name says the capacity: X.<capacity>.csv.
    const std::string stem = file.stem().string();
    const size_t capacity = std::stoull(stem.substr(stem.find('.') + 1));
    OptimalOptions options;
    options.capacity_bytes = capacity;
    options.time_limit_seconds = 2.0;
    std::vector<size_t> offsets;
    const OptimalResult result = SolveChecked(problem, options, &offsets);
    // Every one of these fits (MiniMalloc solved them), so "infeasible"
    // would be a wrong proof.
    EXPECT_NE(result.capacity_outcome, CapacityOutcome::kInfeasible);
    if (result.capacity_outcome == CapacityOutcome::kFits) {
      EXPECT_LE(result.head_bytes, capacity);
    }
    std::printf("  %s: %s, head %zu, lower bound %zu, %.2f s\n", stem.c_str(),
                CapacityOutcomeName(result.capacity_outcome), result.head_bytes,
                result.lower_bound_bytes, result.elapsed_seconds);
  }
}

}  // namespace
}  // namespace microarena
