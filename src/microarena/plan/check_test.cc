#include "microarena/plan/check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microarena/plan/lower_bound.h"
#include "microarena/plan/plan_test_util.h"

namespace microarena {
namespace {

using plan_test::Buffer;
using plan_test::MakeProblem;

Status Check(const std::vector<BufferRequest>& buffers, const std::vector<size_t>& offsets,
             size_t head, size_t alignment = 16, size_t capacity = kNoCapacity) {
  return CheckPlan(MakeProblem(buffers, alignment),
                   Span<const size_t>(offsets.data(), offsets.size()), head, capacity);
}

TEST(PlanCheck, AcceptsValidPlan) {
  // a and c are never live together, so they may share bytes.
  const std::vector<BufferRequest> buffers = {Buffer(32, 0, 2), Buffer(16, 1, 3),
                                              Buffer(32, 2, 4)};
  EXPECT_TRUE(Check(buffers, {0, 32, 0}, 48).ok());
}

TEST(PlanCheck, NamesOverlappingBuffers) {
  const std::vector<BufferRequest> buffers = {Buffer(32, 0, 2), Buffer(32, 1, 3)};
  const Status status = Check(buffers, {0, 16}, 48);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("buffers 0 and 1 overlap: bytes [0, 32) and [16, 48)"),
            std::string::npos)
      << status.message();
}

TEST(PlanCheck, RejectsEqualOffsetsWhenLiveTogether) {
  const std::vector<BufferRequest> buffers = {Buffer(16, 0, 2), Buffer(16, 1, 2)};
  EXPECT_FALSE(Check(buffers, {0, 0}, 16).ok());
}

TEST(PlanCheck, HalfOpenLifetimesMayShare) {
  const std::vector<BufferRequest> buffers = {Buffer(16, 0, 2), Buffer(16, 2, 3)};
  EXPECT_TRUE(Check(buffers, {0, 0}, 16).ok());
}

TEST(PlanCheck, RejectsMisalignedOffset) {
  const Status status = Check({Buffer(16, 0, 1)}, {8}, 24);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("not a multiple of the alignment 16"),
            std::string::npos);
}

TEST(PlanCheck, RejectsWrongHead) {
  EXPECT_FALSE(Check({Buffer(16, 0, 1)}, {0}, 32).ok());
  EXPECT_FALSE(Check({Buffer(16, 0, 1)}, {0}, 8).ok());
}

TEST(PlanCheck, RejectsMovedFixedBuffer) {
  const Status status = Check({Buffer(16, 0, 1, 32)}, {0}, 16);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("fixed at 32"), std::string::npos);
}

TEST(PlanCheck, RejectsOverCapacity) {
  EXPECT_TRUE(Check({Buffer(16, 0, 1)}, {0}, 16, 16, 16).ok());
  EXPECT_FALSE(Check({Buffer(16, 0, 1)}, {0}, 16, 16, 15).ok());
}

TEST(PlanCheck, ZeroSizeBuffersNeverOverlap) {
  EXPECT_TRUE(Check({Buffer(0, 0, 2), Buffer(16, 0, 2)}, {0, 0}, 16).ok());
}

size_t LowerBound(const std::vector<BufferRequest>& buffers) {
  std::vector<uint8_t> workspace(LowerBoundWorkspaceBytes(buffers.size()));
  size_t bound = 0;
  const Status status = ComputeLowerBound(
      Span<const BufferRequest>(buffers.data(), buffers.size()),
      Span<uint8_t>(workspace.data(), workspace.size()), &bound);
  EXPECT_TRUE(status.ok()) << status.message();
  return bound;
}

TEST(PlanLowerBound, MaxLiveBytes) {
  EXPECT_EQ(LowerBound({}), 0u);
  // Step 1: 16 + 32 = 48 live; step 2: 32 + 16 = 48; steps end half-open.
  EXPECT_EQ(LowerBound({Buffer(16, 0, 2), Buffer(32, 1, 3), Buffer(16, 2, 4)}), 48u);
  // [0,2) and [2,4) are never live together.
  EXPECT_EQ(LowerBound({Buffer(64, 0, 2), Buffer(64, 2, 4)}), 64u);
  EXPECT_EQ(LowerBound({Buffer(8, 0, 5), Buffer(8, 1, 2), Buffer(8, 1, 3), Buffer(8, 4, 5)}),
            24u);
}

TEST(PlanLowerBound, TooSmallWorkspaceIsAnError) {
  const std::vector<BufferRequest> buffers = {Buffer(16, 0, 1)};
  size_t bound = 0;
  EXPECT_FALSE(ComputeLowerBound(Span<const BufferRequest>(buffers.data(), buffers.size()),
                                 Span<uint8_t>(), &bound)
                   .ok());
}

}  // namespace
}  // namespace microarena
