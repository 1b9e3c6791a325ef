// MobileNetV2 from code: the graph of its specification (ops, shapes and channel
// counts worked out by hand below, not read from the generator), Keras's
// correct_pad and channel rounding, TFLite's int8 rules for each op, options
// checked, and the same bytes on every run. Running it (against TFLM too) is
// tests/mobilenet_v2_oracle_test.cc's.
#include "microarena/model/mobilenet_v2_model.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "microarena/model/model_view.h"

namespace microarena {
namespace {

// The small variant the tests run: 96x96, width 50%, stages 1-4, 10 classes.
MobileNetV2Options SmallOptions() {
  MobileNetV2Options options;
  options.input_size = 96;
  options.width_percent = 50;
  options.last_stage = 4;
  options.classes = 10;
  return options;
}

// A built model and a view of it (the view points into the bytes).
struct Built {
  std::vector<uint8_t> bytes;
  std::unique_ptr<ModelView> model;

  SubgraphView main() const { return model->subgraph(0); }
  TensorView output_of(size_t op) const { return main().tensor(static_cast<size_t>(main().op(op).outputs()[0])); }
  std::vector<int32_t> shape_of(const TensorView& tensor) const {
    return std::vector<int32_t>(tensor.shape().begin(), tensor.shape().end());
  }
};

Built Build(const MobileNetV2Options& options) {
  Built built;
  Result<std::vector<uint8_t>> bytes = BuildMobileNetV2Model(options);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!bytes.ok()) return built;
  built.bytes = std::move(*bytes);
  Result<ModelView> model = LoadModel(Span<const uint8_t>(built.bytes.data(), built.bytes.size()));
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (model.ok()) built.model = std::make_unique<ModelView>(*model);
  return built;
}

struct ExpectedOp {
  BuiltinOp op;
  std::string output;
  std::vector<int32_t> shape;
};

// Width 50%: stem 32 -> 16; stage channels 16 -> 8, 24 -> 12 -> 16 (8 would lose
// a third), 32 -> 16, 64 -> 32. Sizes: 96 padded to 97, /2 -> 48; stage 2 pads 48
// to 49, /2 -> 24; stage 3 24 -> 25 -> 12; stage 4 12 -> 13 -> 6. Expansion 6.
std::vector<ExpectedOp> SmallVariantOps() {
  const BuiltinOp kConv = BuiltinOp::kConv2d;
  const BuiltinOp kDepthwise = BuiltinOp::kDepthwiseConv2d;
  const BuiltinOp kPad = BuiltinOp::kPad;
  const BuiltinOp kAdd = BuiltinOp::kAdd;
  return {
      {kPad, "stem/pad/output", {1, 97, 97, 3}},
      {kConv, "stem/conv/output", {1, 48, 48, 16}},
      // Stage 1 (t 1, no expansion; 16 -> 8, so no ADD).
      {kDepthwise, "block0/depthwise/output", {1, 48, 48, 16}},
      {kConv, "block0/project/output", {1, 48, 48, 8}},
      // Stage 2: 8 -> 16, stride 2, then one residual block.
      {kConv, "block1/expand/output", {1, 48, 48, 48}},
      {kPad, "block1/pad/output", {1, 49, 49, 48}},
      {kDepthwise, "block1/depthwise/output", {1, 24, 24, 48}},
      {kConv, "block1/project/output", {1, 24, 24, 16}},
      {kConv, "block2/expand/output", {1, 24, 24, 96}},
      {kDepthwise, "block2/depthwise/output", {1, 24, 24, 96}},
      {kConv, "block2/project/output", {1, 24, 24, 16}},
      {kAdd, "block2/add/output", {1, 24, 24, 16}},
      // Stage 3: 16 -> 16 but stride 2 (no ADD), then two residual blocks.
      {kConv, "block3/expand/output", {1, 24, 24, 96}},
      {kPad, "block3/pad/output", {1, 25, 25, 96}},
      {kDepthwise, "block3/depthwise/output", {1, 12, 12, 96}},
      {kConv, "block3/project/output", {1, 12, 12, 16}},
      {kConv, "block4/expand/output", {1, 12, 12, 96}},
      {kDepthwise, "block4/depthwise/output", {1, 12, 12, 96}},
      {kConv, "block4/project/output", {1, 12, 12, 16}},
      {kAdd, "block4/add/output", {1, 12, 12, 16}},
      {kConv, "block5/expand/output", {1, 12, 12, 96}},
      {kDepthwise, "block5/depthwise/output", {1, 12, 12, 96}},
      {kConv, "block5/project/output", {1, 12, 12, 16}},
      {kAdd, "block5/add/output", {1, 12, 12, 16}},
      // Stage 4: 16 -> 32, stride 2, then three residual blocks.
      {kConv, "block6/expand/output", {1, 12, 12, 96}},
      {kPad, "block6/pad/output", {1, 13, 13, 96}},
      {kDepthwise, "block6/depthwise/output", {1, 6, 6, 96}},
      {kConv, "block6/project/output", {1, 6, 6, 32}},
      {kConv, "block7/expand/output", {1, 6, 6, 192}},
      {kDepthwise, "block7/depthwise/output", {1, 6, 6, 192}},
      {kConv, "block7/project/output", {1, 6, 6, 32}},
      {kAdd, "block7/add/output", {1, 6, 6, 32}},
      {kConv, "block8/expand/output", {1, 6, 6, 192}},
      {kDepthwise, "block8/depthwise/output", {1, 6, 6, 192}},
      {kConv, "block8/project/output", {1, 6, 6, 32}},
      {kAdd, "block8/add/output", {1, 6, 6, 32}},
      {kConv, "block9/expand/output", {1, 6, 6, 192}},
      {kDepthwise, "block9/depthwise/output", {1, 6, 6, 192}},
      {kConv, "block9/project/output", {1, 6, 6, 32}},
      {kAdd, "block9/add/output", {1, 6, 6, 32}},
      // The head without its 1x1 CONV_2D (below stage 7).
      {BuiltinOp::kAveragePool2d, "pool/output", {1, 1, 1, 32}},
      {BuiltinOp::kReshape, "reshape/output", {1, 32}},
      {BuiltinOp::kFullyConnected, "fc/output", {1, 10}},
      {BuiltinOp::kSoftmax, "softmax/output", {1, 10}},
  };
}

// The output channels of each stage's last block and of head/conv.
std::vector<int32_t> StageChannels(const Built& built) {
  std::vector<int32_t> channels;
  const SubgraphView main = built.main();
  for (size_t i = 0; i < main.operator_count(); ++i) {
    const std::string name = built.output_of(i).name();
    const bool project = name.find("/project/output") != std::string::npos;
    if (project || name == "head/conv/output") channels.push_back(built.shape_of(built.output_of(i))[3]);
  }
  return channels;
}

TEST(MobileNetV2ModelTest, SmallVariantHasTheSpecifiedOps) {
  const Built built = Build(SmallOptions());
  ASSERT_NE(built.model, nullptr);
  const std::vector<ExpectedOp> expected = SmallVariantOps();
  ASSERT_EQ(built.model->subgraph_count(), 1u);
  ASSERT_EQ(built.main().operator_count(), expected.size());
  ASSERT_EQ(built.main().inputs().size(), 1u);
  const TensorView input = built.main().tensor(static_cast<size_t>(built.main().inputs()[0]));
  EXPECT_STREQ(input.name(), "input");
  EXPECT_EQ(built.shape_of(input), (std::vector<int32_t>{1, 96, 96, 3}));
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("op " + std::to_string(i) + " " + expected[i].output);
    EXPECT_EQ(built.main().op(i).code(), expected[i].op);
    const TensorView output = built.output_of(i);
    EXPECT_EQ(output.name(), expected[i].output);
    EXPECT_EQ(output.type(), TensorType::kInt8);
    EXPECT_EQ(built.shape_of(output), expected[i].shape);
  }
  ASSERT_EQ(built.main().outputs().size(), 1u);
  EXPECT_EQ(built.main().outputs()[0], built.main().op(expected.size() - 1).outputs()[0]);
}

