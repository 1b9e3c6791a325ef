// SVDF (singular value decomposition filter): a rank-limited 1-D convolution
// over time with its own memory, as TFLite Micro's reference kernels compute it.
//
// One step, per batch b:
//   1. state <- state shifted left by one element (the whole batch x filters x
//      memory block moves; the newest column is overwritten next);
//   2. state[b][f][memory - 1] = weights_feature[f] . input[b]        (per filter f)
//   3. scratch[b][f] = weights_time[f] . state[b][f]                  (over memory)
//   4. output[b][u] = bias[u] + sum over r < rank of scratch[b][u * rank + r]
//   5. activation (float) or rescale to int8 (integer).
//
// State layout (a variable tensor, alive across invocations):
//
//   state[b] = | f0: m0 m1 .. m(M-1) | f1: m0 .. m(M-1) | ... |   M = memory_size
//                oldest ------> newest
//
// Integer variant (int8 input, int8 weights_feature, StateT weights_time and
// state, int32 bias, int8 output): step 2 is rescaled by the feature multiplier
// to the state's scale, saturated to StateT and only then offset by the state
// zero point, wrapping on overflow (TFLM's order at the golden commit);
// step 5 rescales by the output multiplier and saturates to int8. TFLM applies
// no fused activation in the integer variant, and neither do we.
//
// Scratch: `scratch` holds batches x filters and `scratch_output` holds
// batches x units 32-bit values (the integer variant needs both; the float
// variant writes its reduction straight into the output).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "microarena/kernels/fixed_point.h"

