// SOFTMAX unit tests. Expected values are derived by hand in the comments.
#include <gtest/gtest.h>

#include "microarena/kernels/elementwise_test_util.h"
#include "microarena/kernels/reference/fixed_point_exp.h"
#include "microarena/kernels/reference/softmax.h"

namespace microarena {
namespace {

using elementwise_test::OneOpModel;
using elementwise_test::Tensor;

tflite::BuiltinOptionsUnion Beta(float beta) {
  tflite::SoftmaxOptionsT options;
  options.beta = beta;
  return MakeBuiltinOptions(options);
}

TEST(SoftmaxFixedPointTest, ExpAndReciprocalAreCloseToTheRealFunctions) {
  // exp(0) is exactly one (INT32_MAX); exp(-1) = 0.3678794 within 1e-6.
  EXPECT_EQ(fixed_point::ExpOnNegativeValues<5>(0), INT32_MAX);
  EXPECT_NEAR(fixed_point::ExpOnNegativeValues<5>(-(1 << 26)) / 2147483648.0, 0.3678794, 1e-6);
  // 1 / (1 + 1/2) = 2/3.
  EXPECT_NEAR(fixed_point::OneOverOnePlusXForXIn01(1 << 30) / 2147483648.0, 2.0 / 3.0, 1e-8);
  // 1 in Q12 (2^19): normalised to 1.0 (no bits over one), reciprocal ~1.
  int bits = -1;
  EXPECT_GT(fixed_point::GetReciprocal(1 << 19, 12, &bits), INT32_MAX - 16);
  EXPECT_EQ(bits, 0);
}

TEST(SoftmaxTest, Int8EqualInputsGiveOneHalf) {
  // Two equal inputs: exp(0) = INT32_MAX each; the Q12 sum is
  // 2 * round(INT32_MAX / 2^12) = 2 * 2^19 = 2^20 -> one bit over one, the
  // reciprocal mantissa ~1.0, exponent 1 + 31 - 8 = 24;
  // (2^31 - 2) / 2^24 = 127.99999 -> 128; 128 - 128 = 0 (= 0.5 at scale 1/256).
  OneOpModel model(BuiltinOp::kSoftmax, {Tensor(TensorType::kInt8, {1, 2}, 0.1f, 3)},
                   Tensor(TensorType::kInt8, {1, 2}, 1.0f / 256, -128), Beta(1.0f));
  model.SetInput<int8_t>(0, {17, 17});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{0, 0}));
}

TEST(SoftmaxTest, Int8DiffBelowDiffMinIsZeroAndTheMaximumSaturates) {
  // Scale 1, beta 1: multiplier 2^26 = 2^30 * 2^(27 - 31) -> left shift 27;
  // radius = floor(31 * 2^26 / 2^27) = floor(15.5) = 15, diff_min = -15.
  // Row {0, -16, -15}: -16 < -15 contributes nothing and outputs -128;
  // -15 contributes exp(-15) ~ 3e-7 (rounds to 0 in Q12 sum, and to 0 at the
  // output: 3e-7 * 256 -> 0 -> -128). The maximum: sum = 2^19, exponent 23,
  // (2^31 - 2) / 2^23 = 255.99999 -> 256; 256 - 128 = 128 saturates to 127.
  OneOpModel model(BuiltinOp::kSoftmax, {Tensor(TensorType::kInt8, {1, 3}, 1.0f, 0)},
                   Tensor(TensorType::kInt8, {1, 3}, 1.0f / 256, -128), Beta(1.0f));
  model.SetInput<int8_t>(0, {0, -16, -15});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{127, -128, -128}));
}

TEST(SoftmaxTest, Int8ToInt16UsesSixteenOutputBits) {
  // As above with exponent 1 + 31 - 16 = 16 for two equal inputs:
  // (2^31 - 2) / 2^16 -> 32768; 32768 - 32768 = 0. Rows are independent:
  // the second row {5, -128} at scale 1 has diff -133 < diff_min -> -32768,
  // and its maximum saturates: 65536 - 32768 -> 32767.
  OneOpModel model(BuiltinOp::kSoftmax, {Tensor(TensorType::kInt8, {2, 2}, 1.0f, 0)},
                   Tensor(TensorType::kInt16, {2, 2}, 1.0f / 65536, -32768), Beta(1.0f));
  model.SetInput<int8_t>(0, {-7, -7, 5, -128});
  EXPECT_EQ(model.Run<int16_t>(), (std::vector<int16_t>{0, 0, 32767, -32768}));
}

TEST(SoftmaxTest, FloatRowsSumToOne) {
  // Row one {2, 2}: exp(0) = 1 each, 1 / 2 = 0.5 exactly. Row two
  // {ln 3, 0}, beta 1: exp(0) = 1 and exp(-ln 3) = 1/3 -> 0.75, 0.25.
  OneOpModel model(BuiltinOp::kSoftmax, {Tensor(TensorType::kFloat32, {2, 2})},
                   Tensor(TensorType::kFloat32, {2, 2}), Beta(1.0f));
  model.SetInput<float>(0, {2.0f, 2.0f, 1.0986123f, 0.0f});
  const std::vector<float> out = model.Run<float>();
  ASSERT_EQ(out.size(), 4u);
  EXPECT_FLOAT_EQ(out[0], 0.5f);
  EXPECT_FLOAT_EQ(out[1], 0.5f);
  EXPECT_NEAR(out[2], 0.75f, 1e-6f);
  EXPECT_NEAR(out[3], 0.25f, 1e-6f);
}

TEST(SoftmaxPrepareTest, RejectsWrongOutputQuantizationAndTypes) {
  OneOpModel bad_zero_point(BuiltinOp::kSoftmax, {Tensor(TensorType::kInt8, {1, 2}, 0.1f, 0)},
                            Tensor(TensorType::kInt8, {1, 2}, 1.0f / 256, 0), Beta(1.0f));
  EXPECT_EQ(bad_zero_point.Prepare().code(), ErrorCode::kUnsupported);
  // int16 input needs an int16 output (scale 1/32768, zero point 0).
  OneOpModel int16_input(BuiltinOp::kSoftmax, {Tensor(TensorType::kInt16, {1, 2}, 0.1f, 0)},
                         Tensor(TensorType::kInt8, {1, 2}, 1.0f / 256, -128), Beta(1.0f));
  EXPECT_EQ(int16_input.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel no_quantization(BuiltinOp::kSoftmax, {Tensor(TensorType::kInt8, {1, 2})},
                             Tensor(TensorType::kInt8, {1, 2}, 1.0f / 256, -128), Beta(1.0f));
  EXPECT_EQ(no_quantization.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel shape_mismatch(BuiltinOp::kSoftmax, {Tensor(TensorType::kFloat32, {1, 2})},
                            Tensor(TensorType::kFloat32, {1, 3}), Beta(1.0f));
  EXPECT_EQ(shape_mismatch.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel zero_beta(BuiltinOp::kSoftmax, {Tensor(TensorType::kFloat32, {1, 2})},
                       Tensor(TensorType::kFloat32, {1, 2}), Beta(0.0f));
  EXPECT_EQ(zero_beta.Prepare().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace microarena
