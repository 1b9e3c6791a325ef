#include "microarena/plan/greedy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microarena/plan/check.h"
#include "microarena/plan/greedy_tflm.h"
#include "microarena/plan/lower_bound.h"
#include "microarena/plan/plan_test_util.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using plan_test::Buffer;
using plan_test::MakeProblem;
using plan_test::RunPlanner;

TEST(GreedyPlan, FillsGapsBetweenFixedBuffers) {
  // Fixed 16-byte buffers over [0,2) at 0, 64 and 96 leave gaps [16, 64)
  // and [80, 96). x (48 B, [0,1)) and y (16 B, [1,2)) are not live together.
  // Both fit in the gaps below the top fixed buffer, so the head stays at
  // the fixed buffers' top: 96 + 16 = 112.
  const std::vector<BufferRequest> buffers = {Buffer(16, 0, 2, 0), Buffer(16, 0, 2, 64),
                                              Buffer(16, 0, 2, 96), Buffer(48, 0, 1),
                                              Buffer(16, 1, 2)};
  const PlanningProblem problem = MakeProblem(buffers, 16);
  const plan_test::PlanOutput output = RunPlanner(GreedyPlanner(), problem);
  ASSERT_TRUE(output.status.ok()) << output.status.message();
  ASSERT_TRUE(CheckPlan(problem, Span<const size_t>(output.offsets_bytes.data(), 5),
                        output.summary.head_bytes)
                  .ok());
  EXPECT_EQ(output.summary.head_bytes, 112u);
}

TEST(GreedyPlan, ReachesLowerBoundOnSmallChain) {
  // A chain where TFLM's size order wastes memory: the 32-byte buffers over
  // [0,2) and [2,4) can share, the 16-byte one over [1,3) must sit beside
  // both. Lower bound: 48. Any valid order reaches it here.
  const std::vector<BufferRequest> buffers = {Buffer(32, 0, 2), Buffer(16, 1, 3),
                                              Buffer(32, 2, 4)};
  const PlanningProblem problem = MakeProblem(buffers, 16);
  const plan_test::PlanOutput output = RunPlanner(GreedyPlanner(), problem);
  ASSERT_TRUE(output.status.ok());
  ASSERT_TRUE(CheckPlan(problem, Span<const size_t>(output.offsets_bytes.data(), 3),
                        output.summary.head_bytes)
                  .ok());
  EXPECT_EQ(output.summary.head_bytes, 48u);
  EXPECT_TRUE(output.summary.proven_optimal);
}

TEST(GreedyPlan, TflmPlanProblemsNeverWorseThanTflm) {
  MICROARENA_REQUIRE_SHARED();
  for (const char* model : {"ad01_int8", "hello_world_float", "hello_world_int8",
                            "keyword_scrambled_8bit", "kws_ref_model", "micro_speech_quantized",
                            "pretrainedResnet_quant", "trained_lstm_int8", "vww_96_int8"}) {
    SCOPED_TRACE(model);
    const std::vector<BufferRequest> buffers =
        plan_test::TflmPlanRequests(testing::SharedDir(), model);
    ASSERT_FALSE(buffers.empty());
    const PlanningProblem problem = MakeProblem(buffers, 16);
    const plan_test::PlanOutput ours = RunPlanner(GreedyPlanner(), problem);
    const plan_test::PlanOutput tflm = RunPlanner(GreedyTflmPlanner(), problem);
    ASSERT_TRUE(ours.status.ok());
    ASSERT_TRUE(CheckPlan(problem, Span<const size_t>(ours.offsets_bytes.data(), buffers.size()),
                          ours.summary.head_bytes)
                    .ok());
    EXPECT_LE(ours.summary.head_bytes, tflm.summary.head_bytes);
  }
}

TEST(GreedyPlan, ReachesLowerBoundOnVww) {
  MICROARENA_REQUIRE_SHARED();
  const std::vector<BufferRequest> buffers =
      plan_test::TflmPlanRequests(testing::SharedDir(), "vww_96_int8");
  ASSERT_EQ(buffers.size(), 32u);
  const PlanningProblem problem = MakeProblem(buffers, 16);
  std::vector<uint8_t> workspace(LowerBoundWorkspaceBytes(buffers.size()));
  size_t bound = 0;
  ASSERT_TRUE(ComputeLowerBound(problem.buffers, Span<uint8_t>(workspace.data(), workspace.size()),
                                &bound)
                  .ok());
  const plan_test::PlanOutput output = RunPlanner(GreedyPlanner(), problem);
  ASSERT_TRUE(output.status.ok());
  ASSERT_TRUE(CheckPlan(problem, Span<const size_t>(output.offsets_bytes.data(), buffers.size()),
                        output.summary.head_bytes)
                  .ok());
  EXPECT_EQ(output.summary.head_bytes, bound);
  EXPECT_TRUE(output.summary.proven_optimal);
}

}  // namespace
}  // namespace microarena