namespace microarena::reference {

struct SvdfShape {
  int batches = 0;
  int input_size = 0;
  int filters = 0;  // = units * rank
  int units = 0;
  int rank = 0;
  int memory_size = 0;
};

struct SvdfIntegerParams {
  int32_t input_zero_point = 0;
  int32_t state_zero_point = 0;
  int32_t output_zero_point = 0;
  // input_scale * weights_feature_scale / state_scale.
  int32_t feature_multiplier = 0;
  int32_t feature_shift = 0;
  // state_scale * weights_time_scale / output_scale.
  int32_t output_multiplier = 0;
  int32_t output_shift = 0;
};

// The float variant's fused activation (TFLite's ActivationFunctionType values).
enum class SvdfActivation : uint8_t { kNone = 0, kRelu = 1, kReluN1To1 = 2, kRelu6 = 3, kTanh = 4 };

inline float ApplySvdfActivation(SvdfActivation activation, float x) {
  switch (activation) {
    case SvdfActivation::kNone:
      return x;
    case SvdfActivation::kRelu:
      return std::max(0.0f, x);
    case SvdfActivation::kReluN1To1:
      return std::max(-1.0f, std::min(x, 1.0f));
    case SvdfActivation::kRelu6:
      return std::max(0.0f, std::min(x, 6.0f));
    case SvdfActivation::kTanh:
      return std::tanh(x);
  }
  return x;
}

// Step 1: every element of the state block moves one place towards the front.
template <typename T>
inline void ShiftSvdfState(const SvdfShape& shape, T* state) {
  const int total = shape.batches * shape.filters * shape.memory_size;
  for (int i = 0; i + 1 < total; ++i) state[i] = state[i + 1];
}

// StateT is int8_t or int16_t (the type of both weights_time and the state).
// `bias` may be null. `scratch`: batches x filters; `scratch_output`: batches x units.
template <typename StateT>
inline void SvdfInteger(const SvdfIntegerParams& params, const SvdfShape& shape, const int8_t* input,
                        const int8_t* weights_feature, const StateT* weights_time, const int32_t* bias,
                        StateT* state, int32_t* scratch, int32_t* scratch_output, int8_t* output) {
  ShiftSvdfState(shape, state);

  // Step 2: the newest state column, saturated after adding the zero point.
  const int32_t state_min = std::numeric_limits<StateT>::min();
  const int32_t state_max = std::numeric_limits<StateT>::max();
  for (int b = 0; b < shape.batches; ++b) {
    const int8_t* input_row = input + b * shape.input_size;
    StateT* newest = state + b * shape.filters * shape.memory_size + (shape.memory_size - 1);
    for (int f = 0; f < shape.filters; ++f) {
      const int8_t* weights_row = weights_feature + f * shape.input_size;
      int32_t dot = 0;
      for (int i = 0; i < shape.input_size; ++i) {
        dot = fixed_point::WrappingAdd(dot, weights_row[i] * (input_row[i] - params.input_zero_point));
      }
      int32_t value = fixed_point::MultiplyByQuantizedMultiplier(dot, params.feature_multiplier, params.feature_shift);
      value = std::min(std::max(value, state_min), state_max);
      // TFLM saturates before adding the zero point and then narrows, so a
      // sum outside StateT wraps around (two's complement).
      newest[f * shape.memory_size] = static_cast<StateT>(params.state_zero_point + value);
    }
  }

  // Step 3: time weights against each filter's memory.
  for (int b = 0; b < shape.batches; ++b) {
    const StateT* state_batch = state + b * shape.filters * shape.memory_size;
    for (int f = 0; f < shape.filters; ++f) {
      const StateT* weights_row = weights_time + f * shape.memory_size;
      const StateT* memory = state_batch + f * shape.memory_size;
      int32_t dot = 0;
      for (int m = 0; m < shape.memory_size; ++m) {
        // Each product fits (|weight| <= 2^15, |state - zp| < 2^16, so below
        // 2^31), but the sum of memory_size of them wraps in TFLite.
        dot = fixed_point::WrappingAdd(dot, weights_row[m] * (memory[m] - params.state_zero_point));
      }
      scratch[b * shape.filters + f] = dot;
    }
  }

  // Step 4: bias, then the rank reduction.
  for (int b = 0; b < shape.batches; ++b) {
    int32_t* out = scratch_output + b * shape.units;
    const int32_t* filter_sums = scratch + b * shape.filters;
    for (int u = 0; u < shape.units; ++u) {
      int32_t sum = bias != nullptr ? bias[u] : 0;
      for (int r = 0; r < shape.rank; ++r) sum = fixed_point::WrappingAdd(sum, filter_sums[u * shape.rank + r]);
      out[u] = sum;
    }
  }

  // Step 5: rescale to the output.
  for (int i = 0; i < shape.batches * shape.units; ++i) {
    int32_t value =
        fixed_point::MultiplyByQuantizedMultiplier(scratch_output[i], params.output_multiplier, params.output_shift);
    value = fixed_point::WrappingAdd(value, params.output_zero_point);
    output[i] = static_cast<int8_t>(std::min(std::max(value, int32_t{-128}), int32_t{127}));
  }
}

// Float variant. `bias` may be null. `scratch`: batches x filters.
inline void SvdfFloat(SvdfActivation activation, const SvdfShape& shape, const float* input,
                      const float* weights_feature, const float* weights_time, const float* bias, float* state,
                      float* scratch, float* output) {
  ShiftSvdfState(shape, state);

  for (int b = 0; b < shape.batches; ++b) {
    const float* input_row = input + b * shape.input_size;
    float* newest = state + b * shape.filters * shape.memory_size + (shape.memory_size - 1);
    for (int f = 0; f < shape.filters; ++f) {
      const float* weights_row = weights_feature + f * shape.input_size;
      float dot = 0.0f;
      for (int i = 0; i < shape.input_size; ++i) dot += weights_row[i] * input_row[i];
      newest[f * shape.memory_size] = dot;
    }
  }

  for (int b = 0; b < shape.batches; ++b) {
    const float* state_batch = state + b * shape.filters * shape.memory_size;
    for (int f = 0; f < shape.filters; ++f) {
      const float* weights_row = weights_time + f * shape.memory_size;
      const float* memory = state_batch + f * shape.memory_size;
      float dot = 0.0f;
      for (int m = 0; m < shape.memory_size; ++m) dot += weights_row[m] * memory[m];
      scratch[b * shape.filters + f] = dot;
    }
  }

  // Bias first, then the rank terms added one by one, then the activation.
  for (int b = 0; b < shape.batches; ++b) {
    float* out = output + b * shape.units;
    const float* filter_sums = scratch + b * shape.filters;
    for (int u = 0; u < shape.units; ++u) {
      float sum = bias != nullptr ? bias[u] : 0.0f;
      for (int r = 0; r < shape.rank; ++r) sum += filter_sums[u * shape.rank + r];
      out[u] = ApplySvdfActivation(activation, sum);
    }
  }
}

}  // namespace microarena::reference
