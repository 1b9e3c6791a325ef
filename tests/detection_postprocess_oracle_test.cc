// DETECTION_POSTPROCESS (custom op "TFLite_Detection_PostProcess") against
// TFLM itself: one-op models over fast and regular NMS, class counts with
// and without a background column, thresholds, scales, keypoint columns,
// dense overlaps and score ties; outputs compared byte for byte, arenas
// against TFLM's minimum. Then the refusals: tensors TFLM refuses, and
// malformed custom options (truncated, wrong types, missing keys), which
// must give an error naming the op and the key, never a crash.
#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/conv_oracle_support.h"
#include "tests/support/op_oracle_util.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::Bytes;

constexpr char kOpName[] = "TFLite_Detection_PostProcess";

// The op's options; each field is written unless its `has_` flag is off.
struct Options {
  int32_t max_detections = 3;
  int32_t max_classes_per_detection = 1;
  int32_t detections_per_class = 1;
  bool use_regular_nms = false;
  float nms_score_threshold = 0.0f;
  float nms_iou_threshold = 0.5f;
  int32_t num_classes = 2;
  float y_scale = 10.0f;
  float x_scale = 10.0f;
  float h_scale = 5.0f;
  float w_scale = 5.0f;
  bool has_detections_per_class = true;
  bool has_use_regular_nms = true;
};

Bytes OptionBytes(const Options& o) {
  flexbuffers::Builder fbb;
  fbb.Map([&]() {
    fbb.Int("max_detections", o.max_detections);
    fbb.Int("max_classes_per_detection", o.max_classes_per_detection);
    if (o.has_detections_per_class) fbb.Int("detections_per_class", o.detections_per_class);
    if (o.has_use_regular_nms) fbb.Bool("use_regular_nms", o.use_regular_nms);
    fbb.Float("nms_score_threshold", o.nms_score_threshold);
    fbb.Float("nms_iou_threshold", o.nms_iou_threshold);
    fbb.Int("num_classes", o.num_classes);
    fbb.Float("y_scale", o.y_scale);
    fbb.Float("x_scale", o.x_scale);
    fbb.Float("h_scale", o.h_scale);
    fbb.Float("w_scale", o.w_scale);
  });
  fbb.Finish();
  return fbb.GetBuffer();
}

// A one-op model. The outputs hold `capacity` detections (default
// max_detections); anchors are a constant when `constant_anchors` is set.
struct Case {
  std::string name;
  Options options;
  int32_t boxes = 6;
  int32_t box_stride = 4;
  bool background = true;
  int32_t capacity = -1;
  bool constant_anchors = false;
  Bytes custom_options;  // used when use_custom_options, else OptionBytes(options)
  bool use_custom_options = false;
  TensorType encodings_type = TensorType::kFloat32;
};

int32_t Capacity(const Case& c) { return c.capacity >= 0 ? c.capacity : c.options.max_detections; }
int32_t Columns(const Case& c) { return c.options.num_classes + (c.background ? 1 : 0); }

Bytes BuildModel(const Case& c, const Bytes& anchors) {
  ModelBuilder builder;
  OperatorSpec spec;
  spec.op = BuiltinOp::kCustom;
  spec.custom_name = kOpName;
  spec.custom_options = c.use_custom_options ? c.custom_options : OptionBytes(c.options);
  std::vector<int32_t> graph_inputs;
  auto input = [&](const std::string& name, TensorType type, std::vector<int32_t> shape) {
    const int32_t t = builder.AddTensor({name, type, std::move(shape), 0, {}});
    graph_inputs.push_back(t);
    spec.inputs.push_back(t);
  };
  input("box_encodings", c.encodings_type, {1, c.boxes, c.box_stride});
  input("class_predictions", TensorType::kFloat32, {1, c.boxes, Columns(c)});
  if (c.constant_anchors) {
    spec.inputs.push_back(builder.AddConstantTensor({"anchors", TensorType::kFloat32, {c.boxes, 4}, 0, {}}, anchors));
  } else {
    input("anchors", TensorType::kFloat32, {c.boxes, 4});
  }
  const int32_t n = Capacity(c);
  spec.outputs = {builder.AddTensor({"detection_boxes", TensorType::kFloat32, {1, n, 4}, 0, {}}),
                  builder.AddTensor({"detection_classes", TensorType::kFloat32, {1, n}, 0, {}}),
                  builder.AddTensor({"detection_scores", TensorType::kFloat32, {1, n}, 0, {}}),
                  builder.AddTensor({"num_detections", TensorType::kFloat32, {1}, 0, {}})};
  const std::vector<int32_t> outputs = spec.outputs;
  builder.AddOperator(std::move(spec));
  builder.SetInputs(graph_inputs);
  builder.SetOutputs(outputs);
  return builder.Build();
}

