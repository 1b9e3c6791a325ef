// CONV_2D and DEPTHWISE_CONV_2D: per-channel requantization (ties of the
// high multiply toward +infinity, then of the shift away from zero), input
// zero points that padding must not see, SAME padding placed after the input,
// strides, dilation, groups, depth multiplier, bias, fused clamps; window and
// activation-range helpers; prepare errors.
#include <gtest/gtest.h>

#include <limits>

#include "microarena/kernels/activation_range.h"
#include "microarena/kernels/conv_test_util.h"
#include "microarena/model/window.h"

namespace microarena {
namespace {

using conv_test::Bytes;
using conv_test::ConvOptions;
using conv_test::DepthwiseOptions;
using conv_test::ExpectError;
using conv_test::Int32Bias;
using conv_test::Int8;
using conv_test::OneOp;
using conv_test::PerChannel;
using conv_test::Plain;
using tflite::ActivationFunctionType;
using tflite::Padding;

// Along one axis: SAME gives ceil(in / stride) outputs, VALID
// floor((in - effective filter) / stride) + 1; the padding before is half the
// total, rounded down.
TEST(ConvWindowTest, OutputSizeAndPadding) {
  // SAME, in 5, filter 3, stride 2: ceil(5/2) = 3; total (3-1)*2 + 3 - 5 = 2 -> 1 before.
  EXPECT_EQ(WindowOutputSize(Padding::SAME, 5, 3, 2, 1), 3);
  EXPECT_EQ(WindowPaddingBefore(5, 3, 2, 1, 3), 1);
  // SAME, in 2, filter 2, stride 1: 2 outputs; total 1 + 2 - 2 = 1 -> 0 before (the odd one goes after).
  EXPECT_EQ(WindowOutputSize(Padding::SAME, 2, 2, 1, 1), 2);
  EXPECT_EQ(WindowPaddingBefore(2, 2, 1, 1, 2), 0);
  // VALID, in 5, filter 3 dilated by 2 (effective 5), stride 1: 1 output, no padding.
  EXPECT_EQ(WindowOutputSize(Padding::VALID, 5, 3, 1, 2), 1);
  EXPECT_EQ(WindowPaddingBefore(5, 3, 1, 2, 1), 0);
  // VALID, in 10, filter 4, stride 3: (10 - 4) / 3 + 1 = 3.
  EXPECT_EQ(WindowOutputSize(Padding::VALID, 10, 4, 3, 1), 3);
  // VALID with a window larger than the input: no output.
  EXPECT_EQ(WindowOutputSize(Padding::VALID, 2, 3, 1, 1), 0);
}

// q(f) = zero_point + round(f / scale), ties away from zero, clipped to int8.
TEST(ActivationRangeTest, QuantizedBoundsRoundAndClip) {
  int32_t lo = 0, hi = 0;
  // RELU_N1_TO_1, scale 2: -1/2 = -0.5 -> -1, 1/2 = 0.5 -> 1: [zp - 1, zp + 1].
  ASSERT_TRUE(QuantizedActivationRange(ActivationFunctionType::RELU_N1_TO_1, 2.0f, 7, -128, 127, &lo, &hi));
  EXPECT_EQ(lo, 6);
  EXPECT_EQ(hi, 8);
  // RELU6, scale 4: 6/4 = 1.5 -> 2: [zp, zp + 2].
  ASSERT_TRUE(QuantizedActivationRange(ActivationFunctionType::RELU6, 4.0f, -3, -128, 127, &lo, &hi));
  EXPECT_EQ(lo, -3);
  EXPECT_EQ(hi, -1);
  // RELU6, scale 0.01, zp 120: q(6) = 720 is clipped to 127.
  ASSERT_TRUE(QuantizedActivationRange(ActivationFunctionType::RELU6, 0.01f, 120, -128, 127, &lo, &hi));
  EXPECT_EQ(lo, 120);
  EXPECT_EQ(hi, 127);
  // RELU with zp -200 (below int8): the lower bound is clipped up to -128.
  ASSERT_TRUE(QuantizedActivationRange(ActivationFunctionType::RELU, 1.0f, -200, -128, 127, &lo, &hi));
  EXPECT_EQ(lo, -128);
  EXPECT_EQ(hi, 127);
  // NONE: the whole type.
  ASSERT_TRUE(QuantizedActivationRange(ActivationFunctionType::NONE, 1.0f, 0, -128, 127, &lo, &hi));
  EXPECT_EQ(lo, -128);
  EXPECT_EQ(hi, 127);
  // TANH is not a clamp; a zero scale cannot be quantized.
  EXPECT_FALSE(QuantizedActivationRange(ActivationFunctionType::TANH, 1.0f, 0, -128, 127, &lo, &hi));
  EXPECT_FALSE(QuantizedActivationRange(ActivationFunctionType::RELU, 0.0f, 0, -128, 127, &lo, &hi));

  float flo = 0, fhi = 0;
  ASSERT_TRUE(FloatActivationRange(ActivationFunctionType::NONE, &flo, &fhi));
  EXPECT_EQ(flo, std::numeric_limits<float>::lowest());
  EXPECT_EQ(fhi, std::numeric_limits<float>::max());
  ASSERT_TRUE(FloatActivationRange(ActivationFunctionType::RELU6, &flo, &fhi));
  EXPECT_EQ(flo, 0.0f);
  EXPECT_EQ(fhi, 6.0f);
  EXPECT_FALSE(FloatActivationRange(ActivationFunctionType::SIGN_BIT, &flo, &fhi));
}

// Input 1x2x2x1, scale 0.5, zp -1: stored [[2, -4], [0, 6]] -> q - zp = [[3, -3], [1, 7]].
// Filter 2x2x2x1, channel scales {0.25, 1}; output scale 1, zp 3, so
//   M0 = 0.5 * 0.25 / 1 = 0.125 = 2^30 * 2^(-2 - 31)   (shift -2)
//   M1 = 0.5 * 1 / 1 = 0.5      = 2^30 * 2^(0 - 31)    (shift 0)
// x * M is (x / 2 rounded half toward +inf) then / 2^-shift rounded half away from 0.
// SAME, stride 1: 2x2 output, total padding 1 placed after, so window (y, x)
// covers rows y..y+1 and columns x..x+1; outside taps add nothing (not -zp).
// Channel 0 (filter all 1, bias -11):
//   (0,0) 3-3+1+7 = 8 -> -3:  -1.5 -> -1;  -1/4 -> 0  -> out 3
//   (0,1) -3+7 = 4    -> -7:  -3.5 -> -3;  -3/4 = -0.75 -> -1 -> out 2
//   (1,0) 1+7 = 8     -> -3:  -> 0 -> out 3
//   (1,1) 7           -> -4:  -2;  -2/4 = -0.5 -> -1 (away from 0) -> out 2
// Channel 1 (filter [[1, -1], [2, 0]], bias -20):
//   (0,0) 3+3+2 = 8      -> -12: -6            -> out -3
//   (0,1) -3 + 2*7 = 11  -> -9:  -4.5 -> -4    -> out -1
//   (1,0) 1 - 7 = -6     -> -26: -13           -> out -10
//   (1,1) 7              -> -13: -6.5 -> -6    -> out -3
TEST(Conv2dKernelTest, Int8PerChannelRoundingAndSamePadding) {
  OneOp op(BuiltinOp::kConv2d);
  op.Input(Int8("in", {1, 2, 2, 1}, 0.5f, -1), Bytes<int8_t>({2, -4, 0, 6}));
  op.Constant(PerChannel("filter", {2, 2, 2, 1}, {0.25f, 1.0f}, 0), Bytes<int8_t>({1, 1, 1, 1, 1, -1, 2, 0}));
  op.Constant(Int32Bias("bias", {2}, 0.125f), Bytes<int32_t>({-11, -20}));
  op.Output(Int8("out", {1, 2, 2, 2}, 1.0f, 3));
  op.Options(ConvOptions(Padding::SAME, 1, 1, ActivationFunctionType::NONE));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{3, -3, 2, -1, 3, -10, 2, -3}));
  EXPECT_EQ(op.scratch_bytes(), 0u);
}

