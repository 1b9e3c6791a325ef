// Overflow-checked arithmetic: exact results up to the type's limit, refusal
// one past it.
#include "microarena/base/checked_math.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace microarena {
namespace {

TEST(CheckedMathTest, AddUpToTheLimit) {
  size_t out = 0;
  ASSERT_TRUE(CheckedAdd(40, 2, &out));
  EXPECT_EQ(out, 42u);
  ASSERT_TRUE(CheckedAdd(SIZE_MAX - 1, 1, &out));
  EXPECT_EQ(out, SIZE_MAX);
  EXPECT_FALSE(CheckedAdd(SIZE_MAX, 1, &out));
  EXPECT_FALSE(CheckedAdd(SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 1, &out));  // 2^63 + 2^63 on a 64-bit host
}

TEST(CheckedMathTest, MultiplyUpToTheLimit) {
  size_t out = 0;
  ASSERT_TRUE(CheckedMul(96 * 96, 3, &out));
  EXPECT_EQ(out, 27648u);
  ASSERT_TRUE(CheckedMul(SIZE_MAX, 0, &out));
  EXPECT_EQ(out, 0u);
  // SIZE_MAX = 3 * (SIZE_MAX / 3) exactly (2^64 - 1 = 3 * 6148914691236517205).
  ASSERT_TRUE(CheckedMul(SIZE_MAX / 3, 3, &out));
  EXPECT_EQ(out, SIZE_MAX);
  EXPECT_FALSE(CheckedMul(SIZE_MAX / 3 + 1, 3, &out));
  EXPECT_FALSE(CheckedMul(SIZE_MAX / 2 + 1, 2, &out));
}

TEST(CheckedMathTest, SixtyFourBitForms) {
  uint64_t out = 0;
  ASSERT_TRUE(CheckedAdd64(UINT64_MAX - 5, 5, &out));
  EXPECT_EQ(out, UINT64_MAX);
  EXPECT_FALSE(CheckedAdd64(UINT64_MAX - 5, 6, &out));
  // 2^32 * 2^31 = 2^63 fits; 2^32 * 2^32 = 2^64 does not.
  ASSERT_TRUE(CheckedMul64(uint64_t{1} << 32, uint64_t{1} << 31, &out));
  EXPECT_EQ(out, uint64_t{1} << 63);
  EXPECT_FALSE(CheckedMul64(uint64_t{1} << 32, uint64_t{1} << 32, &out));
}

}  // namespace
}  // namespace microarena
