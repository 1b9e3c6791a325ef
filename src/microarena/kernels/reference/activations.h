// Elementwise activations (LOGISTIC, TANH, RELU, RELU6), as TFLite's
// reference kernels compute them.
//
// int8 LOGISTIC and TANH: x = q - input_zero_point; |x| at or beyond the
// input radius saturates; otherwise x is rescaled to Q4 (times
// input_scale * 2^27 as mantissa and shift), the fixed-point function gives
// Q0, and the result is rounded to 8 bits: logistic -> q0 / 2^23 - 128
// (scale 1/256, zero point -128), tanh -> q0 / 2^24 (scale 1/128, zero 0).
// int8 RELU: requantize to the output, clamp at the quantized 0.
// int8 RELU6: clamp in the input's quantization (TFLM's kernel ignores the
// output's, so prepare requires them equal).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/fixed_point_exp.h"

namespace microarena::reference {

struct SigmoidInt8Params {
  int32_t input_zero_point = 0;
  int32_t input_range_radius = 0;
  int32_t input_multiplier = 0;
  int32_t input_shift = 0;
};

// Integer bits of the rescaled input (Q4.27).
constexpr int kSigmoidInputIntegerBits = 4;

inline void LogisticInt8(const SigmoidInt8Params& p, size_t count, const int8_t* input, int8_t* output) {
  for (size_t i = 0; i < count; ++i) {
    const int32_t x = int32_t{input[i]} - p.input_zero_point;
    if (x <= -p.input_range_radius) {
      output[i] = -128;
    } else if (x >= p.input_range_radius) {
      output[i] = 127;
    } else {
      const int32_t x_q4 = fixed_point::MultiplyByQuantizedMultiplier(x, p.input_multiplier, p.input_shift);
      const int32_t y_q0 = fixed_point::Logistic<kSigmoidInputIntegerBits>(x_q4);
      const int32_t y = fixed_point::RoundingDivideByPOT(y_q0, 31 - 8) - 128;
      output[i] = static_cast<int8_t>(std::clamp<int32_t>(y, -128, 127));
    }
  }
}

inline void TanhInt8(const SigmoidInt8Params& p, size_t count, const int8_t* input, int8_t* output) {
  for (size_t i = 0; i < count; ++i) {
    const int32_t x = int32_t{input[i]} - p.input_zero_point;
    if (x <= -p.input_range_radius) {
      output[i] = -128;
    } else if (x >= p.input_range_radius) {
      output[i] = 127;
    } else {
      const int32_t x_q4 = fixed_point::MultiplyByQuantizedMultiplier(x, p.input_multiplier, p.input_shift);
      const int32_t y_q0 = fixed_point::Tanh<kSigmoidInputIntegerBits>(x_q4);
      const int32_t y = fixed_point::RoundingDivideByPOT(y_q0, 31 - 7);
      output[i] = static_cast<int8_t>(std::clamp<int32_t>(y, -128, 127));
    }
  }
}

// Float logistic with TFLite's cut-offs: 1 above 16.619047, exp(x) below -9.
inline void LogisticFloat(size_t count, const float* input, float* output) {
  constexpr float kCutoffUpper = 16.619047164916992188f;
  constexpr float kCutoffLower = -9.0f;
  for (size_t i = 0; i < count; ++i) {
    const float x = input[i];
    if (x > kCutoffUpper) {
      output[i] = 1.0f;
    } else if (x < kCutoffLower) {
      output[i] = std::exp(x);
    } else {
      output[i] = 1.0f / (1.0f + std::exp(-x));
    }
  }
}

inline void TanhFloat(size_t count, const float* input, float* output) {
  for (size_t i = 0; i < count; ++i) output[i] = std::tanh(input[i]);
}

struct ReluInt8Params {
  int32_t input_zero_point = 0;
  int32_t output_zero_point = 0;
  int32_t multiplier = 0;  // input_scale / output_scale as mantissa ...
  int32_t shift = 0;       // ... and shift
  int32_t activation_min = 0;
  int32_t activation_max = 0;
};

// int8, and int16 (TFLM requires both zero points 0 there).
template <typename T>
inline void ReluQuantized(const ReluInt8Params& p, size_t count, const T* input, T* output) {
  for (size_t i = 0; i < count; ++i) {
    // A multiplier up to 2^30 takes the rescaled value near INT32_MIN/MAX,
    // where the zero point add wraps in TFLite, as WrappingAdd does.
    const int32_t y = fixed_point::WrappingAdd(
        p.output_zero_point,
        fixed_point::MultiplyByQuantizedMultiplier(int32_t{input[i]} - p.input_zero_point, p.multiplier, p.shift));
    output[i] = static_cast<T>(std::min(p.activation_max, std::max(p.activation_min, y)));
  }
}

inline void ReluInt8(const ReluInt8Params& p, size_t count, const int8_t* input, int8_t* output) {
  ReluQuantized(p, count, input, output);
}

// Clamps each element to [lower, upper]: RELU6's quantized 0 and 6 in int8
// and int16, [0, 6] or [0, inf) in float (a NaN passes through).
template <typename T>
inline void ClampArray(T lower, T upper, size_t count, const T* input, T* output) {
  for (size_t i = 0; i < count; ++i) {
    const T x = input[i];
    output[i] = x > upper ? upper : x < lower ? lower : x;
  }
}

}  // namespace microarena::reference
