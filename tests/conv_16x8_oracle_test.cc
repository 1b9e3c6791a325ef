// Differential tests of 16x8 CONV_2D (int16 input and output, int8 filter,
// int32 or int64 bias or none) against TFLM itself
// (../shared/tools/tflm_oracle): one-op models built here, run in microarena
// and in the oracle, must give the same bytes. Every expected value comes
// from the oracle.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/conv_oracle_support.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::Bytes;
using testing::ElementCount;
using testing::ExpectSameAsOracle;
using testing::OneOp;
using testing::Outcome;
using testing::RunOursOn;
using testing::SpreadValues;

using testing::kSmallArena;

enum class BiasKind { kNone, kInt32, kInt64 };

struct Conv16x8Spec {
  std::vector<int32_t> input;   // NHWC
  std::vector<int32_t> filter;  // OHWI
  std::vector<int32_t> output;  // NHWC
  tflite::Padding padding = tflite::Padding::VALID;
  int32_t stride_h = 1;
  int32_t stride_w = 1;
  int32_t dilation_h = 1;
  int32_t dilation_w = 1;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  BiasKind bias = BiasKind::kInt64;
  bool per_channel = true;
  float input_scale = 0.0009f;
  float filter_scale = 0.009f;
  float output_scale = 0.0017f;
  int64_t input_zero_point = 0;
  int64_t output_zero_point = 0;
  int64_t bias_magnitude = 4000;  // bias values spread over [-m, m]
  TensorType filter_type = TensorType::kInt8;
};

Bytes Conv16x8Model(const Conv16x8Spec& s) {
  OneOp m;
  m.Input(TensorType::kInt16, s.input, s.input_scale, s.input_zero_point);
  const auto channels = static_cast<size_t>(s.filter[0]);
  const std::vector<float> scales =
      s.per_channel ? testing::ChannelScales(channels, s.filter_scale) : std::vector<float>{s.filter_scale};
  const Bytes filter = s.filter_type == TensorType::kInt16 ? BytesOf(SpreadValues<int16_t>(ElementCount(s.filter), 3))
                                                           : BytesOf(SpreadValues<int8_t>(ElementCount(s.filter), 3));
  m.Constant("filter", s.filter_type, s.filter, filter,
             QuantizationSpec::PerChannel(scales, std::vector<int64_t>(scales.size(), 0), 0));
  if (s.bias != BiasKind::kNone) {
    std::vector<int64_t> values;
    for (size_t c = 0; c < channels; ++c) {
      values.push_back(static_cast<int64_t>(c * 7919 % static_cast<size_t>(2 * s.bias_magnitude + 1)) -
                       s.bias_magnitude);
    }
    std::vector<float> bias_scales;
    for (float scale : scales) bias_scales.push_back(scale * s.input_scale);
    const QuantizationSpec bias_quant =
        QuantizationSpec::PerChannel(bias_scales, std::vector<int64_t>(bias_scales.size(), 0), 0);
    if (s.bias == BiasKind::kInt64) {
      m.Constant("bias", TensorType::kInt64, {static_cast<int32_t>(channels)}, BytesOf(values), bias_quant);
    } else {
      m.Constant("bias", TensorType::kInt32, {static_cast<int32_t>(channels)},
                 BytesOf(std::vector<int32_t>(values.begin(), values.end())), bias_quant);
    }
  }
  tflite::Conv2DOptionsT options;
  options.padding = s.padding;
  options.stride_h = s.stride_h;
  options.stride_w = s.stride_w;
  options.dilation_h_factor = s.dilation_h;
  options.dilation_w_factor = s.dilation_w;
  options.fused_activation_function = s.activation;
  return m.Finish(BuiltinOp::kConv2d, MakeBuiltinOptions(options), TensorType::kInt16, s.output, s.output_scale,
                  s.output_zero_point);
}