TEST(MobileNetV2ModelTest, BlocksReadWhatTheirSpecificationSays) {
  const Built built = Build(SmallOptions());
  ASSERT_NE(built.model, nullptr);
  const SubgraphView main = built.main();
  std::map<std::string, int32_t> produced;  // output name -> tensor index
  produced["input"] = main.inputs()[0];
  for (size_t i = 0; i < main.operator_count(); ++i) {
    produced[built.output_of(i).name()] = main.op(i).outputs()[0];
  }
  // Each ADD sums its block's input (the previous block's output) and its projection.
  const std::vector<std::vector<std::string>> adds = {{"block2", "block1/project"}, {"block4", "block3/project"},
                                                      {"block5", "block4/add"},     {"block7", "block6/project"},
                                                      {"block8", "block7/add"},     {"block9", "block8/add"}};
  for (size_t i = 0; i < main.operator_count(); ++i) {
    const OperatorView op = main.op(i);
    if (op.code() != BuiltinOp::kAdd) continue;
    const std::string name = built.output_of(i).name();
    const std::string block = name.substr(0, name.find('/'));
    SCOPED_TRACE(name);
    std::string block_input;
    for (const std::vector<std::string>& add : adds) {
      if (add[0] == block) block_input = add[1] + "/output";
    }
    ASSERT_FALSE(block_input.empty()) << "an ADD the specification does not have";
    ASSERT_EQ(op.inputs().size(), 2u);
    EXPECT_EQ(op.inputs()[0], produced[block_input]);
    EXPECT_EQ(op.inputs()[1], produced[block + "/project/output"]);
    // The expansion reads the block's input too.
    EXPECT_EQ(main.op(i - 3).inputs()[0], produced[block_input]);
  }
}

