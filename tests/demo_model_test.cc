// The demo model: it loads, has the shapes and op sequence of its specification
// (expected values worked out by hand below, not read from the generator), is
// quantized by TFLite's int8 rules, and is the same bytes on every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "microarena/model/demo_model.h"
#include "microarena/model/model_view.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

struct ExpectedTensor {
  std::string name;
  TensorType type;
  std::vector<int32_t> shape;
  size_t byte_size;
  bool constant;
};

// From the specification: input 49x10x1; CONV_2D 10x4 stride 2 SAME to
// ceil(49/2) x ceil(10/2) = 25x5 with 64 channels (25*5*64 = 8000 bytes); four
// blocks of DEPTHWISE_CONV_2D 3x3 + CONV_2D 1x1 keeping 25x5x64; AVERAGE_POOL_2D
// 25x5 to 1x1x1x64; RESHAPE to 1x64; FULLY_CONNECTED to 12; SOFTMAX.
std::vector<ExpectedTensor> ExpectedTensors() {
  std::vector<ExpectedTensor> tensors = {
      {"input", TensorType::kInt8, {1, 49, 10, 1}, 490, false},
      {"conv1/weights", TensorType::kInt8, {64, 10, 4, 1}, 2560, true},
      {"conv1/bias", TensorType::kInt32, {64}, 256, true},
      {"conv1/output", TensorType::kInt8, {1, 25, 5, 64}, 8000, false},
  };
  for (const char* block : {"1", "2", "3", "4"}) {
    const std::string dw = std::string("dw") + block;
    const std::string pw = std::string("pw") + block;
    tensors.push_back({dw + "/weights", TensorType::kInt8, {1, 3, 3, 64}, 576, true});
    tensors.push_back({dw + "/bias", TensorType::kInt32, {64}, 256, true});
    tensors.push_back({dw + "/output", TensorType::kInt8, {1, 25, 5, 64}, 8000, false});
    tensors.push_back({pw + "/weights", TensorType::kInt8, {64, 1, 1, 64}, 4096, true});
    tensors.push_back({pw + "/bias", TensorType::kInt32, {64}, 256, true});
    tensors.push_back({pw + "/output", TensorType::kInt8, {1, 25, 5, 64}, 8000, false});
  }
  tensors.push_back({"pool/output", TensorType::kInt8, {1, 1, 1, 64}, 64, false});
  tensors.push_back({"reshape/shape", TensorType::kInt32, {2}, 8, true});
  tensors.push_back({"reshape/output", TensorType::kInt8, {1, 64}, 64, false});
  tensors.push_back({"fc/weights", TensorType::kInt8, {12, 64}, 768, true});
  tensors.push_back({"fc/bias", TensorType::kInt32, {12}, 48, true});
  tensors.push_back({"fc/output", TensorType::kInt8, {1, 12}, 12, false});
  tensors.push_back({"softmax/output", TensorType::kInt8, {1, 12}, 12, false});
  return tensors;
}

class DemoModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = BuildDemoModel();
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes_.data(), bytes_.size()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    model_ = std::make_unique<ModelView>(*model);
  }

  SubgraphView main() const { return model_->subgraph(0); }

  // The tensor named `name`; fails the test when absent.
  TensorView Tensor(const std::string& name) const {
    for (size_t t = 0; t < main().tensor_count(); ++t) {
      if (name == main().tensor(t).name()) return main().tensor(t);
    }
    ADD_FAILURE() << "no tensor named " << name;
    return main().tensor(0);
  }

  std::vector<uint8_t> bytes_;
  std::unique_ptr<ModelView> model_;
};