// 1x1 convolution of input 1x1x1x2 {100, -100} (scale 1, zp 0) with per-tensor
// filter scale 1 and output scale 0.5 (M = 2 = 2^30 * 2^(2 - 31), shift 2:
// left shift then high multiply, exact here).
//   channel 0: filter {1, 0},  acc 100  -> 200 + 0 -> saturates to 127
//   channel 1: filter {0, 1},  acc -100 -> -200    -> saturates to -128
//   channel 2: filter {1, 1},  acc 0, bias 3 -> 6 -> 6
// With RELU6 (scale 0.5, zp 0): clamp [0, 12] -> {12, 0, 6}.
TEST(Conv2dKernelTest, Int8SaturatesAndClampsFusedRelu6) {
  for (ActivationFunctionType activation : {ActivationFunctionType::NONE, ActivationFunctionType::RELU6}) {
    OneOp op(BuiltinOp::kConv2d);
    op.Input(Int8("in", {1, 1, 1, 2}, 1.0f, 0), Bytes<int8_t>({100, -100}));
    op.Constant(PerChannel("filter", {3, 1, 1, 2}, {1.0f}, 0), Bytes<int8_t>({1, 0, 0, 1, 1, 1}));
    op.Constant(Int32Bias("bias", {3}, 1.0f), Bytes<int32_t>({0, 0, 3}));
    op.Output(Int8("out", {1, 1, 1, 3}, 0.5f, 0));
    op.Options(ConvOptions(Padding::VALID, 1, 1, activation));
    Status status = op.Run();
    ASSERT_TRUE(status.ok()) << status.message();
    if (activation == ActivationFunctionType::NONE) {
      EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{127, -128, 6}));
    } else {
      EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{12, 0, 6}));
    }
  }
}