TEST(MobileNetV2ModelTest, HasTheSpecifiedOptions) {
  const Built built = Build(SmallOptions());
  ASSERT_NE(built.model, nullptr);
  const SubgraphView main = built.main();
  for (size_t i = 0; i < main.operator_count(); ++i) {
    const OperatorView op = main.op(i);
    const std::string name = built.output_of(i).name();
    SCOPED_TRACE(name);
    const bool after_pad = i > 0 && main.op(i - 1).code() == BuiltinOp::kPad;
    switch (op.code()) {
      case BuiltinOp::kConv2d: {
        const tflite::Conv2DOptions* options = op.raw()->builtin_options_as_Conv2DOptions();
        ASSERT_NE(options, nullptr);
        const bool project = name.find("/project/") != std::string::npos;
        EXPECT_EQ(options->fused_activation_function(),
                  project ? tflite::ActivationFunctionType::NONE : tflite::ActivationFunctionType::RELU6);
        EXPECT_EQ(options->stride_h(), after_pad ? 2 : 1);
        EXPECT_EQ(options->stride_w(), after_pad ? 2 : 1);
        EXPECT_EQ(options->padding(), after_pad ? tflite::Padding::VALID : tflite::Padding::SAME);
        break;
      }
      case BuiltinOp::kDepthwiseConv2d: {
        const tflite::DepthwiseConv2DOptions* options = op.raw()->builtin_options_as_DepthwiseConv2DOptions();
        ASSERT_NE(options, nullptr);
        EXPECT_EQ(options->fused_activation_function(), tflite::ActivationFunctionType::RELU6);
        EXPECT_EQ(options->depth_multiplier(), 1);
        EXPECT_EQ(options->stride_h(), after_pad ? 2 : 1);
        EXPECT_EQ(options->stride_w(), after_pad ? 2 : 1);
        EXPECT_EQ(options->padding(), after_pad ? tflite::Padding::VALID : tflite::Padding::SAME);
        break;
      }
      case BuiltinOp::kPad: {
        // Every size before a stride-2 window here is even: correct_pad is (0, 1).
        ASSERT_EQ(op.inputs().size(), 2u);
        const TensorView paddings = main.tensor(static_cast<size_t>(op.inputs()[1]));
        ASSERT_TRUE(paddings.is_constant());
        EXPECT_EQ(paddings.type(), TensorType::kInt32);
        EXPECT_EQ(built.shape_of(paddings), (std::vector<int32_t>{4, 2}));
        std::vector<int32_t> values(8);
        ASSERT_EQ(paddings.data().size(), 32u);
        std::memcpy(values.data(), paddings.data().data(), 32);
        EXPECT_EQ(values, (std::vector<int32_t>{0, 0, 0, 1, 0, 1, 0, 0}));
        break;
      }
      case BuiltinOp::kAveragePool2d: {
        const tflite::Pool2DOptions* options = op.raw()->builtin_options_as_Pool2DOptions();
        ASSERT_NE(options, nullptr);
        EXPECT_EQ(options->filter_height(), 6);
        EXPECT_EQ(options->filter_width(), 6);
        EXPECT_EQ(options->padding(), tflite::Padding::VALID);
        break;
      }
      case BuiltinOp::kAdd: {
        const tflite::AddOptions* options = op.raw()->builtin_options_as_AddOptions();
        ASSERT_NE(options, nullptr);
        EXPECT_EQ(options->fused_activation_function(), tflite::ActivationFunctionType::NONE);
        break;
      }
      default:
        break;
    }
  }
}