TEST_F(DemoModelTest, HasTheSpecifiedTensors) {
  const std::vector<ExpectedTensor> expected = ExpectedTensors();
  ASSERT_EQ(expected.size(), 35u);  // 1 + 3 + 4 * 6 + 1 + 2 + 3 + 1
  ASSERT_EQ(model_->subgraph_count(), 1u);
  ASSERT_EQ(main().tensor_count(), expected.size());
  for (const ExpectedTensor& want : expected) {
    SCOPED_TRACE(want.name);
    TensorView tensor = Tensor(want.name);
    EXPECT_EQ(tensor.type(), want.type);
    EXPECT_EQ(std::vector<int32_t>(tensor.shape().begin(), tensor.shape().end()), want.shape);
    EXPECT_EQ(tensor.byte_size(), want.byte_size);
    EXPECT_EQ(tensor.is_constant(), want.constant);
    if (want.constant) EXPECT_EQ(tensor.data().size(), want.byte_size);
    EXPECT_FALSE(tensor.is_variable());
  }
  ASSERT_EQ(main().inputs().size(), 1u);
  EXPECT_STREQ(main().tensor(static_cast<size_t>(main().inputs()[0])).name(), "input");
  ASSERT_EQ(main().outputs().size(), 1u);
  EXPECT_STREQ(main().tensor(static_cast<size_t>(main().outputs()[0])).name(), "softmax/output");
}

TEST_F(DemoModelTest, HasTheSpecifiedOpSequence) {
  // 1 conv + 4 * (depthwise + pointwise) + pool + reshape + fully connected + softmax.
  const std::vector<BuiltinOp> expected = {
      BuiltinOp::kConv2d,          BuiltinOp::kDepthwiseConv2d, BuiltinOp::kConv2d,
      BuiltinOp::kDepthwiseConv2d, BuiltinOp::kConv2d,          BuiltinOp::kDepthwiseConv2d,
      BuiltinOp::kConv2d,          BuiltinOp::kDepthwiseConv2d, BuiltinOp::kConv2d,
      BuiltinOp::kAveragePool2d,   BuiltinOp::kReshape,         BuiltinOp::kFullyConnected,
      BuiltinOp::kSoftmax};
  ASSERT_EQ(expected.size(), 13u);
  ASSERT_EQ(main().operator_count(), expected.size());
  EXPECT_EQ(model_->operator_code_count(), 6u);  // deduplicated
  const std::vector<std::string> outputs = {"conv1/output", "dw1/output", "pw1/output", "dw2/output",
                                            "pw2/output",   "dw3/output", "pw3/output", "dw4/output",
                                            "pw4/output",   "pool/output", "reshape/output", "fc/output",
                                            "softmax/output"};
  int32_t previous_output = main().inputs()[0];
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("op " + std::to_string(i));
    OperatorView op = main().op(i);
    EXPECT_EQ(op.code(), expected[i]);
    ASSERT_GE(op.inputs().size(), 1u);
    ASSERT_EQ(op.outputs().size(), 1u);
    EXPECT_EQ(op.inputs()[0], previous_output) << "each op reads the previous op's output";
    EXPECT_STREQ(main().tensor(static_cast<size_t>(op.outputs()[0])).name(), outputs[i].c_str());
    previous_output = op.outputs()[0];
  }
}

TEST_F(DemoModelTest, HasTheSpecifiedOptions) {
  const tflite::Conv2DOptions* conv1 = main().op(0).raw()->builtin_options_as_Conv2DOptions();
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(conv1->padding(), tflite::Padding::SAME);
  EXPECT_EQ(conv1->stride_w(), 2);
  EXPECT_EQ(conv1->stride_h(), 2);
  EXPECT_EQ(conv1->fused_activation_function(), tflite::ActivationFunctionType::RELU);
  for (size_t block = 0; block < 4; ++block) {
    SCOPED_TRACE("block " + std::to_string(block + 1));
    const auto* depthwise = main().op(1 + 2 * block).raw()->builtin_options_as_DepthwiseConv2DOptions();
    ASSERT_NE(depthwise, nullptr);
    EXPECT_EQ(depthwise->padding(), tflite::Padding::SAME);
    EXPECT_EQ(depthwise->stride_w(), 1);
    EXPECT_EQ(depthwise->stride_h(), 1);
    EXPECT_EQ(depthwise->depth_multiplier(), 1);
    EXPECT_EQ(depthwise->fused_activation_function(), tflite::ActivationFunctionType::RELU);
    const auto* pointwise = main().op(2 + 2 * block).raw()->builtin_options_as_Conv2DOptions();
    ASSERT_NE(pointwise, nullptr);
    EXPECT_EQ(pointwise->stride_w(), 1);
    EXPECT_EQ(pointwise->fused_activation_function(), tflite::ActivationFunctionType::RELU);
  }
  const tflite::Pool2DOptions* pool = main().op(9).raw()->builtin_options_as_Pool2DOptions();
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->filter_height(), 25);
  EXPECT_EQ(pool->filter_width(), 5);
  EXPECT_EQ(pool->padding(), tflite::Padding::VALID);
  const tflite::ReshapeOptions* reshape = main().op(10).raw()->builtin_options_as_ReshapeOptions();
  ASSERT_NE(reshape, nullptr);
  ASSERT_NE(reshape->new_shape(), nullptr);
  EXPECT_EQ(reshape->new_shape()->size(), 2u);
  const auto* shape_data = reinterpret_cast<const int32_t*>(Tensor("reshape/shape").data().data());
  EXPECT_EQ(shape_data[0], 1);
  EXPECT_EQ(shape_data[1], 64);
  const auto* fc = main().op(11).raw()->builtin_options_as_FullyConnectedOptions();
  ASSERT_NE(fc, nullptr);
  EXPECT_EQ(fc->fused_activation_function(), tflite::ActivationFunctionType::NONE);
  const tflite::SoftmaxOptions* softmax = main().op(12).raw()->builtin_options_as_SoftmaxOptions();
  ASSERT_NE(softmax, nullptr);
  EXPECT_FLOAT_EQ(softmax->beta(), 1.0f);
}

