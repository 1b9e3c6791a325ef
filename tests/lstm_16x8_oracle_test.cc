// Differential tests of the 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (int16
// activations, int8 weights, int64 biases, int16 cell state) against TFLM
// itself (../shared/tools/tflm_oracle): one-op models built here, with the
// scales a 16x8 conversion gives, run in microarena and in the oracle, must
// give the same bytes (21 models of Specs() and 6 of extreme inputs); our
// arena must be no larger than TFLM's minimum; the forms TFLM refuses (or
// would misread) are refused with a clear message. Every expected output
// comes from the oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/report/tflm_arena.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/conv_oracle_support.h"
#include "tests/support/op_oracle_util.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::Bytes;
using testing::ElementCount;
using testing::ExpectBothRefuse;
using testing::ExpectSameAsOracle;
using testing::ExpectWeRefuse;
using testing::kSmallArena;
using testing::NextRandom;
using testing::SpreadValues;

// One 16x8 LSTM: sizes, layout and the quantization a converter would pick
// (symmetric int16 activations, per-tensor int8 weights, int64 biases at
// input scale x weight scale, a power-of-two cell scale). The type fields let
// a test build the forms TFLM does not run.
struct Lstm16x8Spec {
  int32_t batches = 1;
  int32_t time_steps = 3;
  int32_t input_size = 4;
  int32_t state_size = 3;
  bool time_major = false;
  float input_scale = 3.0f / 32767;  // inputs in [-3, 3]
  int64_t input_zero_point = 0;
  float hidden_scale = 1.0f / 32767;  // h = tanh(c) * o in [-1, 1]
  int64_t hidden_zero_point = 0;
  float weight_scale = 0.5f / 127;  // weights in [-0.5, 0.5]
  float recurrent_scale = 0.4f / 127;
  int32_t cell_scale_power = -11;  // cell state in [-16, 16)
  float cell_clip = 0.0f;
  float bias_magnitude = 1.0f;  // real gate biases in [-m, m]
  uint32_t seed = 1;
  TensorType activation_type = TensorType::kInt16;  // input, hidden state and output
  TensorType hidden_type = TensorType::kInt16;
  TensorType weight_type = TensorType::kInt8;
  TensorType bias_type = TensorType::kInt64;
  TensorType cell_type = TensorType::kInt16;
  int32_t extra_input = -1;  // an optional input (9-11, 16, 17, 20-23) to add, or -1
};

// Real values in [-m, m] quantized with `scale`, as `type` (INT32 or INT64).
Bytes BiasBytes(TensorType type, size_t n, float magnitude, double scale, uint32_t seed) {
  uint32_t state = seed * 2654435761u + 11;
  std::vector<int64_t> values;
  for (size_t i = 0; i < n; ++i) {
    const double real = (static_cast<double>(NextRandom(&state) % 20001) - 10000.0) / 10000.0 * magnitude;
    values.push_back(static_cast<int64_t>(std::llround(real / scale)));
  }
  if (type == TensorType::kInt32) return BytesOf(std::vector<int32_t>(values.begin(), values.end()));
  return BytesOf(values);
}

// n floats in [-m, m] (a fixed spread; no NaN or infinity).
Bytes FloatBytes(size_t n, float magnitude, uint32_t seed) {
  uint32_t state = seed * 2654435761u + 7;
  std::vector<float> values;
  for (size_t i = 0; i < n; ++i) {
    values.push_back((static_cast<float>(NextRandom(&state) % 20001) - 10000.0f) / 10000.0f * magnitude);
  }
  return BytesOf(values);
}