// Float, input 1x3x3x1 = 1..9, filter 2x2 dilated by 2 (taps at rows/cols 0 and 2),
// VALID: one output from inputs 1, 3, 7, 9.
//   channel 0: filter {1, 2, 3, 4}:  1 + 6 + 21 + 36 = 64, bias 0.5 -> 64.5
//   channel 1: filter {-1, 0, 0, 0}: -1, bias 0 -> -1 -> RELU -> 0
TEST(Conv2dKernelTest, FloatDilationBiasAndRelu) {
  OneOp op(BuiltinOp::kConv2d);
  op.Input(Plain("in", TensorType::kFloat32, {1, 3, 3, 1}), Bytes<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}));
  op.Constant(Plain("filter", TensorType::kFloat32, {2, 2, 2, 1}), Bytes<float>({1, 2, 3, 4, -1, 0, 0, 0}));
  op.Constant(Plain("bias", TensorType::kFloat32, {2}), Bytes<float>({0.5f, 0.0f}));
  op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 2}));
  op.Options(ConvOptions(Padding::VALID, 1, 2, ActivationFunctionType::RELU));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{64.5f, 0.0f}));
}

// Float, stride 2 SAME over 1x3x3x1 = 1..9 with a 1x1 filter {2}, no bias:
// outputs at rows/cols 0 and 2 -> {2, 6, 14, 18}.
TEST(Conv2dKernelTest, FloatStrideWithoutBias) {
  OneOp op(BuiltinOp::kConv2d);
  op.Input(Plain("in", TensorType::kFloat32, {1, 3, 3, 1}), Bytes<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}));
  op.Constant(Plain("filter", TensorType::kFloat32, {1, 1, 1, 1}), Bytes<float>({2}));
  op.Output(Plain("out", TensorType::kFloat32, {1, 2, 2, 1}));
  op.Options(ConvOptions(Padding::SAME, 2, 1, ActivationFunctionType::NONE));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{2, 6, 14, 18}));
}

