// PAD: int8 pads with the output zero point, float with 0; prepare errors.
#include <gtest/gtest.h>

#include "microarena/kernels/shape_op_test_util.h"

namespace microarena::shape_op_test {
namespace {

TEST(PadKernelTest, Int8PadsWithOutputZeroPoint) {
  // [1,2,2,1] = [[1,2],[3,4]], one row before H, one column after W, zero point -5:
  //   -5 -5 -5
  //    1  2 -5
  //    3  4 -5
  OneOp op(BuiltinOp::kPad);
  op.Input(Int8("in", {1, 2, 2, 1}, 0.25f, -5), Bytes<int8_t>({1, 2, 3, 4}));
  op.Constant(Plain("paddings", TensorType::kInt32, {4, 2}), Bytes<int32_t>({0, 0, 1, 0, 0, 1, 0, 0}));
  op.Output(Int8("out", {1, 3, 3, 1}, 0.25f, -5));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{-5, -5, -5, 1, 2, -5, 3, 4, -5}));
}

TEST(PadKernelTest, FloatPadsWithZeroOnEverySide) {
  // [2,3] = [[1,2,3],[4,5,6]], paddings (int64) [[1,1],[2,0]] -> [4,5].
  OneOp op(BuiltinOp::kPad);
  op.Input(Plain("in", TensorType::kFloat32, {2, 3}), Bytes<float>({1, 2, 3, 4, 5, 6}));
  op.Constant(Plain("paddings", TensorType::kInt64, {2, 2}), Bytes<int64_t>({1, 1, 2, 0}));
  op.Output(Plain("out", TensorType::kFloat32, {4, 5}));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{0, 0, 0, 0, 0,  //
                                                    0, 0, 1, 2, 3,  //
                                                    0, 0, 4, 5, 6,  //
                                                    0, 0, 0, 0, 0}));
}

TEST(PadKernelTest, FiveDimensionsPadTheOuterMost) {
  // [1,1,1,1,2] = {7, 8}, one before and one after the first dimension, zero point 2.
  OneOp op(BuiltinOp::kPad);
  op.Input(Int8("in", {1, 1, 1, 1, 2}, 1.0f, 2), Bytes<int8_t>({7, 8}));
  op.Constant(Plain("paddings", TensorType::kInt32, {5, 2}), Bytes<int32_t>({1, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
  op.Output(Int8("out", {3, 1, 1, 1, 2}, 1.0f, 2));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{2, 2, 7, 8, 2, 2}));
}

TEST(PadKernelTest, PrepareRejectsBadPaddingsAndShapes) {
  {
    OneOp op(BuiltinOp::kPad);
    op.Input(Plain("in", TensorType::kFloat32, {2}), Bytes<float>({1, 2}));
    op.Constant(Plain("paddings", TensorType::kInt32, {1, 2}), Bytes<int32_t>({-1, 1}));
    op.Output(Plain("out", TensorType::kFloat32, {2}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "negative padding (-1, 1) for dimension 0");
  }
  {
    OneOp op(BuiltinOp::kPad);
    op.Input(Plain("in", TensorType::kFloat32, {2}), Bytes<float>({1, 2}));
    op.Constant(Plain("paddings", TensorType::kInt32, {1, 2}), Bytes<int32_t>({1, 1}));
    op.Output(Plain("out", TensorType::kFloat32, {5}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "output 'out' has shape [5]; the paddings give [4]");
  }
  {
    OneOp op(BuiltinOp::kPad);
    op.Input(Plain("in", TensorType::kFloat32, {2}), Bytes<float>({1, 2}));
    op.Input(Plain("paddings", TensorType::kInt32, {1, 2}), Bytes<int32_t>({1, 1}));
    op.Output(Plain("out", TensorType::kFloat32, {4}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "must be a constant INT32 or INT64 tensor");
  }
  {
    OneOp op(BuiltinOp::kPad);
    op.Input(Int8("in", {2}, 0.5f, 0), Bytes<int8_t>({1, 2}));
    op.Constant(Plain("paddings", TensorType::kInt32, {1, 2}), Bytes<int32_t>({1, 1}));
    op.Output(Int8("out", {4}, 0.25f, 0));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "must share one scale and zero point");
  }
  {
    OneOp op(BuiltinOp::kPad);
    op.Input(Plain("in", TensorType::kInt64, {2}), Bytes<int64_t>({1, 2}));
    op.Constant(Plain("paddings", TensorType::kInt32, {1, 2}), Bytes<int32_t>({1, 1}));
    op.Output(Plain("out", TensorType::kInt64, {4}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "has type INT64");
  }
}

}  // namespace
}  // namespace microarena::shape_op_test
