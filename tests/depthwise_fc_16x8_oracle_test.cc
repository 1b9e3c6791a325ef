// Differential tests of 16x8 DEPTHWISE_CONV_2D (int64 bias) and
// FULLY_CONNECTED (int32 or int64 bias) against TFLM itself
// (../shared/tools/tflm_oracle): one-op models built here, run in microarena
// and in the oracle, must give the same bytes. Every expected value comes
// from the oracle.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
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

// Bias values spread over [-2000, 2000], as `type` (INT32 or INT64).
Bytes BiasBytes(TensorType type, size_t n) {
  std::vector<int64_t> values;
  for (size_t c = 0; c < n; ++c) values.push_back(static_cast<int64_t>(c * 7919 % 4001) - 2000);
  if (type == TensorType::kInt32) return BytesOf(std::vector<int32_t>(values.begin(), values.end()));
  return BytesOf(values);
}

struct DepthwiseSpec {
  std::vector<int32_t> input;
  int32_t filter_h, filter_w, depth_multiplier;
  tflite::Padding padding;
  int32_t stride_h, stride_w, dilation_h, dilation_w;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  bool bias = true;
  bool per_channel = true;
  int64_t zero_point = 0;
};

int32_t WindowOut(tflite::Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
  const int32_t effective = (filter - 1) * dilation + 1;
  return padding == tflite::Padding::SAME ? (in + stride - 1) / stride : (in - effective) / stride + 1;
}

Bytes DepthwiseModel(const DepthwiseSpec& s) {
  OneOp m;
  m.Input(TensorType::kInt16, s.input, 0.0009f, s.zero_point);
  const int32_t channels = s.input[3] * s.depth_multiplier;
  const std::vector<int32_t> filter = {1, s.filter_h, s.filter_w, channels};
  const std::vector<float> scales =
      s.per_channel ? testing::ChannelScales(static_cast<size_t>(channels), 0.006f) : std::vector<float>{0.006f};
  m.Constant("filter", TensorType::kInt8, filter, BytesOf(SpreadValues<int8_t>(ElementCount(filter), 3)),
             QuantizationSpec::PerChannel(scales, std::vector<int64_t>(scales.size(), 0), 3));
  if (s.bias) {
    m.Constant("bias", TensorType::kInt64, {channels}, BiasBytes(TensorType::kInt64, static_cast<size_t>(channels)),
               {});
  }
  tflite::DepthwiseConv2DOptionsT options;
  options.padding = s.padding;
  options.stride_h = s.stride_h;
  options.stride_w = s.stride_w;
  options.dilation_h_factor = s.dilation_h;
  options.dilation_w_factor = s.dilation_w;
  options.depth_multiplier = s.depth_multiplier;
  options.fused_activation_function = s.activation;
  const std::vector<int32_t> output = {
      s.input[0], WindowOut(s.padding, s.input[1], s.filter_h, s.stride_h, s.dilation_h),
      WindowOut(s.padding, s.input[2], s.filter_w, s.stride_w, s.dilation_w), channels};
  return m.Finish(BuiltinOp::kDepthwiseConv2d, MakeBuiltinOptions(options), TensorType::kInt16, output, 0.0013f,
                  -s.zero_point);
}

TEST(DepthwiseFc16x8OracleTest, DepthwiseMatchesTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const DepthwiseSpec specs[] = {
      {{1, 6, 7, 4}, 3, 3, 1, tflite::Padding::SAME, 1, 1, 1, 1},
      {{1, 8, 9, 3}, 3, 2, 2, tflite::Padding::VALID, 2, 1, 1, 1},
      {{2, 7, 7, 2}, 2, 3, 3, tflite::Padding::SAME, 2, 3, 1, 1},
      {{1, 9, 9, 2}, 3, 3, 1, tflite::Padding::SAME, 1, 1, 2, 2},
      {{1, 5, 5, 4}, 3, 3, 1, tflite::Padding::VALID, 1, 1, 1, 1, tflite::ActivationFunctionType::RELU6, false},
      {{1, 5, 5, 4}, 3, 3, 1, tflite::Padding::VALID, 1, 1, 1, 1, tflite::ActivationFunctionType::RELU, true, false},
      {{1, 5, 5, 4}, 2, 2, 1, tflite::Padding::SAME, 1, 1, 1, 1, tflite::ActivationFunctionType::RELU, true, true, 9},
  };
  int cases = 0;
  for (const DepthwiseSpec& s : specs) {
    ExpectSameAsOracle("dw16x8_" + std::to_string(cases++), DepthwiseModel(s),
                       {BytesOf(SpreadValues<int16_t>(ElementCount(s.input), 1))}, kSmallArena);
  }
}

