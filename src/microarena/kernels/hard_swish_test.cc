// HARD_SWISH unit tests. Expected values are derived by hand in the comments;
// the scales are chosen so that every multiplier is a power of two and each
// step can be followed exactly.
#include <gtest/gtest.h>

#include "microarena/kernels/elementwise_test_util.h"
#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/hard_swish.h"

namespace microarena {
namespace {

using elementwise_test::OneOpModel;
using elementwise_test::Tensor;

TEST(HardSwishTest, Int16FixedPointHelpers) {
  using fixed_point::DownScaleInt32ToInt16Multiplier;
  using fixed_point::RoundingDivideByPOTInt16;
  using fixed_point::SaturatingRoundingDoublingHighMulInt16;
  // 16384 * 1 * 2 / 2^16 = 0.5 -> 1; -0.5 -> 0 (ties toward +infinity).
  EXPECT_EQ(SaturatingRoundingDoublingHighMulInt16(16384, 1), 1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMulInt16(-16384, 1), 0);
  EXPECT_EQ(SaturatingRoundingDoublingHighMulInt16(-32768, -32768), 32767);
  // 1.5 truncates to 1 and -1.5 to -1.
  EXPECT_EQ(reference::SaturatingDoublingHighMulInt16(16384, 3), 1);
  EXPECT_EQ(reference::SaturatingDoublingHighMulInt16(-16384, 3), -1);
  EXPECT_EQ(reference::SaturatingDoublingHighMulInt16(-32768, -32768), 32767);
  // 100 / 8 = 12.5 -> 13, -12.5 -> -13; exponents 16..31 truncate the mask
  // to 16 bits as gemmlowp does: 1 for x >= 0, -1 for x < 0.
  EXPECT_EQ(RoundingDivideByPOTInt16(100, 3), 13);
  EXPECT_EQ(RoundingDivideByPOTInt16(-100, 3), -13);
  EXPECT_EQ(RoundingDivideByPOTInt16(0, 16), 1);
  EXPECT_EQ(RoundingDivideByPOTInt16(-5, 20), -1);
  EXPECT_EQ(reference::SaturatingLeftShiftInt16(-4096, 3), -32768);
  EXPECT_EQ(reference::SaturatingLeftShiftInt16(4096, 3), 32767);
  // (m + 2^15) >> 16; saturates from INT32_MAX - 2^15 up.
  EXPECT_EQ(DownScaleInt32ToInt16Multiplier(1 << 30), 16384);
  EXPECT_EQ(DownScaleInt32ToInt16Multiplier((1 << 30) + (1 << 15)), 16385);
  EXPECT_EQ(DownScaleInt32ToInt16Multiplier(INT32_MAX - (1 << 15)), 32767);
}

// Input scale 3/32 (zero point 10, x = q - 10), output scale 3/64 (zero
// point -20). hires scale 3/4096:
//   output multiplier (3/4096) / (3/64) = 1/64 -> 16384 (Q15 0.5), exponent -5
//   reluish multiplier (3/4096) / (3/32768) = 8 -> 16384, exponent +4
// Per x: hires = 128x; preshift = SRDHM16(128x, 16384) = 64x (exact);
// reluish = sat(sat(128x << 3) * 1/2 << 1) = sat16(1024x) (x/3 in Q15), then
// (reluish + 32768) >> 1; product = trunc(reluish * preshift / 32768);
// q = round(product / 32) - 20. Real check: x * s (x*s + 3) / 6 / (3/64).
//   x = 0:   0                                          -> -20
//   x = 8:   reluish 20480, preshift 512, 320 / 32 = 10  -> -10
//   x = 16:  24576, 1024, 768 / 32 = 24                  -> 4
//   x = 32:  1024x saturates to 32767 twice -> 32767, 2048:
//            2047.94 -> 2047, 63.97 -> 64                -> 44
//   x = -8:  12288, -512, -192 / 32 = -6                 -> -26
//   x = -32: sat(-32768 * 1/2 = -16384 << 1) = -32768 -> 0 -> -20
//   x = -48: saturates the same way -> 0                 -> -20
//   x = 1:   16896, 64, 33 / 32 = 1.03 -> 1              -> -19
//   x = -1:  15872, -64, -31 / 32 = -0.97 -> -1          -> -21
//   x = -16: 8192, -1024, -256 / 32 = -8                 -> -28
//   x = 4:   18432, 256, 144 / 32 = 4.5 -> 5 (tie away)  -> -15
//   x = -4:  14336, -256, -112 / 32 = -3.5 -> -4         -> -24
TEST(HardSwishTest, Int8FollowsTheFixedPointStepsWithLeftShiftedReluish) {
  OneOpModel model(BuiltinOp::kHardSwish, {Tensor(TensorType::kInt8, {12}, 3.0f / 32, 10)},
                   Tensor(TensorType::kInt8, {12}, 3.0f / 64, -20));
  model.SetInput<int8_t>(0, {10, 18, 26, 42, 2, -22, -38, 11, 9, -6, 14, 6});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{-20, -10, 4, 44, -26, -20, -20, -19, -21, -28, -15, -24}));
}

