// FULLY_CONNECTED: int8 requantization with input zero point, rounding ties
// and saturation; float with keep_num_dims and an omitted bias; the float
// product in the per-tensor multiplier; prepare errors.
#include <gtest/gtest.h>

#include <cmath>

#include "microarena/kernels/conv_test_util.h"

namespace microarena {
namespace {

using conv_test::Bytes;
using conv_test::ExpectError;
using conv_test::Int32Bias;
using conv_test::Int8;
using conv_test::OneOp;
using conv_test::PerChannel;
using conv_test::Plain;

tflite::FullyConnectedOptionsT FcOptions(tflite::ActivationFunctionType activation, bool keep_num_dims) {
  tflite::FullyConnectedOptionsT options;
  options.fused_activation_function = activation;
  options.keep_num_dims = keep_num_dims;
  return options;
}

// Input [2, 3], scale 0.5, zp -128: rows {-128, 0, 10} and {127, 127, 127}
// -> q - zp = {0, 128, 138} and {255, 255, 255}. Filter [[1, -1, 0], [2, 0, 1]]
// scale 0.5; bias {-3, 5} (scale 0.25); output scale 1, zp 2.
// M = 0.5 * 0.5 / 1 = 0.25 = 2^30 * 2^(-1 - 31): x / 2 rounded half toward +inf,
// then / 2 rounded half away from zero.
//   row 0, unit 0: 0 - 128 = -128 - 3 = -131 -> -65.5 -> -65 -> -32.5 -> -33 -> out -31
//   row 0, unit 1: 138 + 5 = 143            -> 71.5 -> 72   -> 36           -> out 38
//   row 1, unit 0: 255 - 255 = 0 - 3 = -3   -> -1.5 -> -1   -> -0.5 -> -1   -> out 1
//   row 1, unit 1: 510 + 255 + 5 = 770      -> 385          -> 192.5 -> 193 -> 195 -> saturates 127
TEST(FullyConnectedKernelTest, Int8RoundingZeroPointsAndSaturation) {
  OneOp op(BuiltinOp::kFullyConnected);
  op.Input(Int8("in", {2, 3}, 0.5f, -128), Bytes<int8_t>({-128, 0, 10, 127, 127, 127}));
  op.Constant(Int8("filter", {2, 3}, 0.5f, 0), Bytes<int8_t>({1, -1, 0, 2, 0, 1}));
  op.Constant(Int32Bias("bias", {2}, 0.25f), Bytes<int32_t>({-3, 5}));
  op.Output(Int8("out", {2, 2}, 1.0f, 2));
  op.Options(FcOptions(tflite::ActivationFunctionType::NONE, false));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{-31, 38, 1, 127}));
  EXPECT_EQ(op.scratch_bytes(), 0u);
}

// The same op with a fused RELU and output zp 2, scale 1: clamp [2, 127]
// -> {2, 38, 2, 127}; without a bias: -128 -> -64 -> -32 -> -30 -> 2;
// 138 -> 69 -> 34.5 -> 35 -> 37; 0 -> 2; 765 -> 382.5 -> 383 -> 191.5 -> 192 -> 127.
TEST(FullyConnectedKernelTest, Int8ReluWithoutBias) {
  OneOp op(BuiltinOp::kFullyConnected);
  op.Input(Int8("in", {2, 3}, 0.5f, -128), Bytes<int8_t>({-128, 0, 10, 127, 127, 127}));
  op.Constant(Int8("filter", {2, 3}, 0.5f, 0), Bytes<int8_t>({1, -1, 0, 2, 0, 1}));
  op.Omitted();
  op.Output(Int8("out", {2, 2}, 1.0f, 2));
  op.Options(FcOptions(tflite::ActivationFunctionType::RELU, false));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{2, 37, 2, 127}));
}

