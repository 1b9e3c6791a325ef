// Fixed-point exp, reciprocal, logistic and tanh on int32, bit for bit as the
// gemmlowp fixed-point library that TFLite's integer softmax, logistic and
// tanh kernels use.
//
// A value in format Qm has m integer bits and 31 - m fractional bits:
// real = raw / 2^(31 - m). Q0 covers [-1, 1), and its "one" is INT32_MAX.
// Products of Qa and Qb values are Q(a + b) (a rounding doubling high
// multiply); Rescale between formats is a saturating left shift or a rounding
// right shift. Additions of int32 raw values wrap, as gemmlowp's plain int32
// additions do (the callers keep them in range).
//
// The constants below are gemmlowp's: each is round(value * 2^(31 - m)) of the
// real number named beside it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"

namespace microarena::fixed_point {

// WrappingAdd/Sub/Negate (defined wrap-around) are in wrapping_math.h.

// (a + b) / 2 rounded to nearest, ties away from zero.
inline int32_t RoundingHalfSum(int32_t a, int32_t b) {
  const int64_t sum = int64_t{a} + int64_t{b};
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<int32_t>((sum + sign) / 2);
}

// x * 2^kExponent: a saturating left shift for kExponent > 0, a rounding
// right shift for kExponent < 0.
template <int kExponent>
inline int32_t SaturatingRoundingMultiplyByPOT(int32_t x) {
  if constexpr (kExponent == 0) {
    return x;
  } else if constexpr (kExponent > 0) {
    static_assert(kExponent < 31, "shift too large");
    constexpr int32_t kThreshold = static_cast<int32_t>((int64_t{1} << (31 - kExponent)) - 1);
    if (x > kThreshold) return std::numeric_limits<int32_t>::max();
    if (x < -kThreshold) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(static_cast<uint32_t>(x) << kExponent);
  } else {
    return RoundingDivideByPOT(x, -kExponent);
  }
}

// A Q(kSourceBits) raw value converted to Q(kDestinationBits).
template <int kDestinationBits, int kSourceBits>
inline int32_t Rescale(int32_t x) {
  return SaturatingRoundingMultiplyByPOT<kSourceBits - kDestinationBits>(x);
}

// exp(a) for a in [-1/4, 0), Q0 -> Q0: a 4th-order Taylor expansion around -1/8.
inline int32_t ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(int32_t a) {
  constexpr int32_t kExpMinusOneEighth = 1895147668;  // exp(-1/8)
  constexpr int32_t kOneThird = 715827883;            // 1/3
  const int32_t x = WrappingAdd(a, int32_t{1} << 28);  // a + 1/8
  const int32_t x2 = SaturatingRoundingDoublingHighMul(x, x);
  const int32_t x3 = SaturatingRoundingDoublingHighMul(x2, x);
  const int32_t x4 = SaturatingRoundingDoublingHighMul(x2, x2);
  const int32_t x4_over_4 = SaturatingRoundingMultiplyByPOT<-2>(x4);
  // x^4/24 + x^3/6 + x^2/2 = ((x^4/4 + x^3) / 3 + x^2) / 2
  const int32_t higher_terms = SaturatingRoundingMultiplyByPOT<-1>(
      WrappingAdd(SaturatingRoundingDoublingHighMul(WrappingAdd(x4_over_4, x3), kOneThird), x2));
  return WrappingAdd(kExpMinusOneEighth,
                     SaturatingRoundingDoublingHighMul(kExpMinusOneEighth, WrappingAdd(x, higher_terms)));
}

// exp(a) for a <= 0; a in Q(kIntegerBits), result in Q0.
//
// Steps: split a = r + n/4 with r in [-1/4, 0); exp(r) by the Taylor series;
// then multiply by exp(-2^k) for every bit k set in the remaining multiple of
// 1/4 (a barrel shifter over k = -2..4); inputs below -32 give 0, and 0 gives
// one (INT32_MAX).
template <int kIntegerBits>
inline int32_t ExpOnNegativeValues(int32_t a) {
  static_assert(kIntegerBits >= 0 && kIntegerBits < 31, "bad format");
  constexpr int kFractionalBits = 31 - kIntegerBits;
  constexpr int32_t kOneQuarter = int32_t{1} << (kFractionalBits - 2);
  constexpr int32_t kMask = kOneQuarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = WrappingSub(a & kMask, kOneQuarter);
  int32_t result =
      ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(Rescale<0, kIntegerBits>(a_mod_quarter_minus_one_quarter));
  const int32_t remainder = WrappingSub(a_mod_quarter_minus_one_quarter, a);

  // exp(-2^k) in Q0 for k = -2..4.
  constexpr int32_t kMultipliers[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (kIntegerBits > k) {
      const int shift = kFractionalBits + k;
      if ((remainder & (int32_t{1} << shift)) != 0) {
        result = SaturatingRoundingDoublingHighMul(result, kMultipliers[k + 2]);
      }
    }
  }
  if constexpr (kIntegerBits > 5) {
    constexpr int32_t kMinusThirtyTwo = -(int32_t{1} << (36 - kIntegerBits));
    if (a < kMinusThirtyTwo) result = 0;
  }
  if (a == 0) result = std::numeric_limits<int32_t>::max();
  return result;
}

// 1 / (1 + a) for a in [0, 1), Q0 -> Q0: three Newton-Raphson steps from
// the initial guess 48/17 - 32/17 * d, d = (1 + a) / 2, computed in Q2.
inline int32_t OneOverOnePlusXForXIn01(int32_t a) {
  constexpr int32_t kQ2One = int32_t{1} << 29;  // 1.0 in Q2
  constexpr int32_t kFortyEightOverSeventeen = 1515870810;       // 48/17 in Q2
  constexpr int32_t kMinusThirtyTwoOverSeventeen = -1010580540;  // -32/17 in Q2
  const int32_t half_denominator = RoundingHalfSum(a, std::numeric_limits<int32_t>::max());
  int32_t x = WrappingAdd(kFortyEightOverSeventeen,
                          SaturatingRoundingDoublingHighMul(half_denominator, kMinusThirtyTwoOverSeventeen));
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = SaturatingRoundingDoublingHighMul(half_denominator, x);
    const int32_t one_minus_half_denominator_times_x = WrappingSub(kQ2One, half_denominator_times_x);
    x = WrappingAdd(x, Rescale<2, 4>(SaturatingRoundingDoublingHighMul(x, one_minus_half_denominator_times_x)));
  }
  // x ~ 2 / (1 + a) in Q2, i.e. 1 / (1 + a) read as Q1; rescale Q1 -> Q0.
  return Rescale<0, 1>(x);
}

