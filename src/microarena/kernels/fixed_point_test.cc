// Unit tests of the fixed-point and wrapping helpers at their edge values.
// Every expected value is worked out by hand in the comment above it; the
// asan preset runs these under UBSan, so each is also a check that the
// helper gets there without undefined behaviour.
#include "microarena/kernels/fixed_point.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/quantize.h"
#include "microarena/kernels/wrapping_math.h"

namespace microarena::fixed_point {
namespace {

constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();

TEST(WrappingMathTest, AddSubWrapModulo2To32) {
  // INT32_MAX + 1 = 2^31, which is -2^31 modulo 2^32.
  EXPECT_EQ(WrappingAdd(kMax, 1), kMin);
  // The fuzzer's sum: -2147483647 + -128 = -2147483775; + 2^32 = 2147483521.
  EXPECT_EQ(WrappingAdd(-2147483647, -128), 2147483521);
  // INT32_MIN + INT32_MIN = -2^32 = 0 modulo 2^32.
  EXPECT_EQ(WrappingAdd(kMin, kMin), 0);
  // INT32_MIN - 1 = -2^31 - 1; + 2^32 = 2^31 - 1.
  EXPECT_EQ(WrappingSub(kMin, 1), kMax);
  // 0 - INT32_MIN = 2^31 = INT32_MIN modulo 2^32; so is -INT32_MIN.
  EXPECT_EQ(WrappingSub(0, kMin), kMin);
  EXPECT_EQ(WrappingNegate(kMin), kMin);
  EXPECT_EQ(WrappingNegate(kMax), kMin + 1);
  // In range, the plain results.
  EXPECT_EQ(WrappingAdd(5, -7), -2);
  EXPECT_EQ(WrappingSub(-5, 7), -12);
}

TEST(WrappingMathTest, MulAndShiftKeepTheLow32Bits) {
  // 2^16 * 2^16 = 2^32 = 0 modulo 2^32.
  EXPECT_EQ(WrappingMul(65536, 65536), 0);
  // 46341^2 = 2147488281 = 2^31 + 4633; - 2^32 = -2147479015.
  EXPECT_EQ(WrappingMul(46341, 46341), -2147479015);
  // -32768 * -65535 = 2^31 - 32768 = 2147450880 still fits; -32768 *
  // -65536 = 2^31 does not and wraps to -2^31.
  EXPECT_EQ(WrappingMul(-32768, -65535), 2147450880);
  EXPECT_EQ(WrappingMul(-32768, -65536), kMin);
  // x * 2^31 keeps only x's lowest bit, moved to the sign: 0 or INT32_MIN.
  EXPECT_EQ(WrappingShiftLeft(1, 31), kMin);
  EXPECT_EQ(WrappingShiftLeft(3, 31), kMin);
  EXPECT_EQ(WrappingShiftLeft(-1, 31), kMin);
  EXPECT_EQ(WrappingShiftLeft(2, 31), 0);
  // INT32_MAX * 2 = 2^32 - 2 = -2 modulo 2^32.
  EXPECT_EQ(WrappingShiftLeft(kMax, 1), -2);
  EXPECT_EQ(WrappingShiftLeft(-5, 0), -5);
}

TEST(WrappingMathTest, SixtyFourBitForms) {
  EXPECT_EQ(WrappingAdd64(kMax64, 1), kMin64);
  // 2^32 * 2^32 = 2^64 = 0 modulo 2^64; 2^62 * 4 likewise.
  EXPECT_EQ(WrappingMul64(int64_t{1} << 32, int64_t{1} << 32), 0);
  EXPECT_EQ(WrappingMul64(int64_t{1} << 62, 4), 0);
  // 2^62 * 3 = 2^63 + 2^62; - 2^64 = -2^62.
  EXPECT_EQ(WrappingMul64(int64_t{1} << 62, 3), -(int64_t{1} << 62));
}

TEST(WrappingMathTest, UnsignedMagnitudeAndSaturatingAdd) {
  // |INT32_MIN| = 2^31 fits uint32_t (std::abs would be undefined).
  EXPECT_EQ(UnsignedMagnitude(kMin), 2147483648u);
  EXPECT_EQ(UnsignedMagnitude(-5), 5u);
  EXPECT_EQ(UnsignedMagnitude(kMax), 2147483647u);
  EXPECT_EQ(SaturatingAdd(kMax, 1), kMax);
  EXPECT_EQ(SaturatingAdd(kMin, -1), kMin);
  EXPECT_EQ(SaturatingAdd(kMin, kMax), -1);
  EXPECT_EQ(SaturatingAdd(5, -7), -2);
}

TEST(WrappingMathTest, TruncateToInt32GivesX86sValueOutOfRange) {
  // In range: truncation toward zero.
  EXPECT_EQ(TruncateToInt32(2.9), 2);
  EXPECT_EQ(TruncateToInt32(-2.9), -2);
  EXPECT_EQ(TruncateToInt32(2147483647.0), kMax);
  // -2^31 - 0.9 truncates to -2^31, still in range.
  EXPECT_EQ(TruncateToInt32(-2147483648.9), kMin);
  // Out of range or NaN: INT32_MIN (cvttsd2si's "integer indefinite").
  EXPECT_EQ(TruncateToInt32(2147483648.0), kMin);
  EXPECT_EQ(TruncateToInt32(-2147483649.0), kMin);
  EXPECT_EQ(TruncateToInt32(std::nan("")), kMin);
  EXPECT_EQ(TruncateToInt32(std::numeric_limits<double>::infinity()), kMin);
  // float: 2147483520 is the largest float below 2^31.
  EXPECT_EQ(TruncateToInt32(2147483520.0f), 2147483520);
  EXPECT_EQ(TruncateToInt32(2147483648.0f), kMin);
  EXPECT_EQ(TruncateToInt32(-2147483648.0f), kMin);
  EXPECT_EQ(TruncateToInt32(-std::numeric_limits<float>::infinity()), kMin);
  EXPECT_EQ(TruncateToInt32(-7.5f), -7);
  // 64-bit: 1e19 > 2^63 ~ 9.22e18.
  EXPECT_EQ(TruncateToInt64(1e19), kMin64);
  EXPECT_EQ(TruncateToInt64(-1e19), kMin64);
  EXPECT_EQ(TruncateToInt64(-1.5), -1);
}

TEST(FixedPointTest, DoublingHighMulAndRoundingDivideAtTheLimits) {
  // The single overflow: (-2^31)^2 * 2 / 2^32 = 2^31 saturates.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMin), kMax);
  // (2^31 - 1)^2 / 2^31 = 2^31 - 2 + 2^-31, + 1/2 nudge -> 2147483646.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMax, kMax), 2147483646);
  // -2^31 (2^31 - 1) / 2^31 = -(2^31 - 1), nudge -1/2 truncated toward 0.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMax), -2147483647);
  // Ties away from zero: 5/2 -> 3, -5/2 -> -3; 7/4 -> 2.
  EXPECT_EQ(RoundingDivideByPOT(5, 1), 3);
  EXPECT_EQ(RoundingDivideByPOT(-5, 1), -3);
  EXPECT_EQ(RoundingDivideByPOT(7, 2), 2);
  // Exponent 31: INT32_MAX / 2^31 = 0.99999... -> 1; INT32_MIN -> -1.
  EXPECT_EQ(RoundingDivideByPOT(kMax, 31), 1);
  EXPECT_EQ(RoundingDivideByPOT(kMin, 31), -1);
  EXPECT_EQ(RoundingDivideByPOT(kMin, 0), kMin);
}

TEST(FixedPointTest, MultiplyByQuantizedMultiplierAtShiftExtremes) {
  // M = 2^30 * 2^(1 - 31) = 1: x itself ...
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-123456, 1 << 30, 1), -123456);
  // ... except where TFLite's x * 2 wraps first: INT32_MIN * 2 = 0, and
  // INT32_MAX * 2 = -2, times 1/2 = -1.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(kMin, 1 << 30, 1), 0);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(kMax, 1 << 30, 1), -1);
  // Shift 31 (M = 0.75 * 2^31): 3 * 2^31 wraps to INT32_MIN, and
  // INT32_MIN * 0.75 = -1610612736 exactly; 2 * 2^31 wraps to 0.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(3, 1610612736, 31), -1610612736);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(2, 1610612736, 31), 0);
  // Shift -31: INT32_MAX * (2^31 - 1) / 2^62 = 0.99999... -> 1; INT32_MIN
  // gives -(2^31 - 1) after the high multiply, / 2^31 -> -1.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(kMax, kMax, -31), 1);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(kMin, kMax, -31), -1);
  // 64-bit form, M = 1 (reduced multiplier (2^30 + 2^15) >> 16 = 2^14,
  // total shift 15 - 1 = 14): 2^20 stays 2^20.
  EXPECT_EQ(MultiplyByQuantizedMultiplier64(int64_t{1} << 20, 1 << 30, 1), 1 << 20);
  // Far outside TFLite's |x| < 2^47: 2^62 * 32767 wraps to -2^62 modulo
  // 2^64; (-2^62 + 2^14) >> 15 = -2^47, whose low 32 bits are 0.
  EXPECT_EQ(MultiplyByQuantizedMultiplier64(int64_t{1} << 62, 0x7FFF0000, 0), 0);
}