// TFLite rounds input scale x filter scale to float before dividing by the
// output scale in double. Input scale (1 + 2^-23) * 2^-8, filter scale
// (1 - 2^-24) * 2^-9, output scale 1:
//   exact product 2^-17 * (1 + 2^-24 - 2^-47) is below the float halfway point
//   2^-17 * (1 + 2^-24), so in float it is 2^-17: mantissa 2^30, shift -16;
//   in double it would keep the excess: mantissa round(2^30 + 2^6 - 2^-17) = 2^30 + 64.
// Input 0 and filter 0 leave acc = bias = 200 * 2^17 + 2^16 - 2:
//   float path:  acc / 2 = 200 * 2^16 + 2^15 - 1 exactly; / 2^16 = 200.5 - 2^-16 -> 200
//   double path: acc / 2 + acc / 2^25 (about 0.78) rounds up to 200 * 2^16 + 2^15 -> 200.5 -> 201
// Output zp -128: TFLite's answer is 200 - 128 = 72 (73 would mean a double product).
TEST(FullyConnectedKernelTest, Int8MultiplierUsesFloatScaleProduct) {
  const float input_scale = std::nextafter(1.0f, 2.0f) * 0.00390625f;
  const float filter_scale = std::nextafter(1.0f, 0.0f) * 0.001953125f;
  OneOp op(BuiltinOp::kFullyConnected);
  op.Input(Int8("in", {1, 1}, input_scale, 0), Bytes<int8_t>({0}));
  op.Constant(Int8("filter", {1, 1}, filter_scale, 0), Bytes<int8_t>({0}));
  op.Constant(Int32Bias("bias", {1}, 1.0f / 131072.0f), Bytes<int32_t>({200 * 131072 + 65536 - 2}));
  op.Output(Int8("out", {1, 1}, 1.0f, -128));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{72}));
}

// Float, keep_num_dims: input [2, 1, 2] -> output [2, 1, 3]; no bias; RELU.
// Filter rows {1, 1}, {2, -1}, {-3, 0}:
//   {1, 2}    -> 3, 0, -3     -> 3, 0, 0
//   {-1, 0.5} -> -0.5, -2.5, 3 -> 0, 0, 3
TEST(FullyConnectedKernelTest, FloatKeepNumDimsNoBiasRelu) {
  OneOp op(BuiltinOp::kFullyConnected);
  op.Input(Plain("in", TensorType::kFloat32, {2, 1, 2}), Bytes<float>({1, 2, -1, 0.5f}));
  op.Constant(Plain("filter", TensorType::kFloat32, {3, 2}), Bytes<float>({1, 1, 2, -1, -3, 0}));
  op.Output(Plain("out", TensorType::kFloat32, {2, 1, 3}));
  op.Options(FcOptions(tflite::ActivationFunctionType::RELU, true));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{3, 0, 0, 0, 0, 3}));
}

// Without keep_num_dims the input [1, 2, 2] is read as 2 rows of 2: output [2, 1].
// Filter {1, 10}, bias {0.5}: {1, 2} -> 21.5; {3, 4} -> 43.5.
TEST(FullyConnectedKernelTest, FloatFlattensLeadingDimensions) {
  OneOp op(BuiltinOp::kFullyConnected);
  op.Input(Plain("in", TensorType::kFloat32, {1, 2, 2}), Bytes<float>({1, 2, 3, 4}));
  op.Constant(Plain("filter", TensorType::kFloat32, {1, 2}), Bytes<float>({1, 10}));
  op.Constant(Plain("bias", TensorType::kFloat32, {1}), Bytes<float>({0.5f}));
  op.Output(Plain("out", TensorType::kFloat32, {2, 1}));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{21.5f, 43.5f}));
}

// Per-channel weights: each unit its own scale. Input {1, 1}, weights all 1:
// both sums are 2; unit 0 (scale 1) gives 2, unit 1 (scale 0.5) 2 x 0.5 = 1.
TEST(FullyConnectedKernelTest, PerChannelWeightsScaleEachUnit) {
  OneOp op(BuiltinOp::kFullyConnected);
  op.Input(Int8("in", {1, 2}, 1.0f, 0), Bytes<int8_t>({1, 1}));
  op.Constant(PerChannel("filter", {2, 2}, {1.0f, 0.5f}, 0), Bytes<int8_t>({1, 1, 1, 1}));
  op.Output(Int8("out", {1, 2}, 1.0f, 0));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{2, 1}));
}

