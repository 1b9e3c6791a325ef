// MUL unit tests. Expected values are derived by hand in the comments.
//
// TFLM's rescaling is MultiplyByQuantizedMultiplier: a rounding doubling high
// multiply (SRDHM, whose ties round toward +infinity) and then a rounding
// right shift (ties away from zero), so results can differ from one
// correctly rounded step.
#include <gtest/gtest.h>

#include "microarena/kernels/elementwise_test_util.h"

namespace microarena {
namespace {

using elementwise_test::OneOpModel;
using elementwise_test::Tensor;

tflite::BuiltinOptionsUnion MulActivation(tflite::ActivationFunctionType activation) {
  tflite::MulOptionsT options;
  options.fused_activation_function = activation;
  return MakeBuiltinOptions(options);
}

// Scales 0.5 * 0.5 / 1 = 0.25 = 2^30 * 2^-31 with shift -1; zero points 0:
// q = RoundingDivideByPOT(SRDHM(x1 * x2, 2^30), 1).
//   3 * 2 = 6:   SRDHM = 3, 3 / 2 = 1.5 -> 2 (tie away from zero)
//   -3 * 2 = -6: SRDHM = -3, -1.5 -> -2
//   1 * 1 = 1:   SRDHM = (2^30 + 2^30) / 2^31 = 1, 0.5 -> 1 (0.25 rounded twice)
//   -1 * 1 = -1: SRDHM = (-2^30 + 1 - 2^30) / 2^31 truncates to 0 -> 0
//   127 * 127 = 16129 -> 4033 -> 127;  -128 * 127 -> -4064 -> -128
TEST(MulTest, Int8RoundsTwiceAsTflm) {
  OneOpModel model(BuiltinOp::kMul,
                   {Tensor(TensorType::kInt8, {6}, 0.5f, 0), Tensor(TensorType::kInt8, {6}, 0.5f, 0)},
                   Tensor(TensorType::kInt8, {6}, 1.0f, 0));
  model.SetInput<int8_t>(0, {3, -3, 1, -1, 127, -128});
  model.SetInput<int8_t>(1, {2, 2, 1, 1, 127, 127});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{2, -2, 1, 0, 127, -128}));
}

// Scales 1 * 1 / 0.25 = 4 = 2^30 * 2^-31 with shift +3: exact, q = 4 * x1 * x2
// + zero_point. Zero points 2, -3 (inputs) and -10 (output); RELU6 gives
// [max(-128, -10 + 0), min(127, -10 + round(6 / 0.25))] = [-10, 14].
//   (3 - 2) * (-2 + 3) = 1   -> 4 - 10 = -6
//   (6 - 2) * (-1 + 3) = 8   -> 32 - 10 = 22 -> 14
//   (0 - 2) * (0 + 3) = -6   -> -24 - 10 = -34 -> -10
//   (2 - 2) * (5 + 3) = 0    -> -10
//   (-100 - 2) * (100 + 3)   -> far below -> -10
TEST(MulTest, Int8MultiplierAboveOneWithZeroPointsAndRelu6) {
  OneOpModel model(BuiltinOp::kMul,
                   {Tensor(TensorType::kInt8, {5}, 1.0f, 2), Tensor(TensorType::kInt8, {5}, 1.0f, -3)},
                   Tensor(TensorType::kInt8, {5}, 0.25f, -10), MulActivation(tflite::ActivationFunctionType::RELU6));
  model.SetInput<int8_t>(0, {3, 6, 0, 2, -100});
  model.SetInput<int8_t>(1, {-2, -1, 0, 5, 100});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{-6, 14, -10, -10, -10}));
}

// Scales 1 * 1 / 1: multiplier 2^30 with shift +1, exact. [2, 1] * [1, 3] ->
// [2, 3]: rows {2, -3} times columns {1, -4, 5}.
TEST(MulTest, Int8BroadcastsRowsAgainstColumns) {
  OneOpModel model(BuiltinOp::kMul,
                   {Tensor(TensorType::kInt8, {2, 1}, 1.0f, 0), Tensor(TensorType::kInt8, {1, 3}, 1.0f, 0)},
                   Tensor(TensorType::kInt8, {2, 3}, 1.0f, 0));
  model.SetInput<int8_t>(0, {2, -3});
  model.SetInput<int8_t>(1, {1, -4, 5});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{2, -8, 10, -3, 12, -15}));
}