TEST(FixedPointTest, QuantizeMultiplierEdges) {
  int32_t q = -1;
  int shift = -1;
  // 1 = 0.5 * 2^1: mantissa 2^30, shift 1.
  QuantizeMultiplier(1.0, &q, &shift);
  EXPECT_EQ(q, 1 << 30);
  EXPECT_EQ(shift, 1);
  // Just below 1: the mantissa rounds up to 2^31, halved, shift + 1.
  QuantizeMultiplier(0.99999999999, &q, &shift);
  EXPECT_EQ(q, 1 << 30);
  EXPECT_EQ(shift, 1);
  // 1.5 * 2^30 = 0.75 * 2^31: shift 31, kept (TFLM's double-rounding build).
  QuantizeMultiplier(1610612736.0, &q, &shift);
  EXPECT_EQ(q, 1610612736);
  EXPECT_EQ(shift, 31);
  // 2^40 = 0.5 * 2^41: shift 41, no clamp; Prepare refuses it.
  QuantizeMultiplier(1099511627776.0, &q, &shift);
  EXPECT_EQ(q, 1 << 30);
  EXPECT_EQ(shift, 41);
  EXPECT_GT(shift, kMaxMultiplierShift);
  // 2^-32 = 0.5 * 2^-31 keeps shift -31; 2^-33 (shift -32) flushes to 0.
  QuantizeMultiplier(std::ldexp(1.0, -32), &q, &shift);
  EXPECT_EQ(q, 1 << 30);
  EXPECT_EQ(shift, -31);
  QuantizeMultiplier(std::ldexp(1.0, -33), &q, &shift);
  EXPECT_EQ(q, 0);
  EXPECT_EQ(shift, 0);
  // A denormal double flushes to 0 too.
  QuantizeMultiplier(std::numeric_limits<double>::denorm_min(), &q, &shift);
  EXPECT_EQ(q, 0);
  EXPECT_EQ(shift, 0);
  // Negative: -0.75 = -0.75 * 2^0.
  QuantizeMultiplier(-0.75, &q, &shift);
  EXPECT_EQ(q, -1610612736);
  EXPECT_EQ(shift, 0);
  // NaN and inf: mantissa 0 and shift 0, TFLM's answer on x86-64.
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    q = -1;
    shift = -1;
    QuantizeMultiplier(bad, &q, &shift);
    EXPECT_EQ(q, 0);
    EXPECT_EQ(shift, 0);
  }
}