TEST(MobileNetV2ModelTest, OddSizesArePaddedBeforeAndAfter) {
  // Keras's correct_pad: (1, 1) for an odd size. 33 -> 35 -> 17 (stem), 17 -> 19 -> 9 (stage 2).
  MobileNetV2Options options = SmallOptions();
  options.input_size = 33;
  options.last_stage = 2;
  const Built built = Build(options);
  ASSERT_NE(built.model, nullptr);
  const SubgraphView main = built.main();
  std::vector<std::vector<int32_t>> pad_shapes;
  for (size_t i = 0; i < main.operator_count(); ++i) {
    if (main.op(i).code() != BuiltinOp::kPad) continue;
    pad_shapes.push_back(built.shape_of(built.output_of(i)));
    std::vector<int32_t> values(8);
    std::memcpy(values.data(), main.tensor(static_cast<size_t>(main.op(i).inputs()[1])).data().data(), 32);
    EXPECT_EQ(values, (std::vector<int32_t>{0, 0, 1, 1, 1, 1, 0, 0}));
  }
  EXPECT_EQ(pad_shapes, (std::vector<std::vector<int32_t>>{{1, 35, 35, 3}, {1, 19, 19, 48}}));
  EXPECT_EQ(built.shape_of(built.output_of(1)), (std::vector<int32_t>{1, 17, 17, 16}));
}

TEST(MobileNetV2ModelTest, ChannelsAreRoundedAsKerasDoes) {
  // Keras's MobileNetV2 at alpha 0.35, 1.0 and 1.4: the last block of each of
  // the 7 stages, then the head (1280 grows only above alpha 1).
  const std::map<int32_t, std::vector<int32_t>> expected = {
      {35, {8, 8, 16, 24, 32, 56, 112, 1280}},
      {100, {16, 24, 32, 64, 96, 160, 320, 1280}},
      {140, {24, 32, 48, 88, 136, 224, 448, 1792}},
  };
  for (const auto& [width, channels] : expected) {
    SCOPED_TRACE("width " + std::to_string(width));
    MobileNetV2Options options;
    options.input_size = 32;
    options.width_percent = width;
    options.classes = 10;
    const Built built = Build(options);
    ASSERT_NE(built.model, nullptr);
    std::vector<int32_t> stage_last;
    const std::vector<int32_t> all = StageChannels(built);
    // Blocks per stage: 1, 2, 3, 4, 3, 3, 1 (17 projections), then the head.
    ASSERT_EQ(all.size(), 18u);
    for (size_t last : {0u, 2u, 5u, 9u, 12u, 15u, 16u, 17u}) stage_last.push_back(all[last]);
    EXPECT_EQ(stage_last, channels);
    EXPECT_EQ(built.shape_of(built.output_of(1))[3], width == 35 ? 16 : width == 100 ? 32 : 48) << "stem";
  }
}