// With activation_type FLOAT32 every tensor is float32 and unquantized (the
// float kernel); the other type fields are then ignored.
Bytes LstmModel(const Lstm16x8Spec& s) {
  ModelBuilder builder;
  const bool is_float = s.activation_type == TensorType::kFloat32;
  auto quantized = [&](float scale, int64_t zero_point) {
    return is_float ? QuantizationSpec{} : QuantizationSpec::PerTensor(scale, zero_point);
  };
  const float cell_scale = std::ldexp(1.0f, s.cell_scale_power);
  const std::vector<int32_t> sequence = s.time_major ? std::vector<int32_t>{s.time_steps, s.batches, s.input_size}
                                                     : std::vector<int32_t>{s.batches, s.time_steps, s.input_size};
  std::vector<int32_t> inputs(24, -1);
  inputs[0] =
      builder.AddTensor({"input", s.activation_type, sequence, 0, quantized(s.input_scale, s.input_zero_point)});
  uint32_t seed = s.seed * 10;
  for (int32_t i = 1; i <= 8; ++i) {
    const bool recurrent = i >= 5;
    const std::vector<int32_t> shape = {s.state_size, recurrent ? s.state_size : s.input_size};
    const float scale = recurrent ? s.recurrent_scale : s.weight_scale;
    const Bytes data = is_float ? FloatBytes(ElementCount(shape), 0.5f, ++seed)
                       : s.weight_type == TensorType::kInt8
                           ? BytesOf(SpreadValues<int8_t>(ElementCount(shape), ++seed))
                           : BytesOf(SpreadValues<int16_t>(ElementCount(shape), ++seed));
    inputs[static_cast<size_t>(i)] = builder.AddConstantTensor(
        {"weights" + std::to_string(i), is_float ? TensorType::kFloat32 : s.weight_type, shape, 0, quantized(scale, 0)},
        data);
  }
  const double bias_scale = static_cast<double>(s.input_scale) * static_cast<double>(s.weight_scale);
  for (int32_t i = 12; i <= 15; ++i) {
    const std::vector<int32_t> shape = {s.state_size};
    const TensorSpec bias{"bias" + std::to_string(i), is_float ? TensorType::kFloat32 : s.bias_type, shape, 0,
                          quantized(static_cast<float>(bias_scale), 0)};
    inputs[static_cast<size_t>(i)] = builder.AddConstantTensor(
        bias, is_float
                  ? FloatBytes(static_cast<size_t>(s.state_size), s.bias_magnitude, ++seed)
                  : BiasBytes(s.bias_type, static_cast<size_t>(s.state_size), s.bias_magnitude, bias_scale, ++seed));
  }
  if (s.extra_input >= 0) {
    const bool matrix = s.extra_input == 16;  // projection weights [state, state]
    const std::vector<int32_t> shape =
        matrix ? std::vector<int32_t>{s.state_size, s.state_size} : std::vector<int32_t>{s.state_size};
    const TensorType type = matrix ? TensorType::kInt8 : s.extra_input == 17 ? TensorType::kInt32 : TensorType::kInt16;
    const size_t bytes = ElementCount(shape) * (type == TensorType::kInt8 ? 1 : type == TensorType::kInt16 ? 2 : 4);
    inputs[static_cast<size_t>(s.extra_input)] =
        builder.AddConstantTensor({"extra", type, shape, 0, QuantizationSpec::PerTensor(0.01f, 0)}, Bytes(bytes, 1));
  }
  const std::vector<int32_t> state_shape = {s.batches, s.state_size};
  TensorSpec hidden{"hidden", is_float ? TensorType::kFloat32 : s.hidden_type, state_shape, 0,
                    quantized(s.hidden_scale, s.hidden_zero_point)};
  hidden.is_variable = true;
  inputs[18] = builder.AddTensor(hidden);
  const QuantizationSpec cell_quantization =
      is_float || s.cell_type == TensorType::kFloat32 ? QuantizationSpec{} : QuantizationSpec::PerTensor(cell_scale, 0);
  TensorSpec cell{"cell", is_float ? TensorType::kFloat32 : s.cell_type, state_shape, 0, cell_quantization};
  cell.is_variable = true;
  inputs[19] = builder.AddTensor(cell);
  std::vector<int32_t> out_shape = sequence;
  out_shape[2] = s.state_size;
  const int32_t output =
      builder.AddTensor({"output", s.activation_type, out_shape, 0, quantized(s.hidden_scale, s.hidden_zero_point)});
  tflite::UnidirectionalSequenceLSTMOptionsT options;
  options.fused_activation_function = tflite::ActivationFunctionType::TANH;
  options.cell_clip = s.cell_clip;
  options.time_major = s.time_major;
  OperatorSpec op;
  op.op = BuiltinOp::kUnidirectionalSequenceLstm;
  op.inputs = inputs;
  op.outputs = {output};
  op.options = MakeBuiltinOptions(options);
  builder.AddOperator(std::move(op));
  builder.SetInputs({inputs[0]});
  builder.SetOutputs({output});
  return builder.Build();
}

Bytes InputBytes(const Lstm16x8Spec& s) {
  const size_t n =
      static_cast<size_t>(s.batches) * static_cast<size_t>(s.time_steps) * static_cast<size_t>(s.input_size);
  return BytesOf(SpreadValues<int16_t>(n, s.seed + 100));
}

