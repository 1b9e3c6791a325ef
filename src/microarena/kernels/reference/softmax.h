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
// int16 -> int16 (TFLite's lookup-table form, output scale 2^-15, zero 0):
//   1. per row, the largest input; diff = input - max in [-65535, 0];
//   2. diff * (input_scale * beta / (10 / 65535)) (MultiplyByQuantizedMultiplier)
//      maps [-10, 0] onto [-65535, 0]; + 32767, saturated to int16, indexes the
//      exp table (interpolated); the exps (Q0.15) are kept in the output row;
//   3. the sum of exps is normalised to [1, 2) (headroom by clz), its
//      reciprocal read from the 1 / (1 + x) table;
//   4. output = exp * reciprocal, shifted back by the headroom, rounded,
//      clamped to [0, 32767].
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

// TFLite's two int16 softmax tables (its gen_lut with 512 steps plus an end
// point, outputs over [-1, 1]): exp(x) on [-10, 0] and 1 / (1 + x) on [0, 1].
// They depend on no model parameter, so they are constants here (TFLM builds
// them in Prepare, in its persistent area); generated with glibc's float exp,
// as the oracle's build.
inline constexpr int16_t kSoftmaxExpTable[513] = {
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5,
    5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7,
    7, 7, 7, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 10,
    10, 10, 10, 10, 11, 11, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13,
    13, 14, 14, 14, 14, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18,
    18, 19, 19, 19, 20, 20, 21, 21, 21, 22, 22, 23, 23, 24, 24, 25,
    25, 26, 26, 27, 27, 28, 28, 29, 29, 30, 30, 31, 32, 32, 33, 34,
    34, 35, 36, 36, 37, 37, 38, 39, 40, 40, 42, 42, 43, 44, 45, 45,
    46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 59, 60, 60, 62,
    63, 65, 65, 67, 68, 69, 71, 73, 74, 75, 77, 78, 80, 81, 83, 85,
    86, 88, 90, 92, 93, 95, 97, 99, 101, 103, 105, 107, 109, 112, 114, 116,
    118, 121, 123, 126, 128, 131, 133, 135, 139, 141, 144, 147, 149, 152, 155, 158,
    162, 165, 168, 171, 174, 178, 181, 185, 189, 192, 196, 200, 204, 208, 212, 217,
    221, 225, 230, 234, 239, 243, 248, 253, 258, 263, 268, 273, 279, 284, 290, 296,
    302, 308, 314, 320, 327, 333, 340, 346, 353, 360, 366, 374, 381, 389, 397, 404,
    413, 421, 429, 437, 446, 455, 464, 473, 482, 492, 501, 511, 522, 532, 543, 553,
    564, 575, 586, 598, 610, 622, 634, 646, 659, 672, 685, 699, 713, 727, 741, 756,
    771, 786, 801, 817, 833, 850, 866, 884, 901, 919, 937, 955, 974, 993, 1013, 1033,
    1053, 1074, 1095, 1117, 1139, 1161, 1184, 1207, 1232, 1256, 1281, 1306, 1332, 1358, 1385, 1412,
    1440, 1468, 1497, 1527, 1557, 1587, 1619, 1651, 1683, 1716, 1750, 1785, 1820, 1856, 1892, 1930,
    1968, 2006, 2046, 2087, 2128, 2170, 2212, 2256, 2300, 2346, 2392, 2439, 2488, 2537, 2587, 2638,
    2690, 2743, 2796, 2852, 2908, 2966, 3024, 3084, 3145, 3207, 3270, 3334, 3400, 3467, 3535, 3605,
    3677, 3749, 3822, 3898, 3975, 4053, 4133, 4214, 4297, 4383, 4469, 4557, 4647, 4739, 4833, 4927,
    5024, 5124, 5225, 5328, 5433, 5541, 5649, 5761, 5875, 5991, 6109, 6230, 6352, 6477, 6605, 6736,
    6868, 7004, 7141, 7282, 7427, 7572, 7722, 7874, 8030, 8188, 8350, 8514, 8683, 8854, 9028, 9206,
    9387, 9572, 9762, 9954, 10151, 10351, 10555, 10763, 10976, 11191, 11412, 11637, 11867, 12102, 12341, 12583,
    12831, 13085, 13342, 13606, 13874, 14148, 14427, 14711, 15002, 15297, 15599, 15907, 16221, 16541, 16867, 17199,
    17539, 17884, 18237, 18597, 18964, 19338, 19719, 20108, 20505, 20909, 21322, 21742, 22171, 22608, 23054, 23509,
    23973, 24445, 24928, 25419, 25921, 26432, 26953, 27485, 28027, 28580, 29143, 29718, 30304, 30902, 31512, 32133,
    32767};