// Inputs of a case: what the generators make.
struct Inputs {
  std::vector<float> encodings;
  std::vector<float> scores;
  std::vector<float> anchors;
};

float Uniform(uint32_t* state, float low, float high) {
  return low + (high - low) * static_cast<float>(testing::NextRandom(state) % 10000) / 10000.0f;
}

// Anchors on a coarse grid (many boxes share a centre), encodings small
// enough that the boxes overlap a lot, scores in steps of 1/16 (many ties).
Inputs Generate(const Case& c, uint32_t seed) {
  uint32_t state = seed * 2654435761u + 11;
  Inputs in;
  for (int32_t b = 0; b < c.boxes; ++b) {
    for (int32_t k = 0; k < c.box_stride; ++k) in.encodings.push_back(Uniform(&state, -2.0f, 2.0f));
    const float grid = 4.0f;
    in.anchors.push_back(static_cast<float>(testing::NextRandom(&state) % 4) / grid + 0.125f);
    in.anchors.push_back(static_cast<float>(testing::NextRandom(&state) % 4) / grid + 0.125f);
    in.anchors.push_back(Uniform(&state, 0.1f, 0.6f));
    in.anchors.push_back(Uniform(&state, 0.1f, 0.6f));
    for (int32_t k = 0; k < Columns(c); ++k) {
      in.scores.push_back(static_cast<float>(testing::NextRandom(&state) % 17) / 16.0f);
    }
  }
  return in;
}

// TFLM's own unit-test data: six boxes, two classes and a background column.
Inputs TflmTestInputs(const Case& c) {
  Inputs in;
  const float boxes[6][4] = {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, -1, 0, 0}, {0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}};
  for (const auto& box : boxes) {
    for (int32_t k = 0; k < c.box_stride; ++k) in.encodings.push_back(k < 4 ? box[k] : 1.0f);
  }
  const float with_background[] = {0., .9f,  .8f,  0., .75f, .72f, 0., .6f, .5f,
                                   0., .93f, .95f, 0., .5f,  .4f,  0., .3f, .2f};
  const float without[] = {.9f, .8f, .75f, .72f, .6f, .5f, .93f, .95f, .5f, .4f, .3f, .2f};
  if (c.background) {
    in.scores.assign(std::begin(with_background), std::end(with_background));
  } else {
    in.scores.assign(std::begin(without), std::end(without));
  }
  in.anchors = {0.5f, 0.5f,  1, 1, 0.5f, 0.5f,  1, 1, 0.5f, 0.5f,   1, 1,
                0.5f, 10.5f, 1, 1, 0.5f, 10.5f, 1, 1, 0.5f, 100.5f, 1, 1};
  return in;
}

std::vector<Bytes> GraphInputs(const Case& c, const Inputs& in) {
  std::vector<Bytes> inputs = {BytesOf(in.encodings), BytesOf(in.scores)};
  if (!c.constant_anchors) inputs.push_back(BytesOf(in.anchors));
  return inputs;
}

