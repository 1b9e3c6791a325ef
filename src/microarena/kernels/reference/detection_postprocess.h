// Detection post-processing (the custom op "TFLite_Detection_PostProcess" of
// SSD-style detectors), as TFLite Micro's kernel computes it, float32 only.
//
// Inputs: box encodings [1, boxes, >= 4] (y, x, h, w relative to an anchor,
// extra values per box ignored), class scores [1, boxes, classes (+ 1 when
// column 0 is a background class)], anchors [boxes, 4] (y, x, h, w).
// Outputs: boxes [detections, 4] (ymin, xmin, ymax, xmax), class index
// [detections], score [detections], number of detections [1], all float.
//
// Steps:
//   1. Decode every box from its anchor (in double, rounded once to float):
//        y = enc.y / scale.y * anchor.h + anchor.y,  half_h = 0.5 * exp(enc.h / scale.h) * anchor.h
//        (x, half_w alike); box = (y - half_h, x - half_w, y + half_h, x + half_w).
//      Any box with ymin >= ymax or xmin >= xmax fails the op (as TFLM's Eval).
//   2. Non-maximum suppression over one score per box (SelectBoxes):
//      keep the boxes whose score >= score_threshold, order them by score,
//      highest first, ties by box index (TFLM's stable sort), then walk the
//      order: take a box unless a taken box overlaps it with IoU >
//      iou_threshold; stop after `limit` boxes.
//   3a. Fast path (use_regular_nms false): each box's score is its best
//      class score; the k = min(max_classes_per_detection, classes) best
//      classes of each selected box become detections. TFLM writes the c-th
//      class of the i-th entry written so far at index k * i + c (for k > 1
//      this leaves gaps and needs k * k slots per box; the caller checks the
//      outputs hold them). num_detections = selected boxes * k.
//   3b. Regular path: step 2 per class (limit detections_per_class); the
//      running best max_detections over the classes seen so far, ordered by
//      score, earlier entries first on ties (TFLM's partial sort of the
//      previous best followed by the new class's picks).
//
// Memory: the caller passes `boxes` (one BoxCorner per box) and `keep` (one
// int32 per box); the fast path also `max_scores` (one float per box) and
// `class_order` (one int32 per class). The regular path keeps its running
// list in the score and class outputs (class slots hold the int32 entry
// anchor * classes + class until the end), so it needs nothing more.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/base/heap_sort.h"

namespace microarena::reference {

struct BoxCorner {
  float ymin;
  float xmin;
  float ymax;
  float xmax;
};

struct CenterSize {
  float y;
  float x;
  float h;
  float w;
};

static_assert(sizeof(BoxCorner) == 4 * sizeof(float), "BoxCorner is four packed floats");
static_assert(sizeof(CenterSize) == 4 * sizeof(float), "CenterSize is four packed floats");

struct DetectionPostprocessParams {
  int32_t max_detections = 0;
  int32_t max_classes_per_detection = 1;  // fast path; > 0
  int32_t detections_per_class = 100;     // regular path; > 0
  float score_threshold = 0.0f;
  float iou_threshold = 0.5f;  // in (0, 1]
  int32_t num_classes = 1;     // without background; > 0
  bool use_regular_nms = false;
  CenterSize scale = {};
};

struct DetectionShape {
  int32_t boxes = 0;
  int32_t box_stride = 4;    // values per box encoding (>= 4)
  int32_t score_stride = 1;  // class columns per box, background included
  int32_t label_offset = 0;  // 1 when column 0 is background, else 0
  int32_t capacity = 0;      // detections every output holds
};

struct DetectionOutputs {
  BoxCorner* boxes;
  float* classes;
  float* scores;
  float* num_detections;
};

enum class DetectionOutcome : uint8_t { kOk, kInvalidBox, kOutputTooSmall };

// Step 1. `encodings` has box_stride floats per box, `anchors` four.
inline void DecodeCenterSizeBoxes(const CenterSize& scale, int32_t count, int32_t box_stride, const float* encodings,
                                  const float* anchors, BoxCorner* boxes) {
  for (int32_t i = 0; i < count; ++i) {
    const float* e = encodings + static_cast<ptrdiff_t>(i) * box_stride;
    const float* a = anchors + static_cast<ptrdiff_t>(i) * 4;
    const double enc_y = e[0], enc_x = e[1], enc_h = e[2], enc_w = e[3];
    const double anchor_y = a[0], anchor_x = a[1], anchor_h = a[2], anchor_w = a[3];
    const auto y = static_cast<float>(enc_y / static_cast<double>(scale.y) * anchor_h + anchor_y);
    const auto x = static_cast<float>(enc_x / static_cast<double>(scale.x) * anchor_w + anchor_x);
    const auto half_h = static_cast<float>(0.5 * std::exp(enc_h / static_cast<double>(scale.h)) * anchor_h);
    const auto half_w = static_cast<float>(0.5 * std::exp(enc_w / static_cast<double>(scale.w)) * anchor_w);
    boxes[i] = {y - half_h, x - half_w, y + half_h, x + half_w};
  }
}

// False when a box is empty or inverted (NaN coordinates pass, as in TFLM).
inline bool BoxesAreValid(const BoxCorner* boxes, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    if (boxes[i].ymin >= boxes[i].ymax || boxes[i].xmin >= boxes[i].xmax) return false;
  }
  return true;
}

