// SVDF unit tests. Expected values are derived by hand in the comments, from
// TFLite's fixed-point rules:
//   SRDHM(a, b) = (a * b + nudge) / 2^31 truncated, nudge = 2^30 (a*b >= 0) or
//                 1 - 2^30 (a*b < 0): x * 2^30 -> x / 2 with +1.5 -> 2, -1.5 -> -1;
//   RoundingDivideByPOT(x, e): x / 2^e, ties away from zero;
//   multiplier 0.5 = (2^30, shift 0); 0.25 = (2^30, shift -1).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/reference/svdf.h"
#include "microarena/kernels/registrations.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "tests/support/kernel_harness.h"

namespace microarena {
namespace {

using testing::KernelHarness;

constexpr int32_t kQ30 = 1 << 30;

// Shared shape: 1 batch, 2 inputs, 4 filters, rank 2 (2 units), memory 2.
reference::SvdfShape SmallShape() {
  reference::SvdfShape shape;
  shape.batches = 1;
  shape.input_size = 2;
  shape.filters = 4;
  shape.rank = 2;
  shape.units = 2;
  shape.memory_size = 2;
  return shape;
}

reference::SvdfIntegerParams SmallParams() {
  reference::SvdfIntegerParams params;
  params.input_zero_point = 1;
  params.state_zero_point = 2;
  params.output_zero_point = -3;
  params.feature_multiplier = kQ30;  // 0.5
  params.feature_shift = 0;
  params.output_multiplier = kQ30;  // 0.25
  params.output_shift = -1;
  return params;
}

// Input {4, -2} - zero point 1 = {3, -3}.
// Feature dots: f0 [1, 0] -> 3; f1 [0, 1] -> -3; f2 [127, 127] -> 0; f3 [100, 0] -> 300.
// Times 0.5: SRDHM(3, 2^30) = (3 * 2^30 + 2^30) / 2^31 = 2; SRDHM(-3, 2^30) =
// (-3 * 2^30 + 1 - 2^30) / 2^31 = -1.99.. -> -1; 0; 150 -> saturated to 127.
// Plus zero point 2: 4, 1, 2, 129 -> int8 wraps to -127 (TFLM adds after saturating).
const int8_t kInput[] = {4, -2};
const int8_t kWeightsFeature[] = {1, 0, 0, 1, 127, 127, 100, 0};
const int8_t kWeightsTime[] = {1, 1, 1, 2, -1, 0, 0, 1};

TEST(SvdfReferenceTest, Int8StateShiftsSaturatesThenWrapsAndOutputDoubleRounds) {
  // State before: f0 {10, 20}, f1 {30, 40}, f2 {50, 60}, f3 {70, 80}. The whole
  // block shifts left by one, so f_k[0] = old f_k[1]: 20, 40, 60, 80; the newest
  // column gets 4, 1, 2, -127.
  int8_t state[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  // Time dots against memory - 2: f0 {18, 2}.{1, 1} = 20; f1 {38, -1}.{1, 2} = 36;
  // f2 {58, 0}.{-1, 0} = -58; f3 {78, -129}.{0, 1} = -129.
  // Units (rank 2): 1 + 20 + 36 = 57; -2 - 58 - 129 = -189.
  // 57 * 0.25: SRDHM(57, 2^30) = 58 * 2^30 / 2^31 = 29; RDBPOT(29, 1) = 14.5 -> 15
  //   (double rounding: 14.25 becomes 15); 15 - 3 = 12.
  // -189 * 0.25: SRDHM = (-190 * 2^30 + 1) / 2^31 = -94.99.. -> -94; RDBPOT(-94, 1)
  //   = -47; -47 - 3 = -50.
  const int32_t bias[] = {1, -2};
  int32_t scratch[4];
  int32_t scratch_output[2];
  int8_t output[2];
  reference::SvdfInteger<int8_t>(SmallParams(), SmallShape(), kInput, kWeightsFeature, kWeightsTime, bias, state,
                                 scratch, scratch_output, output);
  EXPECT_EQ(std::vector<int8_t>(state, state + 8), (std::vector<int8_t>{20, 4, 40, 1, 60, 2, 80, -127}));
  EXPECT_EQ(std::vector<int32_t>(scratch, scratch + 4), (std::vector<int32_t>{20, 36, -58, -129}));
  EXPECT_EQ(std::vector<int8_t>(output, output + 2), (std::vector<int8_t>{12, -50}));
}

TEST(SvdfReferenceTest, Int8OutputSaturatesAndBiasIsOptional) {
  // Same state and weights; bias {1000, -1000}: units 1056 and -1187, times 0.25
  // about 264 and -297, minus 3: saturated to 127 and -128.
  int8_t state[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  const int32_t bias[] = {1000, -1000};
  int32_t scratch[4];
  int32_t scratch_output[2];
  int8_t output[2];
  reference::SvdfInteger<int8_t>(SmallParams(), SmallShape(), kInput, kWeightsFeature, kWeightsTime, bias, state,
                                 scratch, scratch_output, output);
  EXPECT_EQ(std::vector<int8_t>(output, output + 2), (std::vector<int8_t>{127, -128}));

  // No bias: units 56 and -187. 56 * 0.25: SRDHM = 28, RDBPOT(28, 1) = 14, -3 -> 11.
  // -187: SRDHM = (-188 * 2^30 + 1) / 2^31 -> -93; RDBPOT(-93, 1) = -46.5 -> -47; -3 -> -50.
  int8_t state2[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  reference::SvdfInteger<int8_t>(SmallParams(), SmallShape(), kInput, kWeightsFeature, kWeightsTime, nullptr, state2,
                                 scratch, scratch_output, output);
  EXPECT_EQ(std::vector<int8_t>(output, output + 2), (std::vector<int8_t>{11, -50}));
}

TEST(SvdfReferenceTest, Int16StateKeepsWhatInt8WouldSaturate) {
  // int16 state, zero point 0: newest column 2, -1, 0, 150 (150 fits int16).
  reference::SvdfIntegerParams params = SmallParams();
  params.state_zero_point = 0;
  int16_t state[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int16_t weights_time[] = {0, 1, 0, 1, 0, 1, 0, -300};
  // Time dots: 2, -1, 0, 150 * -300 = -45000. Units: 1 + 2 - 1 = 2 -> 0.25:
  // SRDHM(2, 2^30) = 1, RDBPOT(1, 1) = 0.5 -> 1, -3 -> -2.
  // -2 + 0 - 45000 = -45002 -> SRDHM = (-45003 * 2^30 + 1)/2^31 -> -22501 (-22501.5
  // truncated), RDBPOT(-22501, 1) = -11250.5 -> -11251 -> saturated to -128.
  const int32_t bias[] = {1, -2};
  int32_t scratch[4];
  int32_t scratch_output[2];
  int8_t output[2];
  reference::SvdfInteger<int16_t>(params, SmallShape(), kInput, kWeightsFeature, weights_time, bias, state, scratch,
                                  scratch_output, output);
  EXPECT_EQ(std::vector<int16_t>(state, state + 8), (std::vector<int16_t>{0, 2, 0, -1, 0, 0, 0, 150}));
  EXPECT_EQ(std::vector<int8_t>(output, output + 2), (std::vector<int8_t>{-2, -128}));
}

// ---- through prepare + eval on a one-op model ----

struct SvdfModelSpec {
  TensorType input_type = TensorType::kInt8;
  TensorType time_type = TensorType::kInt8;
  TensorType state_type = TensorType::kInt8;
  int32_t rank = 2;
  float bias_scale = 0.25f;
  std::vector<int32_t> state_shape = {1, 8};
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
};

// Integer scales: input 1 (zp 1), weights_feature 0.5, weights_time 0.25,
// state 1 (zp 2), output 1 (zp -3): multipliers 1 * 0.5 / 1 = 0.5 and
// 1 * 0.25 / 1 = 0.25, the ones SmallParams() uses.
std::vector<uint8_t> BuildSvdfModel(const SvdfModelSpec& spec) {
  ModelBuilder builder;
  // Float weights iff the time weights are float; the other tensors follow the input.
  const bool is_float = spec.input_type == TensorType::kFloat32;
  auto quant = [&](float scale, int64_t zp) {
    return is_float ? QuantizationSpec{} : QuantizationSpec::PerTensor(scale, zp);
  };
  const int32_t input = builder.AddTensor({"input", spec.input_type, {1, 2}, 0, quant(1.0f, 1)});
  int32_t weights_feature = 0, weights_time = 0, bias = 0;
  if (spec.time_type == TensorType::kFloat32) {
    weights_feature = builder.AddConstantTensor({"wf", TensorType::kFloat32, {4, 2}, 0, {}},
                                                BytesOf<float>({1, 1, 0.5f, -1, 2, 0, 0, 0}));
    weights_time = builder.AddConstantTensor({"wt", TensorType::kFloat32, {4, 2}, 0, {}},
                                             BytesOf<float>({1, 2, 1, 1, 0, 1, 0, 1}));
    bias = builder.AddConstantTensor({"bias", TensorType::kFloat32, {2}, 0, {}}, BytesOf<float>({0.5f, -5.0f}));
  } else {
    weights_feature = builder.AddConstantTensor({"wf", TensorType::kInt8, {4, 2}, 0, quant(0.5f, 0)},
                                                BytesOf<int8_t>({1, 0, 0, 1, 127, 127, 100, 0}));
    if (spec.time_type == TensorType::kInt16) {
      weights_time = builder.AddConstantTensor({"wt", TensorType::kInt16, {4, 2}, 0, quant(0.25f, 0)},
                                               BytesOf<int16_t>({1, 1, 1, 2, -1, 0, 0, 1}));
    } else {
      weights_time = builder.AddConstantTensor({"wt", spec.time_type, {4, 2}, 0, quant(0.25f, 0)},
                                               BytesOf<int8_t>({1, 1, 1, 2, -1, 0, 0, 1}));
    }
    bias = builder.AddConstantTensor({"bias", TensorType::kInt32, {2}, 0, quant(spec.bias_scale, 0)},
                                     BytesOf<int32_t>({1, -2}));
  }
  TensorSpec state_spec{"state", spec.state_type, spec.state_shape, 0, quant(1.0f, 2)};
  state_spec.is_variable = true;
  const int32_t state = builder.AddTensor(state_spec);
  const int32_t output = builder.AddTensor({"output", is_float ? TensorType::kFloat32 : TensorType::kInt8, {1, 2}, 0,
                                            quant(1.0f, -3)});
  tflite::SVDFOptionsT options;
  options.rank = spec.rank;
  options.fused_activation_function = spec.activation;
  OperatorSpec op;
  op.op = BuiltinOp::kSvdf;
  op.inputs = {input, weights_feature, weights_time, bias, state};
  op.outputs = {output};
  op.options = MakeBuiltinOptions(options);
  builder.AddOperator(std::move(op));
  builder.SetInputs({input});
  builder.SetOutputs({output});
  return builder.Build();
}

constexpr int32_t kInputTensor = 0;
constexpr int32_t kStateTensor = 4;
constexpr int32_t kOutputTensor = 5;

template <typename T>
std::vector<T> As(const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

TEST(SvdfKernelTest, Int8PrepareComputesMultipliersAndStateStartsAtZeroPoint) {
  const std::vector<uint8_t> file = BuildSvdfModel({});
  Result<ModelView> model = LoadModel(Span<const uint8_t>(file.data(), file.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  KernelHarness harness(*model, 0, AllOpsResolver());
  harness.SetTensorBytes(kInputTensor, BytesOf<int8_t>({4, -2}));
  ASSERT_TRUE(harness.Prepare().ok());
  // TFLM's two requests: batches x filters and batches x units int32.
  EXPECT_EQ(harness.scratch_bytes(), 4u * 4 + 2u * 4);
  ASSERT_TRUE(harness.Eval().ok());
  // The state starts at its zero point 2 everywhere: after the shift every old
  // entry is 2 (centred 0) and the newest column is 4, 1, 2, -127 (see above),
  // centred 2, -1, 0, -129. Time dots: 2, -2, 0, -129. Units: 1 + 2 - 2 = 1 and
  // -2 + 0 - 129 = -131.
  // 1 * 0.25: SRDHM(1, 2^30) = 1, RDBPOT(1, 1) = 0.5 -> 1; -3 -> -2.
  // -131 * 0.25: SRDHM = (-132 * 2^30 + 1) / 2^31 -> -65; RDBPOT(-65, 1) = -32.5 -> -33; -3 -> -36.
  EXPECT_EQ(As<int8_t>(harness.TensorBytes(kOutputTensor)), (std::vector<int8_t>{-2, -36}));
  EXPECT_EQ(As<int8_t>(harness.TensorBytes(kStateTensor)), (std::vector<int8_t>{2, 4, 2, 1, 2, 2, 2, -127}));
}

TEST(SvdfKernelTest, FloatAppliesBiasRankSumAndRelu) {
  SvdfModelSpec spec;
  spec.input_type = TensorType::kFloat32;
  spec.time_type = TensorType::kFloat32;
  spec.state_type = TensorType::kFloat32;
  spec.activation = tflite::ActivationFunctionType::RELU;
  const std::vector<uint8_t> file = BuildSvdfModel(spec);
  Result<ModelView> model = LoadModel(Span<const uint8_t>(file.data(), file.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  KernelHarness harness(*model, 0, AllOpsResolver());
  harness.SetTensorBytes(kInputTensor, BytesOf<float>({1.0f, 2.0f}));
  ASSERT_TRUE(harness.Prepare().ok());
  EXPECT_EQ(harness.scratch_bytes(), 4u * sizeof(float));  // one request: batches x filters
  ASSERT_TRUE(harness.Eval().ok());
  // Feature dots with {1, 2}: {1, 1} -> 3; {0.5, -1} -> -1.5; {2, 0} -> 2; {0, 0} -> 0.
  // State (zero) after the step: {0, 3, 0, -1.5, 0, 2, 0, 0}.
  // Time dots: {1, 2}.{0, 3} = 6; {1, 1}.{0, -1.5} = -1.5; {0, 1}.{0, 2} = 2; 0.
  // Units (rank 2): 0.5 + 6 - 1.5 = 5; -5 + 2 + 0 = -3 -> RELU -> 0.
  EXPECT_EQ(As<float>(harness.TensorBytes(kOutputTensor)), (std::vector<float>{5.0f, 0.0f}));
  EXPECT_EQ(As<float>(harness.TensorBytes(kStateTensor)),
            (std::vector<float>{0.0f, 3.0f, 0.0f, -1.5f, 0.0f, 2.0f, 0.0f, 0.0f}));
}

Status PrepareOnly(const SvdfModelSpec& spec) {
  const std::vector<uint8_t> file = BuildSvdfModel(spec);
  Result<ModelView> model = LoadModel(Span<const uint8_t>(file.data(), file.size()));
  if (!model.ok()) return model.status();
  KernelHarness harness(*model, 0, AllOpsResolver());
  return harness.Prepare();
}

TEST(SvdfKernelTest, PrepareRejectsMixedStateAndTimeWeightTypes) {
  SvdfModelSpec spec;
  spec.time_type = TensorType::kInt16;  // state stays int8
  const Status status = PrepareOnly(spec);
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported) << status.message();
  EXPECT_NE(std::strstr(status.message(), "INT16"), nullptr) << status.message();
}

TEST(SvdfKernelTest, PrepareAcceptsInt16StateWithInt16TimeWeights) {
  SvdfModelSpec spec;
  spec.time_type = TensorType::kInt16;
  spec.state_type = TensorType::kInt16;
  EXPECT_TRUE(PrepareOnly(spec).ok());
}

TEST(SvdfKernelTest, PrepareRejectsBadShapesRankAndBiasScale) {
  SvdfModelSpec wrong_state;
  wrong_state.state_shape = {1, 6};  // memory 2 x 4 filters = 8
  Status status = PrepareOnly(wrong_state);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::strstr(status.message(), "state tensor 4"), nullptr) << status.message();

  SvdfModelSpec bad_rank;
  bad_rank.rank = 3;  // does not divide 4 filters
  status = PrepareOnly(bad_rank);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::strstr(status.message(), "rank 3"), nullptr) << status.message();

  SvdfModelSpec bad_bias;
  bad_bias.bias_scale = 0.5f;  // state 1 x weights_time 0.25 = 0.25 expected
  status = PrepareOnly(bad_bias);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::strstr(status.message(), "bias tensor 3"), nullptr) << status.message();
}

TEST(SvdfKernelTest, PrepareRejectsFloatInputWithInt8WeightsAndFloatStateWithInt8Input) {
  SvdfModelSpec float_input;
  float_input.input_type = TensorType::kFloat32;  // weights stay int8
  float_input.state_type = TensorType::kFloat32;
  Status status = PrepareOnly(float_input);
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported) << status.message();

  SvdfModelSpec float_state;
  float_state.state_type = TensorType::kFloat32;  // int8 input and weights
  status = PrepareOnly(float_state);
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported) << status.message();
}

}  // namespace
}  // namespace microarena
