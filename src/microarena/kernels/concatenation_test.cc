// CONCATENATION: copies, negative axes, int8 requantization (rounding half
// away from zero, saturation) and prepare errors. Expected values are worked
// out by hand in the comments.
#include <gtest/gtest.h>

#include "microarena/kernels/shape_op_test_util.h"

namespace microarena::shape_op_test {
namespace {

tflite::ConcatenationOptionsT Axis(int32_t axis) {
  tflite::ConcatenationOptionsT options;
  options.axis = axis;
  return options;
}

TEST(ConcatenationKernelTest, FloatNegativeAxisInterleavesRows) {
  // a = [[1,2],[3,4]], b = [[5],[6]] along axis -1 (= 1): [[1,2,5],[3,4,6]].
  OneOp op(BuiltinOp::kConcatenation);
  op.Input(Plain("a", TensorType::kFloat32, {2, 2}), Bytes<float>({1, 2, 3, 4}));
  op.Input(Plain("b", TensorType::kFloat32, {2, 1}), Bytes<float>({5, 6}));
  op.Output(Plain("out", TensorType::kFloat32, {2, 3}));
  op.Options(Axis(-1));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{1, 2, 5, 3, 4, 6}));
}

TEST(ConcatenationKernelTest, Int8SameQuantizationCopiesBytes) {
  // Axis 0: the rows of a, then the rows of b, extremes unchanged.
  OneOp op(BuiltinOp::kConcatenation);
  op.Input(Int8("a", {1, 3}, 0.5f, -1), Bytes<int8_t>({-128, 0, 127}));
  op.Input(Int8("b", {2, 3}, 0.5f, -1), Bytes<int8_t>({1, 2, 3, 4, 5, 6}));
  op.Output(Int8("out", {3, 3}, 0.5f, -1));
  op.Options(Axis(0));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{-128, 0, 127, 1, 2, 3, 4, 5, 6}));
  EXPECT_LE(op.persistent_bytes(), 24u);  // no per-input table when nothing is rescaled
}

TEST(ConcatenationKernelTest, Int8RequantizesInputsWithOtherScales) {
  // Output: scale 0.5, zero point 0.
  // a (0.5, 0): same as the output, copied: -3, 7.
  // b (0.25, 10): s = 0.25 * (1 / 0.5) = 0.5, bias = -10 * 0.5 = -5:
  //   10 -> 0;  11 -> 0.5 -> 1 (tie away from zero);  12 -> 1;  13 -> 1.5 -> 2;
  //   9 -> -0.5 -> -1 (tie away from zero);  -128 -> -64 - 5 = -69.
  // c (2.0, 0): s = 4: 40 -> 160 -> 127;  -40 -> -160 -> -128;  31 -> 124;  -33 -> -132 -> -128.
  OneOp op(BuiltinOp::kConcatenation);
  op.Input(Int8("a", {1, 2}, 0.5f, 0), Bytes<int8_t>({-3, 7}));
  op.Input(Int8("b", {1, 6}, 0.25f, 10), Bytes<int8_t>({10, 11, 12, 13, 9, -128}));
  op.Input(Int8("c", {1, 4}, 2.0f, 0), Bytes<int8_t>({40, -40, 31, -33}));
  op.Output(Int8("out", {1, 12}, 0.5f, 0));
  op.Options(Axis(1));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{-3, 7, 0, 1, 1, 2, -1, -69, 127, -128, 124, -128}));
}

TEST(ConcatenationKernelTest, Int8RequantizationAddsOutputZeroPoint) {
  // Output (0.5, 3); b (0.25, 10): s = 0.5, bias = -5: 10 -> 0 + 3 = 3; 11 -> 1 + 3 = 4;
  // 7 -> -1.5 -> -2 (tie away from zero) + 3 = 1. Along axis 0 with 2 rows of 1.
  OneOp op(BuiltinOp::kConcatenation);
  op.Input(Int8("a", {1, 3}, 0.5f, 3), Bytes<int8_t>({5, 6, 7}));
  op.Input(Int8("b", {1, 3}, 0.25f, 10), Bytes<int8_t>({10, 11, 7}));
  op.Output(Int8("out", {2, 3}, 0.5f, 3));
  op.Options(Axis(-2));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{5, 6, 7, 3, 4, 1}));
}

TEST(ConcatenationKernelTest, PrepareRejectsBadTypesShapesAndOptions) {
  {
    OneOp op(BuiltinOp::kConcatenation);
    op.Input(Plain("a", TensorType::kFloat32, {1, 2}), Bytes<float>({1, 2}));
    op.Input(Int8("b", {1, 2}, 0.5f, 0), Bytes<int8_t>({1, 2}));
    op.Output(Int8("out", {2, 2}, 0.5f, 0));
    op.Options(Axis(0));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "input 0 'a' has type FLOAT32 but output 'out' has type INT8");
  }
  {
    OneOp op(BuiltinOp::kConcatenation);
    op.Input(Plain("a", TensorType::kFloat32, {1, 2}), Bytes<float>({1, 2}));
    op.Input(Plain("b", TensorType::kFloat32, {1, 3}), Bytes<float>({1, 2, 3}));
    op.Output(Plain("out", TensorType::kFloat32, {2, 2}));
    op.Options(Axis(0));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "input 1 'b' has shape [1,3]");
  }
  {
    OneOp op(BuiltinOp::kConcatenation);
    op.Input(Plain("a", TensorType::kFloat32, {1, 2}), Bytes<float>({1, 2}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 3}));
    op.Options(Axis(1));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "inputs sum to 2 along axis 1 but output 'out' has 3");
  }
  {
    OneOp op(BuiltinOp::kConcatenation);
    op.Input(Plain("a", TensorType::kFloat32, {1, 2}), Bytes<float>({1, 2}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 2}));
    op.Options(Axis(-3));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "axis -3 is out of range");
  }
  {
    OneOp op(BuiltinOp::kConcatenation);
    op.Input(Plain("a", TensorType::kFloat32, {1, 2}), Bytes<float>({1, 2}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 2}));
    tflite::ConcatenationOptionsT options = Axis(0);
    options.fused_activation_function = tflite::ActivationFunctionType::RELU;
    op.Options(options);
    ExpectError(op.Run(), ErrorCode::kUnsupported, "fused activation");
  }
}

}  // namespace
}  // namespace microarena::shape_op_test