// Grouped: input depth 4, filter depth 2 -> 2 groups of one output channel.
// Input {1, 2, 3, 4}; out0 = 1*1 + 2*1 = 3 (channels 0, 1); out1 = 3*10 + 4*100 = 430 (channels 2, 3).
TEST(Conv2dKernelTest, FloatGroups) {
  OneOp op(BuiltinOp::kConv2d);
  op.Input(Plain("in", TensorType::kFloat32, {1, 1, 1, 4}), Bytes<float>({1, 2, 3, 4}));
  op.Constant(Plain("filter", TensorType::kFloat32, {2, 1, 1, 2}), Bytes<float>({1, 1, 10, 100}));
  op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 2}));
  op.Options(ConvOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{3, 430}));
}

TEST(Conv2dKernelTest, PersistentDataIsEightBytesPerChannelPlusParams) {
  OneOp op(BuiltinOp::kConv2d);
  op.Input(Int8("in", {1, 1, 1, 1}, 1.0f, 0), Bytes<int8_t>({1}));
  op.Constant(PerChannel("filter", {16, 1, 1, 1}, std::vector<float>(16, 1.0f), 0), std::vector<uint8_t>(16, 1));
  op.Output(Int8("out", {1, 1, 1, 16}, 1.0f, 0));
  op.Options(ConvOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_LE(op.persistent_bytes(), 16u * 8u + 96u);
  EXPECT_EQ(op.Output<int8_t>(), std::vector<int8_t>(16, 1));
}

TEST(Conv2dKernelTest, PrepareRejectsUnsupportedTypesAndBadShapes) {
  const auto int8_filter = PerChannel("filter", {1, 1, 1, 1}, {1.0f}, 0);
  {
    // int16 activations take int8 weights (16x8); int16 weights are not a TFLM variant.
    OneOp op(BuiltinOp::kConv2d);
    op.Input({"in", TensorType::kInt16, {1, 1, 1, 1}, 0, QuantizationSpec::PerTensor(1.0f, 0), false},
             Bytes<int16_t>({1}));
    op.Constant({"filter", TensorType::kInt16, {1, 1, 1, 1}, 0, QuantizationSpec::PerTensor(1.0f, 0), false},
                Bytes<int16_t>({1}));
    op.Output({"out", TensorType::kInt16, {1, 1, 1, 1}, 0, QuantizationSpec::PerTensor(1.0f, 0), false});
    op.Options(ConvOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "filter tensor 1 'filter' is INT16 where INT8 is required");
  }
  {
    // Hybrid: float input with int8 filter.
    OneOp op(BuiltinOp::kConv2d);
    op.Input(Plain("in", TensorType::kFloat32, {1, 1, 1, 1}), Bytes<float>({1}));
    op.Constant(int8_filter, Bytes<int8_t>({1}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 1}));
    op.Options(ConvOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "filter tensor 1 'filter' is INT8 where FLOAT32 is required");
  }
  {
    // Output 2x2 where SAME stride 2 over 3x3 gives 2x2 but VALID 3x3 filter gives 1x1.
    OneOp op(BuiltinOp::kConv2d);
    op.Input(Plain("in", TensorType::kFloat32, {1, 3, 3, 1}), Bytes<float>(std::vector<float>(9, 1.0f)));
    op.Constant(Plain("filter", TensorType::kFloat32, {1, 3, 3, 1}), Bytes<float>(std::vector<float>(9, 1.0f)));
    op.Output(Plain("out", TensorType::kFloat32, {1, 2, 2, 1}));
    op.Options(ConvOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "gives 1x1");
  }
  {
    // Stride 0.
    OneOp op(BuiltinOp::kConv2d);
    op.Input(Plain("in", TensorType::kFloat32, {1, 1, 1, 1}), Bytes<float>({1}));
    op.Constant(Plain("filter", TensorType::kFloat32, {1, 1, 1, 1}), Bytes<float>({1}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 1}));
    op.Options(ConvOptions(Padding::VALID, 0, 1, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "stride 0x0");
  }
  {
    // Three filter scales for two output channels.
    OneOp op(BuiltinOp::kConv2d);
    op.Input(Int8("in", {1, 1, 1, 1}, 1.0f, 0), Bytes<int8_t>({1}));
    op.Constant(PerChannel("filter", {2, 1, 1, 1}, {1.0f, 1.0f, 1.0f}, 0), Bytes<int8_t>({1, 1}));
    op.Output(Int8("out", {1, 1, 1, 2}, 1.0f, 0));
    op.Options(ConvOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
    Status status = op.Run();
    EXPECT_FALSE(status.ok());  // rejected at load or at prepare, never computed
  }
  {
    // Fused TANH is not a clamp.
    OneOp op(BuiltinOp::kConv2d);
    op.Input(Int8("in", {1, 1, 1, 1}, 1.0f, 0), Bytes<int8_t>({1}));
    op.Constant(int8_filter, Bytes<int8_t>({1}));
    op.Output(Int8("out", {1, 1, 1, 1}, 1.0f, 0));
    op.Options(ConvOptions(Padding::VALID, 1, 1, ActivationFunctionType::TANH));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "TANH");
  }
  {
    // int8 bias where int32 is required.
    OneOp op(BuiltinOp::kConv2d);
    op.Input(Int8("in", {1, 1, 1, 1}, 1.0f, 0), Bytes<int8_t>({1}));
    op.Constant(int8_filter, Bytes<int8_t>({1}));
    op.Constant(Int8("bias", {1}, 1.0f, 0), Bytes<int8_t>({1}));
    op.Output(Int8("out", {1, 1, 1, 1}, 1.0f, 0));
    op.Options(ConvOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "bias tensor 2 'bias' is INT8 where INT32 is required");
  }
  {
    // Output channels disagree with the filter.
    OneOp op(BuiltinOp::kConv2d);
    op.Input(Plain("in", TensorType::kFloat32, {1, 1, 1, 1}), Bytes<float>({1}));
    op.Constant(Plain("filter", TensorType::kFloat32, {2, 1, 1, 1}), Bytes<float>({1, 1}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 3}));
    op.Options(ConvOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "has 2 output channels");
  }
  {
    // Missing options.
    OneOp op(BuiltinOp::kConv2d);
    op.Input(Plain("in", TensorType::kFloat32, {1, 1, 1, 1}), Bytes<float>({1}));
    op.Constant(Plain("filter", TensorType::kFloat32, {1, 1, 1, 1}), Bytes<float>({1}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 1}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "Conv2DOptions");
  }
}

