// TRANSPOSE: 2-D, 3-D and 6-D permutations of 1-, 2- and 4-byte types; errors.
#include <gtest/gtest.h>

#include "microarena/kernels/shape_op_test_util.h"

namespace microarena::shape_op_test {
namespace {

TEST(TransposeKernelTest, Int8MatrixTranspose) {
  // [[0,1,2],[3,4,5]] -> [[0,3],[1,4],[2,5]].
  OneOp op(BuiltinOp::kTranspose);
  op.Input(Int8("in", {2, 3}, 0.5f, -2), Bytes<int8_t>({0, 1, 2, 3, 4, 5}));
  op.Constant(Plain("perm", TensorType::kInt32, {2}), Bytes<int32_t>({1, 0}));
  op.Output(Int8("out", {3, 2}, 0.5f, -2));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{0, 3, 1, 4, 2, 5}));
}

TEST(TransposeKernelTest, Float3dRotation) {
  // in[j][0][i] = 3j + i, shape [2,1,3]; perm [2,0,1] -> out[i][j][0] = 3j + i, shape [3,2,1]:
  // i = 0: 0, 3;  i = 1: 1, 4;  i = 2: 2, 5.
  OneOp op(BuiltinOp::kTranspose);
  op.Input(Plain("in", TensorType::kFloat32, {2, 1, 3}), Bytes<float>({0, 1, 2, 3, 4, 5}));
  op.Constant(Plain("perm", TensorType::kInt64, {3}), Bytes<int64_t>({2, 0, 1}));
  op.Output(Plain("out", TensorType::kFloat32, {3, 2, 1}));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TransposeKernelTest, Int16SixDimensionsReversed) {
  // in[0][a][0][0][0][b] = 10 + 2a + b; reversing all 6 dimensions gives
  // out[b][0][0][0][a][0]: b = 0: 10, 12;  b = 1: 11, 13.
  OneOp op(BuiltinOp::kTranspose);
  TensorSpec in = Plain("in", TensorType::kInt16, {1, 2, 1, 1, 1, 2});
  in.quantization = QuantizationSpec::PerTensor(1.0f, 0);
  TensorSpec out = Plain("out", TensorType::kInt16, {2, 1, 1, 1, 2, 1});
  out.quantization = QuantizationSpec::PerTensor(1.0f, 0);
  op.Input(in, Bytes<int16_t>({10, 11, 12, 13}));
  op.Constant(Plain("perm", TensorType::kInt32, {6}), Bytes<int32_t>({5, 4, 3, 2, 1, 0}));
  op.Output(out);
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int16_t>(), (std::vector<int16_t>{10, 12, 11, 13}));
}

TEST(TransposeKernelTest, PrepareRejectsBadPermutationsShapesAndTypes) {
  {
    OneOp op(BuiltinOp::kTranspose);
    op.Input(Plain("in", TensorType::kFloat32, {2, 3}), Bytes<float>({0, 1, 2, 3, 4, 5}));
    op.Constant(Plain("perm", TensorType::kInt32, {2}), Bytes<int32_t>({1, 1}));
    op.Output(Plain("out", TensorType::kFloat32, {3, 2}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "is not a permutation of 0..1 (value 1 at 1)");
  }
  {
    OneOp op(BuiltinOp::kTranspose);
    op.Input(Plain("in", TensorType::kFloat32, {2, 3}), Bytes<float>({0, 1, 2, 3, 4, 5}));
    op.Constant(Plain("perm", TensorType::kInt32, {2}), Bytes<int32_t>({1, 0}));
    op.Output(Plain("out", TensorType::kFloat32, {2, 3}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "output 'out' has shape [2,3]; the permutation gives [3,2]");
  }
  {
    OneOp op(BuiltinOp::kTranspose);
    op.Input(Plain("in", TensorType::kInt64, {2}), Bytes<int64_t>({0, 1}));
    op.Constant(Plain("perm", TensorType::kInt32, {1}), Bytes<int32_t>({0}));
    op.Output(Plain("out", TensorType::kInt64, {2}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "has type INT64");
  }
  {
    OneOp op(BuiltinOp::kTranspose);
    op.Input(Plain("in", TensorType::kFloat32, {2, 3}), Bytes<float>({0, 1, 2, 3, 4, 5}));
    op.Constant(Plain("perm", TensorType::kInt32, {3}), Bytes<int32_t>({0, 1, 2}));
    op.Output(Plain("out", TensorType::kFloat32, {2, 3}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "has 3 values but input 'in' has rank 2");
  }
}

}  // namespace
}  // namespace microarena::shape_op_test
