// SQUEEZE and EXPAND_DIMS: shape checks and byte-for-byte copies.
#include <gtest/gtest.h>

#include "microarena/kernels/shape_op_test_util.h"

namespace microarena::shape_op_test {
namespace {

tflite::SqueezeOptionsT SqueezeDims(std::vector<int32_t> dims) {
  tflite::SqueezeOptionsT options;
  options.squeeze_dims = std::move(dims);
  return options;
}

TEST(SqueezeKernelTest, SqueezesAllOrListedDimensions) {
  {
    OneOp op(BuiltinOp::kSqueeze);
    op.Input(Int8("in", {1, 3, 1, 2}, 0.5f, 1), Bytes<int8_t>({-128, -1, 0, 1, 2, 127}));
    op.Output(Int8("out", {3, 2}, 0.5f, 1));
    Status status = op.Run();
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{-128, -1, 0, 1, 2, 127}));
  }
  {
    OneOp op(BuiltinOp::kSqueeze);
    op.Input(Plain("in", TensorType::kFloat32, {1, 3, 1, 2}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 3, 2}));
    op.Options(SqueezeDims({-2}));
    Status status = op.Run();
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(op.Output<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  }
}

TEST(SqueezeKernelTest, PrepareRejectsBadDimensions) {
  {
    OneOp op(BuiltinOp::kSqueeze);
    op.Input(Plain("in", TensorType::kFloat32, {1, 3}), Bytes<float>({1, 2, 3}));
    op.Output(Plain("out", TensorType::kFloat32, {1}));
    op.Options(SqueezeDims({1}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "squeeze_dims entry 1 is out of range or not of size 1");
  }
  {
    OneOp op(BuiltinOp::kSqueeze);
    op.Input(Plain("in", TensorType::kFloat32, {1, 3}), Bytes<float>({1, 2, 3}));
    op.Output(Plain("out", TensorType::kFloat32, {3, 1}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "output 'out' has shape [3,1]; squeezing input 'in' gives [3]");
  }
  {
    OneOp op(BuiltinOp::kSqueeze);
    op.Input(Plain("in", TensorType::kFloat32, {1, 3}), Bytes<float>({1, 2, 3}));
    op.Output(Plain("out", TensorType::kInt32, {3}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "must have the type and quantization");
  }
}

TEST(ExpandDimsKernelTest, InsertsAtPositiveAndNegativeAxes) {
  {
    // Axis -1 on rank 2 appends: [3,2] -> [3,2,1].
    OneOp op(BuiltinOp::kExpandDims);
    op.Input(Int8("in", {3, 2}, 0.5f, 0), Bytes<int8_t>({1, 2, 3, 4, 5, 6}));
    op.Constant(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({-1}));
    op.Output(Int8("out", {3, 2, 1}, 0.5f, 0));
    Status status = op.Run();
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{1, 2, 3, 4, 5, 6}));
  }
  {
    // Axis 0 (INT64 scalar) prepends: [2] -> [1,2].
    OneOp op(BuiltinOp::kExpandDims);
    op.Input(Plain("in", TensorType::kFloat32, {2}), Bytes<float>({-1.5f, 2.25f}));
    op.Constant(Plain("axis", TensorType::kInt64, {}), Bytes<int64_t>({0}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 2}));
    Status status = op.Run();
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(op.Output<float>(), (std::vector<float>{-1.5f, 2.25f}));
  }
}

TEST(ExpandDimsKernelTest, PrepareRejectsBadAxes) {
  {
    OneOp op(BuiltinOp::kExpandDims);
    op.Input(Plain("in", TensorType::kFloat32, {3, 2}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Constant(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({3}));
    op.Output(Plain("out", TensorType::kFloat32, {3, 2, 1}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "axis 3 is out of range for input 'in' of rank 2");
  }
  {
    OneOp op(BuiltinOp::kExpandDims);
    op.Input(Plain("in", TensorType::kFloat32, {3, 2}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Constant(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({1}));
    op.Output(Plain("out", TensorType::kFloat32, {3, 2, 1}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "output 'out' has shape [3,2,1]; axis 1 gives [3,1,2]");
  }
  {
    OneOp op(BuiltinOp::kExpandDims);
    op.Input(Plain("in", TensorType::kFloat32, {3, 2}), Bytes<float>({1, 2, 3, 4, 5, 6}));
    op.Input(Plain("axis", TensorType::kInt32, {1}), Bytes<int32_t>({0}));
    op.Output(Plain("out", TensorType::kFloat32, {1, 3, 2}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "must be one constant INT32 or INT64 value");
  }
}

}  // namespace
}  // namespace microarena::shape_op_test
