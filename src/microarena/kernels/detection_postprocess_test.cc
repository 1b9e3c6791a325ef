// The detection post-processing's sorts against the standard library ones
// TFLM calls: the class partial sort step for step as std::partial_sort
// (GCC's libstdc++, the oracle's), NaN included; SelectBoxes' heap sort by
// (score, index) as the stable descending sort TFLM runs.
#include "microarena/kernels/reference/detection_postprocess.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <vector>

namespace microarena::reference {
namespace {

uint32_t Next(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

TEST(DetectionPostprocessReferenceTest, PartialArgSortIsStdPartialSortStepForStep) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {nan, inf, -inf, 0.0f, -0.0f, 0.5f, 1.0f, 0.25f};
  uint32_t state = 1;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const int32_t count = 1 + static_cast<int32_t>(Next(&state) % 40);
    const int32_t sorted = 1 + static_cast<int32_t>(Next(&state) % static_cast<uint32_t>(count));
    std::vector<float> values(static_cast<size_t>(count));
    for (float& v : values) v = specials[Next(&state) % 8];
    std::vector<int32_t> expected(values.size());
    std::iota(expected.begin(), expected.end(), 0);
    std::partial_sort(expected.begin(), expected.begin() + sorted, expected.end(),
                      [&values](int32_t i, int32_t j) { return std::tie(values[i], j) > std::tie(values[j], i); });
    std::vector<int32_t> ours(values.size());
    DecreasingPartialArgSort(values.data(), count, sorted, ours.data());
    for (int32_t i = 0; i < sorted; ++i) ASSERT_EQ(ours[i], expected[i]) << "iteration " << iteration << " rank " << i;
  }
}

// TFLM's selection, written plainly: threshold, stable descending sort, greedy walk.
std::vector<int32_t> PlainSelect(const std::vector<BoxCorner>& boxes, const std::vector<float>& scores, float threshold,
                                 float iou, int32_t limit) {
  std::vector<int32_t> kept;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (scores[i] >= threshold) kept.push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(kept.begin(), kept.end(), [&](int32_t a, int32_t b) { return scores[a] > scores[b]; });
  std::vector<bool> active(kept.size(), true);
  std::vector<int32_t> selected;
  for (size_t i = 0; i < kept.size() && static_cast<int32_t>(selected.size()) < limit; ++i) {
    if (!active[i]) continue;
    selected.push_back(kept[i]);
    for (size_t j = i + 1; j < kept.size(); ++j) {
      if (active[j] && IntersectionOverUnion(boxes[kept[i]], boxes[kept[j]]) > iou) active[j] = false;
    }
  }
  return selected;
}

TEST(DetectionPostprocessReferenceTest, SelectBoxesIsTheStableSortWalk) {
  uint32_t state = 5;
  for (int iteration = 0; iteration < 2000; ++iteration) {
    const auto count = static_cast<int32_t>(1 + Next(&state) % 60);
    std::vector<BoxCorner> boxes;
    std::vector<float> scores;
    for (int32_t i = 0; i < count; ++i) {
      const float y = static_cast<float>(Next(&state) % 8) / 8.0f;
      const float x = static_cast<float>(Next(&state) % 8) / 8.0f;
      const float h = 0.1f + static_cast<float>(Next(&state) % 5) / 10.0f;
      const float w = 0.1f + static_cast<float>(Next(&state) % 5) / 10.0f;
      boxes.push_back({y, x, y + h, x + w});
      scores.push_back(static_cast<float>(Next(&state) % 9) / 8.0f);
    }
    const float threshold = static_cast<float>(Next(&state) % 5) / 8.0f;
    const float iou = 0.1f + static_cast<float>(Next(&state) % 9) / 10.0f;
    const auto limit = static_cast<int32_t>(Next(&state) % 20);
    const std::vector<int32_t> expected = PlainSelect(boxes, scores, threshold, iou, limit);
    std::vector<int32_t> keep(static_cast<size_t>(count));
    const int32_t taken = SelectBoxes(boxes.data(), count, scores.data(), 1, threshold, iou, limit, keep.data());
    ASSERT_EQ(taken, static_cast<int32_t>(expected.size())) << "iteration " << iteration;
    for (int32_t i = 0; i < taken; ++i) ASSERT_EQ(keep[i], expected[i]) << "iteration " << iteration;
  }
}

}  // namespace
}  // namespace microarena::reference