// (1 - a) / (1 + a) for a in [0, 1), Q0 -> Q0, with the same Newton-Raphson
// steps as OneOverOnePlusXForXIn01.
inline int32_t OneMinusXOverOnePlusXForXIn01(int32_t a) {
  constexpr int32_t kQ2One = int32_t{1} << 29;  // 1.0 in Q2
  constexpr int32_t kFortyEightOverSeventeen = 1515870810;
  constexpr int32_t kMinusThirtyTwoOverSeventeen = -1010580540;
  const int32_t half_denominator = RoundingHalfSum(a, std::numeric_limits<int32_t>::max());
  int32_t x = WrappingAdd(kFortyEightOverSeventeen,
                          SaturatingRoundingDoublingHighMul(half_denominator, kMinusThirtyTwoOverSeventeen));
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = SaturatingRoundingDoublingHighMul(half_denominator, x);
    const int32_t one_minus_half_denominator_times_x = WrappingSub(kQ2One, half_denominator_times_x);
    x = WrappingAdd(x, Rescale<2, 4>(SaturatingRoundingDoublingHighMul(x, one_minus_half_denominator_times_x)));
  }
  // 2 / (1 + a) - 1 = (1 - a) / (1 + a), Q2 -> Q0.
  return Rescale<0, 2>(WrappingSub(x, kQ2One));
}

// 1 / (1 + exp(-a)); a in Q(kIntegerBits), result in Q0. Computed for |a|
// and mirrored (1 - result) for negative a; exactly 1/2 at 0.
template <int kIntegerBits>
inline int32_t Logistic(int32_t a) {
  const int32_t abs_a = a > 0 ? a : WrappingNegate(a);
  const int32_t result_if_positive =
      OneOverOnePlusXForXIn01(ExpOnNegativeValues<kIntegerBits>(WrappingNegate(abs_a)));
  if (a == 0) return int32_t{1} << 30;
  if (a > 0) return result_if_positive;
  return WrappingSub(std::numeric_limits<int32_t>::max(), result_if_positive);
}