void ExpectConvSameAsOracle(const std::string& name, const Conv16x8Spec& s) {
  ExpectSameAsOracle(name, Conv16x8Model(s), {BytesOf(SpreadValues<int16_t>(ElementCount(s.input), 1))}, kSmallArena);
}

const char* BiasName(BiasKind bias) {
  return bias == BiasKind::kNone ? "nobias" : bias == BiasKind::kInt32 ? "bias32" : "bias64";
}

// Shapes, strides, paddings and dilations, each with an int64 bias and none
// (int64 sums, the 64-bit rescale) and an int32 bias (the 32-bit rescale).
TEST(Conv16x8OracleTest, GeometriesAndBiasTypesMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  struct Geometry {
    std::vector<int32_t> input, filter, output;
    tflite::Padding padding;
    int32_t stride_h, stride_w, dilation_h, dilation_w;
  };
  const Geometry geometries[] = {
      {{1, 8, 20, 2}, {8, 7, 7, 2}, {1, 2, 14, 8}, tflite::Padding::VALID, 1, 1, 1, 1},
      {{1, 4, 18, 8}, {16, 3, 4, 8}, {1, 2, 8, 16}, tflite::Padding::VALID, 1, 2, 1, 1},
      {{1, 5, 9, 3}, {4, 3, 3, 3}, {1, 5, 9, 4}, tflite::Padding::SAME, 1, 1, 1, 1},
      {{2, 7, 8, 4}, {6, 3, 2, 4}, {2, 3, 4, 6}, tflite::Padding::SAME, 3, 2, 1, 1},
      {{1, 9, 9, 2}, {3, 3, 3, 2}, {1, 9, 9, 3}, tflite::Padding::SAME, 1, 1, 2, 3},
      {{1, 6, 6, 4}, {4, 1, 1, 2}, {1, 6, 6, 4}, tflite::Padding::VALID, 1, 1, 1, 1},  // 2 groups
  };
  int cases = 0;
  for (const Geometry& g : geometries) {
    for (BiasKind bias : {BiasKind::kInt64, BiasKind::kInt32, BiasKind::kNone}) {
      Conv16x8Spec s;
      s.input = g.input;
      s.filter = g.filter;
      s.output = g.output;
      s.padding = g.padding;
      s.stride_h = g.stride_h;
      s.stride_w = g.stride_w;
      s.dilation_h = g.dilation_h;
      s.dilation_w = g.dilation_w;
      s.bias = bias;
      ExpectConvSameAsOracle("conv16x8_geometry_" + std::to_string(cases++) + "_" + BiasName(bias), s);
    }
  }
}

// Per-tensor and per-channel filter scales, the fused clamps, and scales
// whose multipliers are tiny, near one and above one.
TEST(Conv16x8OracleTest, ScalesAndActivationsMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  struct Scales {
    float input, filter, output;
  };
  const Scales scales[] = {
      {0.0009f, 0.009f, 0.0017f}, {0.01f, 0.004f, 0.5f}, {0.02f, 0.03f, 0.0003f}, {1e-6f, 1e-4f, 0.1f}};
  const tflite::ActivationFunctionType activations[] = {
      tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
      tflite::ActivationFunctionType::RELU_N1_TO_1};
  int cases = 0;
  for (const Scales& sc : scales) {
    for (tflite::ActivationFunctionType activation : activations) {
      for (BiasKind bias : {BiasKind::kInt64, BiasKind::kInt32}) {
        for (bool per_channel : {true, false}) {
          Conv16x8Spec s;
          s.input = {1, 4, 6, 3};
          s.filter = {5, 2, 3, 3};
          s.output = {1, 3, 4, 5};
          s.activation = activation;
          s.bias = bias;
          s.per_channel = per_channel;
          s.input_scale = sc.input;
          s.filter_scale = sc.filter;
          s.output_scale = sc.output;
          ExpectConvSameAsOracle("conv16x8_scales_" + std::to_string(cases++), s);
        }
      }
    }
  }
}