// Runs both and expects the same bytes in every output; returns the
// detections count microarena reported (-1 on failure). With `written`,
// only the detection slots it accepts are compared in outputs 0 to 2 (the
// others TFLM leaves as the arena had them), and microarena's must be zero.
float ExpectSame(const Case& c, const Inputs& in, const std::string& name,
                 const std::function<bool(size_t slot, float count)>& written = nullptr) {
  SCOPED_TRACE(name);
  const Bytes model = BuildModel(c, BytesOf(in.anchors));
  const std::vector<Bytes> inputs = GraphInputs(c, in);
  const testing::Outcome theirs = testing::RunOracleOn(name, model, inputs, testing::kSmallArena);
  EXPECT_TRUE(theirs.ok) << "TFLM did not run the model: " << theirs.error;
  const testing::Outcome ours = testing::RunOursOn(model, inputs);
  EXPECT_TRUE(ours.ok) << "microarena did not run the model: " << ours.error;
  if (!theirs.ok || !ours.ok) return -1.0f;
  EXPECT_EQ(ours.outputs.size(), 4u);
  EXPECT_EQ(theirs.outputs.size(), 4u);
  if (ours.outputs.size() != 4u || theirs.outputs.size() != 4u) return -1.0f;
  testing::ExpectArenaNoLargerThanTflms(name, model, inputs, ours.arena_used_bytes, theirs.arena_used_bytes);
  float count = 0;
  std::memcpy(&count, ours.outputs[3].data(), sizeof(count));
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ours.outputs[i].size(), theirs.outputs[i].size()) << "output " << i;
    if (ours.outputs[i].size() != theirs.outputs[i].size()) continue;
    size_t differing = 0;
    size_t first = 0;
    const size_t slot_bytes = i == 0 ? 16 : 4;
    for (size_t b = 0; b < ours.outputs[i].size(); ++b) {
      if (written != nullptr && i < 3 && !written(b / slot_bytes, count)) {
        EXPECT_EQ(ours.outputs[i][b], 0u) << "output " << i << " byte " << b << " is not written: zero expected";
        continue;
      }
      if (ours.outputs[i][b] != theirs.outputs[i][b] && differing++ == 0) first = b / 4;
    }
    float mine = 0, tflm = 0;
    if (differing > 0) {
      std::memcpy(&mine, ours.outputs[i].data() + first * 4, 4);
      std::memcpy(&tflm, theirs.outputs[i].data() + first * 4, 4);
    }
    EXPECT_EQ(differing, 0u) << "output " << i << ": " << differing << " of " << ours.outputs[i].size()
                             << " bytes differ; first at value " << first << ": " << mine << " vs TFLM " << tflm;
  }
  return count;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  {
    Case c;
    c.name = "fast_bg2";
    c.options.use_regular_nms = false;
    c.boxes = 50;
    c.options.max_detections = 10;
    c.options.nms_score_threshold = 0.3f;
    add(c);
  }
  {
    Case c;
    c.name = "fast_nobg5_all_kept";
    c.background = false;
    c.boxes = 100;
    c.options.num_classes = 5;
    c.options.max_detections = 20;
    c.options.nms_score_threshold = 0.0f;
    c.options.nms_iou_threshold = 0.3f;
    add(c);
  }
  {
    Case c;
    c.name = "fast_bg1_keypoints_const_anchors";
    c.boxes = 40;
    c.box_stride = 8;
    c.options.num_classes = 1;
    c.options.max_detections = 40;
    c.options.nms_score_threshold = 0.5f;
    c.options.nms_iou_threshold = 1.0f;
    c.constant_anchors = true;
    c.options.y_scale = 1.0f;
    c.options.x_scale = 2.0f;
    c.options.h_scale = 3.0f;
    c.options.w_scale = 0.5f;
    add(c);
  }
  {
    Case c;
    c.name = "fast_more_detections_than_boxes";
    c.boxes = 7;
    c.options.num_classes = 3;
    c.options.max_detections = 12;
    c.options.nms_iou_threshold = 0.9f;
    add(c);
  }
  {
    Case c;
    c.name = "regular_bg4";
    c.options.use_regular_nms = true;
    c.boxes = 60;
    c.options.num_classes = 4;
    c.options.detections_per_class = 5;
    c.options.max_detections = 10;
    c.options.nms_score_threshold = 0.25f;
    c.options.nms_iou_threshold = 0.45f;
    add(c);
  }
  {
    Case c;
    c.name = "regular_nobg10_keypoints";
    c.options.use_regular_nms = true;
    c.background = false;
    c.boxes = 100;
    c.box_stride = 6;
    c.options.num_classes = 10;
    c.options.detections_per_class = 3;
    c.options.max_detections = 25;
    c.options.nms_score_threshold = 0.1f;
    c.options.nms_iou_threshold = 0.6f;
    add(c);
  }
  {
    Case c;
    c.name = "regular_default_per_class";
    c.options.use_regular_nms = true;
    c.options.has_detections_per_class = false;  // TFLM's default: 100
    c.boxes = 80;
    c.options.num_classes = 3;
    c.options.max_detections = 30;
    c.options.nms_score_threshold = 0.5f;
    c.options.nms_iou_threshold = 0.2f;
    c.constant_anchors = true;
    add(c);
  }
  {
    Case c;
    c.name = "regular_one_per_class_many_classes";
    c.options.use_regular_nms = true;
    c.boxes = 30;
    c.options.num_classes = 12;
    c.options.detections_per_class = 1;
    c.options.max_detections = 5;
    c.options.nms_score_threshold = 0.4f;
    c.options.y_scale = 1.0f;
    c.options.x_scale = 1.0f;
    c.options.h_scale = 1.0f;
    c.options.w_scale = 1.0f;
    add(c);
  }
  {
    Case c;
    c.name = "fast_default_nms_flag_dense";
    c.options.has_use_regular_nms = false;  // TFLM's default: fast
    c.boxes = 300;
    c.options.num_classes = 6;
    c.options.max_detections = 50;
    c.options.nms_score_threshold = 0.1f;
    c.options.nms_iou_threshold = 0.7f;
    add(c);
  }
  {
    Case c;
    c.name = "regular_large_capacity";
    c.options.use_regular_nms = true;
    c.boxes = 25;
    c.options.num_classes = 2;
    c.options.detections_per_class = 4;
    c.options.max_detections = 6;
    c.capacity = 9;
    c.options.nms_score_threshold = 0.6f;
    c.options.nms_iou_threshold = 0.35f;
    add(c);
  }
  return cases;
}

