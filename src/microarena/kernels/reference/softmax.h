// Softmax over the last axis, as TFLite's reference kernels compute it.
//
// Quantized (int8 input, int8 or int16 output):
//   1. per row, the largest input; every diff = input - max <= 0;
//   2. diffs below diff_min contribute nothing (their exp rounds to 0);
//      the others are rescaled to Q5 (times beta * input_scale) and
//      exp(diff) is taken in fixed point (Q0);
//   3. the sum of exps is accumulated in Q12 and its reciprocal is taken
//      as a Q0 mantissa and a power of two;
//   4. output = exp * reciprocal, rounded, shifted to the output range
//      (zero point = the type's minimum) and saturated.
// Float: exp((x - max) * beta) / sum, in float as TFLite does.
//
// Cost: two passes over each row, one fixed-point exp per element and pass.
//
// LOG_SOFTMAX shares the rescaled diffs, the exp and the Q12 sum; then
//   log_sum = log(sum) in Q5; out = round((diff_q5 - log_sum) / 2^22) + 127,
// with diffs at or below max(diff_min - 1, (INT32_MIN + log_sum) / multiplier)
// giving -128 (int8 output: scale 16/256, zero point 127).
// Float: out = (x - max) - log(sum of exp(x - max)).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/fixed_point_exp.h"