// TFLite's int8 rules, checked op by op.
TEST_F(DemoModelTest, IsQuantizedByTheInt8Rules) {
  for (size_t i = 0; i < main().operator_count(); ++i) {
    OperatorView op = main().op(i);
    SCOPED_TRACE(std::string("op ") + std::to_string(i) + " " + op.name());
    TensorView input = main().tensor(static_cast<size_t>(op.inputs()[0]));
    TensorView output = main().tensor(static_cast<size_t>(op.outputs()[0]));
    ASSERT_EQ(input.quantization().channel_count(), 1u);
    ASSERT_EQ(output.quantization().channel_count(), 1u);
    const float input_scale = input.quantization().scale(0);
    const float output_scale = output.quantization().scale(0);
    EXPECT_GT(output_scale, 0.0f);
    const int64_t output_zero_point = output.quantization().zero_point(0);
    EXPECT_GE(output_zero_point, -128);
    EXPECT_LE(output_zero_point, 127);

    const bool has_filter = op.code() == BuiltinOp::kConv2d || op.code() == BuiltinOp::kDepthwiseConv2d ||
                            op.code() == BuiltinOp::kFullyConnected;
    if (has_filter) {
      ASSERT_EQ(op.inputs().size(), 3u);
      TensorView filter = main().tensor(static_cast<size_t>(op.inputs()[1]));
      TensorView bias = main().tensor(static_cast<size_t>(op.inputs()[2]));
      QuantizationView filter_q = filter.quantization();
      QuantizationView bias_q = bias.quantization();
      const size_t channels = static_cast<size_t>(output.shape()[output.rank() - 1]);
      if (op.code() == BuiltinOp::kFullyConnected) {
        EXPECT_EQ(filter_q.channel_count(), 1u) << "per tensor, the converter's default for dense layers";
      } else {
        EXPECT_EQ(filter_q.channel_count(), channels);
        EXPECT_EQ(filter_q.quantized_dimension(), op.code() == BuiltinOp::kDepthwiseConv2d ? 3 : 0);
      }
      ASSERT_EQ(bias_q.channel_count(), filter_q.channel_count());
      EXPECT_EQ(bias_q.quantized_dimension(), 0);
      for (size_t c = 0; c < filter_q.channel_count(); ++c) {
        EXPECT_EQ(filter_q.zero_point(c), 0) << "weights are symmetric";
        EXPECT_EQ(bias_q.zero_point(c), 0);
        const double product = static_cast<double>(input_scale) * static_cast<double>(filter_q.scale(c));
        EXPECT_NEAR(bias_q.scale(c), product, product * 1e-6) << "bias scale = input scale x weight scale";
        // The requantization multiplier of a realistic layer is below 1.
        const double multiplier = product / static_cast<double>(output_scale);
        EXPECT_GT(multiplier, 0.0);
        EXPECT_LT(multiplier, 1.0);
      }
      // Weights use [-127, 127]; every channel reaches 127 in magnitude (max-abs scaling).
      const auto* values = reinterpret_cast<const int8_t*>(filter.data().data());
      std::vector<int> channel_max(filter_q.channel_count(), 0);
      const size_t count = filter.byte_size();
      const size_t per_row = count / static_cast<size_t>(filter.shape()[0]);
      for (size_t k = 0; k < count; ++k) {
        EXPECT_NE(values[k], -128);
        size_t channel = 0;
        if (filter_q.channel_count() > 1) {
          channel = op.code() == BuiltinOp::kDepthwiseConv2d ? k % channels : k / per_row;
        }
        channel_max[channel] = std::max(channel_max[channel], std::abs(static_cast<int>(values[k])));
      }
      for (int max_magnitude : channel_max) EXPECT_EQ(max_magnitude, 127);
    }
    switch (op.code()) {
      case BuiltinOp::kConv2d:
      case BuiltinOp::kDepthwiseConv2d:
        EXPECT_EQ(output_zero_point, -128) << "a RELU output starts at the lowest int8 value";
        break;
      case BuiltinOp::kAveragePool2d:
      case BuiltinOp::kReshape:
        EXPECT_EQ(output_scale, input_scale) << "pooling and reshaping keep the quantization";
        EXPECT_EQ(output_zero_point, input.quantization().zero_point(0));
        break;
      case BuiltinOp::kSoftmax:
        EXPECT_EQ(output_scale, 1.0f / 256.0f);
        EXPECT_EQ(output_zero_point, -128);
        break;
      default:
        break;
    }
  }
}

