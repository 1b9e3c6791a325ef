// BATCH_MATMUL: float with and without adjoints, batch broadcasting, int8
// requantization (rounding half toward +infinity in the high multiply,
// saturation, zero points on every operand); prepare errors.
#include <gtest/gtest.h>

#include "microarena/kernels/shape_op_test_util.h"

namespace microarena::shape_op_test {
namespace {

tflite::BatchMatMulOptionsT Adjoint(bool adj_x, bool adj_y) {
  tflite::BatchMatMulOptionsT options;
  options.adj_x = adj_x;
  options.adj_y = adj_y;
  return options;
}

// [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]:
//   1*7 + 2*9 + 3*11 = 58, 1*8 + 2*10 + 3*12 = 64, 4*7 + 5*9 + 6*11 = 139, 4*8 + 5*10 + 6*12 = 154.
TEST(BatchMatmulKernelTest, FloatPlainAndAdjoint) {
  {
    OneOp op(BuiltinOp::kBatchMatmul);
    op.Input(Plain("lhs", TensorType::kFloat32, {2, 3}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Input(Plain("rhs", TensorType::kFloat32, {3, 2}), Bytes<float>({7, 8, 9, 10, 11, 12}));
    op.Output(Plain("out", TensorType::kFloat32, {2, 2}));
    Status status = op.Run();
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(op.Output<float>(), (std::vector<float>{58, 64, 139, 154}));
    EXPECT_EQ(op.scratch_bytes(), 0u);
  }
  {
    // The same product with both operands stored transposed.
    OneOp op(BuiltinOp::kBatchMatmul);
    op.Input(Plain("lhs", TensorType::kFloat32, {3, 2}), Bytes<float>({1, 4, 2, 5, 3, 6}));
    op.Constant(Plain("rhs", TensorType::kFloat32, {2, 3}), Bytes<float>({7, 9, 11, 8, 10, 12}));
    op.Output(Plain("out", TensorType::kFloat32, {2, 2}));
    op.Options(Adjoint(true, true));
    Status status = op.Run();
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(op.Output<float>(), (std::vector<float>{58, 64, 139, 154}));
  }
}

TEST(BatchMatmulKernelTest, FloatBroadcastsBatchDimensions) {
  // lhs [2,1,2]: {1,2} and {3,4}; rhs [1,2,1] = {5,6} repeats: 1*5 + 2*6 = 17, 3*5 + 4*6 = 39.
  OneOp op(BuiltinOp::kBatchMatmul);
  op.Input(Plain("lhs", TensorType::kFloat32, {2, 1, 2}), Bytes<float>({1, 2, 3, 4}));
  op.Input(Plain("rhs", TensorType::kFloat32, {1, 2, 1}), Bytes<float>({5, 6}));
  op.Output(Plain("out", TensorType::kFloat32, {2, 1, 1}));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{17, 39}));
}

TEST(BatchMatmulKernelTest, FloatBroadcastsBothWaysAcrossRanks) {
  // lhs [2,1,1,1] = {1}, {2}; rhs [3,1,1] = {10}, {20}, {30} -> out [2,3,1,1]:
  // out[i][j] = lhs[i] * rhs[j].
  OneOp op(BuiltinOp::kBatchMatmul);
  op.Input(Plain("lhs", TensorType::kFloat32, {2, 1, 1, 1}), Bytes<float>({1, 2}));
  op.Input(Plain("rhs", TensorType::kFloat32, {3, 1, 1}), Bytes<float>({10, 20, 30}));
  op.Output(Plain("out", TensorType::kFloat32, {2, 3, 1, 1}));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{10, 20, 30, 20, 40, 60}));
}

TEST(BatchMatmulKernelTest, Int8RequantizesWithZeroPoints) {
  // lhs (0.5, zp 1), rhs (0.5, zp -1), out (0.5, zp 3): M = float(0.5 * 0.5) / 0.5 = 0.5
  // = 2^30 * 2^(0 - 31), so out = round_half_up(acc / 2) + 3, clamped to int8.
  // rhs - zp = [[1, 3], [2, -3]] from stored [[0, 2], [1, -4]].
  //   row {3, -2} -> {2, -3}:   c0 = 2 - 6 = -4 -> -2 -> 1;   c1 = 6 + 9 = 15 -> 7.5 -> 8 -> 11
  //   row {0, 1} -> {-1, 0}:    c0 = -1 -> -0.5 -> 0 -> 3;    c1 = -3 -> -1.5 -> -1 -> 2
  //   row {127, 127} -> {126, 126}: c0 = 378 -> 189 -> 192 -> 127;  c1 = 0 -> 3
  OneOp op(BuiltinOp::kBatchMatmul);
  op.Input(Int8("lhs", {3, 2}, 0.5f, 1), Bytes<int8_t>({3, -2, 0, 1, 127, 127}));
  op.Constant(Int8("rhs", {2, 2}, 0.5f, -1), Bytes<int8_t>({0, 2, 1, -4}));
  op.Output(Int8("out", {3, 2}, 0.5f, 3));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{1, 11, 3, 2, 127, 3}));
}