// Depthwise, input 1x3x3x1 with zp 5 storing v + 5 for v = [[1,2,3],[4,5,6],[7,8,9]]
// (input scale 1), depth multiplier 2, 3x3 filter, stride 2, SAME: 2x2 output,
// total padding (2-1)*2 + 3 - 3 = 2 -> 1 row/column before. Filter scales
// {0.5, 2}, output scale 4, zp -1: M0 = 0.125 (shift -2), M1 = 0.5 (shift 0).
// Channel 0 (all ones, bias 2), window (y, x) = rows 2y-1..2y+1, cols 2x-1..2x+1:
//   1+2+4+5 = 12 -> 14 -> 7  -> 1.75 -> 2 -> out 1
//   2+3+5+6 = 16 -> 18 -> 9  -> 2.25 -> 2 -> out 1
//   4+5+7+8 = 24 -> 26 -> 13 -> 3.25 -> 3 -> out 2
//   5+6+8+9 = 28 -> 30 -> 15 -> 3.75 -> 4 -> out 3
// Channel 1 (centre tap only, bias -20): v(2y, 2x) = 1, 3, 7, 9
//   -19 -> -9.5 -> -9 -> out -10;  -17 -> -8.5 -> -8 -> -9;
//   -13 -> -6.5 -> -6 -> -7;       -11 -> -5.5 -> -5 -> -6
TEST(DepthwiseConv2dKernelTest, Int8DepthMultiplierStrideAndPadding) {
  OneOp op(BuiltinOp::kDepthwiseConv2d);
  op.Input(Int8("in", {1, 3, 3, 1}, 1.0f, 5), Bytes<int8_t>({6, 7, 8, 9, 10, 11, 12, 13, 14}));
  // [1, 3, 3, 2]: per tap, channel 0 then channel 1.
  op.Constant(PerChannel("filter", {1, 3, 3, 2}, {0.5f, 2.0f}, 3),
              Bytes<int8_t>({1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0}));
  op.Constant(Int32Bias("bias", {2}, 0.5f), Bytes<int32_t>({2, -20}));
  op.Output(Int8("out", {1, 2, 2, 2}, 4.0f, -1));
  op.Options(DepthwiseOptions(Padding::SAME, 2, 1, 2, ActivationFunctionType::NONE));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{1, -10, 1, -9, 2, -7, 3, -6}));
}