// tanh(a) = (1 - exp(-2|a|)) / (1 + exp(-2|a|)) with the sign of a; a in
// Q(kIntegerBits), result in Q0. The doubling is exact (a read as
// Q(kIntegerBits + 1)).
template <int kIntegerBits>
inline int32_t Tanh(int32_t a) {
  const int32_t minus_abs_a = a < 0 ? a : WrappingNegate(a);
  const int32_t t = OneMinusXOverOnePlusXForXIn01(ExpOnNegativeValues<kIntegerBits + 1>(minus_abs_a));
  if (a == 0) return 0;
  return a < 0 ? WrappingNegate(t) : t;
}

// Leading zero bits of a 32-bit value (32 for 0).
inline int CountLeadingZeros32(uint32_t x) { return x == 0 ? 32 : __builtin_clz(x); }

// The reciprocal of a positive Q(x_integer_digits) value x as a Q0 mantissa
// and a power of two: 1/x = result * 2^-num_bits_over_unit (result in Q0).
// x is normalised to [1, 2) and 1 / (1 + (x' - 1)) taken by Newton-Raphson.
// Precondition: x > 0.
inline int32_t GetReciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit) {
  const int headroom_plus_one = CountLeadingZeros32(static_cast<uint32_t>(x));
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  // x == 0 has 32 leading zeros, and a 32-bit shift is undefined; shifting
  // a zero gives zero whatever the amount (TFLite's x86 build also gets 0).
  const uint32_t shifted = x == 0 ? 0u : static_cast<uint32_t>(x) << headroom_plus_one;
  const auto shifted_sum_minus_one = static_cast<int32_t>(shifted - (uint32_t{1} << 31));
  return OneOverOnePlusXForXIn01(shifted_sum_minus_one);
}

