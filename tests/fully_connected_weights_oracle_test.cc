// Differential tests of FULLY_CONNECTED's other weights against TFLM itself
// (../shared/tools/tflm_oracle): one-op models built here run in both and
// must give the same bytes.
//   - Per-channel weights (one scale per unit, as converters write dense
//     layers with per-channel quantization), int8 and 16x8. TFLM's rules,
//     read from its fully_connected_common.cc and checked here: per-channel
//     when the weights have more than one scale, one per unit; each unit's
//     multiplier is input x filter / output scale in double; the bias scale
//     is not checked.
//   - INT4 weights packed two per byte (int8 activations, per tensor), which
//     TFLM unpacks into an arena scratch buffer the size of the weights and
//     microarena reads in place.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
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
using testing::OneOp;
using testing::PackedInt4;
using testing::SpreadValues;

struct PerChannelFc {
  std::vector<int32_t> input = {3, 40};
  int32_t units = 7;
  TensorType input_type = TensorType::kInt8;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  TensorType bias = TensorType::kInt32;  // kString: no bias
  float input_scale = 0.02f;
  float output_scale = 0.05f;
  int64_t input_zero_point = -5;
  int64_t output_zero_point = 3;
  std::vector<float> filter_scales;  // empty: ChannelScales(units, 0.004)
  std::vector<int64_t> filter_zero_points;  // empty: all 0
  int32_t quantized_dimension = 0;
  bool keep_num_dims = false;
  std::vector<int32_t> output;  // empty: [rows, units]
};

Bytes Model(const PerChannelFc& s) {
  OneOp m;
  m.Input(s.input_type, s.input, s.input_scale, s.input_zero_point);
  const int32_t depth = s.input.back();
  const std::vector<int32_t> filter = {s.units, depth};
  const std::vector<float> scales =
      s.filter_scales.empty() ? testing::ChannelScales(static_cast<size_t>(s.units), 0.004f) : s.filter_scales;
  const std::vector<int64_t> zero_points =
      s.filter_zero_points.empty() ? std::vector<int64_t>(scales.size(), 0) : s.filter_zero_points;
  m.Constant("filter", TensorType::kInt8, filter, BytesOf(SpreadValues<int8_t>(ElementCount(filter), 3)),
             QuantizationSpec::PerChannel(scales, zero_points, s.quantized_dimension));
  if (s.bias != TensorType::kString) {
    // Per-unit bias scales input x filter scale, as converters write them.
    std::vector<float> bias_scales;
    std::vector<int64_t> bias;
    for (int32_t u = 0; u < s.units; ++u) {
      bias_scales.push_back(s.input_scale * scales[static_cast<size_t>(u) % scales.size()]);
      bias.push_back(static_cast<int64_t>(u * 7919 % 20001) - 10000);
    }
    const Bytes bias_bytes = s.bias == TensorType::kInt32
                                 ? BytesOf(std::vector<int32_t>(bias.begin(), bias.end()))
                                 : BytesOf(bias);
    m.Constant("bias", s.bias, {s.units}, bias_bytes,
               QuantizationSpec::PerChannel(bias_scales, std::vector<int64_t>(bias_scales.size(), 0), 0));
  }
  tflite::FullyConnectedOptionsT options;
  options.fused_activation_function = s.activation;
  options.keep_num_dims = s.keep_num_dims;
  const int32_t rows = static_cast<int32_t>(ElementCount(s.input)) / depth;
  const std::vector<int32_t> output = s.output.empty() ? std::vector<int32_t>{rows, s.units} : s.output;
  return m.Finish(BuiltinOp::kFullyConnected, MakeBuiltinOptions(options), s.input_type, output, s.output_scale,
                  s.output_zero_point);
}

Bytes Input(const PerChannelFc& s) {
  if (s.input_type == TensorType::kInt16) return BytesOf(SpreadValues<int16_t>(ElementCount(s.input), 1));
  return BytesOf(SpreadValues<int8_t>(ElementCount(s.input), 1));
}