// The shapes, layouts and quantizations every 16x8 test below runs.
std::vector<Lstm16x8Spec> Specs() {
  std::vector<Lstm16x8Spec> specs;
  auto add = [&](int32_t batches, int32_t steps, int32_t input, int32_t state, bool time_major) {
    Lstm16x8Spec s;
    s.batches = batches;
    s.time_steps = steps;
    s.input_size = input;
    s.state_size = state;
    s.time_major = time_major;
    s.seed = static_cast<uint32_t>(specs.size() + 1);
    specs.push_back(s);
    return &specs.back();
  };
  // Sizes and both layouts.
  for (bool time_major : {false, true}) {
    add(1, 1, 1, 1, time_major);
    add(1, 4, 3, 2, time_major);
    add(2, 3, 4, 3, time_major);
    add(3, 5, 7, 8, time_major);
    add(4, 2, 10, 16, time_major);
  }
  // A long sequence: the state saturates and settles over many steps.
  add(2, 24, 5, 6, false)->bias_magnitude = 3.0f;
  add(2, 24, 5, 6, true)->bias_magnitude = 3.0f;
  // Cell clip (quantized to 5 / 2^-11 = 10240 and 0.3 / 2^-11 = 614.4 -> 614).
  add(2, 6, 4, 5, false)->cell_clip = 5.0f;
  {
    Lstm16x8Spec* s = add(2, 6, 4, 5, true);
    s->cell_clip = 0.3f;
    s->bias_magnitude = 4.0f;
  }
  // Other cell scales: 2^-15 (small cell, right-shifted tanh input), 2^-12 and
  // 2^-8 (left-shifted).
  for (int32_t power : {-15, -12, -8}) add(2, 4, 3, 4, power == -12)->cell_scale_power = power;
  // Large weights, inputs and biases: the gate sums saturate.
  {
    Lstm16x8Spec* s = add(1, 8, 6, 4, false);
    s->weight_scale = 4.0f / 127;
    s->recurrent_scale = 3.0f / 127;
    s->input_scale = 10.0f / 32767;
    s->bias_magnitude = 6.0f;
  }
  // Small scales: the gate multipliers shift right far.
  {
    Lstm16x8Spec* s = add(2, 3, 8, 4, true);
    s->input_scale = 0.05f / 32767;
    s->weight_scale = 0.01f / 127;
    s->recurrent_scale = 0.02f / 127;
  }
  // Nonzero zero points: TFLM applies the input and hidden state offsets in
  // the gate FCs and the hidden zero point in the output product.
  {
    Lstm16x8Spec* s = add(2, 4, 3, 3, false);
    s->input_zero_point = 700;
    s->hidden_zero_point = -250;
  }
  {
    Lstm16x8Spec* s = add(3, 3, 2, 5, true);
    s->input_zero_point = -32768 + 9;
    s->hidden_zero_point = 1000;
  }
  return specs;
}

std::string SpecName(const Lstm16x8Spec& s, size_t index) {
  return "lstm16x8_" + std::to_string(index) + "_b" + std::to_string(s.batches) + "_t" + std::to_string(s.time_steps) +
         "_i" + std::to_string(s.input_size) + "_s" + std::to_string(s.state_size) + (s.time_major ? "_tm" : "_bm");
}

TEST(Lstm16x8OracleTest, OutputsMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<Lstm16x8Spec> specs = Specs();
  for (size_t i = 0; i < specs.size(); ++i) {
    ExpectSameAsOracle(SpecName(specs[i], i), LstmModel(specs[i]), {InputBytes(specs[i])}, kSmallArena);
  }
  EXPECT_EQ(specs.size(), 21u);
}

// The float32 kernel on the same shapes (all tensors float32): TFLM's
// float LSTM, which no shared model has.
TEST(Lstm16x8OracleTest, FloatFormOfTheSameShapesMatchesTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<Lstm16x8Spec> specs = Specs();
  for (size_t i = 0; i < specs.size(); i += 3) {
    Lstm16x8Spec s = specs[i];
    s.activation_type = TensorType::kFloat32;
    const size_t n =
        static_cast<size_t>(s.batches) * static_cast<size_t>(s.time_steps) * static_cast<size_t>(s.input_size);
    ExpectSameAsOracle("lstm_float_" + std::to_string(i), LstmModel(s), {FloatBytes(n, 3.0f, s.seed + 100)},
                       kSmallArena);
  }
}

// Saturating inputs (every value at an extreme) and large biases: the gate
// sums clamp to int16 and the int64 bias add dominates.
TEST(Lstm16x8OracleTest, ExtremeInputsAndBiasesMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (float bias_magnitude : {0.0f, 8.0f, 1000.0f}) {
    Lstm16x8Spec s;
    s.batches = 2;
    s.time_steps = 5;
    s.input_size = 6;
    s.state_size = 4;
    s.bias_magnitude = bias_magnitude;
    s.seed = static_cast<uint32_t>(50 + cases);
    for (int16_t value : {int16_t{32767}, int16_t{-32768}}) {
      const std::vector<int16_t> input(ElementCount({s.batches, s.time_steps, s.input_size}), value);
      ExpectSameAsOracle("lstm16x8_extreme_" + std::to_string(cases++), LstmModel(s), {BytesOf(input)}, kSmallArena);
    }
  }
}