TEST(DetectionPostprocessOracleTest, TflmUnitTestData) {
  MICROARENA_REQUIRE_ORACLE();
  for (bool regular : {false, true}) {
    for (bool background : {true, false}) {
      for (int32_t stride : {4, 5}) {
        Case c;
        c.options.use_regular_nms = regular;
        c.background = background;
        c.box_stride = stride;
        const std::string name = std::string("tflm_data_") + (regular ? "regular" : "fast") +
                                 (background ? "_bg" : "_nobg") + std::to_string(stride);
        const float count = ExpectSame(c, TflmTestInputs(c), name);
        EXPECT_EQ(count, regular ? 2.0f : 3.0f) << name;  // TFLM's goldens
      }
    }
  }
}

TEST(DetectionPostprocessOracleTest, GeneratedCasesMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  size_t models = 0;
  for (const Case& c : Cases()) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      const std::string name = c.name + "_seed" + std::to_string(seed);
      // TFLM writes max_detections slots on the regular path and the
      // detections on the fast one; slots after those keep what the arena
      // had (microarena's are zero).
      const bool regular = c.options.use_regular_nms;
      const auto max_detections = static_cast<size_t>(c.options.max_detections);
      auto written = [regular, max_detections](size_t slot, float count) {
        return slot < (regular ? max_detections : static_cast<size_t>(count));
      };
      const float count = ExpectSame(c, Generate(c, seed), name, written);
      EXPECT_GE(count, 0.0f) << name;
      ++models;
    }
  }
  std::printf("DETECTION_POSTPROCESS: %zu generated models compared with TFLM\n", models);
}

// Scores with NaN, infinities and signed zeros: the fast path's partial sort
// of each box's classes must order them as TFLM's does.
TEST(DetectionPostprocessOracleTest, SpecialScoresMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {nan, inf, -inf, 0.0f, -0.0f, 0.5f, 1.0f};
  for (bool regular : {false, true}) {
    for (int32_t classes : {1, 3, 7}) {
      Case c;
      c.options.use_regular_nms = regular;
      c.options.num_classes = classes;
      c.options.detections_per_class = 4;
      c.options.max_detections = 8;
      c.options.nms_score_threshold = -inf;
      c.boxes = 24;
      Inputs in = Generate(c, 7);
      uint32_t state = 99;
      for (float& s : in.scores) {
        if (testing::NextRandom(&state) % 3 == 0) s = specials[testing::NextRandom(&state) % 7];
      }
      auto written = [regular](size_t slot, float count) { return regular || slot < static_cast<size_t>(count); };
      ExpectSame(c, in, std::string("special_") + (regular ? "regular" : "fast") + std::to_string(classes), written);
    }
  }
}

