// Unidirectional sequence LSTM (the standard Keras cell: no peephole, no
// projection, no layer norm, no CIFG), as TFLite Micro's reference kernel
// computes it, in three variants:
//   - integer "8x8->16": int8 input, hidden state and output, int8 weights,
//     int32 gate biases, int16 cell state (scale 2^cell_scale_power) and int16
//     gate values;
//   - integer "16x8->16": the same with int16 input, hidden state and output
//     and int64 gate biases; its FCs sum in int64 and rescale with the 64-bit
//     MultiplyByQuantizedMultiplier (fully_connected.h's 16x8 kernel);
//   - float32 throughout.
//
// One time step on `n` rows (n = batches when time major, else 1):
//
//   for gate g in (forget, input, cell, output):
//     pre_g  = FC(x_t, W_g, b_g) + FC(h, R_g)          saturating int16 add
//   forget = sigmoid(pre_f)    input = sigmoid(pre_i)    output = sigmoid(pre_o)
//   cell_gate = tanh(pre_c)                            (the op's activation)
//   c      = forget * c + input * cell_gate            (then clipped if asked)
//   h      = tanh(c) * output                          (int8/int16 with h's zero point)
//   y_t    = h
//
// Integer scales: each FC rescales to Q3.12 (scale 2^-12) with one multiplier
// per FC; sigmoid and tanh read Q3.12 (tanh of the cell reads the cell's own
// power-of-two scale) and write Q0.15; the three products are rescaled by
// their own multipliers to the cell scale (twice) and to the hidden scale.
// The recurrent FC of every gate uses the hidden state of the previous step:
// h is written only after all four gates are known.
//
// Buffers: four scratch arrays of n x state_size cell-type values, used as
// TFLM uses them (0: forget, later tanh(c); 1: input, then input*cell_gate,
// then output; 2: cell gate; 3: the recurrent FC of the gate being computed).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/reference/fully_connected.h"

