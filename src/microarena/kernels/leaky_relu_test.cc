// LEAKY_RELU unit tests. Expected values are derived by hand in the comments.
//
// Every int8 rescaling is MultiplyByQuantizedMultiplier: SRDHM (ties toward
// +infinity: (p + 1 - 2^30) / 2^31 truncates for p < 0), then a rounding
// right shift (ties away from zero).
#include <gtest/gtest.h>

#include "microarena/kernels/elementwise_test_util.h"

namespace microarena {
namespace {

using elementwise_test::OneOpModel;
using elementwise_test::Tensor;

tflite::BuiltinOptionsUnion LeakyReluAlpha(float alpha) {
  tflite::LeakyReluOptionsT options;
  options.alpha = alpha;
  return MakeBuiltinOptions(options);
}

// Scales 1 -> 1, zero points 0, alpha 0.5. Identity 1 = 2^30 with shift +1
// (exact). Alpha 0.5 = 2^30 with shift 0: y = SRDHM(x, 2^30), x / 2 with
// ties toward +infinity:
//   -1 -> (-2^30 + 1 - 2^30) / 2^31 = -0.99.. -> 0    (-0.5 -> 0)
//   -2 -> -1;  -3 -> (-2^32 + 1) / 2^31 -> -1          (-1.5 -> -1)
//   -128 -> -64
TEST(LeakyReluTest, Int8AlphaBranchRoundsTiesTowardPlusInfinity) {
  OneOpModel model(BuiltinOp::kLeakyRelu, {Tensor(TensorType::kInt8, {7}, 1.0f, 0)},
                   Tensor(TensorType::kInt8, {7}, 1.0f, 0), LeakyReluAlpha(0.5f));
  model.SetInput<int8_t>(0, {5, 0, -1, -2, -3, -128, 127});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{5, 0, 0, -1, -1, -64, 127}));
}

// Input scale 0.5, output scale 1, input zero point -1 (x = q + 1), output
// zero point 0, alpha 0.25.
// Identity 0.5 = 2^30, shift 0: x = 3 -> (3 * 2^30 + 2^30) / 2^31 = 2 (1.5);
//   x = 1 -> 1 (0.5).
// Alpha 0.5 * 0.25 / 1 = 0.125 = 2^30, shift -2: SRDHM(x, 2^30), then / 4:
//   x = -6:  -3, -0.75 -> -1
//   x = -2:  -1.49.. -> -1, -0.25 -> 0
//   x = -4:  -2, -0.5 -> -1 (tie away from zero)
//   x = -12: -6, -1.5 -> -2
TEST(LeakyReluTest, Int8RequantizesBothBranchesWithZeroPoints) {
  OneOpModel model(BuiltinOp::kLeakyRelu, {Tensor(TensorType::kInt8, {6}, 0.5f, -1)},
                   Tensor(TensorType::kInt8, {6}, 1.0f, 0), LeakyReluAlpha(0.25f));
  model.SetInput<int8_t>(0, {2, 0, -7, -3, -5, -13});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{2, 1, -1, 0, -1, -2}));
}

// Alpha -0.5: QuantizeMultiplier gives -2^30 with shift 0. TFLM multiplies by
// the magnitude 2^30 and negates: x = -3 -> -(SRDHM(-3, 2^30) = -1) = 1,
// where SRDHM(-3, -2^30) would give (3 * 2^30 + 2^30) / 2^31 = 2.
// Output zero point 10: 5 -> 15; 0 -> 10; -1 -> 0 + 10; -2 -> 1 + 10;
// -3 -> 1 + 10; -128 -> 64 + 10; 127 -> 137 -> 127.
TEST(LeakyReluTest, Int8NegativeAlphaNegatesTheMagnitudeProduct) {
  OneOpModel model(BuiltinOp::kLeakyRelu, {Tensor(TensorType::kInt8, {7}, 1.0f, 0)},
                   Tensor(TensorType::kInt8, {7}, 1.0f, 10), LeakyReluAlpha(-0.5f));
  model.SetInput<int8_t>(0, {5, 0, -1, -2, -3, -128, 127});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{15, 10, 10, 11, 11, 74, 127}));
}

TEST(LeakyReluTest, FloatScalesOnlyNonPositiveValues) {
  // x > 0 ? x : x * alpha; alpha 2 (above 1) and -1 (negative) are honoured.
  OneOpModel doubling(BuiltinOp::kLeakyRelu, {Tensor(TensorType::kFloat32, {4})}, Tensor(TensorType::kFloat32, {4}),
                      LeakyReluAlpha(2.0f));
  doubling.SetInput<float>(0, {1.5f, 0.0f, -3.0f, -0.25f});
  EXPECT_EQ(doubling.Run<float>(), (std::vector<float>{1.5f, 0.0f, -6.0f, -0.5f}));
  OneOpModel mirror(BuiltinOp::kLeakyRelu, {Tensor(TensorType::kFloat32, {2})}, Tensor(TensorType::kFloat32, {2}),
                    LeakyReluAlpha(-1.0f));
  mirror.SetInput<float>(0, {2.0f, -3.0f});
  EXPECT_EQ(mirror.Run<float>(), (std::vector<float>{2.0f, 3.0f}));
}

TEST(LeakyReluPrepareTest, RejectsBadTypesShapesAndQuantization) {
  OneOpModel mixed(BuiltinOp::kLeakyRelu, {Tensor(TensorType::kInt8, {2}, 1.0f, 0)},
                   Tensor(TensorType::kFloat32, {2}), LeakyReluAlpha(0.5f));
  EXPECT_EQ(mixed.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel int32(BuiltinOp::kLeakyRelu, {Tensor(TensorType::kInt32, {2}, 1.0f, 0)},
                   Tensor(TensorType::kInt32, {2}, 1.0f, 0), LeakyReluAlpha(0.5f));
  EXPECT_EQ(int32.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel count(BuiltinOp::kLeakyRelu, {Tensor(TensorType::kFloat32, {2})}, Tensor(TensorType::kFloat32, {3}),
                   LeakyReluAlpha(0.5f));
  EXPECT_EQ(count.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel unquantized(BuiltinOp::kLeakyRelu, {Tensor(TensorType::kInt8, {2})},
                         Tensor(TensorType::kInt8, {2}, 1.0f, 0), LeakyReluAlpha(0.5f));
  EXPECT_EQ(unquantized.Prepare().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace microarena
