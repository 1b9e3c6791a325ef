// Span: a view, not a copy; its size and element access.
#include "microarena/base/span.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace microarena {
namespace {

TEST(SpanTest, DefaultIsEmpty) {
  const Span<const int> span;
  EXPECT_TRUE(span.empty());
  EXPECT_EQ(span.size(), 0u);
  EXPECT_EQ(span.data(), nullptr);
  EXPECT_EQ(span.begin(), span.end());
}

TEST(SpanTest, ViewsAnArrayAndWritesThrough) {
  int values[4] = {1, 2, 3, 4};
  const Span<int> span(values);
  EXPECT_EQ(span.size(), 4u);
  EXPECT_FALSE(span.empty());
  EXPECT_EQ(span.data(), values);
  span[2] = 30;  // a const span still views mutable elements
  EXPECT_EQ(values[2], 30);
  int sum = 0;
  for (int value : span) sum += value;
  EXPECT_EQ(sum, 1 + 2 + 30 + 4);
}

TEST(SpanTest, PointerAndSize) {
  const uint8_t bytes[6] = {9, 8, 7, 6, 5, 4};
  const Span<const uint8_t> middle(bytes + 1, 3);
  EXPECT_EQ(middle.size(), 3u);
  EXPECT_EQ(middle[0], 8);
  EXPECT_EQ(middle[2], 6);
  EXPECT_EQ(middle.end() - middle.begin(), 3);
  constexpr Span<const uint8_t> none(nullptr, 0);
  static_assert(none.empty(), "");
}

}  // namespace
}  // namespace microarena