// TFLite's int8 rules, op by op, and the converter's operator versions.
TEST(MobileNetV2ModelTest, IsQuantizedByTheInt8Rules) {
  const Built built = Build(SmallOptions());
  ASSERT_NE(built.model, nullptr);
  const SubgraphView main = built.main();
  const std::map<BuiltinOp, int32_t> versions = {
      {BuiltinOp::kConv2d, 3},        {BuiltinOp::kDepthwiseConv2d, 3}, {BuiltinOp::kPad, 2},
      {BuiltinOp::kAdd, 2},           {BuiltinOp::kAveragePool2d, 2},   {BuiltinOp::kReshape, 1},
      {BuiltinOp::kFullyConnected, 4}, {BuiltinOp::kSoftmax, 2}};
  EXPECT_EQ(built.model->operator_code_count(), versions.size());
  for (size_t i = 0; i < main.operator_count(); ++i) {
    const OperatorView op = main.op(i);
    const TensorView input = main.tensor(static_cast<size_t>(op.inputs()[0]));
    const TensorView output = built.output_of(i);
    SCOPED_TRACE(output.name());
    EXPECT_EQ(op.version(), versions.at(op.code()));
    ASSERT_EQ(input.quantization().channel_count(), 1u);
    ASSERT_EQ(output.quantization().channel_count(), 1u);
    const double input_scale = input.quantization().scale(0);
    const double output_scale = output.quantization().scale(0);
    const int64_t output_zero_point = output.quantization().zero_point(0);
    EXPECT_GT(output_scale, 0.0);
    EXPECT_GE(output_zero_point, -128);
    EXPECT_LE(output_zero_point, 127);
    const std::string name = output.name();
    switch (op.code()) {
      case BuiltinOp::kConv2d:
      case BuiltinOp::kDepthwiseConv2d: {
        const TensorView filter = main.tensor(static_cast<size_t>(op.inputs()[1]));
        const TensorView bias = main.tensor(static_cast<size_t>(op.inputs()[2]));
        const size_t channels = static_cast<size_t>(built.shape_of(output)[3]);
        ASSERT_EQ(filter.quantization().channel_count(), channels);
        EXPECT_EQ(filter.quantization().quantized_dimension(), op.code() == BuiltinOp::kConv2d ? 0 : 3);
        ASSERT_EQ(bias.quantization().channel_count(), channels);
        EXPECT_EQ(bias.type(), TensorType::kInt32);
        for (size_t c = 0; c < channels; ++c) {
          EXPECT_EQ(filter.quantization().zero_point(c), 0);
          const double product = input_scale * filter.quantization().scale(c);
          EXPECT_NEAR(bias.quantization().scale(c), product, product * 1e-6);
          EXPECT_LT(product / output_scale, 1.0) << "the requantization multiplier of a realistic layer";
        }
        if (name.find("/project/") != std::string::npos) {
          // Linear: a range about symmetric around 0.
          EXPECT_GE(output_zero_point, -2);
          EXPECT_LE(output_zero_point, 1);
        } else {
          // RELU6: [0, at most 6].
          EXPECT_EQ(output_zero_point, -128);
          EXPECT_LE(output_scale * 255.0, 6.0 * (1.0 + 1e-6));
        }
        break;
      }
      case BuiltinOp::kPad:
      case BuiltinOp::kAveragePool2d:
      case BuiltinOp::kReshape:
        EXPECT_EQ(output_scale, input_scale) << "padding, pooling and reshaping keep the quantization";
        EXPECT_EQ(output_zero_point, input.quantization().zero_point(0));
        break;
      case BuiltinOp::kAdd: {
        // Its own range, wider than either input's.
        const TensorView other = main.tensor(static_cast<size_t>(op.inputs()[1]));
        EXPECT_GT(output_scale, input_scale);
        EXPECT_GT(output_scale, other.quantization().scale(0));
        break;
      }
      case BuiltinOp::kSoftmax:
        EXPECT_EQ(output_scale, 1.0 / 256.0);
        EXPECT_EQ(output_zero_point, -128);
        break;
      default:
        break;
    }
  }
}

