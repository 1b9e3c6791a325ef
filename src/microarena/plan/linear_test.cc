#include "microarena/plan/linear.h"

#include <gtest/gtest.h>

#include <vector>

#include "microarena/plan/check.h"
#include "microarena/plan/plan_test_util.h"

namespace microarena {
namespace {

using plan_test::Buffer;

TEST(LinearPlan, OneAfterAnotherAligned) {
  // 20 B at 0; next offset rounds 20 up to 32; 16 B at 32; 8 B at 48. Head 56.
  const std::vector<BufferRequest> buffers = {Buffer(20, 0, 1), Buffer(16, 1, 2),
                                              Buffer(8, 2, 3)};
  const PlanningProblem problem = plan_test::MakeProblem(buffers, 16);
  const plan_test::PlanOutput output = plan_test::RunPlanner(LinearPlanner(), problem);
  ASSERT_TRUE(output.status.ok());
  EXPECT_EQ(output.offsets_bytes, (std::vector<size_t>{0, 32, 48}));
  EXPECT_EQ(output.summary.head_bytes, 56u);
  EXPECT_TRUE(CheckPlan(problem, Span<const size_t>(output.offsets_bytes.data(), 3), 56).ok());
}

TEST(LinearPlan, FixedBuffersFirstOthersAbove) {
  // Fixed 16 B at 32 ends at 48: the others follow from 48.
  const std::vector<BufferRequest> buffers = {Buffer(16, 0, 1), Buffer(16, 0, 1, 32),
                                              Buffer(16, 0, 1)};
  const PlanningProblem problem = plan_test::MakeProblem(buffers, 16);
  const plan_test::PlanOutput output = plan_test::RunPlanner(LinearPlanner(), problem);
  ASSERT_TRUE(output.status.ok());
  EXPECT_EQ(output.offsets_bytes, (std::vector<size_t>{48, 32, 64}));
  EXPECT_TRUE(CheckPlan(problem, Span<const size_t>(output.offsets_bytes.data(), 3),
                        output.summary.head_bytes)
                  .ok());
}

}  // namespace
}  // namespace microarena
