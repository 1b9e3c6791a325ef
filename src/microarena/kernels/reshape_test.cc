// RESHAPE: copies bytes of any type into an output buffer of another shape;
// prepare errors for element-count and type mismatches.
#include <gtest/gtest.h>

#include "microarena/kernels/conv_test_util.h"

namespace microarena {
namespace {

using conv_test::Bytes;
using conv_test::ExpectError;
using conv_test::Int8;
using conv_test::OneOp;
using conv_test::Plain;

TEST(ReshapeKernelTest, CopiesInt8WithShapeInput) {
  OneOp op(BuiltinOp::kReshape);
  op.Input(Int8("in", {2, 3}, 0.5f, -1), Bytes<int8_t>({1, -2, 3, -4, 5, -128}));
  op.Constant(Plain("shape", TensorType::kInt32, {2}), Bytes<int32_t>({3, 2}));
  op.Output(Int8("out", {3, 2}, 0.5f, -1));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<int8_t>(), (std::vector<int8_t>{1, -2, 3, -4, 5, -128}));
  EXPECT_EQ(op.persistent_bytes(), 0u);
}

TEST(ReshapeKernelTest, CopiesFloatWithoutShapeInput) {
  OneOp op(BuiltinOp::kReshape);
  op.Input(Plain("in", TensorType::kFloat32, {1, 2, 2}), Bytes<float>({0.5f, -1.0f, 2.0f, 3.25f}));
  op.Output(Plain("out", TensorType::kFloat32, {4}));
  Status status = op.Run();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(op.Output<float>(), (std::vector<float>{0.5f, -1.0f, 2.0f, 3.25f}));
}

TEST(ReshapeKernelTest, PrepareErrors) {
  {
    OneOp op(BuiltinOp::kReshape);
    op.Input(Plain("in", TensorType::kFloat32, {2, 3}), Bytes<float>(std::vector<float>(6, 0.0f)));
    op.Output(Plain("out", TensorType::kFloat32, {5}));
    ExpectError(op.Run(), ErrorCode::kInvalidArgument, "has 6 elements but output tensor 1 'out' has 5");
  }
  {
    OneOp op(BuiltinOp::kReshape);
    op.Input(Plain("in", TensorType::kFloat32, {2}), Bytes<float>({0, 0}));
    op.Output(Plain("out", TensorType::kInt32, {2}));
    ExpectError(op.Run(), ErrorCode::kUnsupported, "INT32 where FLOAT32 is required");
  }
}

}  // namespace
}  // namespace microarena