TEST(FullyConnectedWeightsOracleTest, MatchesTflm) {
  MICROARENA_REQUIRE_ORACLE();
  std::vector<PerChannelFc> specs;
  for (tflite::ActivationFunctionType activation :
       {tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU,
        tflite::ActivationFunctionType::RELU6, tflite::ActivationFunctionType::RELU_N1_TO_1}) {
    for (TensorType bias : {TensorType::kInt32, TensorType::kString}) {
      PerChannelFc s;
      s.activation = activation;
      s.bias = bias;
      specs.push_back(s);
    }
  }
  // 4, 2 and 1-unit tails of the fast loop, a long sum, several rows.
  for (int32_t units : {1 + 4 + 2, 33, 34, 36}) {
    PerChannelFc s;
    s.input = {5, 300};
    s.units = units;
    specs.push_back(s);
  }
  // Scales far apart: multipliers from about 2^-20 to 2^6, so shifts of both
  // signs; zero points at the ends of int8.
  PerChannelFc spread;
  spread.units = 6;
  spread.filter_scales = {1e-7f, 3e-5f, 0.004f, 0.9f, 2.5f, 13.0f};
  spread.input_zero_point = 127;
  spread.output_zero_point = -128;
  specs.push_back(spread);
  // A bias scale far from input x filter scale: TFLM checks it only for
  // per-tensor weights.
  PerChannelFc any_bias_scale = spread;
  any_bias_scale.input_scale = 0.5f;
  specs.push_back(any_bias_scale);
  // 16x8: int16 activations, int8 weights; an int32 bias takes int32 sums
  // and the 32-bit rescale, an int64 bias or none int64 ones.
  for (TensorType bias : {TensorType::kInt64, TensorType::kInt32, TensorType::kString}) {
    for (int64_t zero_point : {int64_t{0}, int64_t{-300}}) {
      PerChannelFc s;
      s.input_type = TensorType::kInt16;
      s.input = {4, 64};
      s.units = 11;
      s.bias = bias;
      s.input_scale = 0.0009f;
      s.output_scale = 0.0007f;
      s.input_zero_point = zero_point;
      s.output_zero_point = -zero_point;
      s.activation = tflite::ActivationFunctionType::RELU6;
      specs.push_back(s);
    }
  }
  int n = 0;
  for (const PerChannelFc& s : specs) {
    ExpectSameAsOracle("fc_per_channel_" + std::to_string(n++), Model(s), {Input(s)}, kSmallArena);
  }
}

TEST(FullyConnectedWeightsOracleTest, RefusesWhatTflmRefuses) {
  MICROARENA_REQUIRE_ORACLE();
  PerChannelFc count;  // 3 scales for 7 units
  count.filter_scales = {0.01f, 0.02f, 0.03f};
  count.bias = TensorType::kString;
  ExpectBothRefuse("fc_per_channel_count", Model(count), {Input(count)}, "quantization scales");
}

// Where TFLM runs a model whose result does not mean what the model says:
// refused here, with the reason.
TEST(FullyConnectedWeightsOracleTest, RefusesWhatTflmMisreads) {
  MICROARENA_REQUIRE_ORACLE();
  // Scales along the depth (40 of them): TFLM checks the count against
  // dimension 1 and then reads them by unit.
  PerChannelFc depth;
  depth.filter_scales = testing::ChannelScales(40, 0.004f);
  depth.quantized_dimension = 1;
  depth.bias = TensorType::kString;
  ExpectWeRefuse(Model(depth), {Input(depth)},
                 "has 40 quantization scales along dimension 1; per-channel weights need one per unit (7) along "
                 "dimension 0");
  // keep_num_dims with a rank-3 output: TFLM's per-channel kernel takes
  // dimension 0 as the rows and dimension 1 as the units, so it would write
  // 3 of each row's 7 outputs.
  PerChannelFc rank3;
  rank3.input = {1, 3, 40};
  rank3.keep_num_dims = true;
  rank3.output = {1, 3, 7};
  ExpectWeRefuse(Model(rank3), {Input(rank3)}, "TFLM's per-channel kernel reads it as [rows, units]");
  rank3.filter_scales = {0.004f};  // per-tensor weights: any rank
  ExpectSameAsOracle("fc_per_tensor_rank3", Model(rank3), {Input(rank3)}, kSmallArena);
  // Asymmetric weights: TFLM drops their zero points.
  PerChannelFc asymmetric;
  asymmetric.filter_zero_points = {0, 1, 0, 0, 0, 0, -2};
  ExpectWeRefuse(Model(asymmetric), {Input(asymmetric)}, "unit 1 has scale 0.00548 and zero point 1; int8 weights need");
}