// max_classes_per_detection > 1 on the fast path: TFLM writes class c of
// the n-th entry written at (classes per box) * n + c, leaving the slots in
// between as the arena had them (microarena zeroes them). With outputs
// large enough for that layout the written slots are the same bytes.
TEST(DetectionPostprocessOracleTest, SeveralClassesPerDetectionMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  for (int32_t per_box : {2, 3}) {
    Case c;
    c.options.num_classes = 4;
    c.options.max_classes_per_detection = per_box;
    c.options.max_detections = 3;
    c.capacity = 3 * per_box * per_box;
    c.boxes = 20;
    c.options.nms_score_threshold = 0.2f;
    auto written = [per_box](size_t slot, float count) {
      for (int32_t n = 0; n < static_cast<int32_t>(count); ++n) {
        if (static_cast<size_t>(per_box * n + n % per_box) == slot) return true;
      }
      return false;
    };
    const float count = ExpectSame(c, Generate(c, 3), "per_box" + std::to_string(per_box), written);
    EXPECT_GT(count, static_cast<float>(per_box)) << "at least two boxes selected";
  }
  // More classes per detection than classes: min(2, 1) = 1.
  Case c;
  c.options.num_classes = 1;
  c.options.max_classes_per_detection = 2;
  c.boxes = 10;
  ExpectSame(c, Generate(c, 4), "per_box_more_than_classes");
}

// Options written with other FlexBuffers types (uint, double, int bool,
// indirect numbers): read as TFLM's reader converts them.
TEST(DetectionPostprocessOracleTest, OtherOptionEncodingsMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  flexbuffers::Builder fbb;
  fbb.Map([&]() {
    fbb.UInt("max_detections", 5);
    fbb.Double("max_classes_per_detection", 1.0);
    fbb.IndirectInt("detections_per_class", 2);
    fbb.Int("use_regular_nms", 1);
    fbb.Double("nms_score_threshold", 0.3);
    fbb.IndirectFloat("nms_iou_threshold", 0.4f);
    fbb.Int("num_classes", 3);
    fbb.Int("y_scale", 10);
    fbb.UInt("x_scale", 10);
    fbb.Double("h_scale", 5.0);
    fbb.Float("w_scale", 5.0f);
  });
  fbb.Finish();
  Case c;
  c.boxes = 30;
  c.options.num_classes = 3;
  c.options.max_detections = 5;
  c.custom_options = fbb.GetBuffer();
  c.use_custom_options = true;
  ExpectSame(c, Generate(c, 5), "option_encodings");
}

// The arena microarena needs is at most TFLM's minimum; TFLM asks for
// eleven scratch buffers (several of max_detections x boxes), microarena
// for one.
TEST(DetectionPostprocessOracleTest, ArenaIsAtMostTflms) {
  MICROARENA_REQUIRE_ORACLE();
  for (const Case& c : Cases()) {
    const Bytes model = BuildModel(c, BytesOf(Generate(c, 1).anchors));
    Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
    ASSERT_TRUE(view.ok()) << c.name << ": " << view.status().message();
    Result<ArenaFigures> ours = MeasureArena(*view, AllOpsResolver());
    ASSERT_TRUE(ours.ok()) << c.name << ": " << ours.status().message();
    EXPECT_EQ(ours->scratch_buffers, 1u) << c.name;
    // 20 B per box (decoded box, work index); the fast path 4 B more per
    // box (best score) and 4 B per class (one class order).
    Result<std::vector<ScratchRequest>> scratch = CollectScratchRequests(*view, AllOpsResolver());
    ASSERT_TRUE(scratch.ok()) << scratch.status().message();
    ASSERT_EQ(scratch->size(), 1u);
    const auto boxes = static_cast<size_t>(c.boxes);
    const size_t expected_scratch =
        c.options.use_regular_nms ? 20 * boxes : 24 * boxes + 4 * static_cast<size_t>(c.options.num_classes);
    EXPECT_EQ((*scratch)[0].size_bytes, expected_scratch) << c.name;
    const size_t tflm = testing::OracleFigure("detect_arena_" + c.name, model, "min_arena_bytes");
    EXPECT_LE(ours->used_bytes, tflm) << c.name;
    std::printf("%s: microarena %zu bytes (head %zu, persistent %zu, scratch %zu), TFLM %zu bytes\n", c.name.c_str(),
                ours->used_bytes, ours->head_bytes, ours->persistent_bytes, expected_scratch, tflm);
  }
}

