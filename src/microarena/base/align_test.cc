// Alignment helpers, with the bit patterns worked out by hand.
#include "microarena/base/align.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace microarena {
namespace {

TEST(AlignTest, PowersOfTwo) {
  EXPECT_FALSE(IsPowerOfTwo(0));
  EXPECT_TRUE(IsPowerOfTwo(1));
  EXPECT_TRUE(IsPowerOfTwo(2));
  EXPECT_FALSE(IsPowerOfTwo(3));
  EXPECT_FALSE(IsPowerOfTwo(6));
  EXPECT_TRUE(IsPowerOfTwo(16));
  EXPECT_FALSE(IsPowerOfTwo(24));
  EXPECT_TRUE(IsPowerOfTwo(~(SIZE_MAX >> 1)));  // the top bit alone
  EXPECT_FALSE(IsPowerOfTwo(SIZE_MAX));
}

TEST(AlignTest, AlignUpRoundsToTheNextMultiple) {
  size_t out = 12345;
  ASSERT_TRUE(AlignUp(0, 16, &out));
  EXPECT_EQ(out, 0u);
  ASSERT_TRUE(AlignUp(1, 16, &out));
  EXPECT_EQ(out, 16u);
  ASSERT_TRUE(AlignUp(16, 16, &out));
  EXPECT_EQ(out, 16u);
  ASSERT_TRUE(AlignUp(17, 16, &out));
  EXPECT_EQ(out, 32u);
  ASSERT_TRUE(AlignUp(5, 1, &out));  // alignment 1: unchanged
  EXPECT_EQ(out, 5u);
  ASSERT_TRUE(AlignUp(1000, 64, &out));  // 15 * 64 = 960 < 1000 <= 16 * 64
  EXPECT_EQ(out, 1024u);
}

TEST(AlignTest, AlignUpRefusesWhatDoesNotFit) {
  size_t out = 0;
  // SIZE_MAX - 15 = 0x...fff0 is a multiple of 16 and + 15 still fits.
  ASSERT_TRUE(AlignUp(SIZE_MAX - 15, 16, &out));
  EXPECT_EQ(out, SIZE_MAX - 15);
  // One more rounds up to 2^64 (on a 64-bit host): no size_t holds it.
  EXPECT_FALSE(AlignUp(SIZE_MAX - 14, 16, &out));
  EXPECT_FALSE(AlignUp(SIZE_MAX, 2, &out));
}

TEST(AlignTest, AlignUpUncheckedIsAConstantExpression) {
  static_assert(AlignUpUnchecked(0, 8) == 0, "");
  static_assert(AlignUpUnchecked(9, 8) == 16, "");
  static_assert(AlignUpUnchecked(48, 16) == 48, "");
  EXPECT_EQ(AlignUpUnchecked(33, 32), 64u);
}

TEST(AlignTest, IsAlignedLooksAtTheAddress) {
  alignas(64) uint8_t bytes[128] = {};
  EXPECT_TRUE(IsAligned(bytes, 64));
  EXPECT_TRUE(IsAligned(bytes + 16, 16));
  EXPECT_FALSE(IsAligned(bytes + 16, 32));
  EXPECT_TRUE(IsAligned(bytes + 3, 1));
  EXPECT_FALSE(IsAligned(bytes + 3, 4));
  EXPECT_TRUE(IsAligned(bytes + 4, 4));
}

}  // namespace
}  // namespace microarena
