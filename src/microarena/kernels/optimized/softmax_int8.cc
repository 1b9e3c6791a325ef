// SOFTMAX with int8 input: the reference's arithmetic (reference/softmax.h,
// gemmlowp's fixed point) in fewer instructions, with the same bytes.
//
// Why it is exact:
//   - Every rounding doubling high multiply here has one operand that is a
//     positive constant, a positive multiplier or a value >= 0, so it never
//     meets its one saturating case (both operands INT32_MIN), and
//     optimized/requantize.h's shortcut (a*b + 2^30) >> 31 is its value.
//   - The exp's rescale of the rest r in [-1/4, 0) from Q5 to Q0 is a left
//     shift by 5 of a value of at most 2^24 in magnitude: it cannot
//     saturate, so it is a plain shift.
//   - The reciprocal, the rounding right shifts and the clamp are the
//     reference's functions.
// What makes it faster: those multiplies without branches or divisions, and
// the exps of a row's first kCachedExps elements kept from the sum's pass
// for the outputs' pass instead of computed twice (64 bytes of stack: the
// rows of classifier heads, kws's 12 and vww's 2, are computed once).
#include <cstddef>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/optimized/requantize.h"
#include "microarena/kernels/reference/fixed_point_exp.h"

namespace microarena::optimized {
namespace {

constexpr size_t kCachedExps = 16;

// fixed_point::SaturatingRoundingDoublingHighMul(a, b) when a and b are not
// both INT32_MIN.
MICROARENA_ALWAYS_INLINE int32_t DoublingHighMul(int32_t a, int32_t b) {
  return static_cast<int32_t>((static_cast<int64_t>(a) * b + (int64_t{1} << 30)) >> 31);
}

// fixed_point::ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl: x = a + 1/8
// lies in [-1/8, 1/8), so no operand below is INT32_MIN.
MICROARENA_ALWAYS_INLINE int32_t ExpOnQuarter(int32_t a) {
  constexpr int32_t kExpMinusOneEighth = 1895147668;
  constexpr int32_t kOneThird = 715827883;
  const int32_t x = a + (int32_t{1} << 28);
  const int32_t x2 = DoublingHighMul(x, x);
  const int32_t x3 = DoublingHighMul(x2, x);
  const int32_t x4 = DoublingHighMul(x2, x2);
  const int32_t x4_over_4 = fixed_point::RoundingDivideByPOT(x4, 2);
  const int32_t higher_terms =
      fixed_point::RoundingDivideByPOT(fixed_point::WrappingAdd(DoublingHighMul(fixed_point::WrappingAdd(x4_over_4, x3), kOneThird), x2), 1);
  return fixed_point::WrappingAdd(kExpMinusOneEighth,
                                  DoublingHighMul(kExpMinusOneEighth, fixed_point::WrappingAdd(x, higher_terms)));
}

// fixed_point::ExpOnNegativeValues<5>(a) for a <= 0 (Q5.26 -> Q0).
MICROARENA_ALWAYS_INLINE int32_t ExpOnNegativeQ5(int32_t a) {
  constexpr int kFractionalBits = 31 - reference::kSoftmaxScaledDiffIntegerBits;
  constexpr int32_t kOneQuarter = int32_t{1} << (kFractionalBits - 2);
  const int32_t rest = fixed_point::WrappingSub(a & (kOneQuarter - 1), kOneQuarter);  // in [-1/4, 0)
  int32_t result = ExpOnQuarter(static_cast<int32_t>(static_cast<uint32_t>(rest) << 5));
  const int32_t remainder = fixed_point::WrappingSub(rest, a);
  // exp(-2^k) for k = -2..4, one per bit of the remainder's quarters.
  constexpr int32_t kMultipliers[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = 0; k < 7; ++k) {
    if ((remainder & (int32_t{1} << (kFractionalBits - 2 + k))) != 0) result = DoublingHighMul(result, kMultipliers[k]);
  }
  return a == 0 ? std::numeric_limits<int32_t>::max() : result;
}

// exp of one element's diff (>= diff_min): the reference's rescale to Q5.26
// (MultiplyByQuantizedMultiplierGreaterThanOne; the multiplier is positive),
// then the exp.
MICROARENA_ALWAYS_INLINE int32_t ExpOfDiff(int32_t diff, int32_t multiplier, int left_shift) {
  const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(diff) << left_shift);
  return ExpOnNegativeQ5(DoublingHighMul(shifted, multiplier));
}

}  // namespace