namespace microarena::reference {

struct SoftmaxQuantizedParams {
  int32_t input_multiplier = 0;  // beta * input_scale * 2^26 as mantissa ...
  int32_t input_left_shift = 0;  // ... and left shift (>= 0)
  int32_t diff_min = 0;          // diffs below this are treated as -infinity
};

// Integer bits of the rescaled diff (Q5.26) and of the sum of exps (Q12.19).
constexpr int kSoftmaxScaledDiffIntegerBits = 5;
constexpr int kSoftmaxAccumulationIntegerBits = 12;

// The diff multiplier and diff_min of SOFTMAX and LOG_SOFTMAX (TFLite's
// Prepare): m = min(beta * input_scale * 2^26, 2^31 - 1) in double, split
// into a mantissa and a left shift; diff_min = -floor(31 * 2^26 / 2^shift).
// Returns false when TFLite refuses m (not above 1, or a shift beyond 31).
inline bool PrepareSoftmaxDiffScaling(double beta, double input_scale, int32_t* multiplier, int* left_shift,
                                      int32_t* diff_min, double* real_multiplier) {
  constexpr int kIntegerBits = kSoftmaxScaledDiffIntegerBits;
  *real_multiplier = std::min(beta * input_scale * (1 << (31 - kIntegerBits)), (int64_t{1} << 31) - 1.0);
  fixed_point::QuantizeMultiplier(*real_multiplier, multiplier, left_shift);
  // The cap 2^31 - 1 gives a left shift of 31, which TFLite shifts by (with
  // wrap-around, defined in MultiplyByQuantizedMultiplierGreaterThanOne).
  if (!(*real_multiplier > 1.0) || *left_shift < 0 || *left_shift > fixed_point::kMaxMultiplierShift) return false;
  const double radius = 1.0 * ((1 << kIntegerBits) - 1) * static_cast<double>(int64_t{1} << (31 - kIntegerBits)) /
                        static_cast<double>(int64_t{1} << *left_shift);
  *diff_min = -static_cast<int32_t>(std::floor(radius));
  return true;
}

// `rows` rows of `depth` elements; input and output do not overlap.
template <typename OutputT>
void SoftmaxQuantized(const SoftmaxQuantizedParams& params, size_t rows, size_t depth, const int8_t* input,
                      OutputT* output) {
  using fixed_point::ExpOnNegativeValues;
  using fixed_point::MultiplyByQuantizedMultiplierGreaterThanOne;
  constexpr int32_t kOutputMin = std::numeric_limits<OutputT>::min();
  constexpr int32_t kOutputMax = std::numeric_limits<OutputT>::max();
  constexpr int kOutputBits = static_cast<int>(sizeof(OutputT) * 8);
  for (size_t row = 0; row < rows; ++row) {
    const int8_t* in = input + row * depth;
    OutputT* out = output + row * depth;
    int32_t max_in_row = std::numeric_limits<int8_t>::min();
    for (size_t c = 0; c < depth; ++c) max_in_row = std::max(max_in_row, int32_t{in[c]});

    int32_t sum_of_exps = 0;  // Q12
    for (size_t c = 0; c < depth; ++c) {
      const int32_t diff = int32_t{in[c]} - max_in_row;
      if (diff >= params.diff_min) {
        const int32_t scaled_diff =
            MultiplyByQuantizedMultiplierGreaterThanOne(diff, params.input_multiplier, params.input_left_shift);
        const int32_t exp_q0 = ExpOnNegativeValues<kSoftmaxScaledDiffIntegerBits>(scaled_diff);
        sum_of_exps = fixed_point::WrappingAdd(
            sum_of_exps, fixed_point::Rescale<kSoftmaxAccumulationIntegerBits, 0>(exp_q0));
      }
    }

    int num_bits_over_unit = 0;
    const int32_t reciprocal =
        fixed_point::GetReciprocal(sum_of_exps, kSoftmaxAccumulationIntegerBits, &num_bits_over_unit);
    // 35 - clz(sum) for int8 output, 27 - clz(sum) for int16. For int8 it
    // passes 31 once the sum reaches 512 (2^28 in Q12: 512 values near the
    // row maximum, or a sum that wrapped): TFLite then shifts an int32 by 32
    // or more bits, which is undefined (x86-64 shifts by exponent % 32 and
    // gives garbage). Here the exact rounding of its formula is used
    // instead: x / 2^exponent for 0 <= x < 2^31 is below 1/2 and rounds to
    // 0, so every output of the row is the minimum.
    const int exponent = num_bits_over_unit + 31 - kOutputBits;
    if (exponent > 31) {
      std::fill(out, out + depth, static_cast<OutputT>(kOutputMin));
      continue;
    }

    for (size_t c = 0; c < depth; ++c) {
      const int32_t diff = int32_t{in[c]} - max_in_row;
      if (diff >= params.diff_min) {
        const int32_t scaled_diff =
            MultiplyByQuantizedMultiplierGreaterThanOne(diff, params.input_multiplier, params.input_left_shift);
        const int32_t exp_q0 = ExpOnNegativeValues<kSoftmaxScaledDiffIntegerBits>(scaled_diff);
        const int32_t unsaturated = fixed_point::RoundingDivideByPOT(
            fixed_point::SaturatingRoundingDoublingHighMul(reciprocal, exp_q0), exponent);
        const int32_t shifted = unsaturated + kOutputMin;
        out[c] = static_cast<OutputT>(std::clamp(shifted, kOutputMin, kOutputMax));
      } else {
        out[c] = static_cast<OutputT>(kOutputMin);
      }
    }
  }
}

struct LogSoftmaxQuantizedParams {
  int32_t input_multiplier = 0;     // as SoftmaxQuantizedParams
  int32_t input_left_shift = 0;
  int32_t diff_min = 0;
  int32_t reverse_multiplier = 0;   // 2^(31 - input_left_shift) / input_multiplier ...
  int32_t reverse_shift = 0;        // ... as mantissa and (non-positive) shift
};

// Integer bits of the log-softmax output (Q4 before the final shift).
constexpr int kLogSoftmaxOutputIntegerBits = 4;

// int8 -> int8, `rows` rows of `depth` elements.
inline void LogSoftmaxInt8(const LogSoftmaxQuantizedParams& params, size_t rows, size_t depth, const int8_t* input,
                           int8_t* output) {
  using fixed_point::MultiplyByQuantizedMultiplier;
  constexpr int kDiffBits = kSoftmaxScaledDiffIntegerBits;
  constexpr int kOutputShift = 31 - kDiffBits - kLogSoftmaxOutputIntegerBits;
  for (size_t row = 0; row < rows; ++row) {
    const int8_t* in = input + row * depth;
    int8_t* out = output + row * depth;
    int32_t max_in_row = std::numeric_limits<int8_t>::min();
    for (size_t c = 0; c < depth; ++c) max_in_row = std::max(max_in_row, int32_t{in[c]});

    int32_t sum_of_exps = 0;  // Q12
    for (size_t c = 0; c < depth; ++c) {
      const int32_t diff = int32_t{in[c]} - max_in_row;
      if (diff >= params.diff_min) {
        const int32_t diff_q5 = MultiplyByQuantizedMultiplier(diff, params.input_multiplier, params.input_left_shift);
        sum_of_exps = fixed_point::WrappingAdd(
            sum_of_exps, fixed_point::Rescale<kSoftmaxAccumulationIntegerBits, 0>(
                             fixed_point::ExpOnNegativeValues<kDiffBits>(diff_q5)));
      }
    }
    const int32_t log_sum_q5 =
        fixed_point::LogForXGreaterThanOrEqualToOne<kDiffBits, kSoftmaxAccumulationIntegerBits>(sum_of_exps);
    // Diffs this far below the maximum would underflow Q5 after subtracting.
    const int32_t shifted_log_sum = fixed_point::WrappingAdd(log_sum_q5, std::numeric_limits<int32_t>::min());
    const int32_t adjusted_diff_min =
        std::max(params.diff_min - 1,
                 MultiplyByQuantizedMultiplier(shifted_log_sum, params.reverse_multiplier, params.reverse_shift));
    for (size_t c = 0; c < depth; ++c) {
      const int32_t diff = int32_t{in[c]} - max_in_row;
      if (diff > adjusted_diff_min) {
        const int32_t diff_q5 = MultiplyByQuantizedMultiplier(diff, params.input_multiplier, params.input_left_shift);
        const int32_t value =
            fixed_point::RoundingDivideByPOT(fixed_point::WrappingSub(diff_q5, log_sum_q5), kOutputShift) + 127;
        out[c] = static_cast<int8_t>(std::clamp<int32_t>(value, -128, 127));
      } else {
        out[c] = -128;
      }
    }
  }
}

inline void LogSoftmaxFloat(size_t rows, size_t depth, const float* input, float* output) {
  for (size_t row = 0; row < rows; ++row) {
    const float* in = input + row * depth;
    float* out = output + row * depth;
    float max_in_row = std::numeric_limits<float>::lowest();
    for (size_t c = 0; c < depth; ++c) max_in_row = std::max(max_in_row, in[c]);
    float sum = 0.0f;
    for (size_t c = 0; c < depth; ++c) sum += std::exp(in[c] - max_in_row);
    const float log_sum = std::log(sum);
    for (size_t c = 0; c < depth; ++c) out[c] = in[c] - max_in_row - log_sum;
  }
}

// Float softmax with `beta`; `rows` rows of `depth` elements.
inline void SoftmaxFloat(float beta, size_t rows, size_t depth, const float* input, float* output) {
  for (size_t row = 0; row < rows; ++row) {
    const float* in = input + row * depth;
    float* out = output + row * depth;
    float max_in_row = std::numeric_limits<float>::lowest();
    for (size_t c = 0; c < depth; ++c) max_in_row = std::max(max_in_row, in[c]);
    float sum = 0.0f;
    for (size_t c = 0; c < depth; ++c) {
      const float exp_c = std::exp((in[c] - max_in_row) * beta);
      out[c] = exp_c;
      sum += exp_c;
    }
    for (size_t c = 0; c < depth; ++c) out[c] = out[c] / sum;
  }
}

}  // namespace microarena::reference