TEST(MobileNetV2ModelTest, DefaultIsTheFull224Model) {
  const Built built = Build(MobileNetV2Options());
  ASSERT_NE(built.model, nullptr);
  const SubgraphView main = built.main();
  std::map<BuiltinOp, int> counts;
  size_t weights = 0;
  size_t biases = 0;
  for (size_t i = 0; i < main.operator_count(); ++i) ++counts[main.op(i).code()];
  for (size_t t = 0; t < main.tensor_count(); ++t) {
    const TensorView tensor = main.tensor(t);
    if (!tensor.is_constant()) continue;
    if (tensor.type() == TensorType::kInt8) weights += tensor.byte_size();
    if (std::string(tensor.name()).find("/bias") != std::string::npos) biases += tensor.byte_size() / 4;
  }
  // Stem 2; block0 2; blocks 1-16 3 each plus 4 PADs (stages 2, 3, 4, 6) and
  // 10 ADDs (1 + 2 + 3 + 2 + 2 + 2 + 0); head 5.
  EXPECT_EQ(main.operator_count(), 71u);
  EXPECT_EQ(counts[BuiltinOp::kConv2d], 35);
  EXPECT_EQ(counts[BuiltinOp::kDepthwiseConv2d], 17);
  EXPECT_EQ(counts[BuiltinOp::kPad], 5);
  EXPECT_EQ(counts[BuiltinOp::kAdd], 10);
  EXPECT_EQ(built.shape_of(main.tensor(static_cast<size_t>(main.inputs()[0]))), (std::vector<int32_t>{1, 224, 224, 3}));
  EXPECT_EQ(built.shape_of(main.tensor(static_cast<size_t>(main.outputs()[0]))), (std::vector<int32_t>{1, 1000}));
  // Keras's MobileNetV2 has 3,538,984 parameters: 3,469,760 convolution and
  // dense weights, 1,000 dense biases and 4 x 17,056 of batch normalizations
  // (one per convolution output channel), which fold into 17,056 biases.
  EXPECT_EQ(weights, 3469760u);
  EXPECT_EQ(biases, 17056u + 1000u);
  EXPECT_LT(built.bytes.size(), 4u << 20);
}

TEST(MobileNetV2ModelTest, GenerationIsDeterministic) {
  const Built first = Build(SmallOptions());
  ASSERT_FALSE(first.bytes.empty());
  EXPECT_EQ(Build(SmallOptions()).bytes, first.bytes);
  MobileNetV2Options reseeded = SmallOptions();
  reseeded.seed += 1;
  const Built other = Build(reseeded);
  EXPECT_EQ(other.bytes.size(), first.bytes.size()) << "the seed changes values, not the graph";
  EXPECT_NE(other.bytes, first.bytes);
}

TEST(MobileNetV2ModelTest, RejectsOptionsOutOfRange) {
  struct Case {
    const char* option;
    MobileNetV2Options options;
  };
  std::vector<Case> cases;
  const auto with = [&](const char* option, auto set) {
    MobileNetV2Options options = SmallOptions();
    set(options);
    cases.push_back({option, options});
  };
  with("input_size", [](MobileNetV2Options& o) { o.input_size = 31; });
  with("input_size", [](MobileNetV2Options& o) { o.input_size = 1025; });
  with("width_percent", [](MobileNetV2Options& o) { o.width_percent = 0; });
  with("width_percent", [](MobileNetV2Options& o) { o.width_percent = 201; });
  with("classes", [](MobileNetV2Options& o) { o.classes = 0; });
  with("classes", [](MobileNetV2Options& o) { o.classes = -5; });
  with("last_stage", [](MobileNetV2Options& o) { o.last_stage = 0; });
  with("last_stage", [](MobileNetV2Options& o) { o.last_stage = 8; });
  for (const Case& c : cases) {
    Result<std::vector<uint8_t>> result = BuildMobileNetV2Model(c.options);
    ASSERT_FALSE(result.ok()) << c.option;
    EXPECT_EQ(result.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(result.status().message()).find(c.option), std::string::npos)
        << result.status().message();
  }
  // The ends of the ranges are accepted.
  MobileNetV2Options smallest = SmallOptions();
  smallest.input_size = 32;
  smallest.width_percent = 10;
  smallest.classes = 1;
  smallest.last_stage = 1;
  EXPECT_TRUE(BuildMobileNetV2Model(smallest).ok());
}

}  // namespace
}  // namespace microarena