// What TFLM refuses (at Invoke) microarena refuses too (at AllocateTensors).
TEST(DetectionPostprocessOracleTest, RefusedAsByTflm) {
  MICROARENA_REQUIRE_ORACLE();
  struct Refusal {
    std::string name;
    Case c;
    std::string expected;
  };
  std::vector<Refusal> refusals;
  {
    Refusal r{"iou_zero", {}, "nms_iou_threshold 0 must be in (0, 1]"};
    r.c.options.nms_iou_threshold = 0.0f;
    refusals.push_back(r);
  }
  {
    Refusal r{"iou_above_one", {}, "must be in (0, 1]"};
    r.c.options.nms_iou_threshold = 1.5f;
    r.c.options.use_regular_nms = true;
    refusals.push_back(r);
  }
  {
    Refusal r{"no_classes_per_detection", {}, "max_classes_per_detection 0 must be positive"};
    r.c.options.max_classes_per_detection = 0;
    refusals.push_back(r);
  }
  {
    Refusal r{"no_detections_per_class", {}, "detections_per_class 0 must be positive"};
    r.c.options.use_regular_nms = true;
    r.c.options.detections_per_class = 0;
    refusals.push_back(r);
  }
  {
    Refusal r{"two_background_columns", {}, "class predictions tensor"};
    r.c.options.num_classes = 1;
    r.c.custom_options = OptionBytes(r.c.options);
    r.c.use_custom_options = true;
    r.c.options.num_classes = 2;  // the model gets 3 columns for num_classes 1
    refusals.push_back(r);
  }
  {
    Refusal r{"short_box_encodings", {}, "box encodings tensor"};
    r.c.box_stride = 3;
    refusals.push_back(r);
  }
  {
    Refusal r{"int8_box_encodings", {}, "FLOAT32"};
    r.c.encodings_type = TensorType::kInt8;
    refusals.push_back(r);
  }
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.name);
    Inputs in = TflmTestInputs(r.c);
    in.encodings.resize(static_cast<size_t>(r.c.boxes * r.c.box_stride), 0.0f);
    in.scores.resize(static_cast<size_t>(r.c.boxes * Columns(r.c)), 0.5f);
    const Bytes model = BuildModel(r.c, BytesOf(in.anchors));
    std::vector<Bytes> inputs = GraphInputs(r.c, in);
    if (r.c.encodings_type == TensorType::kInt8) inputs[0].resize(static_cast<size_t>(r.c.boxes * r.c.box_stride));
    const testing::Outcome theirs = testing::RunOracleOn("refused_" + r.name, model, inputs, testing::kSmallArena);
    EXPECT_FALSE(theirs.ok) << "TFLM ran it";
    const testing::Outcome ours = testing::RunOursOn(model, inputs);
    ASSERT_FALSE(ours.ok) << "microarena ran it";
    EXPECT_NE(ours.error.find(std::string("op 0 (") + kOpName + ")"), std::string::npos) << ours.error;
    EXPECT_NE(ours.error.find(r.expected), std::string::npos) << ours.error;
  }
}

// A decoded box with ymin >= ymax (a zero-height anchor) fails Invoke in
// both.
TEST(DetectionPostprocessOracleTest, InvalidBoxFailsInvokeAsInTflm) {
  MICROARENA_REQUIRE_ORACLE();
  for (bool regular : {false, true}) {
    Case c;
    c.options.use_regular_nms = regular;
    Inputs in = TflmTestInputs(c);
    in.anchors[4 * 2 + 2] = 0.0f;  // anchor 2 has height 0
    const Bytes model = BuildModel(c, BytesOf(in.anchors));
    const std::vector<Bytes> inputs = GraphInputs(c, in);
    const testing::Outcome theirs =
        testing::RunOracleOn(std::string("invalid_box_") + (regular ? "r" : "f"), model, inputs, testing::kSmallArena);
    EXPECT_FALSE(theirs.ok);
    const testing::Outcome ours = testing::RunOursOn(model, inputs);
    ASSERT_FALSE(ours.ok);
    EXPECT_NE(ours.error.find("ymin >= ymax"), std::string::npos) << ours.error;
  }
}

// ---- Malformed custom options: an error naming the op (and the key), no crash.