TEST(BatchMatmulKernelTest, Int8AdjointYReadsRhsTransposed) {
  // Same product as above with rhs stored [C, B] = [[0, 1], [2, -4]] and adj_y.
  OneOp op(BuiltinOp::kBatchMatmul);
  op.Input(Int8("lhs", {3, 2}, 0.5f, 1), Bytes<int8_t>({3, -2, 0, 1, 127, 127}));
  op.Input(Int8("rhs", {2, 2}, 0.5f, -1), Bytes<int8_t>({0, 1, 2, -4}));
  op.Output(Int8("out", {3, 2}, 0.5f, 3));
  op.Options(Adjoint(false, true));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{1, 11, 3, 2, 127, 3}));
}

TEST(BatchMatmulKernelTest, PrepareRejectsBadShapesTypesAndQuantization) {
  {
    OneOp op(BuiltinOp::kBatchMatmul);
    op.Input(Plain("lhs", TensorType::kFloat32, {2, 3}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Input(Plain("rhs", TensorType::kFloat32, {2, 2}), Bytes<float>({1, 2, 3, 4}));
    op.Output(Plain("out", TensorType::kFloat32, {2, 2}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "has depth 3 but rhs 'rhs' [2,2] (adj_y=0) has depth 2");
  }
  {
    OneOp op(BuiltinOp::kBatchMatmul);
    op.Input(Plain("lhs", TensorType::kFloat32, {2, 2}), Bytes<float>({1, 2, 3, 4}));
    op.Input(Int8("rhs", {2, 2}, 0.5f, 0), Bytes<int8_t>({1, 2, 3, 4}));
    op.Output(Plain("out", TensorType::kFloat32, {2, 2}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "supported: all FLOAT32, all INT8 or all INT16");
  }
  {
    OneOp op(BuiltinOp::kBatchMatmul);
    op.Input(Plain("lhs", TensorType::kFloat32, {2}), Bytes<float>({1, 2}));
    op.Input(Plain("rhs", TensorType::kFloat32, {2, 1}), Bytes<float>({1, 2}));
    op.Output(Plain("out", TensorType::kFloat32, {1}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "lhs 'lhs' has rank 1");
  }
  {
    OneOp op(BuiltinOp::kBatchMatmul);
    op.Input(Plain("lhs", TensorType::kFloat32, {2, 1, 1}), Bytes<float>({1, 2}));
    op.Input(Plain("rhs", TensorType::kFloat32, {3, 1, 1}), Bytes<float>({1, 2, 3}));
    op.Output(Plain("out", TensorType::kFloat32, {3, 1, 1}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "do not broadcast");
  }
  {
    OneOp op(BuiltinOp::kBatchMatmul);
    op.Input(Plain("lhs", TensorType::kFloat32, {2, 3}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Input(Plain("rhs", TensorType::kFloat32, {3, 2}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Output(Plain("out", TensorType::kFloat32, {2, 3}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "output 'out' has shape [2,3]; lhs [2,3] x rhs [3,2] gives [2,2]");
  }
  {
    OneOp op(BuiltinOp::kBatchMatmul);
    op.Input(Int8("lhs", {2, 2}, 0.5f, 0), Bytes<int8_t>({1, 2, 3, 4}));
    TensorSpec rhs = Int8("rhs", {2, 2}, 0.5f, 0);
    rhs.quantization = QuantizationSpec::PerChannel({0.5f, 0.25f}, {0, 0}, 1);
    op.Constant(rhs, Bytes<int8_t>({1, 2, 3, 4}));
    op.Output(Int8("out", {2, 2}, 0.5f, 0));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "per-channel is not supported");
  }
}

// adj_x with an rhs batch of 1 (TFLM folds the lhs batch there; it gives
// the plain product). Batch 0 stores [[1, 2], [3, 4]], read transposed:
// [[1, 3], [2, 4]] x [[1, 2], [3, 4]] = [[10, 14], [14, 20]]; batch 1
// [[5, 7], [6, 8]] x the same = [[26, 38], [30, 44]].
TEST(BatchMatmulKernelTest, AdjointXWithRhsBatchOfOne) {
  OneOp op(BuiltinOp::kBatchMatmul);
  op.Input(Plain("lhs", TensorType::kFloat32, {2, 2, 2}), Bytes<float>({1, 2, 3, 4, 5, 6, 7, 8}));
  op.Input(Plain("rhs", TensorType::kFloat32, {1, 2, 2}), Bytes<float>({1, 2, 3, 4}));
  op.Output(Plain("out", TensorType::kFloat32, {2, 2, 2}));
  op.Options(Adjoint(true, false));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{10, 14, 14, 20, 26, 38, 30, 44}));
}

}  // namespace
}  // namespace microarena::shape_op_test
