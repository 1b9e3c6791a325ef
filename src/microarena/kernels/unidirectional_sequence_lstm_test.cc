// UNIDIRECTIONAL_SEQUENCE_LSTM unit tests: the int16 sigmoid/tanh table
// functions, a whole integer LSTM (int8 and 16x8) whose gates reduce to their
// biases, the float variant, and prepare errors. Expected values are derived by hand in
// the comments; table values T[i] are TFLite's sigmoid(i / 24) in Q0.16.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/reference/lstm.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "tests/support/kernel_harness.h"

namespace microarena {
namespace {

using testing::KernelHarness;

int16_t Logistic(int16_t x, int32_t multiplier = 0, int32_t shift = 0) {
  int16_t y = 0;
  reference::LogisticInt16(multiplier, shift, 1, &x, &y);
  return y;
}

int16_t Tanh(int16_t x, int32_t scale_power) {
  int16_t y = 0;
  reference::TanhInt16FromPowerOfTwo(scale_power, 1, &x, &y);
  return y;
}

TEST(LstmReferenceTest, LogisticInt16TableInterpolationAndSymmetry) {
  // Q3.12 input x is scaled by 3: the table index is 3x >> 9, the fraction 3x & 511.
  // 0: T[0] = 32768 -> (32768 << 9) + 512 >> 10 = 16384 (0.5).
  EXPECT_EQ(Logistic(0), 16384);
  // 1024 (0.25): 3072 -> index 6, fraction 0: T[6] = 36843; (36843 << 9) + 512 =
  // 18864128 -> >> 10 = 18422 (sigmoid(0.25) * 32768 = 18422.3).
  EXPECT_EQ(Logistic(1024), 18422);
  // -1024: (1 << 25) - (36843 << 9) + 512 - 1 = 14691327 -> >> 10 = 14346 = 32768 - 18422.
  EXPECT_EQ(Logistic(-1024), 14346);
  // 100: 300 -> index 0, fraction 300: (32768 << 9) + 300 * (33451 - 32768) = 16982116;
  // + 512 = 16982628 -> >> 10 = 16584.
  EXPECT_EQ(Logistic(100), 16584);
}

TEST(LstmReferenceTest, LogisticInt16SaturatesOnlyBeyondTheTable) {
  // Multiplier 0 with shift 1 means 3 << 1 = 6: 32767 * 6 = 196602, index 383 >= 255:
  // (0x7FFF << 10) + 512 >> 10 = 32767. -32768 * 6: (1 << 25) - (0x7FFF << 10) + 511
  // = 1535 -> >> 10 = 1 (never 0).
  EXPECT_EQ(Logistic(32767, 0, 1), 32767);
  EXPECT_EQ(Logistic(-32768, 0, 1), 1);
}

TEST(LstmReferenceTest, TanhInt16FromEachCellScale) {
  // Scale 2^-12 (Q3.12): multiplier 3, no shift. Index 3x >> 8, fraction 3x & 255;
  // result (T << 8) + frac * slope - 2^23 + 128, then >> 8 (floor).
  EXPECT_EQ(Tanh(0, -12), 0);  // 32768 << 8 = 2^23 -> 128 >> 8 = 0
  // 1024: 3072 -> index 12: T[12] = 40794 -> 10443264 - 8388608 + 128 = 2054784 -> 8026.
  EXPECT_EQ(Tanh(1024, -12), 8026);
  // -1024: -10443264 + 8388608 + 127 = -2054529 -> floor(-8025.5) = -8026.
  EXPECT_EQ(Tanh(-1024, -12), -8026);
  // Saturation: 32767 * 3 >= 255 << 8: (0xFFFF << 8) - 2^23 + 128 = 8388480 -> 32767;
  // -32768: -(0xFFFF << 8) + 2^23 + 127 = -8388225 -> floor(-32766.5) = -32767.
  EXPECT_EQ(Tanh(32767, -12), 32767);
  EXPECT_EQ(Tanh(-32768, -12), -32767);
  // Scale 2^-11: left shift 15 - 11 - 3 = 1 -> multiplier 6: 512 -> 3072 -> 8026.
  EXPECT_EQ(Tanh(512, -11), 8026);
  // Scale 2^-14: shift 15 - 14 - 3 = -2 -> multiplier 3 with a rounding right
  // shift by 2: 4096 -> (12288 + 2) >> 2 = 3072 -> 8026; 4097 -> (12291 + 2) >> 2 =
  // 3073 -> index 12, fraction 1: 10443264 + (41432 - 40794) - 8388608 + 128 =
  // 2055422 -> 8028.
  EXPECT_EQ(Tanh(4096, -14), 8026);
  EXPECT_EQ(Tanh(4097, -14), 8028);
}

// ---- a one-op model: 1 batch, 2 time steps, 1 input, 1 state ----

struct LstmModelSpec {
  bool is_float = false;
  bool is_16x8 = false;            // int16 input, hidden state and output, int64 biases
  float cell_scale = 1.0f / 4096;  // 2^-12
  float cell_clip = 0.0f;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::TANH;
  bool with_peephole = false;
  int32_t recurrent_rows = 1;  // the recurrent weights' first dimension (1 is right)
};

// Integer model: input scale 2^-6 and input weights scale 2^-6, so the input FC
// multiplier is 2^-12 / 2^-12 = 1.0 = (2^30, shift 1) and x * 1.0 is exact. All
// weights are 0, so each gate's pre-activation is its bias in Q3.12:
// forget 4096 (1.0), input 0, cell 2048 (0.5), output -4096 (-1.0).
// Hidden state and output: scale 2^-7, zero point 0; cell state int16.
std::vector<uint8_t> BuildLstmModel(const LstmModelSpec& spec) {
  ModelBuilder builder;
  const TensorType act = spec.is_float ? TensorType::kFloat32 : spec.is_16x8 ? TensorType::kInt16 : TensorType::kInt8;
  auto quant = [&](float scale) {
    return spec.is_float ? QuantizationSpec{} : QuantizationSpec::PerTensor(scale, 0);
  };
  std::vector<int32_t> inputs(24, -1);
  inputs[0] = builder.AddTensor({"input", act, {1, 2, 1}, 0, quant(1.0f / 64)});
  for (int i = 1; i <= 8; ++i) {
    const std::vector<int32_t> shape = i <= 4 ? std::vector<int32_t>{1, 1} : std::vector<int32_t>{spec.recurrent_rows, 1};
    const size_t count = static_cast<size_t>(shape[0]);
    inputs[static_cast<size_t>(i)] =
        spec.is_float
            ? builder.AddConstantTensor({"w", act, shape, 0, {}}, BytesOf(std::vector<float>(count, 0.0f)))
            : builder.AddConstantTensor({"w", TensorType::kInt8, shape, 0, quant(i <= 4 ? 1.0f / 64 : 1.0f / 32)},
                                        BytesOf(std::vector<int8_t>(count, 0)));
  }
  if (spec.with_peephole) {
    inputs[10] = builder.AddConstantTensor({"peephole", TensorType::kInt16, {1}, 0, quant(1.0f)},
                                           BytesOf<int16_t>({0}));
  }
  // Biases 12..15 = input, forget, cell, output gates.
  const int32_t bias_values[4] = {0, 4096, 2048, -4096};
  const float float_biases[4] = {0.0f, 1.0f, 0.5f, -1.0f};
  for (size_t g = 0; g < 4; ++g) {
    inputs[12 + g] = spec.is_float
                         ? builder.AddConstantTensor({"b", act, {1}, 0, {}}, BytesOf<float>({float_biases[g]}))
                     : spec.is_16x8 ? builder.AddConstantTensor({"b", TensorType::kInt64, {1}, 0, quant(1.0f / 4096)},
                                                                BytesOf<int64_t>({bias_values[g]}))
                                    : builder.AddConstantTensor({"b", TensorType::kInt32, {1}, 0, quant(1.0f / 4096)},
                                                                BytesOf<int32_t>({bias_values[g]}));
  }
  TensorSpec hidden{"hidden", act, {1, 1}, 0, quant(1.0f / 128)};
  hidden.is_variable = true;
  inputs[18] = builder.AddTensor(hidden);
  TensorSpec cell{"cell", spec.is_float ? TensorType::kFloat32 : TensorType::kInt16, {1, 1}, 0,
                  quant(spec.cell_scale)};
  cell.is_variable = true;
  inputs[19] = builder.AddTensor(cell);
  const int32_t output = builder.AddTensor({"output", act, {1, 2, 1}, 0, quant(1.0f / 128)});
  tflite::UnidirectionalSequenceLSTMOptionsT options;
  options.fused_activation_function = spec.activation;
  options.cell_clip = spec.cell_clip;
  options.time_major = false;
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

struct LstmRun {
  Status prepared;
  std::vector<uint8_t> output, hidden, cell;
  size_t scratch_bytes = 0;
};

LstmRun RunLstm(const LstmModelSpec& spec) {
  LstmRun run;
  const std::vector<uint8_t> file = BuildLstmModel(spec);
  Result<ModelView> model = LoadModel(Span<const uint8_t>(file.data(), file.size()));
  if (!model.ok()) {
    run.prepared = model.status();
    return run;
  }
  KernelHarness harness(*model, 0, AllOpsResolver());
  SubgraphView subgraph = model->subgraph(0);
  const OperatorView op = subgraph.op(0);
  harness.SetTensorBytes(op.inputs()[0], spec.is_float  ? BytesOf<float>({0.25f, -0.5f})
                                         : spec.is_16x8 ? BytesOf<int16_t>({16, -32})
                                                        : BytesOf<int8_t>({16, -32}));
  run.prepared = harness.Prepare();
  if (!run.prepared.ok()) return run;
  run.scratch_bytes = harness.scratch_bytes();
  if (!harness.Eval().ok()) return run;
  run.output = harness.TensorBytes(op.outputs()[0]);
  run.hidden = harness.TensorBytes(op.inputs()[18]);
  run.cell = harness.TensorBytes(op.inputs()[19]);
  return run;
}

template <typename T>
std::vector<T> As(const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// Gates (every step, as the weights are 0):
//   forget = sigmoid(4096): 12288 -> index 24: T[24] = 47911 -> (47911 << 9) + 512 >> 10 = 23956
//   input  = sigmoid(0) = 16384
//   cell   = tanh(2048): 6144 -> index 24: (47911 << 8) - 2^23 + 128 = 3876736 >> 8 = 15143
//   output = sigmoid(-4096): (1 << 25) - (47911 << 9) + 511 = 9024511 >> 10 = 8812
// Multipliers (gate outputs at 2^-15, cell at 2^-12, hidden at 2^-7):
//   forget x cell: 2^-15 -> (2^30, shift -14); input x cell gate: 2^-30 / 2^-12 =
//   2^-18 -> (2^30, -17); hidden: 2^-30 / 2^-7 = 2^-23 -> (2^30, -22).
// With multiplier 2^30, SRDHM(a, 2^30) = a / 2 exactly for even a, then a
// rounding right shift by k - 1: the product / 2^k, ties away from zero.
TEST(LstmKernelTest, Int8GatesCellAndHiddenOverTwoSteps) {
  const LstmRun run = RunLstm({});
  ASSERT_TRUE(run.prepared.ok()) << run.prepared.message();
  EXPECT_EQ(run.scratch_bytes, 4u * sizeof(int16_t));  // four buffers of 1 x 1 int16
  // Step 1: c = 0. input x cell gate = 16384 * 15143 = 248102912; / 2^18 = 946.45 -> 946.
  //   tanh(946): 2838 -> index 11, fraction 22: (40149 << 8) + 22 * 645 = 10292334
  //   - 2^23 + 128 = 1903854 >> 8 = 7436. h = 7436 * 8812 = 65526032; / 2^23 = 7.81 -> 8.
  // Step 2: forget x c = 23956 * 946 = 22662376; / 2^15 = 691.60 -> 692;
  //   c = 692 + 946 = 1638. tanh(1638): 4914 -> index 19, fraction 50:
  //   (45102 << 8) + 50 * 581 = 11575162 - 2^23 + 128 = 3186682 >> 8 = 12447.
  //   h = 12447 * 8812 = 109682964; / 2^23 = 13.08 -> 13.
  EXPECT_EQ(As<int8_t>(run.output), (std::vector<int8_t>{8, 13}));
  EXPECT_EQ(As<int8_t>(run.hidden), (std::vector<int8_t>{13}));
  EXPECT_EQ(As<int16_t>(run.cell), (std::vector<int16_t>{1638}));
}

// The same cell with int16 activations and int64 biases: the FC multiplier
// 1.0 = (2^30, shift 1) reduces to 16384 in the 64-bit rescale, and
// (4096 * 16384 + 2^13) >> 14 = 4096, so every gate, the cell and the hidden
// values (now int16) are those of the int8 test above.
TEST(LstmKernelTest, Int16GatesCellAndHiddenOverTwoSteps) {
  LstmModelSpec spec;
  spec.is_16x8 = true;
  const LstmRun run = RunLstm(spec);
  ASSERT_TRUE(run.prepared.ok()) << run.prepared.message();
  EXPECT_EQ(run.scratch_bytes, 4u * sizeof(int16_t));
  EXPECT_EQ(As<int16_t>(run.output), (std::vector<int16_t>{8, 13}));
  EXPECT_EQ(As<int16_t>(run.hidden), (std::vector<int16_t>{13}));
  EXPECT_EQ(As<int16_t>(run.cell), (std::vector<int16_t>{1638}));
}

TEST(LstmKernelTest, Int8CellClipTruncatesTheQuantizedClip) {
  LstmModelSpec spec;
  spec.cell_clip = 0.1f;  // 0.1 / 2^-12 = 409.6 -> 409 (truncated)
  const LstmRun run = RunLstm(spec);
  ASSERT_TRUE(run.prepared.ok()) << run.prepared.message();
  // Step 1: c = 946 -> clipped to 409. tanh(409): 1227 -> index 4, fraction 203:
  //   (35493 << 8) + 203 * 676 = 9223436 - 2^23 + 128 = 834956 >> 8 = 3261.
  //   h = 3261 * 8812 = 28735932; / 2^23 = 3.43 -> 3.
  // Step 2: 23956 * 409 = 9798004; / 2^15 = 299.01 -> 299;
  //   299 + 946 = 1245 -> clipped to 409 again; h = 3.
  EXPECT_EQ(As<int8_t>(run.output), (std::vector<int8_t>{3, 3}));
  EXPECT_EQ(As<int16_t>(run.cell), (std::vector<int16_t>{409}));
}

TEST(LstmKernelTest, FloatGatesFollowTheTextbookCell) {
  LstmModelSpec spec;
  spec.is_float = true;
  const LstmRun run = RunLstm(spec);
  ASSERT_TRUE(run.prepared.ok()) << run.prepared.message();
  EXPECT_EQ(run.scratch_bytes, 4u * sizeof(float));
  // The textbook cell with zero weights: f = s(1), i = s(0), g = tanh(0.5), o = s(-1).
  auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  const double f = sigmoid(1.0), i = sigmoid(0.0), g = std::tanh(0.5), o = sigmoid(-1.0);
  const double c1 = i * g;
  const double h1 = std::tanh(c1) * o;
  const double c2 = f * c1 + i * g;
  const double h2 = std::tanh(c2) * o;
  const std::vector<float> output = As<float>(run.output);
  ASSERT_EQ(output.size(), 2u);
  EXPECT_NEAR(output[0], h1, 1e-6);
  EXPECT_NEAR(output[1], h2, 1e-6);
  EXPECT_NEAR(As<float>(run.cell)[0], c2, 1e-6);
}

TEST(LstmKernelTest, PrepareRejectsVariantsAndBadParameters) {
  LstmModelSpec peephole;
  peephole.with_peephole = true;
  Status status = RunLstm(peephole).prepared;
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::strstr(status.message(), "input 10"), nullptr) << status.message();

  LstmModelSpec not_power_of_two;
  not_power_of_two.cell_scale = 0.0003f;
  status = RunLstm(not_power_of_two).prepared;
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::strstr(status.message(), "power of two"), nullptr) << status.message();

  LstmModelSpec relu;
  relu.activation = tflite::ActivationFunctionType::RELU;
  status = RunLstm(relu).prepared;
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::strstr(status.message(), "activation 1"), nullptr) << status.message();

  LstmModelSpec bad_shape;
  bad_shape.recurrent_rows = 2;  // recurrent weights must be [state, state] = [1, 1]
  status = RunLstm(bad_shape).prepared;
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::strstr(status.message(), "must have shape [1, 1]"), nullptr) << status.message();
}

}  // namespace
}  // namespace microarena
