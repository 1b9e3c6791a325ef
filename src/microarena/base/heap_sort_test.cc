// HeapSort: the same order as std::sort under a strict total order, on small
// hand cases and on random arrays with many ties broken by index.
#include "microarena/base/heap_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace microarena {
namespace {

TEST(HeapSortTest, SmallCases) {
  auto less = [](int a, int b) { return a < b; };
  HeapSort(static_cast<int*>(nullptr), 0, less);  // nothing to touch
  int one[1] = {5};
  HeapSort(one, 1, less);
  EXPECT_EQ(one[0], 5);
  int two[2] = {2, 1};
  HeapSort(two, 2, less);
  EXPECT_EQ(two[0], 1);
  EXPECT_EQ(two[1], 2);
  int mixed[7] = {4, -1, 7, 4, 0, 9, -3};
  HeapSort(mixed, 7, less);
  EXPECT_EQ(std::vector<int>(mixed, mixed + 7), (std::vector<int>{-3, -1, 0, 4, 4, 7, 9}));
  int descending[5] = {5, 4, 3, 2, 1};
  HeapSort(descending, 5, [](int a, int b) { return a > b; });
  EXPECT_EQ(std::vector<int>(descending, descending + 5), (std::vector<int>{5, 4, 3, 2, 1}));
}

TEST(HeapSortTest, MatchesStdSortOnRandomArraysWithTiesBrokenByIndex) {
  // (key, index) pairs: keys from a small range so ties are common; with the
  // index as tie-break the order is total, so the result is unique.
  using Item = std::pair<int, int>;
  auto less = [](const Item& a, const Item& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; };
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    const int count = static_cast<int>(random() % 40);
    std::vector<Item> items;
    for (int i = 0; i < count; ++i) items.emplace_back(static_cast<int>(random() % 6), i);
    std::vector<Item> expected = items;
    std::sort(expected.begin(), expected.end(), less);
    HeapSort(items.data(), items.size(), less);
    ASSERT_EQ(items, expected) << "round " << round;
  }
}

}  // namespace
}  // namespace microarena
