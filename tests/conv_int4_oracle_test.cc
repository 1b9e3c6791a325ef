// Differential tests of CONV_2D and DEPTHWISE_CONV_2D with INT4 weights
// (int8 activations) against TFLM itself (../shared/tools/tflm_oracle):
// one-op models built here run in both and must give the same bytes.
// TFLM unpacks the whole filter into an arena scratch buffer (one byte per
// weight) at every Invoke; microarena reads the nibbles in place, so its
// arena holds no copy. 16x8 with INT4 weights is refused by both.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
#include "tests/support/conv_oracle_support.h"
#include "tests/support/op_oracle_util.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::Bytes;
using testing::ElementCount;
using testing::ExpectBothRefuse;
using testing::ExpectSameAsOracle;
using testing::kSmallArena;
using testing::OneOp;
using testing::PackedInt4;
using testing::SpreadValues;
using A = tflite::ActivationFunctionType;
using P = tflite::Padding;

struct Int4Conv {
  bool depthwise;
  std::vector<int32_t> input;   // NHWC
  std::vector<int32_t> filter;  // CONV_2D: OHWI; DEPTHWISE_CONV_2D: [1, H, W, out channels]
  std::vector<int32_t> output;  // NHWC
  P padding = P::SAME;
  int32_t stride = 1;
  int32_t dilation = 1;
  A activation = A::NONE;
  bool bias = true;
  bool per_channel = true;
  int64_t input_zero_point = -3;
  int64_t output_zero_point = 2;
  float output_scale = 0.1f;
  TensorType input_type = TensorType::kInt8;
};

int32_t OutputChannels(const Int4Conv& s) { return s.depthwise ? s.filter[3] : s.filter[0]; }

Bytes Model(const Int4Conv& s) {
  OneOp m;
  const float input_scale = 0.05f;
  m.Input(s.input_type, s.input, input_scale, s.input_type == TensorType::kInt8 ? s.input_zero_point : 0);
  const int32_t channels = OutputChannels(s);
  const std::vector<float> scales = s.per_channel ? testing::ChannelScales(static_cast<size_t>(channels), 0.01f)
                                                  : std::vector<float>{0.01f};
  m.Constant("filter", TensorType::kInt4, s.filter, PackedInt4(ElementCount(s.filter), 7),
             QuantizationSpec::PerChannel(scales, std::vector<int64_t>(scales.size(), 0), s.depthwise ? 3 : 0));
  if (s.bias) {
    std::vector<int64_t> bias;
    std::vector<float> bias_scales;
    for (int32_t c = 0; c < channels; ++c) bias.push_back(c * 311 - 900);
    for (float scale : scales) bias_scales.push_back(scale * input_scale);
    const QuantizationSpec quant = QuantizationSpec::PerChannel(bias_scales, std::vector<int64_t>(bias_scales.size(), 0), 0);
    if (s.input_type == TensorType::kInt8) {
      m.Constant("bias", TensorType::kInt32, {channels}, BytesOf(std::vector<int32_t>(bias.begin(), bias.end())), quant);
    } else {
      m.Constant("bias", TensorType::kInt64, {channels}, BytesOf(bias), quant);
    }
  }
  if (s.depthwise) {
    tflite::DepthwiseConv2DOptionsT options;
    options.padding = s.padding;
    options.stride_h = options.stride_w = s.stride;
    options.dilation_h_factor = options.dilation_w_factor = s.dilation;
    options.depth_multiplier = channels / s.input[3];
    options.fused_activation_function = s.activation;
    return m.Finish(BuiltinOp::kDepthwiseConv2d, MakeBuiltinOptions(options), s.input_type, s.output, s.output_scale,
                    s.output_zero_point);
  }
  tflite::Conv2DOptionsT options;
  options.padding = s.padding;
  options.stride_h = options.stride_w = s.stride;
  options.dilation_h_factor = options.dilation_w_factor = s.dilation;
  options.fused_activation_function = s.activation;
  return m.Finish(BuiltinOp::kConv2d, MakeBuiltinOptions(options), s.input_type, s.output, s.output_scale,
                  s.output_zero_point);
}

Bytes Input(const Int4Conv& s) { return BytesOf(SpreadValues<int8_t>(ElementCount(s.input), 1)); }

// Runs each case in both runtimes: the same bytes, and TFLM's arena larger
// than ours by at least its scratch (one byte per weight).
void ExpectCasesMatchTflm(const std::string& prefix, const std::vector<Int4Conv>& cases) {
  int n = 0;
  for (const Int4Conv& s : cases) {
    const std::string name = prefix + std::to_string(n++);
    const Bytes model = Model(s);
    ExpectSameAsOracle(name, model, {Input(s)}, kSmallArena);
    const testing::Outcome tflm = testing::RunOracleOn(name + "_arena", model, {Input(s)}, kSmallArena);
    const testing::Outcome ours = testing::RunOursOn(model, {Input(s)});
    ASSERT_TRUE(tflm.ok && ours.ok) << name << ": " << tflm.error << ours.error;
    EXPECT_GE(tflm.arena_used_bytes, ours.arena_used_bytes + ElementCount(s.filter)) << name;
  }
}