template <typename OutputT>
void SoftmaxInt8(const reference::SoftmaxQuantizedParams& params, size_t rows, size_t depth, const int8_t* input,
                 OutputT* output) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::SoftmaxQuantized(params, rows, depth, input, output);
  return;
#endif
  constexpr int32_t kOutputMin = std::numeric_limits<OutputT>::min();
  constexpr int32_t kOutputMax = std::numeric_limits<OutputT>::max();
  constexpr int kOutputBits = static_cast<int>(sizeof(OutputT) * 8);
  const int32_t multiplier = params.input_multiplier;
  const int left_shift = params.input_left_shift;
  const int32_t diff_min = params.diff_min;
  int32_t cached[kCachedExps];  // exps of the row's first elements; -1: below diff_min
  for (size_t row = 0; row < rows; ++row) {
    const int8_t* in = input + row * depth;
    OutputT* out = output + row * depth;
    int32_t max_in_row = std::numeric_limits<int8_t>::min();
    for (size_t c = 0; c < depth; ++c) max_in_row = in[c] > max_in_row ? in[c] : max_in_row;

    // The sum of exps in Q12 (Rescale<12, 0>: a rounding shift by 12).
    int32_t sum_of_exps = 0;
    for (size_t c = 0; c < depth; ++c) {
      const int32_t diff = int32_t{in[c]} - max_in_row;
      int32_t exp_q0 = -1;
      if (diff >= diff_min) {
        exp_q0 = ExpOfDiff(diff, multiplier, left_shift);
        sum_of_exps = fixed_point::WrappingAdd(
            sum_of_exps, fixed_point::RoundingDivideByPOT(exp_q0, reference::kSoftmaxAccumulationIntegerBits));
      }
      if (c < kCachedExps) cached[c] = exp_q0;
    }

    int num_bits_over_unit = 0;
    const int32_t reciprocal =
        fixed_point::GetReciprocal(sum_of_exps, reference::kSoftmaxAccumulationIntegerBits, &num_bits_over_unit);
    // As the reference: an exponent above 31 rounds every output to the minimum.
    const int exponent = num_bits_over_unit + 31 - kOutputBits;
    if (exponent > 31) {
      for (size_t c = 0; c < depth; ++c) out[c] = static_cast<OutputT>(kOutputMin);
      continue;
    }
    // Read before written: every output of the row comes after its reads.
    for (size_t c = 0; c < depth; ++c) {
      int32_t exp_q0 = -1;
      if (c < kCachedExps) {
        exp_q0 = cached[c];
      } else {
        const int32_t diff = int32_t{in[c]} - max_in_row;
        if (diff >= diff_min) exp_q0 = ExpOfDiff(diff, multiplier, left_shift);
      }
      if (exp_q0 < 0) {
        out[c] = static_cast<OutputT>(kOutputMin);
        continue;
      }
      const int32_t unsaturated =
          fixed_point::RoundingDivideByPOT(DoublingHighMul(reciprocal, exp_q0), exponent) + kOutputMin;
      const int32_t low = unsaturated > kOutputMin ? unsaturated : kOutputMin;
      out[c] = static_cast<OutputT>(low < kOutputMax ? low : kOutputMax);
    }
  }
}

template void SoftmaxInt8<int8_t>(const reference::SoftmaxQuantizedParams&, size_t, size_t, const int8_t*, int8_t*);
template void SoftmaxInt8<int16_t>(const reference::SoftmaxQuantizedParams&, size_t, size_t, const int8_t*, int16_t*);

}  // namespace microarena::optimized