// TFLM's 16x8 convolution ignores both zero points (only the clamp bounds
// of a fused activation move with the output's), and so does microarena.
TEST(Conv16x8OracleTest, NonZeroZeroPointsAreIgnoredAsTflmDoes) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (int64_t zp : {int64_t{-300}, int64_t{5}, int64_t{1000}}) {
    for (tflite::ActivationFunctionType activation :
         {tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU}) {
      Conv16x8Spec s;
      s.input = {1, 4, 4, 2};
      s.filter = {3, 2, 2, 2};
      s.output = {1, 3, 3, 3};
      s.input_zero_point = zp;
      s.output_zero_point = -zp / 2;
      s.activation = activation;
      ExpectConvSameAsOracle("conv16x8_zp_" + std::to_string(cases++), s);
    }
  }
}

// Many taps of extreme values: with an int32 bias TFLM sums in int32, which
// wraps past 2^31 (2048 taps of up to 2^22 each); with an int64 bias or none
// it sums in int64. Large biases near the type limits too.
TEST(Conv16x8OracleTest, LongSumsAndLargeBiasesMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (BiasKind bias : {BiasKind::kInt64, BiasKind::kInt32, BiasKind::kNone}) {
    Conv16x8Spec s;
    s.input = {1, 2, 2, 2048};
    s.filter = {2, 1, 1, 2048};
    s.output = {1, 2, 2, 2};
    s.bias = bias;
    s.bias_magnitude = bias == BiasKind::kInt64 ? int64_t{1} << 40 : int64_t{2000000000};
    s.input_scale = 0.001f;
    s.filter_scale = 0.0001f;
    s.output_scale = 0.5f;
    const std::vector<int16_t> extremes(ElementCount(s.input), 32767);
    ExpectSameAsOracle("conv16x8_long_" + std::to_string(cases++), Conv16x8Model(s), {BytesOf(extremes)}, kSmallArena);
    ExpectConvSameAsOracle("conv16x8_long_spread_" + std::to_string(cases++), s);
  }
}

// Our arena for a one-op 16x8 CONV_2D model, and for each of TFLM's seanet
// CONV_2D models: never more than TFLM's minimum for the same model.
TEST(Conv16x8OracleTest, ArenaIsAtMostTflms) {
  MICROARENA_REQUIRE_ORACLE();
  const std::string dir = testing::SharedDir() + "/tflm_integration/seanet/conv";
  for (int k = 0; k <= 20; k += 2) {
    const std::string name = "conv" + std::to_string(k);
    const Bytes model = testing::ReadFileBytes(dir + "/" + name + ".tflite");
    ASSERT_FALSE(model.empty()) << name;
    Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
    ASSERT_TRUE(view.ok()) << view.status().message();
    Result<ArenaFigures> ours = MeasureArena(*view, AllOpsResolver());
    ASSERT_TRUE(ours.ok()) << name << ": " << ours.status().message();
    EXPECT_LE(ours->used_bytes, testing::OracleFigure("seanet_" + name, model, "min_arena_bytes")) << name;
  }
  Conv16x8Spec s;
  s.input = {1, 8, 40, 8};
  s.filter = {16, 3, 4, 8};
  s.output = {1, 6, 19, 16};
  s.stride_w = 2;
  for (BiasKind bias : {BiasKind::kInt64, BiasKind::kInt32, BiasKind::kNone}) {
    s.bias = bias;
    const Bytes model = Conv16x8Model(s);
    Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
    ASSERT_TRUE(view.ok()) << view.status().message();
    Result<ArenaFigures> ours = MeasureArena(*view, AllOpsResolver());
    ASSERT_TRUE(ours.ok()) << ours.status().message();
    const size_t tflm =
        testing::OracleFigure(std::string("conv16x8_arena_") + BiasName(bias), model, "min_arena_bytes");
    EXPECT_LE(ours->used_bytes, tflm) << BiasName(bias);
  }
}