// x * 2^exponent for a run-time exponent: saturating for 0 < exponent < 32,
// a rounding right shift for exponent < 0 (TFLite's
// SaturatingRoundingMultiplyByPOTParam; callers keep exponent > -32).
inline int32_t SaturatingRoundingMultiplyByPOTParam(int32_t x, int exponent) {
  if (exponent == 0) return x;
  if (exponent < 0) return RoundingDivideByPOT(x, -exponent);
  const auto threshold = static_cast<int32_t>((int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

// log(x) for x >= 1 (in practice x >= 1 / x_max); x in Q(kInputIntegerBits),
// result in Q(kOutputIntegerBits). x = 2^z * r with r near 1 (two candidate
// splits, the better one kept), then log(r) by a rational approximation
// around 2^-1/4; the sum is accumulated with one extra integer bit.
// Precondition: x > 0.
template <int kOutputIntegerBits, int kInputIntegerBits>
inline int32_t LogForXGreaterThanOrEqualToOne(int32_t x) {
  constexpr int kAccumIntegerBits = kOutputIntegerBits + 1;
  constexpr int32_t kLog2 = 1488522236;         // log(2)
  constexpr int32_t kSqrtSqrtHalf = 1805811301;  // 2^-1/4
  constexpr int32_t kSqrtHalf = 1518500250;      // 2^-1/2
  constexpr int32_t kOneQuarter = 536870912;     // 1/4
  constexpr int32_t kAlphaN = 117049297;         // 11/240 * 2^1/4
  constexpr int32_t kAlphaD = 127690142;         // 1/20 * 2^1/4
  constexpr int32_t kAlphaI = 1057819769;        // 2 / 2^1/4 - 2^1/4
  constexpr int32_t kAlphaF = 638450708;         // 1/4 * 2^1/4
  const int32_t shifted_quarter = Rescale<kAccumIntegerBits, 0>(kOneQuarter);

  // Split a: x read as Q0, normalised, times sqrt(1/2) (exponent + 1/4).
  const int z_a_headroom_plus_1 = CountLeadingZeros32(static_cast<uint32_t>(x));
  const int32_t r_a_tmp = SaturatingRoundingMultiplyByPOTParam(x, z_a_headroom_plus_1 - 1);
  const int32_t r_a = SaturatingRoundingMultiplyByPOTParam(SaturatingRoundingDoublingHighMul(r_a_tmp, kSqrtHalf), 1);
  const int32_t z_a_pow_2_adj = SaturatingAdd(
      SaturatingRoundingMultiplyByPOTParam(kInputIntegerBits - z_a_headroom_plus_1, 31 - kAccumIntegerBits),
      shifted_quarter);
  // Split b: x times sqrt(1/2) normalised (exponent - 1/4).
  const int32_t z_b = SaturatingRoundingDoublingHighMul(x, kSqrtHalf);
  const int z_b_headroom = CountLeadingZeros32(static_cast<uint32_t>(z_b)) - 1;
  const int32_t r_b = SaturatingRoundingMultiplyByPOTParam(x, z_b_headroom);
  const int32_t z_b_pow_2_adj = SaturatingSub(
      SaturatingRoundingMultiplyByPOTParam(kInputIntegerBits - z_b_headroom, 31 - kAccumIntegerBits),
      shifted_quarter);

  const int32_t r = std::min(r_a, r_b);
  const int32_t z_pow_2_adj = std::max(z_a_pow_2_adj, z_b_pow_2_adj);

  const int32_t p = RoundingHalfSum(r, kSqrtSqrtHalf);
  int32_t q = WrappingSub(r, kSqrtSqrtHalf);
  q = WrappingAdd(q, q);
  const int32_t common_sq = SaturatingRoundingDoublingHighMul(q, q);
  const int32_t num =
      WrappingAdd(SaturatingRoundingDoublingHighMul(q, r),
                  SaturatingRoundingDoublingHighMul(SaturatingRoundingDoublingHighMul(q, common_sq), kAlphaN));
  const int32_t denom_minus_one = WrappingAdd(
      SaturatingRoundingDoublingHighMul(
          p, WrappingAdd(WrappingAdd(kAlphaI, q), SaturatingRoundingDoublingHighMul(kAlphaD, common_sq))),
      SaturatingRoundingDoublingHighMul(kAlphaF, q));
  const int32_t recip_denom = OneOverOnePlusXForXIn01(denom_minus_one);
  const int32_t num_scaled = Rescale<kAccumIntegerBits, 0>(num);
  return Rescale<kOutputIntegerBits, kAccumIntegerBits>(
      WrappingAdd(SaturatingRoundingDoublingHighMul(z_pow_2_adj, kLog2),
                  SaturatingRoundingDoublingHighMul(num_scaled, recip_denom)));
}

// 1 / sqrt(x) for x >= 0 as a Q0 mantissa and a left shift (<= 0), TFLite's
// GetInvSqrtQuantizedMultiplierExp with reverse shift -1: x is scaled by
// powers of 4 into [2^27, 2^29), then five Newton-Raphson steps from 1 in
// Q3, times sqrt(2) / 2. x <= 1 (0 included) gives INT32_MAX and shift 0.
inline void InvSqrtQuantizedMultiplier(int32_t x, int32_t* multiplier, int32_t* left_shift) {
  if (x <= 1) {
    *multiplier = std::numeric_limits<int32_t>::max();
    *left_shift = 0;
    return;
  }
  int32_t right_shift = 11;
  while (x >= (int32_t{1} << 29)) {
    x /= 4;
    ++right_shift;
  }
  const int left_shift_bit_pairs = (CountLeadingZeros32(static_cast<uint32_t>(x)) - 1) / 2 - 1;
  right_shift -= left_shift_bit_pairs;
  x = static_cast<int32_t>(static_cast<uint32_t>(x) << (2 * left_shift_bit_pairs));
  constexpr int32_t kQ3One = int32_t{1} << 28;
  constexpr int32_t kQ3ThreeHalves = (int32_t{1} << 28) + (int32_t{1} << 27);
  constexpr int32_t kHalfSqrt2 = 1518500250;  // sqrt(2) / 2 in Q0
  const int32_t half_x = SaturatingRoundingMultiplyByPOT<-1>(x >> 1);  // Q3
  int32_t y = kQ3One;
  for (int i = 0; i < 5; ++i) {
    const int32_t y3 = Rescale<3, 9>(SaturatingRoundingDoublingHighMul(SaturatingRoundingDoublingHighMul(y, y), y));
    y = Rescale<3, 6>(WrappingSub(SaturatingRoundingDoublingHighMul(kQ3ThreeHalves, y),
                                  SaturatingRoundingDoublingHighMul(half_x, y3)));
  }
  int32_t result = SaturatingRoundingDoublingHighMul(y, kHalfSqrt2);
  if (right_shift < 0) {
    // TFLite shifts the mantissa left here (wrapping past 31 bits).
    result = WrappingShiftLeft(result, static_cast<int>(-right_shift));
    right_shift = 0;
  }
  *multiplier = result;
  *left_shift = -right_shift;
}

}  // namespace microarena::fixed_point