// std::max / std::min as written (the first argument wins ties and NaN
// comparisons), so NaN and signed zeros come out as TFLM's.
inline float MaxOf(float a, float b) { return a < b ? b : a; }
inline float MinOf(float a, float b) { return b < a ? b : a; }

// Intersection over union of a (the taken box) and b.
inline float IntersectionOverUnion(const BoxCorner& a, const BoxCorner& b) {
  const float area_a = (a.ymax - a.ymin) * (a.xmax - a.xmin);
  const float area_b = (b.ymax - b.ymin) * (b.xmax - b.xmin);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float ymin = MaxOf(a.ymin, b.ymin);
  const float xmin = MaxOf(a.xmin, b.xmin);
  const float ymax = MinOf(a.ymax, b.ymax);
  const float xmax = MinOf(a.xmax, b.xmax);
  const float intersection = MaxOf(ymax - ymin, 0.0f) * MaxOf(xmax - xmin, 0.0f);
  return intersection / (area_a + area_b - intersection);
}

// Step 2 over the scores scores[i * score_stride], i < count. Writes the
// selected box indices, in selection order, to keep[0, n) and returns n
// (at most `limit`). `keep` holds `count` int32 and is also the work area.
//
// The kept boxes are ordered by (score descending, index ascending), which
// is the order TFLM's stable merge sort gives them (kept scores are >= the
// threshold, so never NaN, and the order is total). Suppressed entries are
// marked -1 in place; taken ones are compacted to the front as the walk
// passes them (a taken entry's new place is never after its old one).
inline int32_t SelectBoxes(const BoxCorner* boxes, int32_t count, const float* scores, int32_t score_stride,
                           float score_threshold, float iou_threshold, int32_t limit, int32_t* keep) {
  int32_t kept = 0;
  for (int32_t i = 0; i < count; ++i) {
    if (scores[static_cast<ptrdiff_t>(i) * score_stride] >= score_threshold) keep[kept++] = i;
  }
  HeapSort(keep, static_cast<size_t>(kept), [scores, score_stride](int32_t a, int32_t b) {
    const float score_a = scores[static_cast<ptrdiff_t>(a) * score_stride];
    const float score_b = scores[static_cast<ptrdiff_t>(b) * score_stride];
    return score_a > score_b || (score_a == score_b && a < b);
  });
  const int32_t wanted = kept < limit ? kept : limit;
  int32_t taken = 0;
  for (int32_t i = 0; i < kept && taken < wanted; ++i) {
    const int32_t box = keep[i];
    if (box < 0) continue;
    keep[taken++] = box;
    for (int32_t j = i + 1; j < kept; ++j) {
      if (keep[j] >= 0 && IntersectionOverUnion(boxes[box], boxes[keep[j]]) > iou_threshold) keep[j] = -1;
    }
  }
  return taken;
}

