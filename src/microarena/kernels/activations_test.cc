// LOGISTIC, TANH, RELU, RELU6 and DEQUANTIZE unit tests. Expected values are
// derived by hand in the comments.
#include <gtest/gtest.h>

#include "microarena/kernels/elementwise_test_util.h"

namespace microarena {
namespace {

using elementwise_test::OneOpModel;
using elementwise_test::Tensor;

// Input scale 1/16, zero point 0: m = 2^-4 * 2^27 = 2^23 = 0.5 * 2^24, so the
// multiplier is 2^30 with shift 24 (x / 16 in Q4), and the radius is
// floor(15 * 2^27 / 2^24) = 120: |x| >= 120 saturates.
TEST(LogisticTest, Int8MatchesHandValuesAndSaturatesAtTheRadius) {
  // logistic(0) = 1/2 exactly (2^30) -> 2^30 / 2^23 = 128 -> 0.
  // logistic(1) = 0.7310586 * 256 = 187.15 -> 187 - 128 = 59;
  // logistic(-1) = 0.2689414 * 256 = 68.85 -> 69 - 128 = -59.
  OneOpModel model(BuiltinOp::kLogistic, {Tensor(TensorType::kInt8, {5}, 1.0f / 16, 0)},
                   Tensor(TensorType::kInt8, {5}, 1.0f / 256, -128));
  model.SetInput<int8_t>(0, {0, 16, -16, 120, -120});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{0, 59, -59, 127, -128}));
}

TEST(TanhTest, Int8MatchesHandValuesAndSaturatesAtTheRadius) {
  // tanh(0) = 0; tanh(+-1) = +-0.7615942 * 128 = +-97.48 -> +-97.
  OneOpModel model(BuiltinOp::kTanh, {Tensor(TensorType::kInt8, {5}, 1.0f / 16, 0)},
                   Tensor(TensorType::kInt8, {5}, 1.0f / 128, 0));
  model.SetInput<int8_t>(0, {0, 16, -16, 121, -127});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{0, 97, -97, 127, -128}));
}

TEST(LogisticTest, FloatUsesTheCutoffs) {
  // 0 -> 0.5; 20 > 16.619 -> exactly 1; -10 < -9 -> exp(-10) = 4.539993e-5.
  OneOpModel model(BuiltinOp::kLogistic, {Tensor(TensorType::kFloat32, {3})}, Tensor(TensorType::kFloat32, {3}));
  model.SetInput<float>(0, {0.0f, 20.0f, -10.0f});
  const std::vector<float> out = model.Run<float>();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], 0.5f);
  EXPECT_EQ(out[1], 1.0f);
  EXPECT_NEAR(out[2], 4.539993e-5f, 1e-10f);
}

TEST(ReluTest, Int8RequantizesAndClampsAtZero) {
  // Input scale 0.5, zero point -10 -> output scale 1, zero point -128:
  // multiplier 0.5. q = 0: (0 + 10) * 0.5 = 5 -> -123; q = -20: -5 -> -133,
  // below the quantized zero -128 -> -128; q = 127: 68.5 -> 69 -> -59.
  OneOpModel model(BuiltinOp::kRelu, {Tensor(TensorType::kInt8, {3}, 0.5f, -10)},
                   Tensor(TensorType::kInt8, {3}, 1.0f, -128));
  model.SetInput<int8_t>(0, {0, -20, 127});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{-123, -128, -59}));
}

TEST(Relu6Test, Int8ClampsToQuantizedZeroAndSix) {
  // Scale 0.5, zero point 2: zero = 2, six = 6 / 0.5 + 2 = 14.
  OneOpModel model(BuiltinOp::kRelu6, {Tensor(TensorType::kInt8, {4}, 0.5f, 2)},
                   Tensor(TensorType::kInt8, {4}, 0.5f, 2));
  model.SetInput<int8_t>(0, {-5, 7, 100, 14});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{2, 7, 14, 14}));
}

TEST(Relu6Test, FloatClamps) {
  OneOpModel model(BuiltinOp::kRelu6, {Tensor(TensorType::kFloat32, {3})}, Tensor(TensorType::kFloat32, {3}));
  model.SetInput<float>(0, {-1.0f, 2.5f, 7.0f});
  EXPECT_EQ(model.Run<float>(), (std::vector<float>{0.0f, 2.5f, 6.0f}));
}

TEST(DequantizeTest, Int8AndInt16) {
  // Scale 0.5, zero point -1: 3 -> 2.0; -128 -> -63.5. int16 scale 1/4: -6 -> -1.5.
  OneOpModel int8_model(BuiltinOp::kDequantize, {Tensor(TensorType::kInt8, {2}, 0.5f, -1)},
                        Tensor(TensorType::kFloat32, {2}));
  int8_model.SetInput<int8_t>(0, {3, -128});
  EXPECT_EQ(int8_model.Run<float>(), (std::vector<float>{2.0f, -63.5f}));
  OneOpModel int16_model(BuiltinOp::kDequantize, {Tensor(TensorType::kInt16, {1}, 0.25f, 0)},
                         Tensor(TensorType::kFloat32, {1}));
  int16_model.SetInput<int16_t>(0, {-6});
  EXPECT_EQ(int16_model.Run<float>(), (std::vector<float>{-1.5f}));
}

TEST(ActivationPrepareTest, RejectsUnsupportedQuantizationAndTypes) {
  OneOpModel logistic_zero_point(BuiltinOp::kLogistic, {Tensor(TensorType::kInt8, {2}, 0.1f, 0)},
                                 Tensor(TensorType::kInt8, {2}, 1.0f / 256, 0));
  EXPECT_EQ(logistic_zero_point.Prepare().code(), ErrorCode::kUnsupported);
  // int16 needs zero points 0 and an output scale of 2^-15 (as TFLM).
  OneOpModel tanh_int16(BuiltinOp::kTanh, {Tensor(TensorType::kInt16, {2}, 0.1f, 0)},
                        Tensor(TensorType::kInt16, {2}, 1.0f / 32768, 0));
  EXPECT_TRUE(tanh_int16.Prepare().ok());
  OneOpModel tanh_int16_scale(BuiltinOp::kTanh, {Tensor(TensorType::kInt16, {2}, 0.1f, 0)},
                              Tensor(TensorType::kInt16, {2}, 1.0f / 16384, 0));
  EXPECT_EQ(tanh_int16_scale.Prepare().code(), ErrorCode::kUnsupported);
  // RELU6 with different input and output quantization is accepted: TFLM
  // clamps the input bytes and ignores the output's (differential_test.cc).
  OneOpModel relu6_requantize(BuiltinOp::kRelu6, {Tensor(TensorType::kInt8, {2}, 0.1f, 0)},
                              Tensor(TensorType::kInt8, {2}, 0.2f, 0));
  EXPECT_TRUE(relu6_requantize.Prepare().ok());
  OneOpModel dequantize_float(BuiltinOp::kDequantize, {Tensor(TensorType::kFloat32, {2})},
                              Tensor(TensorType::kFloat32, {2}));
  EXPECT_EQ(dequantize_float.Prepare().code(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace microarena
