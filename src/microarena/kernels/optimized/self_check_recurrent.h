// The fast recurrent paths (optimized/recurrent_int8.h) against their
// oracle, case by case, as self_check.h does for the other int8 kernels:
// random operands and requantization for a given shape, the reference and
// the fast path run on them, their outputs (and SVDF's state) compared byte
// for byte. Header-only and heap-free, for the host's unit tests
// (optimized/recurrent_int8_test.cc) and the Cortex-M firmware
// examples/cortex_m/kernel_check.cc, where the DSP loops run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "microarena/kernels/optimized/recurrent_int8.h"
#include "microarena/kernels/optimized/self_check.h"
#include "microarena/kernels/reference/lstm.h"
#include "microarena/kernels/reference/svdf.h"

namespace microarena::optimized::self_check {

// One SVDF invocation sequence: `steps` invocations on one state, each with
// a new random input.
struct SvdfCase {
  int32_t batches, input_size, units, rank, memory_size;
  bool int16_state;  // else int8 weights_time and state
  bool bias;
  int32_t input_zero_point, state_zero_point, output_zero_point;
  int32_t steps;
};

// One LSTM gate matmul: `rows` input rows of input_size values against
// `units` weight rows; int8 input and int32 bias (8x8->16) or int16 input
// and int64 bias (16x8->16).
struct LstmGateCase {
  int32_t rows, input_size, units;
  int32_t input_zero_point;
  bool bias;
  bool int16_input;
};

// Every buffer a recurrent case uses, fixed-size (16 KB: a firmware keeps
// it static). Large enough for keyword_scrambled_8bit's SVDFs (64 x 96
// feature weights, 32 filters x 32 memory) and trained_lstm_int8's gates.
struct RecurrentWorkspace {
  static constexpr size_t kInputValues = 512;   // batches x input_size
  static constexpr size_t kWeightBytes = 6144;  // filters (or units) x input_size
  static constexpr size_t kStateValues = 1024;  // batches x filters x memory, filters x memory
  static constexpr size_t kOutputs = 256;       // batches x units; rows x units
  static constexpr size_t kSums = 128;          // bias; the SVDF reference's scratch sums
  union StateValues {
    int8_t int8[kStateValues];
    int16_t int16[kStateValues];
  };
  union Outputs {
    int8_t int8[kOutputs];
    int16_t int16[kOutputs];
  };
  union Inputs {
    int8_t int8[kInputValues];
    int16_t int16[kInputValues];
  };
  union Biases {
    int32_t int32[kSums];
    int64_t int64[kSums];
  };
  Inputs input;
  int8_t weights[kWeightBytes];
  StateValues time_weights;
  StateValues expected_state;
  StateValues actual_state;
  Outputs expected;
  Outputs actual;
  Biases bias;
  int32_t scratch[kSums];
  int32_t scratch_output[kSums];
};

inline bool Fits(const SvdfCase& c) {
  const size_t filters = Count(c.units, c.rank);
  return Count(c.batches, c.input_size) <= RecurrentWorkspace::kInputValues &&
         filters * static_cast<size_t>(c.input_size) <= RecurrentWorkspace::kWeightBytes &&
         Count(c.batches, c.units, c.rank, c.memory_size) <= RecurrentWorkspace::kStateValues &&
         Count(c.batches, c.units, c.rank) <= RecurrentWorkspace::kSums &&
         Count(c.batches, c.units) <= RecurrentWorkspace::kOutputs;
}

inline bool Fits(const LstmGateCase& c) {
  return Count(c.rows, c.input_size) <= RecurrentWorkspace::kInputValues &&
         Count(c.units, c.input_size) <= RecurrentWorkspace::kWeightBytes &&
         Count(c.rows, c.units) <= RecurrentWorkspace::kOutputs &&
         static_cast<size_t>(c.units) <= RecurrentWorkspace::kSums;
}

// Random int16 values over the whole range.
inline void RandomHalves(Random& random, int16_t* values, size_t count) {
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<int16_t>(random.Uniform(-32768, 32767));
}

// A multiplier in [2^30, 2^31) with a shift in [low, high].
inline void RandomMultiplier(Random& random, int32_t low, int32_t high, int32_t* multiplier, int32_t* shift) {
  *multiplier = random.Uniform(1 << 30, 0x7fffffff);
  *shift = random.Uniform(low, high);
}

// SVDF with random weights, bias, initial state and requantization: both
// kernels run c.steps times on their own copy of the state; the outputs of
// every step and the final state must agree.
template <typename StateT>
inline Outcome CheckSvdfOf(const SvdfCase& c, Random& random, RecurrentWorkspace& ws, StateT* time_weights,
                           StateT* expected_state, StateT* actual_state) {
  reference::SvdfShape shape;
  shape.batches = c.batches;
  shape.input_size = c.input_size;
  shape.units = c.units;
  shape.rank = c.rank;
  shape.filters = c.units * c.rank;
  shape.memory_size = c.memory_size;
  const size_t weight_count = Count(shape.filters, c.input_size);
  const size_t time_count = Count(shape.filters, c.memory_size);
  const size_t state_count = time_count * static_cast<size_t>(c.batches);
  const size_t out_count = Count(c.batches, c.units);
  RandomBytes(random, ws.weights, weight_count);
  for (size_t i = 0; i < time_count; ++i) {
    time_weights[i] = sizeof(StateT) == 1 ? static_cast<StateT>(random.Uniform(-128, 127))
                                          : static_cast<StateT>(random.Uniform(-32768, 32767));
  }
  for (size_t i = 0; i < state_count; ++i) {
    expected_state[i] = sizeof(StateT) == 1 ? static_cast<StateT>(random.Uniform(-128, 127))
                                            : static_cast<StateT>(random.Uniform(-32768, 32767));
  }
  std::memcpy(actual_state, expected_state, state_count * sizeof(StateT));
  for (int32_t u = 0; u < c.units; ++u) ws.bias.int32[u] = random.Uniform(-2000000, 2000000);
  reference::SvdfIntegerParams params;
  params.input_zero_point = c.input_zero_point;
  params.state_zero_point = c.state_zero_point;
  params.output_zero_point = c.output_zero_point;
  // Shifts from deep saturation of the state and the output to none.
  RandomMultiplier(random, -18, 1, &params.feature_multiplier, &params.feature_shift);
  RandomMultiplier(random, sizeof(StateT) == 1 ? -16 : -30, -2, &params.output_multiplier, &params.output_shift);
  const int32_t* bias = c.bias ? ws.bias.int32 : nullptr;
  for (int32_t step = 0; step < c.steps; ++step) {
    RandomBytes(random, ws.input.int8, Count(c.batches, c.input_size));
    std::memset(ws.actual.int8, 0x5a, out_count);
    reference::SvdfInteger<StateT>(params, shape, ws.input.int8, ws.weights, time_weights, bias, expected_state,
                                   ws.scratch, ws.scratch_output, ws.expected.int8);
    optimized::SvdfInteger<StateT>(params, shape, ws.input.int8, ws.weights, time_weights, bias, actual_state, ws.scratch,
                                   ws.scratch_output, ws.actual.int8);
    if (std::memcmp(ws.expected.int8, ws.actual.int8, out_count) != 0) return Outcome::kDifferent;
  }
  return std::memcmp(expected_state, actual_state, state_count * sizeof(StateT)) == 0 ? Outcome::kSame
                                                                                       : Outcome::kDifferent;
}

inline Outcome CheckSvdf(const SvdfCase& c, Random& random, RecurrentWorkspace& ws) {
  if (!Fits(c)) return Outcome::kTooLarge;
  if (c.int16_state) {
    return CheckSvdfOf<int16_t>(c, random, ws, ws.time_weights.int16, ws.expected_state.int16,
                                ws.actual_state.int16);
  }
  return CheckSvdfOf<int8_t>(c, random, ws, ws.time_weights.int8, ws.expected_state.int8, ws.actual_state.int8);
}

// A gate matmul with random weights, bias and scale, shifts from saturating
// int16 to deep right shifts.
inline Outcome CheckLstmGate(const LstmGateCase& c, Random& random, RecurrentWorkspace& ws) {
  if (!Fits(c)) return Outcome::kTooLarge;
  const size_t input_count = Count(c.rows, c.input_size);
  if (c.int16_input) {
    RandomHalves(random, ws.input.int16, input_count);
  } else {
    RandomBytes(random, ws.input.int8, input_count);
  }
  RandomBytes(random, ws.weights, Count(c.units, c.input_size));
  for (int32_t u = 0; u < c.units; ++u) {
    const int32_t high = random.Uniform(-2000000, 2000000);
    if (c.int16_input) {
      ws.bias.int64[u] = int64_t{high} * 1000 + random.Uniform(-999, 999);
    } else {
      ws.bias.int32[u] = high;
    }
  }
  reference::LstmMultiplier scale;
  // The 16x8 form's 64-bit rescale takes shifts up to kMaxMultiplierShift64.
  RandomMultiplier(random, c.int16_input ? -28 : -18, 2, &scale.multiplier, &scale.shift);
  const size_t out_count = Count(c.rows, c.units);
  std::memset(ws.actual.int16, 0x5a, out_count * sizeof(int16_t));
  const int32_t offset = -c.input_zero_point;
  if (c.int16_input) {
    const int64_t* bias = c.bias ? ws.bias.int64 : nullptr;
    reference::FullyConnectedInt16ToInt16(scale, offset, c.rows, c.input_size, c.units, ws.input.int16, ws.weights,
                                          bias, ws.expected.int16);
    optimized::FullyConnectedInt16ToInt16(scale, offset, c.rows, c.input_size, c.units, ws.input.int16, ws.weights,
                                          bias, ws.actual.int16);
  } else {
    const int32_t* bias = c.bias ? ws.bias.int32 : nullptr;
    reference::FullyConnectedInt8ToInt16(scale, offset, c.rows, c.input_size, c.units, ws.input.int8, ws.weights,
                                         bias, ws.expected.int16);
    optimized::FullyConnectedInt8ToInt16(scale, offset, c.rows, c.input_size, c.units, ws.input.int8, ws.weights,
                                         bias, ws.actual.int16);
  }
  return std::memcmp(ws.expected.int16, ws.actual.int16, out_count * sizeof(int16_t)) == 0 ? Outcome::kSame
                                                                                           : Outcome::kDifferent;
}

// Zero points at both ends of the type and between.
inline int32_t RandomZeroPoint(Random& random, bool int16) {
  constexpr int32_t kInt8[] = {-128, 127, 0, -5, 17};
  constexpr int32_t kInt16[] = {-32768, 32767, 0, -300, 4000};
  const uint32_t pick = random.Next() % 5;
  return int16 ? kInt16[pick] : kInt8[pick];
}

// Random SVDF cases: input sizes around the words of 4, ranks 1-3, memories
// of 1 to 24 (odd ones leave a half-word tail), batches, both state types.
// false when the case does not fit the workspace (the caller draws again).
inline bool RandomSvdfCase(Random& random, SvdfCase* c) {
  c->batches = random.Uniform(1, 3);
  c->input_size = random.Uniform(1, 70);
  c->units = random.Uniform(1, 20);
  c->rank = random.Uniform(1, 3);
  c->memory_size = random.Uniform(1, 24);
  c->int16_state = random.Uniform(0, 1) == 1;
  c->bias = random.Uniform(0, 3) != 0;
  c->input_zero_point = RandomZeroPoint(random, false);
  c->state_zero_point = RandomZeroPoint(random, c->int16_state);
  c->output_zero_point = RandomZeroPoint(random, false);
  c->steps = random.Uniform(1, 3);
  return Fits(*c);
}

// Random gate matmuls: depths around the words of 4 (and, for int16 input,
// past the int32 runs of 255), unit counts around the blocks of 4, one to
// three rows, both input types.
inline bool RandomLstmGateCase(Random& random, LstmGateCase* c) {
  c->int16_input = random.Uniform(0, 3) == 0;
  c->rows = random.Uniform(1, 3);
  c->input_size = random.Uniform(1, c->int16_input ? 300 : 100);
  c->units = random.Uniform(1, c->int16_input ? 12 : 40);
  c->input_zero_point = RandomZeroPoint(random, c->int16_input);
  c->bias = random.Uniform(0, 3) != 0;
  return Fits(*c);
}

inline void Describe(const SvdfCase& c, char* text, size_t size) {
  std::snprintf(text, size,
                "batches %ld input %ld units %ld rank %ld memory %ld %s state, zero points %ld/%ld/%ld, %ld steps%s",
                static_cast<long>(c.batches), static_cast<long>(c.input_size), static_cast<long>(c.units),
                static_cast<long>(c.rank), static_cast<long>(c.memory_size), c.int16_state ? "int16" : "int8",
                static_cast<long>(c.input_zero_point), static_cast<long>(c.state_zero_point),
                static_cast<long>(c.output_zero_point), static_cast<long>(c.steps), c.bias ? "" : ", no bias");
}

inline void Describe(const LstmGateCase& c, char* text, size_t size) {
  std::snprintf(text, size, "%s rows %ld input %ld units %ld input zero point %ld%s", c.int16_input ? "16x8" : "8x8",
                static_cast<long>(c.rows), static_cast<long>(c.input_size), static_cast<long>(c.units),
                static_cast<long>(c.input_zero_point), c.bias ? "" : ", no bias");
}

}  // namespace microarena::optimized::self_check
