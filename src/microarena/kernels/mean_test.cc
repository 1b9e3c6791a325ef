// MEAN: float, int8 with shared quantization (truncating division) and int8
// requantized (TFLM's folded 1/count multiplier, rounding half up in the
// high multiply, saturation); prepare errors.
#include <gtest/gtest.h>

#include "microarena/kernels/shape_op_test_util.h"

namespace microarena::shape_op_test {
namespace {

tflite::ReducerOptionsT KeepDims(bool keep) {
  tflite::ReducerOptionsT options;
  options.keep_dims = keep;
  return options;
}

TEST(MeanKernelTest, FloatOverHeightAndWidthKeepDims) {
  // (1 + 2 + 3 + 4) / 4 = 2.5 and (10 + 20 + 30 + 41) / 4 = 25.25, one per channel.
  OneOp op(BuiltinOp::kMean);
  op.Input(Plain("in", TensorType::kFloat32, {1, 2, 2, 2}), Bytes<float>({1, 10, 2, 20, 3, 30, 4, 41}));
  op.Constant(Plain("axis", TensorType::kInt32, {2}), Bytes<int32_t>({2, 1}));
  op.Output(Plain("out", TensorType::kFloat32, {1, 1, 1, 2}));
  op.Options(KeepDims(true));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{2.5f, 25.25f}));
}

TEST(MeanKernelTest, FloatLastAxisDropped) {
  // Rows {1, 2, 4} and {-1, -2, -2}: float sums 7 and -5, divided by float(3).
  OneOp op(BuiltinOp::kMean);
  op.Input(Plain("in", TensorType::kFloat32, {2, 3}), Bytes<float>({1, 2, 4, -1, -2, -2}));
  op.Constant(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({-1}));
  op.Output(Plain("out", TensorType::kFloat32, {2}));
  op.Options(KeepDims(false));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{7.0f / 3.0f, -5.0f / 3.0f}));
}

TEST(MeanKernelTest, Int8SameQuantizationRoundsAsTflm) {
  // Shared (0.5, 0): TFLM requantizes anyway (no truncating shortcut).
  // M = 1.0 = 2^30 * 2^(1 - 31), shift 1; count 4: k = min(2, 32, 32) = 2,
  // M' = (2^30 << 2) / 4 = 2^30, shift' = 1 - 2 = -1, so
  // out = RoundingDivideByPOT(SRDHM(sum, 2^30), 1):
  //   channel 0: -1 - 2 - 2 - 1 = -6; SRDHM = -6 / 2 = -3 exactly; -3 / 2 =
  //     -1.5 rounds away from zero -> -2 (truncation would give -1);
  //   channel 1: 3 + 3 + 3 + 2 = 11; SRDHM = 11 / 2 = 5.5 rounds up -> 6;
  //     6 / 2 = 3 (truncation would give 2).
  // Axis 1 given twice.
  OneOp op(BuiltinOp::kMean);
  op.Input(Int8("in", {1, 2, 2, 2}, 0.5f, 0), Bytes<int8_t>({-1, 3, -2, 3, -2, 3, -1, 2}));
  op.Constant(Plain("axis", TensorType::kInt32, {3}), Bytes<int32_t>({1, 2, -3}));
  op.Output(Int8("out", {1, 1, 1, 2}, 0.5f, 0));
  op.Options(KeepDims(true));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{-2, 3}));
  EXPECT_EQ(op.scratch_bytes(), 2 * sizeof(int32_t));
}