// The partial sort TFLM's fast path runs on each box's class scores
// (std::partial_sort over indices, `first` before `second` when its score
// is greater, ties and NaN comparisons by the lower index), step for step
// as GCC's libstdc++ does it (a heap of the first `sorted` indices, the
// rest sifted through it, then the heap sorted): with NaN scores the order
// is not total and only the same steps give the same result.
struct ClassOrder {
  const float* values;
  bool operator()(int32_t first, int32_t second) const {
    return values[second] < values[first] || (!(values[first] < values[second]) && first < second);
  }
};

inline void AdjustHeap(int32_t* heap, ptrdiff_t hole, ptrdiff_t length, int32_t value, const ClassOrder& before) {
  const ptrdiff_t top = hole;
  ptrdiff_t child = hole;
  while (child < (length - 1) / 2) {
    child = 2 * (child + 1);
    if (before(heap[child], heap[child - 1])) --child;
    heap[hole] = heap[child];
    hole = child;
  }
  if ((length & 1) == 0 && child == (length - 2) / 2) {
    child = 2 * (child + 1);
    heap[hole] = heap[child - 1];
    hole = child - 1;
  }
  ptrdiff_t parent = (hole - 1) / 2;
  while (hole > top && before(heap[parent], value)) {
    heap[hole] = heap[parent];
    hole = parent;
    parent = (hole - 1) / 2;
  }
  heap[hole] = value;
}

// indices[0, sorted) = the `sorted` first class indices of values[0, count)
// in the order above; indices holds `count` int32. 0 < sorted <= count.
inline void DecreasingPartialArgSort(const float* values, int32_t count, int32_t sorted, int32_t* indices) {
  for (int32_t i = 0; i < count; ++i) indices[i] = i;
  const ClassOrder before{values};
  if (sorted >= 2) {
    for (ptrdiff_t parent = (sorted - 2) / 2;; --parent) {
      AdjustHeap(indices, parent, sorted, indices[parent], before);
      if (parent == 0) break;
    }
  }
  for (int32_t i = sorted; i < count; ++i) {
    if (before(indices[i], indices[0])) {
      const int32_t value = indices[i];
      indices[i] = indices[0];
      AdjustHeap(indices, 0, sorted, value, before);
    }
  }
  for (ptrdiff_t last = sorted; last > 1;) {
    --last;
    const int32_t value = indices[last];
    indices[last] = indices[0];
    AdjustHeap(indices, 0, last, value, before);
  }
}

// Step 3a. Unwritten output slots (after the detections, and TFLM's gaps for
// k > 1) are set to zero.
inline DetectionOutcome DetectFast(const DetectionPostprocessParams& params, const DetectionShape& shape,
                                   const BoxCorner* boxes, const float* scores, float* max_scores, int32_t* class_order,
                                   int32_t* keep, const DetectionOutputs& out) {
  const int32_t classes = params.num_classes;
  const int32_t per_box = params.max_classes_per_detection < classes ? params.max_classes_per_detection : classes;
  auto box_scores = [&](int32_t box) {
    return scores + static_cast<ptrdiff_t>(box) * shape.score_stride + shape.label_offset;
  };
  for (int32_t box = 0; box < shape.boxes; ++box) {
    DecreasingPartialArgSort(box_scores(box), classes, per_box, class_order);
    max_scores[box] = box_scores(box)[class_order[0]];
  }
  const int32_t selected = SelectBoxes(boxes, shape.boxes, max_scores, 1, params.score_threshold, params.iou_threshold,
                                       params.max_detections, keep);
  // The last slot written is per_box * (selected * per_box - 1) + per_box - 1,
  // so selected * per_box * per_box slots are needed.
  const int64_t entries = static_cast<int64_t>(selected) * per_box;
  if (entries > shape.capacity / per_box) return DetectionOutcome::kOutputTooSmall;
  std::memset(out.boxes, 0, sizeof(BoxCorner) * static_cast<size_t>(shape.capacity));
  std::memset(out.classes, 0, sizeof(float) * static_cast<size_t>(shape.capacity));
  std::memset(out.scores, 0, sizeof(float) * static_cast<size_t>(shape.capacity));
  int32_t written = 0;
  for (int32_t i = 0; i < selected; ++i) {
    const int32_t box = keep[i];
    DecreasingPartialArgSort(box_scores(box), classes, per_box, class_order);
    for (int32_t c = 0; c < per_box; ++c) {
      const int32_t slot = per_box * written + c;
      out.boxes[slot] = boxes[box];
      out.classes[slot] = static_cast<float>(class_order[c]);
      out.scores[slot] = box_scores(box)[class_order[c]];
      ++written;
    }
  }
  out.num_detections[0] = static_cast<float>(written);
  return DetectionOutcome::kOk;
}

