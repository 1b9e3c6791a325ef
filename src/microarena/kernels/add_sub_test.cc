// ADD and SUB unit tests. Expected values are derived by hand in the comments.
#include <gtest/gtest.h>

#include "microarena/kernels/elementwise_test_util.h"

namespace microarena {
namespace {

using elementwise_test::OneOpModel;
using elementwise_test::Tensor;

tflite::BuiltinOptionsUnion AddActivation(tflite::ActivationFunctionType activation) {
  tflite::AddOptionsT options;
  options.fused_activation_function = activation;
  return MakeBuiltinOptions(options);
}

tflite::BuiltinOptionsUnion SubActivation(tflite::ActivationFunctionType activation) {
  tflite::SubOptionsT options;
  options.fused_activation_function = activation;
  return MakeBuiltinOptions(options);
}

// Inputs at scale 0.5 and the output at scale 1 (all zero points 0):
// twice the larger input scale is 1, so each input multiplier is 0.5
// (2^30, shift 0) and the output multiplier 1 / 2^20 (2^30, shift -19).
// q1 = 3, q2 = 4: (3 << 20) * 0.5 = 3 * 2^19 and 4 * 2^19, exact; the sum
// 7 * 2^19 times 2^-20 = 3.5, a tie, rounds away from zero to 4; -3.5 -> -4.
TEST(AddTest, Int8RoundsTiesAwayFromZero) {
  OneOpModel model(BuiltinOp::kAdd,
                   {Tensor(TensorType::kInt8, {4}, 0.5f, 0), Tensor(TensorType::kInt8, {4}, 0.5f, 0)},
                   Tensor(TensorType::kInt8, {4}, 1.0f, 0));
  // 127 + 127 at 0.5 = 127 in the output; -128 + -128 = -128.
  model.SetInput<int8_t>(0, {3, -3, 127, -128});
  model.SetInput<int8_t>(1, {4, -4, 127, -128});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{4, -4, 127, -128}));
}

TEST(AddTest, Int8FusedReluClampsAtTheOutputZeroPoint) {
  // Output zero point -10: RELU's minimum is max(-128, -10 + round(0 / 1)) = -10.
  // 3.5 -> 4 - 10 = -6; -3.5 -> -4 - 10 = -14 -> clamped to -10;
  // 0.5 + 60 = 60.5 -> 61 - 10 = 51; 63.5 + 63.5 = 127 - 10 = 117.
  OneOpModel model(BuiltinOp::kAdd,
                   {Tensor(TensorType::kInt8, {4}, 0.5f, 0), Tensor(TensorType::kInt8, {4}, 0.5f, 0)},
                   Tensor(TensorType::kInt8, {4}, 1.0f, -10), AddActivation(tflite::ActivationFunctionType::RELU));
  model.SetInput<int8_t>(0, {3, -3, 1, 127});
  model.SetInput<int8_t>(1, {4, -4, 120, 127});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{-6, -10, 51, 117}));
}

TEST(AddTest, Int8BroadcastsAcrossLeadingAndInnerAxes) {
  // [2, 1] + [3] -> [2, 3]; input zero points -1 and 1 are subtracted first:
  // rows (q1 + 1) * 0.5 = {1, 2}, columns (q2 - 1) * 0.5 = {0, 1, 2}
  // (q2 = 1, 3, 5); sums {1, 2, 3, 2, 3, 4} exactly, output zero point 0.
  OneOpModel model(BuiltinOp::kAdd,
                   {Tensor(TensorType::kInt8, {2, 1}, 0.5f, -1), Tensor(TensorType::kInt8, {3}, 0.5f, 1)},
                   Tensor(TensorType::kInt8, {2, 3}, 1.0f, 0));
  model.SetInput<int8_t>(0, {1, 3});
  model.SetInput<int8_t>(1, {1, 3, 5});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{1, 2, 3, 2, 3, 4}));
}