TEST(FixedPointTest, Int16Forms) {
  // (-2^15)^2 * 2 / 2^16 = 2^15 saturates to INT16_MAX.
  EXPECT_EQ(SaturatingRoundingDoublingHighMulInt16(-32768, -32768), 32767);
  // -3 / 2 = -1.5 -> -2 (away from zero); 2^14 / 2^15 = 0.5 -> 1.
  EXPECT_EQ(RoundingDivideByPOTInt16(-3, 1), -2);
  EXPECT_EQ(RoundingDivideByPOTInt16(16384, 15), 1);
}

TEST(FixedPointTest, RequantizeWrapsWhereTfliteDoes) {
  // The fuzzer's conv case: MultiplyByQuantizedMultiplier(INT32_MIN,
  // 2^31 - 1, 0) = -2147483647 (see above); + zero point -128 wraps to
  // 2147483521, which clamps to 127.
  const int32_t multiplier = kMax;
  const int8_t shift = 0;
  reference::QuantizedConvParams q;
  q.output_offset = -128;
  q.output_multiplier = &multiplier;
  q.output_shift = &shift;
  EXPECT_EQ(reference::RequantizeToInt8(kMin, q, 0), 127);

  // int8 -> int32 requantize with M = 1 and output zero point INT32_MAX:
  // 1 + INT32_MAX wraps to INT32_MIN; 0 stays INT32_MAX; -1 -> INT32_MAX - 1.
  reference::RequantizeParams r;
  r.multiplier = 1 << 30;
  r.shift = 1;
  r.output_zero_point = kMax;
  const int8_t in[] = {1, 0, -1};
  int32_t out[3] = {};
  reference::Requantize(r, 3, in, out);
  EXPECT_EQ(out[0], kMin);
  EXPECT_EQ(out[1], kMax);
  EXPECT_EQ(out[2], kMax - 1);

  // int32 input with zero point INT32_MIN: INT32_MAX - INT32_MIN = 2^32 - 1
  // = -1 modulo 2^32; output zero point 0 -> -1 (int16 output).
  r.input_zero_point = kMin;
  r.output_zero_point = 0;
  const int32_t wide[] = {kMax};
  int16_t narrow[1] = {};
  reference::Requantize(r, 1, wide, narrow);
  EXPECT_EQ(narrow[0], -1);
}

