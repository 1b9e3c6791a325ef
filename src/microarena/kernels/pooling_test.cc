// AVERAGE_POOL_2D and MAX_POOL_2D: windows clipped at the padded edge (padding
// is not counted), int8 average rounding ties away from zero, fused clamps,
// float paths; prepare errors.
#include <gtest/gtest.h>

#include "microarena/kernels/conv_test_util.h"

namespace microarena {
namespace {

using conv_test::Bytes;
using conv_test::ExpectError;
using conv_test::Int8;
using conv_test::OneOp;
using conv_test::Plain;
using conv_test::PoolOptions;
using tflite::ActivationFunctionType;
using tflite::Padding;

// Input 1x2x3x1 [[1, 2, -3], [4, 1, -4]], 2x2 window, stride 1, SAME: 2x3
// output; total padding 1 per axis, all after, so window (y, x) covers rows
// y..y+1 and columns x..x+1 clipped to the input:
//   (0,0) 1+2+4+1 = 8 / 4   = 2
//   (0,1) 2-3+1-4 = -4 / 4  = -1
//   (0,2) -3-4 = -7 / 2     = -3.5 -> -4 (away from zero)
//   (1,0) 4+1 = 5 / 2       = 2.5  -> 3
//   (1,1) 1-4 = -3 / 2      = -1.5 -> -2
//   (1,2) -4 / 1            = -4
// With RELU and zp -2 (scale 1): clamp at -2.
TEST(AveragePool2dKernelTest, Int8RoundsTiesAwayFromZeroAndClamps) {
  for (ActivationFunctionType activation : {ActivationFunctionType::NONE, ActivationFunctionType::RELU}) {
    OneOp op(BuiltinOp::kAveragePool2d);
    op.Input(Int8("in", {1, 2, 3, 1}, 1.0f, -2), Bytes<int8_t>({1, 2, -3, 4, 1, -4}));
    op.Output(Int8("out", {1, 2, 3, 1}, 1.0f, -2));
    op.Options(PoolOptions(Padding::SAME, 1, 2, activation));
    Status status = op.Run();
    ASSERT_TRUE(status.ok()) << status.message();
    if (activation == ActivationFunctionType::NONE) {
      EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{2, -1, -4, 3, -2, -4}));
    } else {
      EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{2, -1, -2, 3, -2, -2}));
    }
  }
}

// Float 1x2x2x1 {1, 2, 3, 5}, 2x2 window, stride 1, SAME:
//   (0,0) 11/4 = 2.75; (0,1) (2+5)/2 = 3.5; (1,0) (3+5)/2 = 4; (1,1) 5.
TEST(AveragePool2dKernelTest, FloatSamePadding) {
  OneOp op(BuiltinOp::kAveragePool2d);
  op.Input(Plain("in", TensorType::kFloat32, {1, 2, 2, 1}), Bytes<float>({1, 2, 3, 5}));
  op.Output(Plain("out", TensorType::kFloat32, {1, 2, 2, 1}));
  op.Options(PoolOptions(Padding::SAME, 1, 2, ActivationFunctionType::NONE));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{2.75f, 3.5f, 4.0f, 5.0f}));
}

// Two channels averaged independently, VALID 2x2 stride 2 over 1x2x4x2:
// channel 0 = {1..8} row-major, channel 1 = -channel 0.
//   window 0: 1, 2, 5, 6 -> 14/4 = 3.5 -> 4;   channel 1: -3.5 -> -4
//   window 1: 3, 4, 7, 8 -> 22/4 = 5.5 -> 6;   channel 1: -5.5 -> -6
TEST(AveragePool2dKernelTest, Int8ChannelsAndValidStride) {
  std::vector<int8_t> input;
  for (int8_t v = 1; v <= 8; ++v) {
    input.push_back(v);
    input.push_back(static_cast<int8_t>(-v));
  }
  OneOp op(BuiltinOp::kAveragePool2d);
  op.Input(Int8("in", {1, 2, 4, 2}, 0.5f, 0), Bytes<int8_t>(input));
  op.Output(Int8("out", {1, 1, 2, 2}, 0.5f, 0));
  op.Options(PoolOptions(Padding::VALID, 2, 2, ActivationFunctionType::NONE));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{4, -4, 6, -6}));
}