TEST(AddTest, FloatBroadcastWithRelu6) {
  // [2, 1] + [1, 3] -> [2, 3]: {10, -20} + {1, 2, 3}, then clamped to [0, 6].
  OneOpModel model(BuiltinOp::kAdd, {Tensor(TensorType::kFloat32, {2, 1}), Tensor(TensorType::kFloat32, {1, 3})},
                   Tensor(TensorType::kFloat32, {2, 3}), AddActivation(tflite::ActivationFunctionType::RELU6));
  model.SetInput<float>(0, {10.0f, -2.5f});
  model.SetInput<float>(1, {1.0f, 4.0f, 8.0f});
  EXPECT_EQ(model.Run<float>(), (std::vector<float>{6.0f, 6.0f, 6.0f, 0.0f, 1.5f, 5.5f}));
}

TEST(SubTest, Int8RoundsTiesAwayFromZero) {
  // Same multipliers as ADD (the float computation is exact here):
  // 1.5 - (-2) = 3.5 -> 4; -1.5 - 2 = -3.5 -> -4; 63.5 - (-64) saturates at 127.
  OneOpModel model(BuiltinOp::kSub,
                   {Tensor(TensorType::kInt8, {3}, 0.5f, 0), Tensor(TensorType::kInt8, {3}, 0.5f, 0)},
                   Tensor(TensorType::kInt8, {3}, 1.0f, 0));
  model.SetInput<int8_t>(0, {3, -3, 127});
  model.SetInput<int8_t>(1, {-4, 4, -128});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{4, -4, 127}));
}

TEST(SubTest, FloatBroadcastWithReluN1To1) {
  // {0.25, 3} - {1} = {-0.75, 2} -> clamped to [-1, 1] = {-0.75, 1}.
  OneOpModel model(BuiltinOp::kSub, {Tensor(TensorType::kFloat32, {2}), Tensor(TensorType::kFloat32, {1})},
                   Tensor(TensorType::kFloat32, {2}), SubActivation(tflite::ActivationFunctionType::RELU_N1_TO_1));
  model.SetInput<float>(0, {0.25f, 3.0f});
  model.SetInput<float>(1, {1.0f});
  EXPECT_EQ(model.Run<float>(), (std::vector<float>{-0.75f, 1.0f}));
}

TEST(AddPrepareTest, RejectsMixedTypesBadShapesAndUnsupportedActivations) {
  OneOpModel mixed(BuiltinOp::kAdd, {Tensor(TensorType::kInt8, {2}, 0.5f, 0), Tensor(TensorType::kFloat32, {2})},
                   Tensor(TensorType::kInt8, {2}, 1.0f, 0));
  EXPECT_EQ(mixed.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel not_broadcastable(BuiltinOp::kAdd,
                               {Tensor(TensorType::kFloat32, {2, 3}), Tensor(TensorType::kFloat32, {2})},
                               Tensor(TensorType::kFloat32, {2, 3}));
  EXPECT_EQ(not_broadcastable.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel wrong_output(BuiltinOp::kAdd, {Tensor(TensorType::kFloat32, {2, 1}), Tensor(TensorType::kFloat32, {3})},
                          Tensor(TensorType::kFloat32, {2, 1}));
  EXPECT_EQ(wrong_output.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel tanh(BuiltinOp::kAdd, {Tensor(TensorType::kFloat32, {2}), Tensor(TensorType::kFloat32, {2})},
                  Tensor(TensorType::kFloat32, {2}), AddActivation(tflite::ActivationFunctionType::TANH));
  EXPECT_EQ(tanh.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel unquantized(BuiltinOp::kSub, {Tensor(TensorType::kInt8, {2}), Tensor(TensorType::kInt8, {2}, 0.5f, 0)},
                         Tensor(TensorType::kInt8, {2}, 1.0f, 0));
  EXPECT_EQ(unquantized.Prepare().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace microarena