// Float depthwise, 2 channels, 2x2 filter dilated by 2, VALID over 3x3: taps at
// (0,0), (0,2), (2,0), (2,2). Channel 0 = 1..9 with ones: 1+3+7+9 = 20, bias 0.25;
// channel 1 = 10..90 with {1, 0, 0, -1}: 10 - 90 = -80.
TEST(DepthwiseConv2dKernelTest, FloatDilation) {
  std::vector<float> input;
  for (int i = 1; i <= 9; ++i) {
    input.push_back(static_cast<float>(i));
    input.push_back(static_cast<float>(10 * i));
  }
  OneOp op(BuiltinOp::kDepthwiseConv2d);
  op.Input(Plain("in", TensorType::kFloat32, {1, 3, 3, 2}), Bytes<float>(input));
  op.Constant(Plain("filter", TensorType::kFloat32, {1, 2, 2, 2}), Bytes<float>({1, 1, 1, 0, 1, 0, 1, -1}));
  op.Constant(Plain("bias", TensorType::kFloat32, {2}), Bytes<float>({0.25f, 0.0f}));
  op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 2}));
  op.Options(DepthwiseOptions(Padding::VALID, 1, 2, 1, ActivationFunctionType::NONE));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{20.25f, -80.0f}));
}

TEST(DepthwiseConv2dKernelTest, PrepareRejectsInconsistentDepthMultiplier) {
  {
    OneOp op(BuiltinOp::kDepthwiseConv2d);
    op.Input(Plain("in", TensorType::kFloat32, {1, 1, 1, 2}), Bytes<float>({1, 2}));
    op.Constant(Plain("filter", TensorType::kFloat32, {1, 1, 1, 4}), Bytes<float>({1, 1, 1, 1}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 4}));
    op.Options(DepthwiseOptions(Padding::VALID, 1, 1, 3, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "expected input depth 2 x depth multiplier 3");
  }
  {
    // Per-channel scales along the wrong dimension.
    OneOp op(BuiltinOp::kDepthwiseConv2d);
    op.Input(Int8("in", {1, 1, 1, 2}, 1.0f, 0), Bytes<int8_t>({1, 2}));
    op.Constant(PerChannel("filter", {1, 1, 2, 2}, {1.0f, 1.0f}, 2), Bytes<int8_t>({1, 1, 1, 1}));
    op.Output(Int8("out", {1, 1, 1, 2}, 1.0f, 0));
    op.Options(DepthwiseOptions(Padding::SAME, 1, 1, 1, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "quantized along dimension 2; expected 3");
  }
}

}  // namespace
}  // namespace microarena