// Geometries (paddings, strides, dilations, groups, batches, a 1x1 filter,
// odd element counts so that filters start mid-byte), activations, no bias,
// per-tensor scales and zero points at the ends of the int8 range.
TEST(ConvInt4OracleTest, Conv2dMatchesTflmWithoutItsScratch) {
  MICROARENA_REQUIRE_ORACLE();
  std::vector<Int4Conv> cases;
  cases.push_back({false, {1, 5, 5, 3}, {4, 3, 3, 3}, {1, 5, 5, 4}});
  cases.push_back({false, {1, 7, 6, 3}, {5, 3, 3, 3}, {1, 3, 2, 5}, P::VALID, 2});
  cases.push_back({false, {2, 9, 9, 2}, {3, 3, 3, 2}, {2, 9, 9, 3}, P::SAME, 1, 2, A::RELU});
  cases.push_back({false, {1, 6, 6, 4}, {6, 3, 3, 2}, {1, 6, 6, 6}, P::SAME, 1, 1, A::RELU6});  // 2 groups
  cases.push_back({false, {1, 4, 4, 7}, {9, 1, 1, 7}, {1, 4, 4, 9}, P::VALID});                    // pointwise
  Int4Conv no_bias{false, {1, 5, 4, 5}, {3, 2, 3, 5}, {1, 5, 4, 3}};
  no_bias.bias = false;
  no_bias.per_channel = false;
  cases.push_back(no_bias);
  Int4Conv extremes{false, {1, 4, 4, 3}, {2, 3, 3, 3}, {1, 4, 4, 2}, P::SAME, 1, 1, A::RELU_N1_TO_1};
  extremes.input_zero_point = 127;
  extremes.output_zero_point = -128;
  extremes.output_scale = 0.01f;
  cases.push_back(extremes);
  ExpectCasesMatchTflm("conv_int4_", cases);
}

// The same for DEPTHWISE_CONV_2D, with depth multipliers 1-3.
TEST(ConvInt4OracleTest, DepthwiseConv2dMatchesTflmWithoutItsScratch) {
  MICROARENA_REQUIRE_ORACLE();
  std::vector<Int4Conv> cases;
  cases.push_back({true, {1, 5, 5, 3}, {1, 3, 3, 3}, {1, 5, 5, 3}});
  cases.push_back({true, {1, 5, 5, 3}, {1, 3, 3, 6}, {1, 5, 5, 6}, P::SAME, 1, 1, A::RELU6});
  cases.push_back({true, {2, 8, 7, 5}, {1, 3, 3, 15}, {2, 3, 3, 15}, P::VALID, 2, 1, A::RELU});
  cases.push_back({true, {1, 9, 9, 7}, {1, 3, 3, 7}, {1, 9, 9, 7}, P::SAME, 1, 2});
  Int4Conv no_bias{true, {1, 6, 5, 9}, {1, 5, 5, 9}, {1, 6, 5, 9}};
  no_bias.bias = false;
  no_bias.per_channel = false;
  cases.push_back(no_bias);
  Int4Conv extremes{true, {1, 4, 4, 3}, {1, 3, 3, 3}, {1, 4, 4, 3}};
  extremes.input_zero_point = -128;
  extremes.output_zero_point = 127;
  extremes.output_scale = 0.02f;
  cases.push_back(extremes);
  ExpectCasesMatchTflm("depthwise_int4_", cases);
}

// 16x8 (INT16 activations) with INT4 weights: TFLM calls it a hybrid model
// and refuses it; so does microarena, naming the filter's type.
TEST(ConvInt4OracleTest, Int16ActivationsWithInt4WeightsAreRefusedByBoth) {
  MICROARENA_REQUIRE_ORACLE();
  for (bool depthwise : {false, true}) {
    Int4Conv s{depthwise, {1, 5, 5, 3}, depthwise ? std::vector<int32_t>{1, 3, 3, 3} : std::vector<int32_t>{4, 3, 3, 3},
               {1, 5, 5, depthwise ? 3 : 4}};
    s.input_type = TensorType::kInt16;
    ExpectBothRefuse(depthwise ? "depthwise_int4_16x8" : "conv_int4_16x8", Model(s),
                     {BytesOf(SpreadValues<int16_t>(ElementCount(s.input), 1))},
                     "filter tensor 1 'filter' is INT4 where INT8 is required");
  }
}

}  // namespace
}  // namespace microarena