// Step 3b. Slots from max_detections on are set to zero.
inline DetectionOutcome DetectRegular(const DetectionPostprocessParams& params, const DetectionShape& shape,
                                      const BoxCorner* boxes, const float* scores, int32_t* keep,
                                      const DetectionOutputs& out) {
  const int32_t classes = params.num_classes;
  const int32_t max_detections = params.max_detections;
  // The running list: entry i has score out.scores[i] and the int32
  // box * classes + class in the bytes of out.classes[i].
  auto entry = [&](int32_t i) {
    int32_t value = 0;
    std::memcpy(&value, &out.classes[i], sizeof(value));
    return value;
  };
  auto set_entry = [&](int32_t i, int32_t value, float score) {
    std::memcpy(&out.classes[i], &value, sizeof(value));
    out.scores[i] = score;
  };
  int32_t listed = 0;
  for (int32_t c = 0; c < classes; ++c) {
    const float* column = scores + shape.label_offset + c;
    const int32_t picked = SelectBoxes(boxes, shape.boxes, column, shape.score_stride, params.score_threshold,
                                       params.iou_threshold, params.detections_per_class, keep);
    auto picked_score = [&](int32_t j) { return column[static_cast<ptrdiff_t>(keep[j]) * shape.score_stride]; };
    // Both lists are ordered (score descending; the old list first on ties):
    // count how many of each make the new best, then merge from the back so
    // the old list can be rewritten in place.
    const int32_t total = listed + picked < max_detections ? listed + picked : max_detections;
    int32_t from_old = 0;
    int32_t from_new = 0;
    while (from_old + from_new < total) {
      if (from_new < picked && (from_old >= listed || picked_score(from_new) > out.scores[from_old])) {
        ++from_new;
      } else {
        ++from_old;
      }
    }
    for (int32_t slot = total - 1; slot >= 0; --slot) {
      if (from_old > 0 && (from_new == 0 || out.scores[from_old - 1] < picked_score(from_new - 1))) {
        --from_old;
        set_entry(slot, entry(from_old), out.scores[from_old]);
      } else {
        --from_new;
        set_entry(slot, keep[from_new] * classes + c, picked_score(from_new));
      }
    }
    listed = total;
  }
  for (int32_t i = 0; i < shape.capacity; ++i) {
    if (i < listed) {
      const int32_t value = entry(i);
      out.boxes[i] = boxes[value / classes];
      out.classes[i] = static_cast<float>(value % classes);
    } else {
      out.boxes[i] = {0.0f, 0.0f, 0.0f, 0.0f};
      out.classes[i] = 0.0f;
      out.scores[i] = 0.0f;
    }
  }
  out.num_detections[0] = static_cast<float>(listed);
  return DetectionOutcome::kOk;
}

// Steps 1 to 3. `boxes` and `keep` hold shape.boxes entries; `max_scores`
// and `class_order` are used by the fast path only (shape.boxes floats and
// params.num_classes int32).
inline DetectionOutcome DetectionPostprocess(const DetectionPostprocessParams& params, const DetectionShape& shape,
                                             const float* encodings, const float* scores, const float* anchors,
                                             BoxCorner* boxes, int32_t* keep, float* max_scores, int32_t* class_order,
                                             const DetectionOutputs& out) {
  DecodeCenterSizeBoxes(params.scale, shape.boxes, shape.box_stride, encodings, anchors, boxes);
  if (!BoxesAreValid(boxes, shape.boxes)) return DetectionOutcome::kInvalidBox;
  if (params.use_regular_nms) return DetectRegular(params, shape, boxes, scores, keep, out);
  return DetectFast(params, shape, boxes, scores, max_scores, class_order, keep, out);
}

}  // namespace microarena::reference