TEST(MeanKernelTest, Int8RequantizedPowerOfTwoCount) {
  // Input (0.5, 2), output (0.25, -3): M = 2.0 = 2^30 * 2^(2 - 31), shift 2.
  // count 4: k = min(log2 4 = 2, 32, 31 + 2) = 2; M' = (2^30 << 2) / 4 = 2^30, shift' = 0,
  // so out = round_half_up((sum - 2 * 4) / 2) - 3 (the doubling high multiply
  // rounds ties toward +infinity).
  //   ch0 {2,2,2,3}: 9 - 8 = 1 -> 0.5 -> 1 -> -2
  //   ch1 {2,2,1,2}: 7 - 8 = -1 -> -0.5 -> 0 -> -3
  //   ch2 {127 x4}: 508 - 8 = 500 -> 250 -> 247 -> saturates at 127
  OneOp op(BuiltinOp::kMean);
  op.Input(Int8("in", {1, 2, 2, 3}, 0.5f, 2), Bytes<int8_t>({2, 2, 127, 2, 2, 127, 2, 1, 127, 3, 2, 127}));
  op.Constant(Plain("axis", TensorType::kInt32, {2}), Bytes<int32_t>({1, 2}));
  op.Output(Int8("out", {1, 1, 1, 3}, 0.25f, -3));
  op.Options(KeepDims(true));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{-2, -3, 127}));
}

TEST(MeanKernelTest, Int8RequantizedCountOfThree) {
  // Input (1.0, 0), output (1.0, 1): M = 1.0 = 2^30 * 2^(1 - 31), shift 1.
  // count 3: k = 1; M' = (2^30 << 1) / 3 = 715827882, shift' = 0.
  //   row {1, 1, 1}: sum 3: (3 * 715827882 + 2^30) / 2^31 = 1.49.. -> 1, + 1 = 2
  //   row {-1, 0, -1}: sum -2: (-2 * 715827882 + 1 - 2^30) / 2^31 = -1.17 -> -1, + 1 = 0
  OneOp op(BuiltinOp::kMean);
  op.Input(Int8("in", {2, 3}, 1.0f, 0), Bytes<int8_t>({1, 1, 1, -1, 0, -1}));
  op.Constant(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({1}));
  op.Output(Int8("out", {2}, 1.0f, 1));
  op.Options(KeepDims(false));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{2, 0}));
}

TEST(MeanKernelTest, PrepareRejectsBadAxesShapesAndTypes) {
  {
    OneOp op(BuiltinOp::kMean);
    op.Input(Plain("in", TensorType::kFloat32, {2, 2, 2}), Bytes<float>({1, 2, 3, 4, 5, 6, 7, 8}));
    op.Constant(Plain("axis", TensorType::kInt32, {3}), Bytes<int32_t>({0, 1, 2}));
    op.Output(Plain("out", TensorType::kFloat32, {}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "names more than 2 distinct axes");
  }
  {
    OneOp op(BuiltinOp::kMean);
    op.Input(Plain("in", TensorType::kFloat32, {2, 3}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Constant(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({1}));
    op.Output(Plain("out", TensorType::kFloat32, {2}));
    op.Options(KeepDims(true));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "output 'out' has shape [2]; keep_dims=1 over the axes gives [2,1]");
  }
  {
    OneOp op(BuiltinOp::kMean);
    op.Input(Plain("in", TensorType::kFloat32, {2, 3}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Constant(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({2}));
    op.Output(Plain("out", TensorType::kFloat32, {2}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "axis value 2 is out of range");
  }
  {
    OneOp op(BuiltinOp::kMean);
    TensorSpec in = Plain("in", TensorType::kInt32, {2});
    TensorSpec out = Plain("out", TensorType::kInt32, {});
    op.Input(in, Bytes<int32_t>({1, 2}));
    op.Constant(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({0}));
    op.Output(out);
    ExpectError(op.Run(), ErrorCode::kUnsupported, "input 'in' is INT32");
  }
  {
    OneOp op(BuiltinOp::kMean);
    op.Input(Plain("in", TensorType::kFloat32, {2}), Bytes<float>({1, 2}));
    op.Input(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({0}));
    op.Output(Plain("out", TensorType::kFloat32, {}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "axis 'axis' must be constant");
  }
}

}  // namespace
}  // namespace microarena::shape_op_test