// Same scales, zero points 0: x = 64 (real 6) -> product trunc(32767 * 4096 /
// 32768) = 4095, 127.97 -> 128 -> 127; x = 127 -> 254 -> 127; x = -128
// (real -12) -> reluish 0 -> 0.
TEST(HardSwishTest, Int8SaturatesAtTheTypeRange) {
  OneOpModel model(BuiltinOp::kHardSwish, {Tensor(TensorType::kInt8, {3}, 3.0f / 32, 0)},
                   Tensor(TensorType::kInt8, {3}, 3.0f / 64, 0));
  model.SetInput<int8_t>(0, {64, 127, -128});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{127, 127, 0}));
}

// Input scale 3/1024, output scale 3/2048, zero points 0. hires scale
// 3/131072: output multiplier 1/64 -> 16384, exponent -5; reluish multiplier
// 1/4 -> 16384, exponent -1 (rounding right shift by 1):
// reluish = RoundingDivideByPOT(SRDHM16(128x, 16384) = 64x, 1) = 32x, then
// (32x + 32768) >> 1 = 16x + 16384; preshift = 64x.
//   x = 4:    16448 * 256 / 32768 = 128.5 -> 128, 4.0 -> 4
//   x = -3:   16336 * -192 / 32768 = -95.7 -> -95, -2.97 -> -3
//   x = -128: SRDHM16(-16384, 16384) = -8192.49.. -> -8192, / 2 = -4096,
//             reluish 14336; 14336 * -8192 / 32768 = -3584, / 32 = -112
TEST(HardSwishTest, Int8RightShiftedReluish) {
  OneOpModel model(BuiltinOp::kHardSwish, {Tensor(TensorType::kInt8, {3}, 3.0f / 1024, 0)},
                   Tensor(TensorType::kInt8, {3}, 3.0f / 2048, 0));
  model.SetInput<int8_t>(0, {4, -3, -128});
  EXPECT_EQ(model.Run<int8_t>(), (std::vector<int8_t>{4, -3, -112}));
}

TEST(HardSwishTest, Float) {
  // x * min(6, max(0, x + 3)) / 6.
  OneOpModel model(BuiltinOp::kHardSwish, {Tensor(TensorType::kFloat32, {6})}, Tensor(TensorType::kFloat32, {6}));
  model.SetInput<float>(0, {-4.0f, -1.5f, 0.0f, 1.0f, 3.0f, 10.0f});
  EXPECT_EQ(model.Run<float>(), (std::vector<float>{0.0f, -0.375f, 0.0f, 4.0f / 6.0f, 3.0f, 10.0f}));
}

TEST(HardSwishPrepareTest, RejectsBadTypesShapesAndLargeScaleRatios) {
  // s_in / 128 / s_out = 2: TFLM requires the output exponent <= 0.
  OneOpModel ratio(BuiltinOp::kHardSwish, {Tensor(TensorType::kInt8, {2}, 1.0f, 0)},
                   Tensor(TensorType::kInt8, {2}, 1.0f / 256, 0));
  EXPECT_EQ(ratio.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel int16(BuiltinOp::kHardSwish, {Tensor(TensorType::kInt16, {2}, 1.0f, 0)},
                   Tensor(TensorType::kInt16, {2}, 1.0f, 0));
  EXPECT_EQ(int16.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel mixed(BuiltinOp::kHardSwish, {Tensor(TensorType::kFloat32, {2})},
                   Tensor(TensorType::kInt8, {2}, 1.0f, 0));
  EXPECT_EQ(mixed.Prepare().code(), ErrorCode::kUnsupported);
  OneOpModel count(BuiltinOp::kHardSwish, {Tensor(TensorType::kInt8, {4}, 1.0f, 0)},
                   Tensor(TensorType::kInt8, {2}, 1.0f, 0));
  EXPECT_EQ(count.Prepare().code(), ErrorCode::kInvalidArgument);
  OneOpModel unquantized(BuiltinOp::kHardSwish, {Tensor(TensorType::kInt8, {2}, 1.0f, 0)},
                         Tensor(TensorType::kInt8, {2}));
  EXPECT_EQ(unquantized.Prepare().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace microarena
