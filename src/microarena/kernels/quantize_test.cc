// QUANTIZE unit tests. Expected values are derived by hand in the comments.
#include <gtest/gtest.h>

#include "microarena/kernels/elementwise_test_util.h"

namespace microarena {
namespace {

using elementwise_test::OneOpModel;
using elementwise_test::Tensor;

TEST(QuantizeTest, FloatToInt8RoundsHalfAwayFromZeroAndSaturates) {
  // Scale 0.5, zero point -1: 0.25 / 0.5 = 0.5 -> 1 -> 0; -0.25 -> -0.5 -> -1
  // -> -2; 1.0 -> 2 -> 1; 100 -> 200 - 1 = 199 -> 127; -100 -> -201 -> -128.
  OneOpModel model(BuiltinOp::kQuantize, {Tensor(TensorType::kFloat32, {5})},
                   Tensor(TensorType::kInt8, {5}, 0.5f, -1));
  model.SetInput<float>(0, {0.25f, -0.25f, 1.0f, 100.0f, -100.0f});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{0, -2, 1, 127, -128}));
}

TEST(QuantizeTest, FloatToInt16) {
  // Scale 1/1024, zero point 0: 1.5 -> 1536; -40 -> -40960 -> -32768.
  OneOpModel model(BuiltinOp::kQuantize, {Tensor(TensorType::kFloat32, {2})},
                   Tensor(TensorType::kInt16, {2}, 1.0f / 1024, 0));
  model.SetInput<float>(0, {1.5f, -40.0f});
  EXPECT_EQ(model.Run<int16_t>(), (std::vector<int16_t>{1536, -32768}));
}

TEST(QuantizeTest, Int16ToInt8RequantizeRoundsHalfUp) {
  // Input scale 1, output scale 2, zero points 0 -> 3: multiplier 0.5 =
  // 2^30 * 2^(0 - 31). The doubling high multiply rounds half up:
  // 1 * 0.5 -> 1; -1 * 0.5 = -0.5 -> 0; 3 -> 1.5 -> 2; -3 -> -1.5 -> -1.
  // Plus 3: {4, 3, 5, 2}; 1000 -> 503 -> 127; -1000 -> -497 -> -128.
  OneOpModel model(BuiltinOp::kQuantize, {Tensor(TensorType::kInt16, {6}, 1.0f, 0)},
                   Tensor(TensorType::kInt8, {6}, 2.0f, 3));
  model.SetInput<int16_t>(0, {1, -1, 3, -3, 1000, -1000});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{4, 3, 5, 2, 127, -128}));
}

TEST(QuantizeTest, Int8ToInt8AndInt16ToInt32) {
  // int8 zero point 10 -> zero point -10, same scale: multiplier 1 (2^30,
  // shift 1) is exact, so q - 20: {30 -> 10, -120 -> -128 (saturated)}.
  OneOpModel int8_to_int8(BuiltinOp::kQuantize, {Tensor(TensorType::kInt8, {2}, 0.25f, 10)},
                          Tensor(TensorType::kInt8, {2}, 0.25f, -10));
  int8_to_int8.SetInput<int8_t>(0, {30, -120});
  EXPECT_EQ(int8_to_int8.Run<int8_t>(), (std::vector<int8_t>{10, -128}));
  // int16 scale 3, zero point -32768 -> int32 scale 1.5, zero point 0:
  // multiplier 2 (2^30, shift 2): (q + 32768) * 2 = {0, 131070}.
  OneOpModel int16_to_int32(BuiltinOp::kQuantize, {Tensor(TensorType::kInt16, {2}, 3.0f, -32768)},
                            Tensor(TensorType::kInt32, {2}, 1.5f, 0));
  int16_to_int32.SetInput<int16_t>(0, {-32768, 32767});
  EXPECT_EQ(int16_to_int32.Run<int32_t>(), (std::vector<int32_t>{0, 131070}));
}

TEST(QuantizePrepareTest, RejectsUnsupportedConversionsAndMissingQuantization) {
  OneOpModel float_to_float(BuiltinOp::kQuantize, {Tensor(TensorType::kFloat32, {2})},
                            Tensor(TensorType::kFloat32, {2}));
  EXPECT_EQ(float_to_float.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel uint8_to_int16(BuiltinOp::kQuantize, {Tensor(TensorType::kUInt8, {2}, 1.0f, 0)},
                            Tensor(TensorType::kInt16, {2}, 1.0f, 0));
  EXPECT_EQ(uint8_to_int16.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel no_output_quantization(BuiltinOp::kQuantize, {Tensor(TensorType::kFloat32, {2})},
                                    Tensor(TensorType::kInt8, {2}));
  EXPECT_EQ(no_output_quantization.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel per_channel(BuiltinOp::kQuantize, {Tensor(TensorType::kFloat32, {2})},
                         [] {
                           TensorSpec spec = Tensor(TensorType::kInt8, {2});
                           spec.quantization = QuantizationSpec::PerChannel({0.5f, 0.25f}, {0, 0}, 0);
                           return spec;
                         }());
  EXPECT_EQ(per_channel.Prepare().code(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace microarena