inline constexpr int16_t kSoftmaxOneOverOnePlusXTable[513] = {
    32767, 32704, 32640, 32578, 32514, 32451, 32388, 32326, 32264, 32202, 32141, 32079, 32018, 31957, 31896, 31835,
    31775, 31715, 31655, 31596, 31537, 31476, 31418, 31359, 31301, 31242, 31184, 31127, 31069, 31011, 30954, 30897,
    30840, 30784, 30727, 30671, 30615, 30560, 30504, 30449, 30394, 30339, 30283, 30229, 30175, 30121, 30067, 30013,
    29960, 29906, 29853, 29800, 29746, 29694, 29642, 29589, 29537, 29486, 29434, 29382, 29331, 29280, 29229, 29177,
    29127, 29076, 29026, 28976, 28926, 28877, 28827, 28777, 28728, 28679, 28630, 28581, 28532, 28484, 28436, 28388,
    28340, 28292, 28244, 28197, 28150, 28103, 28056, 28008, 27962, 27915, 27869, 27823, 27777, 27731, 27685, 27640,
    27594, 27549, 27504, 27459, 27413, 27369, 27324, 27280, 27236, 27192, 27148, 27104, 27060, 27016, 26973, 26930,
    26887, 26844, 26801, 26758, 26715, 26673, 26630, 26588, 26546, 26504, 26463, 26421, 26380, 26338, 26297, 26255,
    26214, 26174, 26132, 26092, 26051, 26011, 25971, 25931, 25891, 25851, 25811, 25772, 25732, 25693, 25653, 25614,
    25575, 25536, 25497, 25458, 25420, 25381, 25343, 25305, 25267, 25229, 25191, 25153, 25116, 25078, 25041, 25003,
    24966, 24928, 24892, 24855, 24818, 24781, 24745, 24709, 24672, 24636, 24600, 24564, 24528, 24492, 24457, 24421,
    24385, 24350, 24315, 24280, 24245, 24210, 24175, 24140, 24105, 24070, 24036, 24002, 23967, 23933, 23899, 23865,
    23831, 23798, 23764, 23730, 23697, 23664, 23630, 23597, 23564, 23530, 23498, 23465, 23432, 23399, 23366, 23334,
    23302, 23269, 23237, 23205, 23173, 23141, 23109, 23077, 23046, 23014, 22982, 22951, 22920, 22888, 22857, 22826,
    22795, 22764, 22733, 22703, 22672, 22641, 22611, 22580, 22550, 22520, 22490, 22459, 22429, 22400, 22370, 22340,
    22310, 22281, 22251, 22221, 22192, 22163, 22134, 22104, 22075, 22046, 22017, 21988, 21959, 21931, 21902, 21874,
    21845, 21817, 21788, 21760, 21732, 21704, 21676, 21648, 21620, 21592, 21565, 21537, 21509, 21482, 21455, 21427,
    21400, 21372, 21345, 21318, 21291, 21264, 21237, 21210, 21183, 21157, 21130, 21103, 21077, 21050, 21024, 20998,
    20971, 20945, 20919, 20893, 20867, 20841, 20816, 20790, 20764, 20738, 20713, 20687, 20662, 20636, 20611, 20586,
    20560, 20535, 20510, 20485, 20460, 20435, 20410, 20385, 20360, 20336, 20311, 20287, 20262, 20238, 20213, 20189,
    20165, 20141, 20117, 20092, 20068, 20044, 20021, 19997, 19973, 19949, 19926, 19902, 19878, 19855, 19832, 19808,
    19784, 19762, 19738, 19715, 19692, 19668, 19645, 19622, 19600, 19577, 19553, 19531, 19508, 19485, 19463, 19440,
    19418, 19395, 19373, 19351, 19328, 19306, 19284, 19262, 19240, 19218, 19196, 19174, 19152, 19130, 19109, 19087,
    19065, 19044, 19022, 19000, 18979, 18958, 18936, 18915, 18893, 18872, 18851, 18830, 18809, 18787, 18766, 18745,
    18725, 18704, 18682, 18662, 18641, 18620, 18600, 18579, 18559, 18538, 18518, 18497, 18477, 18457, 18436, 18416,
    18396, 18376, 18356, 18336, 18316, 18296, 18276, 18256, 18236, 18216, 18197, 18177, 18157, 18138, 18118, 18099,
    18079, 18059, 18040, 18021, 18001, 17982, 17963, 17944, 17924, 17905, 17886, 17867, 17848, 17829, 17810, 17791,
    17772, 17754, 17735, 17716, 17697, 17679, 17660, 17641, 17623, 17604, 17586, 17568, 17549, 17531, 17513, 17494,
    17476, 17458, 17440, 17422, 17404, 17386, 17368, 17350, 17332, 17314, 17296, 17278, 17261, 17243, 17225, 17208,
    17190, 17172, 17155, 17137, 17120, 17102, 17085, 17067, 17050, 17033, 17015, 16999, 16981, 16964, 16947, 16930,
    16913, 16895, 16878, 16862, 16845, 16828, 16810, 16794, 16777, 16760, 16743, 16727, 16710, 16693, 16677, 16660,
    16644, 16627, 16611, 16594, 16578, 16562, 16545, 16529, 16513, 16497, 16480, 16464, 16448, 16432, 16416, 16400,
    16384};

