#include "microarena/plan/greedy_tflm.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/plan/check.h"
#include "microarena/plan/plan_test_util.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using plan_test::Buffer;
using plan_test::MakeProblem;
using plan_test::RunPlanner;

std::vector<size_t> PlanOffsets(const std::vector<BufferRequest>& buffers, size_t alignment,
                                size_t* head_bytes) {
  const PlanningProblem problem = MakeProblem(buffers, alignment);
  plan_test::PlanOutput output = RunPlanner(GreedyTflmPlanner(), problem);
  EXPECT_TRUE(output.status.ok()) << output.status.message();
  const Status check = CheckPlan(problem, Span<const size_t>(output.offsets_bytes.data(),
                                                             output.offsets_bytes.size()),
                                 output.summary.head_bytes);
  EXPECT_TRUE(check.ok()) << check.message();
  *head_bytes = output.summary.head_bytes;
  return output.offsets_bytes;
}

TEST(GreedyTflmPlan, EqualSizesHigherIndexFirst) {
  // Four 16-byte buffers in a chain: [0,2) [1,3) [2,4) [3,4).
  // Order (equal sizes, higher index first): 3, 2, 1, 0.
  //   3 -> 0 (nothing placed).
  //   2 overlaps 3 at step 3; gap before 3 is 0 < 16 -> on top of 3: 16.
  //   1 overlaps only 2 (at 16); gap [0, 16) fits -> 0.
  //   0 overlaps only 1 (at 0); no gap below it -> 16.
  // Lower index first would give 0, 16, 0, 16 instead.
  size_t head = 0;
  const std::vector<size_t> offsets = PlanOffsets(
      {Buffer(16, 0, 2), Buffer(16, 1, 3), Buffer(16, 2, 4), Buffer(16, 3, 4)}, 16, &head);
  EXPECT_EQ(offsets, (std::vector<size_t>{16, 0, 16, 0}));
  EXPECT_EQ(head, 32u);
}

TEST(GreedyTflmPlan, FirstGapThatFitsNotBestGap) {
  // Three fixed 16-byte buffers over [0,2) at 0, 64 and 96 leave gaps
  // [16, 64) (48 B) and [80, 96) (16 B). A 16-byte buffer over [0,2): the
  // walk passes the one at 0 (candidate 16), then finds the 48-byte gap
  // before the one at 64 and stops there: 16 (a best fit would take 80).
  size_t head = 0;
  const std::vector<size_t> offsets = PlanOffsets(
      {Buffer(16, 0, 2, 0), Buffer(16, 0, 2, 64), Buffer(16, 0, 2, 96), Buffer(16, 0, 2)}, 16,
      &head);
  EXPECT_EQ(offsets, (std::vector<size_t>{0, 64, 96, 16}));
  EXPECT_EQ(head, 112u);
}

TEST(GreedyTflmPlan, GapBetweenTwoLiveBuffers) {
  // a (32 B) [0,2) and b (32 B) [0,2): b first (index 1) at 0, a at 32.
  // c (16 B) [1,3) and d (16 B) [2,4): d first (index 3) -> 0 (a and b end
  // before step 2). c overlaps a, b, d; by offset b@0, d@0, a@32:
  // b: gap 0 < 16, candidate 32. d: starts below the candidate, its end 16
  // does not raise it. a: gap 0, candidate 64. c goes on top: 64.
  size_t head = 0;
  const std::vector<size_t> offsets = PlanOffsets(
      {Buffer(32, 0, 2), Buffer(32, 0, 2), Buffer(16, 1, 3), Buffer(16, 2, 4)}, 16, &head);
  EXPECT_EQ(offsets, (std::vector<size_t>{32, 0, 64, 0}));
  EXPECT_EQ(head, 80u);
}

TEST(GreedyTflmPlan, FixedOffsetsFirstOthersAround) {
  // a fixed at 32 (32 B, [0,4)). b (48 B, [0,2)): gap [0,32) too small ->
  // 64. c (16 B, [2,4)): overlaps a only -> gap [0,32) -> 0.
  size_t head = 0;
  const std::vector<size_t> offsets =
      PlanOffsets({Buffer(32, 0, 4, 32), Buffer(48, 0, 2), Buffer(16, 2, 4)}, 16, &head);
  EXPECT_EQ(offsets, (std::vector<size_t>{32, 64, 0}));
  EXPECT_EQ(head, 112u);
}

TEST(GreedyTflmPlan, ReproducesTflmGoldenPlans) {
  MICROARENA_REQUIRE_SHARED_PATH("golden/tflm_plans");
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::SharedDir()) / "golden" / "tflm_plans";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files.size(), 9u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    const std::vector<testing::TflmPlanBuffer> golden = testing::ReadTflmPlanFile(file.string());
    ASSERT_FALSE(golden.empty());
    std::vector<BufferRequest> requests;
    for (const testing::TflmPlanBuffer& buffer : golden) requests.push_back(plan_test::TflmPlanRequest(buffer));
    const size_t tflm_head = testing::TflmPlanHeadBytes(golden);
    size_t head = 0;
    const std::vector<size_t> offsets = PlanOffsets(requests, 16, &head);
    for (size_t i = 0; i < golden.size(); ++i) {
      EXPECT_EQ(offsets[i], golden[i].offset_bytes) << "buffer " << i;
    }
    EXPECT_EQ(head, tflm_head);
  }
}

}  // namespace
}  // namespace microarena
