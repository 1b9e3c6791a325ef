// Clamp ranges of fused activations, computed as TFLite does
// (CalculateActivationRange / CalculateActivationRangeQuantized).
//
// Quantized: a real bound f maps to zero_point + round(f / scale), the division
// and the rounding (half away from zero) in float; the range is then
// intersected with the output type's range [qmin, qmax].
//   NONE: [qmin, qmax]   RELU: [q(0), qmax]   RELU6: [q(0), q(6)]
//   RELU_N1_TO_1: [q(-1), q(1)]
// Float: NONE [lowest, max], RELU [0, max], RELU6 [0, 6], RELU_N1_TO_1 [-1, 1].
// TANH and SIGN_BIT are not clamps; TFLite ignores them when fused, so they are
// reported as unsupported instead of giving a silently different answer.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "microarena/schema/tflite_schema_generated.h"

namespace microarena {

// Whether `activation` is one of the clamps above.
inline bool IsClampActivation(tflite::ActivationFunctionType activation) {
  return activation == tflite::ActivationFunctionType::NONE || activation == tflite::ActivationFunctionType::RELU ||
         activation == tflite::ActivationFunctionType::RELU6 ||
         activation == tflite::ActivationFunctionType::RELU_N1_TO_1;
}

// zero_point + round(real / scale) in *quantized; false when it does not fit int32.
inline bool QuantizeActivationBound(float real, float scale, int32_t zero_point, int32_t* quantized) {
  const float rounded = std::round(real / scale);
  // 2^31 is exactly representable; everything in [-2^31, 2^31) converts safely.
  if (!(rounded >= -2147483648.0f && rounded < 2147483648.0f)) return false;
  const int64_t value = int64_t{zero_point} + static_cast<int64_t>(rounded);
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) return false;
  *quantized = static_cast<int32_t>(value);
  return true;
}

// The quantized clamp range; false for a non-clamp activation or a bound that
// does not fit int32 (e.g. scale 0).
inline bool QuantizedActivationRange(tflite::ActivationFunctionType activation, float scale, int32_t zero_point,
                                     int32_t qmin, int32_t qmax, int32_t* act_min, int32_t* act_max) {
  if (!IsClampActivation(activation)) return false;
  *act_min = qmin;
  *act_max = qmax;
  int32_t bound = 0;
  switch (activation) {
    case tflite::ActivationFunctionType::RELU:
      if (!QuantizeActivationBound(0.0f, scale, zero_point, &bound)) return false;
      *act_min = std::max(qmin, bound);
      break;
    case tflite::ActivationFunctionType::RELU6:
      if (!QuantizeActivationBound(0.0f, scale, zero_point, &bound)) return false;
      *act_min = std::max(qmin, bound);
      if (!QuantizeActivationBound(6.0f, scale, zero_point, &bound)) return false;
      *act_max = std::min(qmax, bound);
      break;
    case tflite::ActivationFunctionType::RELU_N1_TO_1:
      if (!QuantizeActivationBound(-1.0f, scale, zero_point, &bound)) return false;
      *act_min = std::max(qmin, bound);
      if (!QuantizeActivationBound(1.0f, scale, zero_point, &bound)) return false;
      *act_max = std::min(qmax, bound);
      break;
    default:
      break;
  }
  return true;
}

// The float clamp range; false for a non-clamp activation.
inline bool FloatActivationRange(tflite::ActivationFunctionType activation, float* act_min, float* act_max) {
  if (!IsClampActivation(activation)) return false;
  *act_min = std::numeric_limits<float>::lowest();
  *act_max = std::numeric_limits<float>::max();
  if (activation == tflite::ActivationFunctionType::RELU) {
    *act_min = 0.0f;
  } else if (activation == tflite::ActivationFunctionType::RELU6) {
    *act_min = 0.0f;
    *act_max = 6.0f;
  } else if (activation == tflite::ActivationFunctionType::RELU_N1_TO_1) {
    *act_min = -1.0f;
    *act_max = 1.0f;
  }
  return true;
}

}  // namespace microarena
