// FULLY_CONNECTED reference math, bit-exact with TFLite's reference kernels.
//
// The input is read as `batches` rows of `accum_depth` values; the filter is
// [output_depth, accum_depth]. For every row b and output unit o:
//   acc = sum over d of filter[o, d] * input[b, d]
//   int8:  out[b, o] = clamp(MultiplyByQuantizedMultiplier(acc + bias[o], M, s) + zp_out)
//          with input values offset by -zp_in and filter values by -zp_filter
//          before the multiply (one multiplier M, s for the whole tensor,
//          or, with per-channel weights, one per unit: UnitScales);
//   16x8:  int16 input and output, int8 filter; int32 acc and the 32-bit
//          rescale with an int32 bias, int64 acc and the 64-bit one with an
//          int64 bias or none; all three offsets applied as for int8 (TFLM's
//          general kernel, unlike its 16x8 convolutions);
//   float: out[b, o] = clamp(acc + bias[o]), summed in float in order of d.
// Cost: batches * output_depth * accum_depth multiply-adds; no scratch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/int4.h"
#include "microarena/kernels/reference/nhwc.h"

namespace microarena::reference {

struct FullyConnectedShape {
  int32_t batches = 1;       // rows of the input and the output
  int32_t accum_depth = 1;   // values per input row (the filter's last dimension)
  int32_t output_depth = 1;  // values per output row (the filter's first dimension)
};

// Per-tensor requantization of the int32 accumulators to int8.
struct QuantizedFullyConnectedParams {
  int32_t input_offset = 0;    // -input zero point
  int32_t filter_offset = 0;   // -filter zero point
  int32_t output_offset = 0;   // output zero point
  int32_t output_multiplier = 0;  // Q31 mantissa
  int32_t output_shift = 0;       // power-of-two exponent
  int32_t activation_min = -128;
  int32_t activation_max = 127;
};

// Per-channel weights (one scale per unit): unit o requantizes with
// multiplier[o] and shift[o] instead of the params' one pair. Null arrays:
// per-tensor weights.
struct UnitScales {
  const int32_t* multiplier = nullptr;
  const int32_t* shift = nullptr;
};

// The arrays to read unit o's pair from, at index o & mask: the per-channel
// arrays (mask all ones) or the params' one pair (mask 0). One form for both,
// so the loops that use it carry no branch and no second copy.
struct UnitRescale {
  const int32_t* multiplier;
  const int32_t* shift;
  int32_t mask;