// Input 1x3x3x1 [[-5, -7, -128], [-9, -6, -100], [3, -2, -50]], 2x2 window,
// stride 2, SAME: 2x2 output, total padding 1 after. Windows:
//   (0,0) max(-5, -7, -9, -6) = -5;  (0,1) max(-128, -100) = -100;
//   (1,0) max(3, -2) = 3;            (1,1) -50
// RELU6 with scale 0.25, zp -20: clamp [-20, -20 + 24 = 4] -> {-5, -20, 3, -20}.
TEST(MaxPool2dKernelTest, Int8ClippedWindowsAndRelu6) {
  OneOp op(BuiltinOp::kMaxPool2d);
  op.Input(Int8("in", {1, 3, 3, 1}, 0.25f, -20), Bytes<int8_t>({-5, -7, -128, -9, -6, -100, 3, -2, -50}));
  op.Output(Int8("out", {1, 2, 2, 1}, 0.25f, -20));
  op.Options(PoolOptions(Padding::SAME, 2, 2, ActivationFunctionType::RELU6));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{-5, -20, 3, -20}));
}

// Float 1x1 windows with RELU_N1_TO_1: {-3, 0.5, -2, 1.5} -> {-1, 0.5, -1, 1}.
TEST(MaxPool2dKernelTest, FloatReluN1To1) {
  OneOp op(BuiltinOp::kMaxPool2d);
  op.Input(Plain("in", TensorType::kFloat32, {1, 2, 2, 1}), Bytes<float>({-3, 0.5f, -2, 1.5f}));
  op.Output(Plain("out", TensorType::kFloat32, {1, 2, 2, 1}));
  op.Options(PoolOptions(Padding::VALID, 1, 1, ActivationFunctionType::RELU_N1_TO_1));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{-1, 0.5f, -1, 1}));
}

TEST(Pool2dKernelTest, PrepareErrors) {
  {
    // int8 input and output with different quantization.
    OneOp op(BuiltinOp::kAveragePool2d);
    op.Input(Int8("in", {1, 2, 2, 1}, 0.5f, 0), Bytes<int8_t>({1, 2, 3, 4}));
    op.Output(Int8("out", {1, 1, 1, 1}, 0.25f, 0));
    op.Options(PoolOptions(Padding::VALID, 2, 2, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "must share quantization");
  }
  {
    // Output size disagrees with the window.
    OneOp op(BuiltinOp::kMaxPool2d);
    op.Input(Plain("in", TensorType::kFloat32, {1, 4, 4, 1}), Bytes<float>(std::vector<float>(16, 0.0f)));
    op.Output(Plain("out", TensorType::kFloat32, {1, 3, 3, 1}));
    op.Options(PoolOptions(Padding::VALID, 2, 2, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "gives 2x2");
  }
  {
    // Window 0.
    OneOp op(BuiltinOp::kMaxPool2d);
    op.Input(Plain("in", TensorType::kFloat32, {1, 1, 1, 1}), Bytes<float>({0}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 1}));
    op.Options(PoolOptions(Padding::VALID, 1, 0, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "window 0x0");
  }
  {
    // int32 is not supported; depth must be kept.
    OneOp op(BuiltinOp::kAveragePool2d);
    op.Input(Plain("in", TensorType::kInt32, {1, 1, 1, 1}), Bytes<int32_t>({0}));
    op.Output(Plain("out", TensorType::kInt32, {1, 1, 1, 1}));
    op.Options(PoolOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "INT32");
  }
  {
    OneOp op(BuiltinOp::kAveragePool2d);
    op.Input(Plain("in", TensorType::kFloat32, {1, 1, 1, 2}), Bytes<float>({0, 0}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 1}));
    op.Options(PoolOptions(Padding::VALID, 1, 1, ActivationFunctionType::NONE));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "depth 2");
  }
}

}  // namespace
}  // namespace microarena