// INT4 weights, two per byte, low nibble first: {-8, 7, -1, 1, 0, -2} is
// bytes 0x78, 0x1F, 0xE0 (unit 1's row starts mid-byte). Input {1, 2, 3},
// every scale 1: unit 0 is -8 + 14 - 3 = 3, unit 1 is 1 + 0 - 6 = -5.
TEST(FullyConnectedKernelTest, Int4WeightsUnpackSignedNibbles) {
  OneOp op(BuiltinOp::kFullyConnected);
  op.Input(Int8("in", {1, 3}, 1.0f, 0), Bytes<int8_t>({1, 2, 3}));
  TensorSpec weights = Int8("filter", {2, 3}, 1.0f, 0);
  weights.type = TensorType::kInt4;
  op.Constant(weights, {0x78, 0x1F, 0xE0});
  op.Output(Int8("out", {1, 2}, 1.0f, 0));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{3, -5}));
}

TEST(FullyConnectedKernelTest, PrepareErrors) {
  {
    // Per-channel weights with a rank-3 output (keep_num_dims).
    OneOp op(BuiltinOp::kFullyConnected);
    op.Options(FcOptions(tflite::ActivationFunctionType::NONE, true));
    op.Input(Int8("in", {1, 1, 2}, 1.0f, 0), Bytes<int8_t>({1, 1}));
    op.Constant(PerChannel("filter", {2, 2}, {1.0f, 0.5f}, 0), Bytes<int8_t>({1, 1, 1, 1}));
    op.Output(Int8("out", {1, 1, 2}, 1.0f, 0));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "has rank 3; TFLM's per-channel kernel");
  }
  {
    // Bias scale 1 where input x filter = 0.25 and output scale 1: |0.75| / 1 > 0.02.
    OneOp op(BuiltinOp::kFullyConnected);
    op.Input(Int8("in", {1, 2}, 0.5f, 0), Bytes<int8_t>({1, 1}));
    op.Constant(Int8("filter", {1, 2}, 0.5f, 0), Bytes<int8_t>({1, 1}));
    op.Constant(Int32Bias("bias", {1}, 1.0f), Bytes<int32_t>({0}));
    op.Output(Int8("out", {1, 1}, 1.0f, 0));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "bias tensor 2 'bias' scale 1");
  }
  {
    // Output units disagree with the filter.
    OneOp op(BuiltinOp::kFullyConnected);
    op.Input(Plain("in", TensorType::kFloat32, {1, 2}), Bytes<float>({1, 1}));
    op.Constant(Plain("filter", TensorType::kFloat32, {3, 2}), Bytes<float>({1, 1, 1, 1, 1, 1}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 2}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "does not match 1 rows of 3 units");
  }
  {
    // Input elements not a multiple of the filter depth.
    OneOp op(BuiltinOp::kFullyConnected);
    op.Input(Plain("in", TensorType::kFloat32, {1, 3}), Bytes<float>({1, 1, 1}));
    op.Constant(Plain("filter", TensorType::kFloat32, {1, 2}), Bytes<float>({1, 1}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 1}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "not a multiple of filter tensor 1 depth 2");
  }
  {
    // Non-zero filter zero point.
    OneOp op(BuiltinOp::kFullyConnected);
    op.Input(Int8("in", {1, 2}, 1.0f, 0), Bytes<int8_t>({1, 1}));
    op.Constant(Int8("filter", {1, 2}, 1.0f, 3), Bytes<int8_t>({1, 1}));
    op.Output(Int8("out", {1, 1}, 1.0f, 0));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "zero point 3 outside [0, 0]");
  }
  {
    // uint8 is not supported.
    OneOp op(BuiltinOp::kFullyConnected);
    op.Input({"in", TensorType::kUInt8, {1, 1}, 0, QuantizationSpec::PerTensor(1.0f, 0), false}, Bytes<uint8_t>({1}));
    op.Constant({"filter", TensorType::kUInt8, {1, 1}, 0, QuantizationSpec::PerTensor(1.0f, 0), false},
                Bytes<uint8_t>({1}));
    op.Output({"out", TensorType::kUInt8, {1, 1}, 0, QuantizationSpec::PerTensor(1.0f, 0), false});
    ExpectError(op.Run(), ErrorCode::kUnsupported, "UINT8");
  }
}

}  // namespace
}  // namespace microarena