  UnitRescale(const QuantizedFullyConnectedParams& params, const UnitScales& unit_scales)
      : multiplier(unit_scales.multiplier != nullptr ? unit_scales.multiplier : &params.output_multiplier),
        shift(unit_scales.shift != nullptr ? unit_scales.shift : &params.output_shift),
        mask(unit_scales.multiplier != nullptr ? -1 : 0) {}
  int32_t multiplier_of(int32_t o) const { return multiplier[o & mask]; }
  int32_t shift_of(int32_t o) const { return shift[o & mask]; }
};

inline size_t RowMajorOffset(int32_t row, int32_t columns, int32_t column) {
  return static_cast<size_t>(row) * static_cast<size_t>(columns) + static_cast<size_t>(column);
}

// int8 input/filter/output, int32 bias (nullptr: no bias).
inline void FullyConnectedInt8(const QuantizedFullyConnectedParams& params, const FullyConnectedShape& shape,
                               const int8_t* input, const int8_t* filter, const int32_t* bias, int8_t* output,
                               const UnitScales& unit_scales = {}) {
  const UnitRescale rescale(params, unit_scales);
  for (int32_t b = 0; b < shape.batches; ++b) {
    for (int32_t o = 0; o < shape.output_depth; ++o) {
      int32_t acc = 0;
      for (int32_t d = 0; d < shape.accum_depth; ++d) {
        const int32_t input_value = input[RowMajorOffset(b, shape.accum_depth, d)];
        const int32_t filter_value = filter[RowMajorOffset(o, shape.accum_depth, d)];
        acc = fixed_point::WrappingAdd(acc, (filter_value + params.filter_offset) * (input_value + params.input_offset));
      }
      // The sum, the bias add and the zero point add wrap in TFLite.
      if (bias != nullptr) acc = fixed_point::WrappingAdd(acc, bias[o]);
      acc = fixed_point::MultiplyByQuantizedMultiplier(acc, rescale.multiplier_of(o), rescale.shift_of(o));
      acc = fixed_point::WrappingAdd(acc, params.output_offset);
      acc = std::max(acc, params.activation_min);
      acc = std::min(acc, params.activation_max);
      output[RowMajorOffset(b, shape.output_depth, o)] = static_cast<int8_t>(acc);
    }
  }
}

// int16 input/output, int8 filter, `Acc` (int32_t or int64_t) bias
// (nullptr: no bias), as TFLM's general integer kernel computes them.
// |(filter - zp) * (input - zp)| < 2^23: each product is exact in int32.
template <typename Acc>
inline void FullyConnectedInt16(const QuantizedFullyConnectedParams& params, const FullyConnectedShape& shape,
                                const int16_t* input, const int8_t* filter, const Acc* bias, int16_t* output,
                                const UnitScales& unit_scales = {}) {
  constexpr bool kWide = sizeof(Acc) == sizeof(int64_t);
  const UnitRescale rescale(params, unit_scales);
  const auto add = [](Acc a, Acc b) -> Acc {
    if constexpr (kWide) {
      return fixed_point::WrappingAdd64(a, b);
    } else {
      return fixed_point::WrappingAdd(a, b);
    }
  };
  for (int32_t b = 0; b < shape.batches; ++b) {
    for (int32_t o = 0; o < shape.output_depth; ++o) {
      Acc acc = 0;
      for (int32_t d = 0; d < shape.accum_depth; ++d) {
        const int32_t input_value = input[RowMajorOffset(b, shape.accum_depth, d)];
        const int32_t filter_value = filter[RowMajorOffset(o, shape.accum_depth, d)];
        acc = add(acc, static_cast<Acc>((filter_value + params.filter_offset) * (input_value + params.input_offset)));
      }
      if (bias != nullptr) {
        // A model's int64 bias may sit at a 4-byte offset: read it by bytes.
        Acc value;
        std::memcpy(&value, bias + o, sizeof(value));
        acc = add(acc, value);
      }
      const int32_t multiplier = rescale.multiplier_of(o);
      const int32_t shift = rescale.shift_of(o);
      int32_t value = 0;
      if constexpr (kWide) {
        value = fixed_point::MultiplyByQuantizedMultiplier64(acc, multiplier, shift);
      } else {
        value = fixed_point::MultiplyByQuantizedMultiplier(acc, multiplier, shift);
      }
      value = fixed_point::WrappingAdd(value, params.output_offset);
      value = std::max(value, params.activation_min);
      value = std::min(value, params.activation_max);
      output[RowMajorOffset(b, shape.output_depth, o)] = static_cast<int16_t>(value);
    }
  }
}

// int8 input and output with INT4 weights (`packed`, [output_depth,
// accum_depth] elements two per byte): TFLM unpacks them to int8 and runs
// FullyConnectedInt8; the sums here are the same, read from the nibbles.
inline void FullyConnectedInt8PackedInt4(const QuantizedFullyConnectedParams& params, const FullyConnectedShape& shape,
                                         const int8_t* input, const uint8_t* packed, const int32_t* bias,
                                         int8_t* output) {
  for (int32_t b = 0; b < shape.batches; ++b) {
    for (int32_t o = 0; o < shape.output_depth; ++o) {
      int32_t acc = 0;
      for (int32_t d = 0; d < shape.accum_depth; ++d) {
        const int32_t input_value = input[RowMajorOffset(b, shape.accum_depth, d)];
        const int32_t filter_value = Int4At(packed, RowMajorOffset(o, shape.accum_depth, d));
        acc = fixed_point::WrappingAdd(acc, (filter_value + params.filter_offset) * (input_value + params.input_offset));
      }
      if (bias != nullptr) acc = fixed_point::WrappingAdd(acc, bias[o]);
      acc = fixed_point::MultiplyByQuantizedMultiplier(acc, params.output_multiplier, params.output_shift);
      acc = fixed_point::WrappingAdd(acc, params.output_offset);
      acc = std::min(std::max(acc, params.activation_min), params.activation_max);
      output[RowMajorOffset(b, shape.output_depth, o)] = static_cast<int8_t>(acc);
    }
  }
}

// float input/filter/output, float bias (nullptr: no bias); `min`/`max` clamp the result.
inline void FullyConnectedFloat(float activation_min, float activation_max, const FullyConnectedShape& shape,
                                const float* input, const float* filter, const float* bias, float* output) {
  for (int32_t b = 0; b < shape.batches; ++b) {
    for (int32_t o = 0; o < shape.output_depth; ++o) {
      float total = 0.0f;
      for (int32_t d = 0; d < shape.accum_depth; ++d) {
        total += input[RowMajorOffset(b, shape.accum_depth, d)] * filter[RowMajorOffset(o, shape.accum_depth, d)];
      }
      const float bias_value = bias != nullptr ? bias[o] : 0.0f;
      output[RowMajorOffset(b, shape.output_depth, o)] = ClampFloat(total + bias_value, activation_min, activation_max);
    }
  }
}

}  // namespace microarena::reference