// Interpolated lookup in a 513-entry table: the upper 9 bits of value + 32768
// pick the entry, the lower 7 weight the step to the next (rounded half up).
inline int16_t Int16TableLookup(int16_t value, const int16_t* table) {
  const auto index = static_cast<uint16_t>(256 + (value >> 7));
  const int32_t offset = value & 0x7F;
  const int16_t base = table[index];
  const auto slope = static_cast<int16_t>(table[index + 1] - base);
  const int32_t delta = (slope * offset + 64) >> 7;
  return static_cast<int16_t>(base + delta);
}

struct SoftmaxInt16Params {
  int32_t input_multiplier = 0;  // input_scale * beta * 65535 / 10, QuantizeMultiplier form
  int32_t input_shift = 0;       // any sign
};

// `rows` rows of `depth` (<= 65538, so the sum of exps fits int32) elements;
// the output row holds the exps between the passes, so it must not overlap
// the input.
inline void SoftmaxInt16(const SoftmaxInt16Params& params, size_t rows, size_t depth, const int16_t* input,
                         int16_t* output) {
  for (size_t row = 0; row < rows; ++row) {
    const int16_t* in = input + row * depth;
    int16_t* out = output + row * depth;
    int32_t max_in_row = std::numeric_limits<int16_t>::min();
    for (size_t c = 0; c < depth; ++c) max_in_row = std::max(max_in_row, int32_t{in[c]});

    int32_t sum_of_exps = 0;  // Q16.15
    for (size_t c = 0; c < depth; ++c) {
      const int32_t diff = int32_t{in[c]} - max_in_row;
      const int32_t scaled =
          fixed_point::MultiplyByQuantizedMultiplier(diff, params.input_multiplier, params.input_shift);
      const auto centred =
          static_cast<int16_t>(std::clamp<int32_t>(fixed_point::WrappingAdd(scaled, 32767), -32768, 32767));
      out[c] = Int16TableLookup(centred, kSoftmaxExpTable);
      sum_of_exps += out[c];
    }

    // sum in [1, 2) after the shift: x = sum - 1, centred on the table.
    const int headroom_plus_one = __builtin_clz(static_cast<uint32_t>(sum_of_exps));
    const auto shifted_sum =
        static_cast<int32_t>(((static_cast<int64_t>(sum_of_exps) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    const auto centred_sum =
        static_cast<int16_t>(std::clamp<int32_t>(shifted_sum - ((1 << 15) + (1 << 16)), -32768, 32767));
    const int16_t reciprocal = Int16TableLookup(centred_sum, kSoftmaxOneOverOnePlusXTable);

    const int right_shift = 31 - headroom_plus_one;
    const int64_t rounding = int64_t{1} << (right_shift - 1);
    for (size_t c = 0; c < depth; ++c) {
      const auto result = static_cast<int32_t>((int64_t{out[c]} * reciprocal + rounding) >> right_shift);
      out[c] = static_cast<int16_t>(std::clamp<int32_t>(result, 0, 32767));
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