// Types TFLM's CONV_2D does not run are refused at prepare with a message
// naming the op and the types; never a crash.
TEST(Conv16x8OracleTest, UnsupportedTypesAreRefusedClearly) {
  {
    // int16 filter with int16 input: not a TFLM variant.
    Conv16x8Spec s;
    s.input = {1, 3, 3, 1};
    s.filter = {1, 2, 2, 1};
    s.output = {1, 2, 2, 1};
    s.filter_type = TensorType::kInt16;
    const Outcome ours = RunOursOn(Conv16x8Model(s), {BytesOf(SpreadValues<int16_t>(9, 1))});
    ASSERT_FALSE(ours.ok);
    EXPECT_NE(ours.error.find("CONV_2D"), std::string::npos) << ours.error;
    EXPECT_NE(ours.error.find("filter tensor"), std::string::npos) << ours.error;
    EXPECT_NE(ours.error.find("INT16"), std::string::npos) << ours.error;
  }
  {
    // An int16 bias: TFLM's 16x8 CONV_2D takes int32 or int64.
    OneOp m;
    m.Input(TensorType::kInt16, {1, 2, 2, 1}, 0.01f, 0);
    m.Constant("filter", TensorType::kInt8, {1, 1, 1, 1}, Bytes{3}, QuantizationSpec::PerTensor(0.1f, 0));
    m.Constant("bias", TensorType::kInt16, {1}, BytesOf(std::vector<int16_t>{5}),
               QuantizationSpec::PerTensor(0.001f, 0));
    tflite::Conv2DOptionsT options;
    options.padding = tflite::Padding::VALID;
    options.stride_h = options.stride_w = 1;
    const Bytes model =
        m.Finish(BuiltinOp::kConv2d, MakeBuiltinOptions(options), TensorType::kInt16, {1, 2, 2, 1}, 0.01f, 0);
    const Outcome ours = RunOursOn(model, {BytesOf(SpreadValues<int16_t>(4, 1))});
    ASSERT_FALSE(ours.ok);
    EXPECT_NE(ours.error.find("bias tensor"), std::string::npos) << ours.error;
    EXPECT_NE(ours.error.find("INT32 or INT64"), std::string::npos) << ours.error;
  }
  {
    // A multiplier of about 2^16 needs shift 17: beyond the 64-bit rescale
    // (TFLM's shift by 15 - 17 bits is undefined).
    Conv16x8Spec s;
    s.input = {1, 3, 3, 1};
    s.filter = {1, 2, 2, 1};
    s.output = {1, 2, 2, 1};
    s.input_scale = 1.0f;
    s.filter_scale = 1.0f;
    s.output_scale = 1.0f / 65536;
    const Outcome ours = RunOursOn(Conv16x8Model(s), {BytesOf(SpreadValues<int16_t>(9, 1))});
    ASSERT_FALSE(ours.ok);
    EXPECT_NE(ours.error.find("64-bit rescale"), std::string::npos) << ours.error;
  }
  {
    // int16 input with an int8 output.
    OneOp m;
    m.Input(TensorType::kInt16, {1, 2, 2, 1}, 0.01f, 0);
    m.Constant("filter", TensorType::kInt8, {1, 1, 1, 1}, Bytes{3}, QuantizationSpec::PerTensor(0.1f, 0));
    tflite::Conv2DOptionsT options;
    options.padding = tflite::Padding::VALID;
    options.stride_h = options.stride_w = 1;
    const Bytes model =
        m.Finish(BuiltinOp::kConv2d, MakeBuiltinOptions(options), TensorType::kInt8, {1, 2, 2, 1}, 0.01f, 0);
    const Outcome ours = RunOursOn(model, {BytesOf(SpreadValues<int16_t>(4, 1))});
    ASSERT_FALSE(ours.ok);
    EXPECT_NE(ours.error.find("output tensor"), std::string::npos) << ours.error;
  }
}

}  // namespace
}  // namespace microarena