Status AllocateWithOptions(const Bytes& custom_options) {
  Case c;
  c.custom_options = custom_options;
  c.use_custom_options = true;
  const Bytes model = BuildModel(c, BytesOf(TflmTestInputs(c).anchors));
  Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
  if (!view.ok()) return view.status();
  std::vector<uint8_t> arena(64 * 1024);
  Interpreter interpreter(*view, AllOpsResolver(), arena.data(), arena.size());
  return interpreter.AllocateTensors();
}

std::string AllocateError(const Bytes& custom_options) {
  const Status status = AllocateWithOptions(custom_options);
  EXPECT_FALSE(status.ok());
  return status.message();
}

TEST(DetectionPostprocessOptionsTest, WellFormedOptionsAllocate) {
  const Status status = AllocateWithOptions(OptionBytes(Options{}));
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(DetectionPostprocessOptionsTest, MissingOptionsAreRefused) {
  const std::string error = AllocateError({});
  EXPECT_NE(error.find("op 0 (TFLite_Detection_PostProcess)"), std::string::npos) << error;
  EXPECT_NE(error.find("custom options missing"), std::string::npos) << error;
}

TEST(DetectionPostprocessOptionsTest, EveryTruncationIsRefused) {
  const Bytes full = OptionBytes(Options{});
  for (size_t n = 1; n < full.size(); ++n) {
    SCOPED_TRACE(n);
    // The first n bytes, and the last n (a buffer cut at its start keeps
    // the root, whose offsets then point before the bytes).
    const std::string head = AllocateError(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
    EXPECT_NE(head.find("custom options"), std::string::npos) << head;
    const std::string tail = AllocateError(Bytes(full.end() - static_cast<std::ptrdiff_t>(n), full.end()));
    EXPECT_NE(tail.find("custom options"), std::string::npos) << tail;
  }
}

TEST(DetectionPostprocessOptionsTest, CorruptedBytesNeverCrash) {
  // Every single byte of a valid buffer set to several values: an error or a
  // run, never an out-of-bounds read (the asan preset checks that).
  const Bytes full = OptionBytes(Options{});
  size_t refused = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0x01}, uint8_t{0x7f}, uint8_t{0x80}, uint8_t{0xff}}) {
      Bytes bad = full;
      bad[i] = value;
      refused += AllocateWithOptions(bad).ok() ? 0 : 1;
    }
  }
  EXPECT_GT(refused, 0u);
}

TEST(DetectionPostprocessOptionsTest, EachMissingRequiredKeyIsNamed) {
  const char* const keys[] = {"max_detections",
                              "max_classes_per_detection",
                              "nms_score_threshold",
                              "nms_iou_threshold",
                              "num_classes",
                              "y_scale",
                              "x_scale",
                              "h_scale",
                              "w_scale"};
  const Options o;
  for (const char* missing : keys) {
    flexbuffers::Builder fbb;
    fbb.Map([&]() {
      auto put_int = [&](const char* key, int32_t v) {
        if (std::string(key) != missing) fbb.Int(key, v);
      };
      auto put_float = [&](const char* key, float v) {
        if (std::string(key) != missing) fbb.Float(key, v);
      };
      put_int("max_detections", o.max_detections);
      put_int("max_classes_per_detection", o.max_classes_per_detection);
      put_float("nms_score_threshold", o.nms_score_threshold);
      put_float("nms_iou_threshold", o.nms_iou_threshold);
      put_int("num_classes", o.num_classes);
      put_float("y_scale", o.y_scale);
      put_float("x_scale", o.x_scale);
      put_float("h_scale", o.h_scale);
      put_float("w_scale", o.w_scale);
    });
    fbb.Finish();
    const std::string error = AllocateError(fbb.GetBuffer());
    EXPECT_NE(error.find(std::string("'") + missing + "' is missing"), std::string::npos) << error;
    EXPECT_NE(error.find("op 0 (TFLite_Detection_PostProcess)"), std::string::npos) << error;
  }
}