// INT4 weights: [units, depth] values in [-8, 7], packed two per byte, low
// nibble first (a row starts mid-byte when depth is odd).
struct Int4Fc {
  std::vector<int32_t> input;
  int32_t units;
  bool bias;
  tflite::ActivationFunctionType activation;
  int64_t input_zero_point;
  int64_t output_zero_point;
  float output_scale;
};

Bytes Int4Model(const Int4Fc& s) {
  OneOp m;
  const float input_scale = 0.05f;
  const float filter_scale = 0.1f;
  m.Input(TensorType::kInt8, s.input, input_scale, s.input_zero_point);
  const int32_t depth = s.input.back();
  const size_t count = static_cast<size_t>(s.units) * static_cast<size_t>(depth);
  m.Constant("filter", TensorType::kInt4, {s.units, depth}, PackedInt4(count, static_cast<uint32_t>(depth)),
             QuantizationSpec::PerTensor(filter_scale, 0));
  if (s.bias) {
    std::vector<int32_t> bias;
    for (int32_t u = 0; u < s.units; ++u) bias.push_back(u * 311 - 900);
    m.Constant("bias", TensorType::kInt32, {s.units}, BytesOf(bias),
               QuantizationSpec::PerTensor(input_scale * filter_scale, 0));
  }
  tflite::FullyConnectedOptionsT options;
  options.fused_activation_function = s.activation;
  const int32_t rows = static_cast<int32_t>(ElementCount(s.input)) / depth;
  return m.Finish(BuiltinOp::kFullyConnected, MakeBuiltinOptions(options), TensorType::kInt8, {rows, s.units},
                  s.output_scale, s.output_zero_point);
}

TEST(FullyConnectedWeightsOracleTest, Int4WeightsMatchTflmWithoutTheirScratch) {
  MICROARENA_REQUIRE_ORACLE();
  using A = tflite::ActivationFunctionType;
  const Int4Fc cases[] = {
      {{3, 37}, 7, true, A::NONE, -5, 3, 0.2f},     // odd depth: rows start mid-byte
      {{1, 200}, 5, true, A::RELU, 10, -20, 0.5f},  // several 64-value chunks and a tail
      {{2, 64}, 9, false, A::RELU6, 0, 0, 0.1f},
      {{4, 1}, 3, true, A::NONE, 127, -128, 0.01f},
      {{1, 1000}, 2, false, A::NONE, -128, 5, 3.0f},
  };
  int n = 0;
  for (const Int4Fc& s : cases) {
    const Bytes model = Int4Model(s);
    const Bytes input = BytesOf(SpreadValues<int8_t>(ElementCount(s.input), 1));
    const std::string name = "fc_int4_" + std::to_string(n++);
    ExpectSameAsOracle(name, model, {input}, kSmallArena);
    // TFLM's arena holds the unpacked weights (units x depth bytes of
    // scratch); microarena's does not.
    const testing::Outcome tflm = testing::RunOracleOn(name + "_arena", model, {input}, kSmallArena);
    const testing::Outcome ours = testing::RunOursOn(model, {input});
    ASSERT_TRUE(tflm.ok && ours.ok) << name;
    EXPECT_GE(tflm.arena_used_bytes, ours.arena_used_bytes + static_cast<size_t>(s.units) * s.input.back()) << name;
  }
}

TEST(FullyConnectedWeightsOracleTest, Int4WeightsRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  // Per-channel INT4: TFLM's per-channel path refuses INT4 weights.
  OneOp m;
  m.Input(TensorType::kInt8, {1, 4}, 0.05f, 0);
  m.Constant("filter", TensorType::kInt4, {2, 4}, PackedInt4(8, 3),
             QuantizationSpec::PerChannel({0.1f, 0.2f}, {0, 0}, 0));
  ExpectBothRefuse("fc_int4_per_channel",
                   m.Finish(BuiltinOp::kFullyConnected, MakeBuiltinOptions(tflite::FullyConnectedOptionsT{}),
                            TensorType::kInt8, {1, 2}, 0.2f, 0),
                   {BytesOf(SpreadValues<int8_t>(4, 1))}, "INT4 weights must be quantized per tensor");
}

}  // namespace
}  // namespace microarena