// Rank 5: [2, 1, 1, 1, 2] * [1, 2, 1, 1, 1] -> [2, 2, 1, 1, 2]; input1 is
// indexed by (a, c), input2 by b, the output in (a, b, c) order.
TEST(MulTest, FloatBroadcastsAtRankFive) {
  OneOpModel model(BuiltinOp::kMul,
                   {Tensor(TensorType::kFloat32, {2, 1, 1, 1, 2}), Tensor(TensorType::kFloat32, {1, 2, 1, 1, 1})},
                   Tensor(TensorType::kFloat32, {2, 2, 1, 1, 2}));
  model.SetInput<float>(0, {1.0f, 2.0f, 3.0f, 4.0f});
  model.SetInput<float>(1, {10.0f, 100.0f});
  EXPECT_EQ(model.Run<float>(), (std::vector<float>{10.0f, 20.0f, 100.0f, 200.0f, 30.0f, 40.0f, 300.0f, 400.0f}));
}

TEST(MulTest, FloatClampsToReluN1To1) {
  // {0.5 * 3, -0.25 * 2, -4 * 1} = {1.5, -0.5, -4} -> {1, -0.5, -1}.
  OneOpModel model(BuiltinOp::kMul, {Tensor(TensorType::kFloat32, {3}), Tensor(TensorType::kFloat32, {3})},
                   Tensor(TensorType::kFloat32, {3}), MulActivation(tflite::ActivationFunctionType::RELU_N1_TO_1));
  model.SetInput<float>(0, {0.5f, -0.25f, -4.0f});
  model.SetInput<float>(1, {3.0f, 2.0f, 1.0f});
  EXPECT_EQ(model.Run<float>(), (std::vector<float>{1.0f, -0.5f, -1.0f}));
}

TEST(MulPrepareTest, RejectsBadTypesShapesQuantizationAndActivations) {
  OneOpModel mixed(BuiltinOp::kMul, {Tensor(TensorType::kInt8, {2}, 0.5f, 0), Tensor(TensorType::kFloat32, {2})},
                   Tensor(TensorType::kInt8, {2}, 1.0f, 0));
  EXPECT_EQ(mixed.Prepare().code(), ErrorCode::kUnsupported);
  // int16 is accepted with zero points 0 only (as TFLM).
  OneOpModel int16(BuiltinOp::kMul,
                   {Tensor(TensorType::kInt16, {2}, 0.5f, 0), Tensor(TensorType::kInt16, {2}, 0.5f, 1)},
                   Tensor(TensorType::kInt16, {2}, 1.0f, 0));
  EXPECT_EQ(int16.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel not_broadcastable(BuiltinOp::kMul,
                               {Tensor(TensorType::kFloat32, {2, 3}), Tensor(TensorType::kFloat32, {2})},
                               Tensor(TensorType::kFloat32, {2, 3}));
  EXPECT_EQ(not_broadcastable.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel wrong_output(BuiltinOp::kMul, {Tensor(TensorType::kFloat32, {2, 1}), Tensor(TensorType::kFloat32, {3})},
                          Tensor(TensorType::kFloat32, {3, 2}));
  EXPECT_EQ(wrong_output.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel rank7(BuiltinOp::kMul,
                   {Tensor(TensorType::kFloat32, {1, 1, 1, 1, 1, 1, 2}), Tensor(TensorType::kFloat32, {2})},
                   Tensor(TensorType::kFloat32, {1, 1, 1, 1, 1, 1, 2}));
  EXPECT_EQ(rank7.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel tanh(BuiltinOp::kMul,
                  {Tensor(TensorType::kInt8, {2}, 0.5f, 0), Tensor(TensorType::kInt8, {2}, 0.5f, 0)},
                  Tensor(TensorType::kInt8, {2}, 1.0f, 0), MulActivation(tflite::ActivationFunctionType::TANH));
  EXPECT_EQ(tanh.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel unquantized(BuiltinOp::kMul, {Tensor(TensorType::kInt8, {2}, 0.5f, 0), Tensor(TensorType::kInt8, {2})},
                         Tensor(TensorType::kInt8, {2}, 1.0f, 0));
  EXPECT_EQ(unquantized.Prepare().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace microarena