TEST_F(DemoModelTest, TotalsMatchTheSpecification) {
  size_t weight_bytes = 0;
  size_t largest_activation_bytes = 0;
  for (size_t t = 0; t < main().tensor_count(); ++t) {
    TensorView tensor = main().tensor(t);
    if (tensor.is_constant()) {
      weight_bytes += tensor.byte_size();
    } else {
      largest_activation_bytes = std::max(largest_activation_bytes, tensor.byte_size());
    }
  }
  // conv1 2560 + 256; 4 x (576 + 256 + 4096 + 256); shape 8; fc 768 + 48.
  EXPECT_EQ(weight_bytes, 2816u + 4u * 5184u + 8u + 816u);
  EXPECT_EQ(largest_activation_bytes, 8000u);
  EXPECT_LT(bytes_.size(), 64u * 1024u) << "fits the flash budget of the classic case";
}

TEST_F(DemoModelTest, GenerationIsDeterministic) {
  EXPECT_EQ(BuildDemoModel(), bytes_);
  EXPECT_EQ(BuildDemoModel(), BuildDemoModel());
}

TEST(DemoModelCliTest, WritesTheModel) {
  const std::string dir = testing::TempDir("demo_model_cli");
  const std::string path = dir + "/demo.tflite";
  testing::CommandResult result = testing::RunCli({"demo-model", "-o", path});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::vector<uint8_t> written = testing::ReadFileBytes(path);
  EXPECT_EQ(written, BuildDemoModel());
  EXPECT_NE(result.stdout_text.find(path), std::string::npos) << result.stdout_text;
  EXPECT_NE(result.stdout_text.find(std::to_string(written.size()) + " bytes"), std::string::npos)
      << result.stdout_text;
  EXPECT_NE(result.stdout_text.find("13 ops"), std::string::npos) << result.stdout_text;
}

TEST(DemoModelCliTest, ReportsAnUnwritablePath) {
  const std::string path = testing::TempDir("demo_model_cli_bad") + "/missing/dir/demo.tflite";
  testing::CommandResult result = testing::RunCli({"demo-model", "-o", path});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.stderr_text.rfind("error: " + path + ": ", 0), 0u) << result.stderr_text;
}

TEST(DemoModelCliTest, HelpSaysWhatTheModelIs) {
  testing::CommandResult result = testing::RunCli({"demo-model", "--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.stdout_text.find("DS-CNN"), std::string::npos) << result.stdout_text;
  EXPECT_NE(result.stdout_text.find("1x49x10x1"), std::string::npos) << result.stdout_text;
}

}  // namespace
}  // namespace microarena