namespace microarena::reference {

// sigmoid(i / 24) in unsigned Q0.16 for i = 0..255, TFLite's shared table for
// its int16 logistic and tanh (tanh(x) = 2 * sigmoid(2x) - 1).
inline constexpr uint16_t kSigmoidTableUint16[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

// Scales the int16 input by input_multiplier / 2^input_left_shift (rounding
// half up); multiplier 0 means the power-of-two case, 3 * 2^input_left_shift.
// The factor 3 maps Q3.12 onto the table's 1/24 steps at 9 (logistic) or 8
// (tanh) fractional bits.
inline int32_t ScaleInt16ActivationInput(int16_t x, int32_t input_multiplier, int32_t input_left_shift) {
  if (input_multiplier == 0) {
    input_multiplier = 3 << input_left_shift;
    input_left_shift = 0;
  }
  // 3 << 29 times an int16 wraps in TFLite, as WrappingMul/WrappingAdd do.
  // Prepare keeps input_left_shift within [0, 31] and 3 << shift within int32.
  const int32_t round = input_left_shift > 0 ? 1 << (input_left_shift - 1) : 0;
  return fixed_point::WrappingAdd(fixed_point::WrappingMul(x, input_multiplier), round) >> input_left_shift;
}

// Logistic of int16 values: table lookup with linear interpolation on
// |input|, mirrored for negative inputs; output in Q0.15.
inline void LogisticInt16(int32_t input_multiplier, int32_t input_left_shift, int size, const int16_t* input,
                          int16_t* output) {
  for (int i = 0; i < size; ++i) {
    const int32_t x = ScaleInt16ActivationInput(input[i], input_multiplier, input_left_shift);
    const uint32_t magnitude = fixed_point::UnsignedMagnitude(x);
    const uint32_t index = magnitude >> 9;
    uint32_t result = 0;
    if (index >= 255) {
      result = 0x7FFFu << 10;
    } else {
      const uint32_t low = kSigmoidTableUint16[index];
      const uint32_t high = kSigmoidTableUint16[index + 1];
      const uint32_t fraction = magnitude & 0x1FFu;
      result = (low << 9) + fraction * (high - low);
    }
    result = x >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1u;
    output[i] = static_cast<int16_t>(result >> 10);
  }
}

// Tanh of int16 values from the same table; output in Q0.15.
inline void TanhInt16(int32_t input_multiplier, int32_t input_left_shift, int size, const int16_t* input,
                      int16_t* output) {
  for (int i = 0; i < size; ++i) {
    const int32_t x = ScaleInt16ActivationInput(input[i], input_multiplier, input_left_shift);
    const uint32_t magnitude = fixed_point::UnsignedMagnitude(x);
    const uint32_t index = magnitude >> 8;
    int32_t result = 0;
    if (index >= 255) {
      result = 0xFFFF << 8;
    } else {
      const uint32_t low = kSigmoidTableUint16[index];
      const uint32_t high = kSigmoidTableUint16[index + 1];
      const uint32_t fraction = magnitude & 0xFFu;
      result = static_cast<int32_t>((low << 8) + fraction * (high - low));
    }
    result = x >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
    output[i] = static_cast<int16_t>(result >> 8);  // arithmetic shift: floor
  }
}

// Tanh of int16 values whose scale is 2^scale_power, into Q0.15. The input is
// brought to Q3.12 by a left shift (power above -12) or to a
// 3 / 2^k multiplier with a rounding right shift (power below -12).
inline void TanhInt16FromPowerOfTwo(int32_t scale_power, int size, const int16_t* input, int16_t* output) {
  int32_t left_shift = 15 + scale_power - 3;
  int32_t multiplier = 0;
  if (left_shift < 0) {
    left_shift = -left_shift;
    multiplier = 3;
  }
  TanhInt16(multiplier, left_shift, size, input, output);
}

// A real multiplier M = multiplier * 2^(shift - 31).
struct LstmMultiplier {
  int32_t multiplier = 0;
  int32_t shift = 0;
};

// output[b][o] = saturate_int16(M * (bias[o] + sum_i W[o][i] * (x[b][i] + input_offset))).
// `bias` may be null. Weights are symmetric (zero point 0).
inline void FullyConnectedInt8ToInt16(LstmMultiplier scale, int32_t input_offset, int rows, int input_size,
                                      int output_size, const int8_t* input, const int8_t* weights,
                                      const int32_t* bias, int16_t* output) {
  for (int b = 0; b < rows; ++b) {
    const int8_t* x = input + b * input_size;
    for (int o = 0; o < output_size; ++o) {
      const int8_t* w = weights + o * input_size;
      int32_t acc = 0;
      // The sum and the bias add wrap in TFLite, as WrappingAdd does.
      for (int i = 0; i < input_size; ++i) acc = fixed_point::WrappingAdd(acc, w[i] * (x[i] + input_offset));
      if (bias != nullptr) acc = fixed_point::WrappingAdd(acc, bias[o]);
      const int32_t scaled = fixed_point::MultiplyByQuantizedMultiplier(acc, scale.multiplier, scale.shift);
      output[b * output_size + o] = static_cast<int16_t>(std::min(std::max(scaled, int32_t{-32768}), int32_t{32767}));
    }
  }
}

// The 16x8 form: int16 input, int64 bias (may be null), int64 sum and the
// 64-bit rescale, both offsets of TFLite's general integer FC (the weights'
// zero point is 0).
inline void FullyConnectedInt16ToInt16(LstmMultiplier scale, int32_t input_offset, int rows, int input_size,
                                       int output_size, const int16_t* input, const int8_t* weights,
                                       const int64_t* bias, int16_t* output) {
  QuantizedFullyConnectedParams params;
  params.input_offset = input_offset;
  params.output_multiplier = scale.multiplier;
  params.output_shift = scale.shift;
  params.activation_min = std::numeric_limits<int16_t>::min();
  params.activation_max = std::numeric_limits<int16_t>::max();
  FullyConnectedInt16<int64_t>(params, {rows, input_size, output_size}, input, weights, bias, output);
}

// One gate FC of either integer variant, chosen by the activation type.
inline void GateFullyConnected(LstmMultiplier scale, int32_t input_offset, int rows, int input_size, int output_size,
                               const int8_t* input, const int8_t* weights, const int32_t* bias, int16_t* output) {
  FullyConnectedInt8ToInt16(scale, input_offset, rows, input_size, output_size, input, weights, bias, output);
}
inline void GateFullyConnected(LstmMultiplier scale, int32_t input_offset, int rows, int input_size, int output_size,
                               const int16_t* input, const int8_t* weights, const int64_t* bias, int16_t* output) {
  FullyConnectedInt16ToInt16(scale, input_offset, rows, input_size, output_size, input, weights, bias, output);
}

// The gate matmuls of LstmStepInteger: GateFullyConnected by default. The
// fast kernels pass optimized::LstmGateFullyConnected, with the same
// contract and bytes.
struct ReferenceGateFullyConnected {
  template <typename Act, typename Bias>
  void operator()(LstmMultiplier scale, int32_t input_offset, int rows, int input_size, int output_size,
                  const Act* input, const int8_t* weights, const Bias* bias, int16_t* output) const {
    GateFullyConnected(scale, input_offset, rows, input_size, output_size, input, weights, bias, output);
  }
};

// output = saturate(a + b) in int16.
inline void AddSaturatingInt16(int size, const int16_t* a, const int16_t* b, int16_t* output) {
  for (int i = 0; i < size; ++i) {
    const int32_t sum = a[i] + b[i];
    output[i] = static_cast<int16_t>(std::min(std::max(sum, int32_t{-32768}), int32_t{32767}));
  }
}

// output = saturate_Out(output_offset + M * (a * b)); `output` may alias `b`.
template <typename Out>
inline void MulInt16(LstmMultiplier scale, int32_t output_offset, int size, const int16_t* a, const int16_t* b,
                     Out* output) {
  const int32_t low = std::numeric_limits<Out>::min();
  const int32_t high = std::numeric_limits<Out>::max();
  for (int i = 0; i < size; ++i) {
    const int32_t product = a[i] * b[i];
    const int32_t value = fixed_point::WrappingAdd(
        output_offset, fixed_point::MultiplyByQuantizedMultiplier(product, scale.multiplier, scale.shift));
    output[i] = static_cast<Out>(std::min(std::max(value, low), high));
  }
}

// Gate order used by every per-gate array below.
enum LstmGate : int { kLstmForgetGate = 0, kLstmInputGate = 1, kLstmCellGate = 2, kLstmOutputGate = 3 };

struct LstmShape {
  int batches = 0;
  int time_steps = 0;
  int input_size = 0;
  int state_size = 0;
  bool time_major = false;  // input [time, batch, input] instead of [batch, time, input]
};

struct LstmIntegerParams {
  int32_t input_offset = 0;       // -(input zero point)
  int32_t hidden_offset = 0;      // -(hidden state zero point), for the recurrent FCs
  int32_t hidden_zero_point = 0;  // the hidden state's zero point, for h = tanh(c) * output
  LstmMultiplier input_fc[4];     // input scale * W_g scale / 2^-12
  LstmMultiplier recurrent_fc[4]; // hidden scale * R_g scale / 2^-12
  LstmMultiplier forget_times_cell;   // 2^-15 * cell scale / cell scale
  LstmMultiplier input_times_cell_gate;  // 2^-15 * 2^-15 / cell scale
  LstmMultiplier hidden;          // 2^-15 * 2^-15 / hidden scale
  int32_t cell_scale_power = 0;   // cell scale = 2^cell_scale_power
  bool clip_cell = false;         // the op's cell_clip is positive
  int16_t cell_clip = 0;          // then |c| <= cell_clip after each update
};

// The gate bias type of each integer variant: int32 for int8 activations,
// int64 for int16 ones.
template <typename Act>
using LstmBias = std::conditional_t<sizeof(Act) == 1, int32_t, int64_t>;

// `Act` is the activation type: int8_t or int16_t.
template <typename Act>
struct LstmIntegerTensors {
  const Act* input = nullptr;               // [batch, time, input] or [time, batch, input]
  const int8_t* input_weights[4] = {};      // [state, input] per gate
  const int8_t* recurrent_weights[4] = {};  // [state, state] per gate
  const LstmBias<Act>* biases[4] = {};      // [state] per gate
  Act* hidden = nullptr;                    // [batch, state], variable
  int16_t* cell = nullptr;                  // [batch, state], variable
  Act* output = nullptr;                    // [batch, time, state] or [time, batch, state]
};

// One time step on `rows` rows. buffers: 4 arrays of rows * state_size int16.
// `gate_fc` computes the gate matmuls (GateFullyConnected's contract).
template <typename Act, typename GateFc = ReferenceGateFullyConnected>
inline void LstmStepInteger(const LstmIntegerParams& params, const LstmShape& shape, int rows,
                            const LstmIntegerTensors<Act>& tensors, const Act* x, Act* hidden, int16_t* cell, Act* y,
                            int16_t* const buffers[4], GateFc gate_fc = {}) {
  const int n = rows * shape.state_size;
  auto gate = [&](int g, int16_t* out) {
    gate_fc(params.input_fc[g], params.input_offset, rows, shape.input_size, shape.state_size, x,
            tensors.input_weights[g], tensors.biases[g], out);
    gate_fc(params.recurrent_fc[g], params.hidden_offset, rows, shape.state_size, shape.state_size, hidden,
            tensors.recurrent_weights[g], static_cast<const LstmBias<Act>*>(nullptr), buffers[3]);
    AddSaturatingInt16(n, out, buffers[3], out);
    if (g == kLstmCellGate) {
      TanhInt16FromPowerOfTwo(-12, n, out, out);
    } else {
      LogisticInt16(0, 0, n, out, out);
    }
  };
  int16_t* forget = buffers[0];
  int16_t* input_gate = buffers[1];
  int16_t* cell_gate = buffers[2];
  gate(kLstmForgetGate, forget);
  gate(kLstmInputGate, input_gate);
  gate(kLstmCellGate, cell_gate);

  // c = forget * c + input * cell_gate, saturating, then clipped.
  MulInt16<int16_t>(params.forget_times_cell, 0, n, forget, cell, cell);
  MulInt16<int16_t>(params.input_times_cell_gate, 0, n, input_gate, cell_gate, buffers[1]);
  AddSaturatingInt16(n, cell, buffers[1], cell);
  if (params.clip_cell) {
    for (int i = 0; i < n; ++i) {
      cell[i] = std::max(std::min(params.cell_clip, cell[i]), static_cast<int16_t>(-params.cell_clip));
    }
  }

  // h = tanh(c) * output.
  int16_t* output_gate = buffers[1];
  gate(kLstmOutputGate, output_gate);
  TanhInt16FromPowerOfTwo(params.cell_scale_power, n, cell, buffers[0]);
  MulInt16<Act>(params.hidden, params.hidden_zero_point, n, buffers[0], output_gate, hidden);
  std::memcpy(y, hidden, static_cast<size_t>(n) * sizeof(Act));
}

// The whole sequence: time major steps all batches together; batch major
// runs each batch's sequence on its own state row. `gate_fc`: as
// LstmStepInteger's.
template <typename Act, typename GateFc = ReferenceGateFullyConnected>
inline void LstmInteger(const LstmIntegerParams& params, const LstmShape& shape, const LstmIntegerTensors<Act>& tensors,
                        int16_t* const buffers[4], GateFc gate_fc = {}) {
  if (shape.time_major) {
    for (int t = 0; t < shape.time_steps; ++t) {
      LstmStepInteger(params, shape, shape.batches, tensors, tensors.input + t * shape.batches * shape.input_size,
                      tensors.hidden, tensors.cell, tensors.output + t * shape.batches * shape.state_size, buffers,
                      gate_fc);
    }
    return;
  }
  for (int b = 0; b < shape.batches; ++b) {
    for (int t = 0; t < shape.time_steps; ++t) {
      const int step = b * shape.time_steps + t;
      LstmStepInteger(params, shape, 1, tensors, tensors.input + step * shape.input_size,
                      tensors.hidden + b * shape.state_size, tensors.cell + b * shape.state_size,
                      tensors.output + step * shape.state_size, buffers, gate_fc);
    }
  }
}

// ---- float32 variant ----

// TFLite's float logistic: 1 above 16.619..., exp(x) below -9, else 1 / (1 + exp(-x)).
inline float LogisticFloat(float x) {
  if (x > 16.619047164916992188f) return 1.0f;
  if (x < -9.0f) return std::exp(x);
  return 1.0f / (1.0f + std::exp(-x));
}

// output[b][o] = (sum_i W[o][i] * x[b][i]) + bias[o] (bias 0 when null), summed in order.
inline void FullyConnectedFloat(int rows, int input_size, int output_size, const float* input, const float* weights,
                                const float* bias, float* output) {
  for (int b = 0; b < rows; ++b) {
    const float* x = input + b * input_size;
    for (int o = 0; o < output_size; ++o) {
      const float* w = weights + o * input_size;
      float total = 0.0f;
      for (int i = 0; i < input_size; ++i) total += x[i] * w[i];
      const float bias_value = bias != nullptr ? bias[o] : 0.0f;
      output[b * output_size + o] = total + bias_value;
    }
  }
}

struct LstmFloatTensors {
  const float* input = nullptr;
  const float* input_weights[4] = {};
  const float* recurrent_weights[4] = {};
  const float* biases[4] = {};
  float* hidden = nullptr;
  float* cell = nullptr;
  float* output = nullptr;
};

// One float time step; same order of operations as the integer step.
// `cell_clip` > 0 clips the cell state to [-cell_clip, cell_clip].
inline void LstmStepFloat(float cell_clip, const LstmShape& shape, int rows, const LstmFloatTensors& tensors,
                          const float* x, float* hidden, float* cell, float* y, float* const buffers[4]) {
  const int n = rows * shape.state_size;
  auto gate = [&](int g, float* out) {
    FullyConnectedFloat(rows, shape.input_size, shape.state_size, x, tensors.input_weights[g], tensors.biases[g], out);
    FullyConnectedFloat(rows, shape.state_size, shape.state_size, hidden, tensors.recurrent_weights[g], nullptr,
                        buffers[3]);
    for (int i = 0; i < n; ++i) out[i] = out[i] + buffers[3][i];
    for (int i = 0; i < n; ++i) out[i] = g == kLstmCellGate ? std::tanh(out[i]) : LogisticFloat(out[i]);
  };
  float* forget = buffers[0];
  float* input_gate = buffers[1];
  float* cell_gate = buffers[2];
  gate(kLstmForgetGate, forget);
  gate(kLstmInputGate, input_gate);
  gate(kLstmCellGate, cell_gate);

  for (int i = 0; i < n; ++i) cell[i] = forget[i] * cell[i];
  for (int i = 0; i < n; ++i) buffers[1][i] = input_gate[i] * cell_gate[i];
  for (int i = 0; i < n; ++i) cell[i] = cell[i] + buffers[1][i];
  if (cell_clip > 0.0f) {
    for (int i = 0; i < n; ++i) cell[i] = std::max(std::min(cell_clip, cell[i]), -cell_clip);
  }

  float* output_gate = buffers[1];
  gate(kLstmOutputGate, output_gate);
  for (int i = 0; i < n; ++i) buffers[0][i] = std::tanh(cell[i]);
  for (int i = 0; i < n; ++i) hidden[i] = buffers[0][i] * output_gate[i];
  std::memcpy(y, hidden, static_cast<size_t>(n) * sizeof(float));
}

inline void LstmFloat(float cell_clip, const LstmShape& shape, const LstmFloatTensors& tensors,
                      float* const buffers[4]) {
  if (shape.time_major) {
    for (int t = 0; t < shape.time_steps; ++t) {
      LstmStepFloat(cell_clip, shape, shape.batches, tensors, tensors.input + t * shape.batches * shape.input_size,
                    tensors.hidden, tensors.cell, tensors.output + t * shape.batches * shape.state_size, buffers);
    }
    return;
  }
  for (int b = 0; b < shape.batches; ++b) {
    for (int t = 0; t < shape.time_steps; ++t) {
      const int step = b * shape.time_steps + t;
      LstmStepFloat(cell_clip, shape, 1, tensors, tensors.input + step * shape.input_size,
                    tensors.hidden + b * shape.state_size, tensors.cell + b * shape.state_size,
                    tensors.output + step * shape.state_size, buffers);
    }
  }
}

}  // namespace microarena::reference