TEST(FixedPointTest, AffineQuantizeZeroPointAtTheInt16Limit) {
  // Scale 1, zero point 32767 (INT16_MAX):
  //   2147483520 + 32767 = 2147516287 passes INT32_MAX; - 2^32 =
  //   -2147451009 -> clamps to -32768 (TFLite's int32 add wraps).
  //   1.5 -> 2 + 32767 = 32769 -> 32767.  -40000 -> -7233.
  //   +inf and 3e9 are outside int32 (no TFLite answer): saturate to 32767.
  //   NaN and -inf: -32768.
  const float in[] = {2147483520.0f, 1.5f, -40000.0f, std::numeric_limits<float>::infinity(), 3e9f,
                      std::nanf(""), -std::numeric_limits<float>::infinity()};
  int16_t out[7] = {};
  reference::AffineQuantize(1.0f, 32767, 7, in, out);
  EXPECT_EQ(out[0], -32768);
  EXPECT_EQ(out[1], 32767);
  EXPECT_EQ(out[2], -7233);
  EXPECT_EQ(out[3], 32767);
  EXPECT_EQ(out[4], 32767);
  EXPECT_EQ(out[5], -32768);
  EXPECT_EQ(out[6], -32768);
}

}  // namespace
}  // namespace microarena::fixed_point