// Our arena for every model of Specs() is at most TFLM's minimum, and the
// TFLM arena prediction (plan --runtime tflm) gives the oracle's figures.
TEST(Lstm16x8OracleTest, ArenaIsAtMostTflmsAndPredicted) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<Lstm16x8Spec> specs = Specs();
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string name = SpecName(specs[i], i);
    SCOPED_TRACE(name);
    const Bytes model = LstmModel(specs[i]);
    Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
    ASSERT_TRUE(view.ok()) << view.status().message();
    Result<ArenaFigures> ours = MeasureArena(*view, AllOpsResolver());
    ASSERT_TRUE(ours.ok()) << ours.status().message();
    std::map<std::string, size_t> tflm = testing::OracleSummary(name, model);
    ASSERT_EQ(tflm.count("min_arena_bytes"), 1u);
    EXPECT_LE(ours->used_bytes, tflm["min_arena_bytes"]);
    Result<report::TflmArenaPrediction> predicted = report::PredictTflmArena(*view, report::TflmHostLayout());
    ASSERT_TRUE(predicted.ok()) << predicted.status().message();
    EXPECT_EQ(predicted->min_arena_bytes, tflm["min_arena_bytes"]);
    EXPECT_EQ(predicted->arena_used_bytes, tflm["arena_used_bytes"]);
    EXPECT_EQ(predicted->tail_bytes, tflm["tail_bytes"]);
    std::printf("%s: microarena %zu B (persistent %zu, head %zu), TFLM minimum %zu B (head %zu, tail %zu)\n",
                name.c_str(), ours->used_bytes, ours->persistent_bytes, ours->head_bytes, tflm["min_arena_bytes"],
                tflm["head_bytes"], tflm["tail_bytes"]);
  }
}

// ---- forms TFLM does not run ----

TEST(Lstm16x8OracleTest, Int16WeightsAreRefusedLikeTflm) {
  MICROARENA_REQUIRE_ORACLE();
  Lstm16x8Spec s;
  s.weight_type = TensorType::kInt16;
  ExpectBothRefuse("lstm16x8_int16_weights", LstmModel(s), {InputBytes(s)},
                   "16x8 LSTM needs INT8 weights and INT64 biases; gate 0 has INT16, INT16 and INT64");
}

TEST(Lstm16x8OracleTest, MixedActivationTypesAreRefusedLikeTflm) {
  MICROARENA_REQUIRE_ORACLE();
  Lstm16x8Spec s;
  s.hidden_type = TensorType::kInt8;
  ExpectBothRefuse("lstm16x8_int8_hidden", LstmModel(s), {InputBytes(s)},
                   "input INT16, hidden state INT8 and output INT16 must have one type");
}

// TFLM runs only the standard cell: peephole, projection and layer-norm
// inputs are refused by both, for int16 activations too.
TEST(Lstm16x8OracleTest, PeepholeProjectionAndLayerNormAreRefusedLikeTflm) {
  MICROARENA_REQUIRE_ORACLE();
  for (int32_t extra : {9, 10, 11, 16, 17, 20, 21, 22, 23}) {
    Lstm16x8Spec s;
    s.extra_input = extra;
    ExpectBothRefuse(
        "lstm16x8_extra_" + std::to_string(extra), LstmModel(s), {InputBytes(s)},
        "input " + std::to_string(extra) + " is present: peephole, projection and layer-norm LSTMs are not supported");
  }
}

// TFLM reads a 16x8 LSTM's biases as int64 whatever their type (an int32
// bias is read past its end) and runs a float cell state through its int16
// code: both are refused here.
TEST(Lstm16x8OracleTest, FormsTflmWouldMisreadAreRefused) {
  Lstm16x8Spec int32_bias;
  int32_bias.bias_type = TensorType::kInt32;
  ExpectWeRefuse(LstmModel(int32_bias), {InputBytes(int32_bias)},
                 "16x8 LSTM needs INT8 weights and INT64 biases; gate 0 has INT8, INT8 and INT32");
  Lstm16x8Spec float_cell;
  float_cell.cell_type = TensorType::kFloat32;
  ExpectWeRefuse(LstmModel(float_cell), {InputBytes(float_cell)},
                 "input INT16 with cell state FLOAT32 is not supported");
}

// A gate multiplier of 2^14 or more needs a right shift below 1 in the 64-bit
// rescale (undefined in TFLite): refused, naming the weights tensor.
TEST(Lstm16x8OracleTest, GateMultiplierBeyondTheWideRescaleIsRefused) {
  Lstm16x8Spec s;
  s.input_scale = 1.0f;
  s.weight_scale = 100.0f;  // 1 x 100 / 2^-12 = 409600: shift 19
  ExpectWeRefuse(LstmModel(s), {InputBytes(s)}, "the 16x8 LSTM's gate multiplier needs shift 19");
}

}  // namespace
}  // namespace microarena