TEST(DetectionPostprocessOptionsTest, WrongTypesAreNamed) {
  struct WrongType {
    const char* key;
    std::function<void(flexbuffers::Builder&)> write;
    std::string expected;
  };
  const std::vector<WrongType> cases = {
      {"num_classes", [](flexbuffers::Builder& b) { b.String("num_classes", "2"); }, "'num_classes' is a string"},
      {"y_scale", [](flexbuffers::Builder& b) { b.Vector("y_scale", [&]() { b.Float(10.0f); }); }, "'y_scale' is a"},
      {"use_regular_nms", [](flexbuffers::Builder& b) { b.Float("use_regular_nms", 1.0f); },
       "'use_regular_nms' is a float"},
      {"max_detections", [](flexbuffers::Builder& b) { b.Int("max_detections", int64_t{1} << 40); },
       "'max_detections' (int) is out of the int32 range"},
      {"max_classes_per_detection",
       [](flexbuffers::Builder& b) { b.Map("max_classes_per_detection", [&]() { b.Int("a", 1); }); },
       "'max_classes_per_detection' is a map"},
      {"detections_per_class", [](flexbuffers::Builder& b) { b.Double("detections_per_class", 1e300); },
       "'detections_per_class' (float) is out of the int32 range"},
  };
  const Options o;
  for (const WrongType& w : cases) {
    SCOPED_TRACE(w.key);
    flexbuffers::Builder fbb;
    fbb.Map([&]() {
      const std::string key = w.key;
      auto put_int = [&](const char* k, int32_t v) { key == k ? w.write(fbb) : fbb.Int(k, v); };
      auto put_float = [&](const char* k, float v) { key == k ? w.write(fbb) : fbb.Float(k, v); };
      put_int("max_detections", o.max_detections);
      put_int("max_classes_per_detection", o.max_classes_per_detection);
      put_int("detections_per_class", o.detections_per_class);
      if (key == "use_regular_nms") w.write(fbb);
      put_float("nms_score_threshold", o.nms_score_threshold);
      put_float("nms_iou_threshold", o.nms_iou_threshold);
      put_int("num_classes", o.num_classes);
      put_float("y_scale", o.y_scale);
      put_float("x_scale", o.x_scale);
      put_float("h_scale", o.h_scale);
      put_float("w_scale", o.w_scale);
    });
    fbb.Finish();
    const std::string error = AllocateError(fbb.GetBuffer());
    EXPECT_NE(error.find(w.expected), std::string::npos) << error;
    EXPECT_NE(error.find("op 0 (TFLite_Detection_PostProcess)"), std::string::npos) << error;
  }
}

TEST(DetectionPostprocessOptionsTest, RootMustBeAMap) {
  flexbuffers::Builder vector;
  vector.Vector([&]() { vector.Int(1); });
  vector.Finish();
  EXPECT_NE(AllocateError(vector.GetBuffer()).find("FlexBuffers root is a vector, a map is expected"),
            std::string::npos);
  flexbuffers::Builder scalar;
  scalar.Int(7);
  scalar.Finish();
  EXPECT_NE(AllocateError(scalar.GetBuffer()).find("FlexBuffers root is a int, a map is expected"), std::string::npos);
}

TEST(DetectionPostprocessOptionsTest, OutputsTooSmallAreRefused) {
  Case c;
  c.capacity = 2;  // max_detections 3
  const Bytes model = BuildModel(c, BytesOf(TflmTestInputs(c).anchors));
  Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
  ASSERT_TRUE(view.ok());
  std::vector<uint8_t> arena(64 * 1024);
  Interpreter interpreter(*view, AllOpsResolver(), arena.data(), arena.size());
  const Status status = interpreter.AllocateTensors();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("the outputs hold 2 detections"), std::string::npos) << status.message();
}

// Fast path, two classes per detection, outputs of max_detections x 2:
// TFLM's layout needs 2 x 2 slots per selected box and writes past the
// outputs once two boxes are selected; microarena fails Invoke instead.
TEST(DetectionPostprocessOptionsTest, SeveralClassesBeyondTheOutputsFailInvoke) {
  Case c;
  c.options.max_classes_per_detection = 2;
  c.capacity = c.options.max_detections * 2;
  const Inputs in = TflmTestInputs(c);  // three boxes selected
  const testing::Outcome ours = testing::RunOursOn(BuildModel(c, BytesOf(in.anchors)), GraphInputs(c, in));
  ASSERT_FALSE(ours.ok);
  EXPECT_NE(ours.error.find("op 0 (TFLite_Detection_PostProcess): max_classes_per_detection 2"), std::string::npos)
      << ours.error;
  EXPECT_NE(ours.error.find("beyond the 6 the outputs hold"), std::string::npos) << ours.error;
}

}  // namespace
}  // namespace microarena