// TFLM's 16x8 DEPTHWISE_CONV_2D reads the bias as int64 whatever its type:
// an int32 one is refused here.
TEST(DepthwiseFc16x8OracleTest, DepthwiseInt32BiasIsRefused) {
  OneOp m;
  m.Input(TensorType::kInt16, {1, 3, 3, 2}, 0.01f, 0);
  m.Constant("filter", TensorType::kInt8, {1, 2, 2, 2}, BytesOf(SpreadValues<int8_t>(8, 3)),
             QuantizationSpec::PerTensor(0.01f, 0));
  m.Constant("bias", TensorType::kInt32, {2}, BiasBytes(TensorType::kInt32, 2), {});
  tflite::DepthwiseConv2DOptionsT options;
  options.padding = tflite::Padding::VALID;
  options.stride_h = options.stride_w = 1;
  options.depth_multiplier = 1;
  const Bytes model =
      m.Finish(BuiltinOp::kDepthwiseConv2d, MakeBuiltinOptions(options), TensorType::kInt16, {1, 2, 2, 2}, 0.01f, 0);
  const Outcome ours = RunOursOn(model, {BytesOf(SpreadValues<int16_t>(18, 1))});
  ASSERT_FALSE(ours.ok);
  EXPECT_NE(ours.error.find("DEPTHWISE_CONV_2D"), std::string::npos) << ours.error;
  EXPECT_NE(ours.error.find("bias tensor"), std::string::npos) << ours.error;
  EXPECT_NE(ours.error.find("INT64 is required"), std::string::npos) << ours.error;
}

struct FcSpec {
  std::vector<int32_t> input;
  int32_t units;
  TensorType bias = TensorType::kInt64;  // kString: no bias
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  float input_scale = 0.0009f;
  float filter_scale = 0.006f;
  float output_scale = 0.002f;
  int64_t zero_point = 0;
};

Bytes FcModel(const FcSpec& s) {
  OneOp m;
  m.Input(TensorType::kInt16, s.input, s.input_scale, s.zero_point);
  const int32_t depth = s.input.back();
  const std::vector<int32_t> filter = {s.units, depth};
  m.Constant("filter", TensorType::kInt8, filter, BytesOf(SpreadValues<int8_t>(ElementCount(filter), 3)),
             QuantizationSpec::PerTensor(s.filter_scale, 0));
  if (s.bias != TensorType::kString) {
    // The bias scale must be input scale x filter scale (TFLite checks it).
    m.Constant("bias", s.bias, {s.units}, BiasBytes(s.bias, static_cast<size_t>(s.units)),
               QuantizationSpec::PerTensor(s.input_scale * s.filter_scale, 0));
  }
  tflite::FullyConnectedOptionsT options;
  options.fused_activation_function = s.activation;
  const int32_t rows = static_cast<int32_t>(ElementCount(s.input)) / depth;
  return m.Finish(BuiltinOp::kFullyConnected, MakeBuiltinOptions(options), TensorType::kInt16, {rows, s.units},
                  s.output_scale, -s.zero_point);
}

TEST(DepthwiseFc16x8OracleTest, FullyConnectedMatchesTflm) {
  MICROARENA_REQUIRE_ORACLE();
  std::vector<FcSpec> specs;
  for (TensorType bias : {TensorType::kInt64, TensorType::kInt32, TensorType::kString}) {
    for (tflite::ActivationFunctionType activation :
         {tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU6}) {
      FcSpec s;
      s.input = {3, 40};
      s.units = 7;
      s.bias = bias;
      s.activation = activation;
      specs.push_back(s);
    }
  }
  FcSpec long_sum;  // 4096 terms of up to 2^22: the int32 accumulator wraps
  long_sum.input = {2, 4096};
  long_sum.units = 3;
  long_sum.output_scale = 2.0f;
  for (TensorType bias : {TensorType::kInt64, TensorType::kInt32}) {
    long_sum.bias = bias;
    specs.push_back(long_sum);
  }
  // Many outputs without a bias and with an int32 one: the 32-bit rescale
  // rounds differently from the 64-bit one on some of them.
  FcSpec wide;
  wide.input = {4, 64};
  wide.units = 32;
  wide.output_scale = 0.0007f;
  for (TensorType bias : {TensorType::kString, TensorType::kInt32, TensorType::kInt64}) {
    wide.bias = bias;
    specs.push_back(wide);
  }
  // TFLM applies the int16 zero points as offsets in FULLY_CONNECTED.
  FcSpec zp;
  zp.input = {2, 16};
  zp.units = 5;
  zp.zero_point = 40;
  zp.activation = tflite::ActivationFunctionType::RELU;
  specs.push_back(zp);
  FcSpec scales;
  scales.input = {1, 32};
  scales.units = 4;
  scales.input_scale = 0.02f;
  scales.filter_scale = 0.03f;
  scales.output_scale = 0.0004f;
  specs.push_back(scales);
  int cases = 0;
  for (const FcSpec& s : specs) {
    ExpectSameAsOracle("fc16x8_" + std::to_string(cases++), FcModel(s),
                       {BytesOf(SpreadValues<int16_t>(ElementCount(s.input), 1))}, kSmallArena);
  }
}

}  // namespace
}  // namespace microarena
