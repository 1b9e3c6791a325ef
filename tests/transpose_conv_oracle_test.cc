// Differential tests of TRANSPOSE_CONV (float32, int8, 16x8) against TFLM
// itself (../shared/tools/tflm_oracle): one-op models built here, run in
// microarena and in the oracle, must give the same bytes; our arena must not
// exceed TFLM's minimum; types TFLM does not run are refused clearly. Every
// expected value comes from the oracle.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/conv_oracle_support.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::Bytes;
using testing::ElementCount;
using testing::ExpectSameAsOracle;
using testing::OneOp;
using testing::Outcome;
using testing::RunOursOn;
using testing::SpreadValues;

using testing::kSmallArena;

struct TransposeConvSpec {
  TensorType type = TensorType::kInt16;        // input and output
  TensorType filter_type = TensorType::kInt8;  // kFloat32 for float
  TensorType bias_type = TensorType::kInt64;   // kNoBias: none
  std::vector<int32_t> input;                  // NHWC
  std::vector<int32_t> filter;                 // OHWI
  std::vector<int32_t> output;                 // NHWC
  tflite::Padding padding = tflite::Padding::VALID;
  int32_t stride_h = 1;
  int32_t stride_w = 1;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  bool per_channel = true;
  float input_scale = 0.0009f;
  float filter_scale = 0.004f;
  float output_scale = 0.001f;
  int64_t input_zero_point = 0;
  int64_t output_zero_point = 0;
  bool omit_bias_slot = false;  // 4 inputs with input 3 = -1 instead of 3 inputs
};

// Marks "no bias" in TransposeConvSpec::bias_type.
constexpr TensorType kNoBias = TensorType::kString;

// Along one axis: VALID gives (in - 1) * stride + filter, SAME in * stride.
int32_t TransposedSize(tflite::Padding padding, int32_t in, int32_t filter, int32_t stride) {
  return padding == tflite::Padding::VALID ? (in - 1) * stride + filter : in * stride;
}

Bytes FilterBytes(TensorType type, size_t n) {
  if (type == TensorType::kFloat32) return BytesOf(testing::SpreadFloats(n, 3));
  if (type == TensorType::kInt16) return BytesOf(SpreadValues<int16_t>(n, 3));
  return BytesOf(SpreadValues<int8_t>(n, 3));
}

Bytes InputBytes(TensorType type, size_t n) {
  if (type == TensorType::kFloat32) return BytesOf(testing::SpreadFloats(n, 1));
  if (type == TensorType::kInt16) return BytesOf(SpreadValues<int16_t>(n, 1));
  return BytesOf(SpreadValues<int8_t>(n, 1));
}

Bytes BiasBytes(TensorType type, size_t channels) {
  std::vector<int64_t> values;
  for (size_t c = 0; c < channels; ++c) values.push_back(static_cast<int64_t>(c * 7919 % 4001) - 2000);
  switch (type) {
    case TensorType::kFloat32: {
      std::vector<float> f;
      for (int64_t v : values) f.push_back(static_cast<float>(v) / 1000.0f);
      return BytesOf(f);
    }
    case TensorType::kInt16: return BytesOf(std::vector<int16_t>(values.begin(), values.end()));
    case TensorType::kInt32: return BytesOf(std::vector<int32_t>(values.begin(), values.end()));
    default: return BytesOf(values);
  }
}

Bytes TransposeConvModel(const TransposeConvSpec& s) {
  OneOp m;
  const bool is_float = s.type == TensorType::kFloat32;
  m.Constant("output_shape", TensorType::kInt32, {4}, BytesOf(s.output), {});
  const auto channels = static_cast<size_t>(s.filter[0]);
  const std::vector<float> scales =
      s.per_channel ? testing::ChannelScales(channels, s.filter_scale) : std::vector<float>{s.filter_scale};
  m.Constant(
      "filter", s.filter_type, s.filter, FilterBytes(s.filter_type, ElementCount(s.filter)),
      is_float ? QuantizationSpec{} : QuantizationSpec::PerChannel(scales, std::vector<int64_t>(scales.size(), 0), 0));
  if (is_float) {
    m.FloatInput(s.input);
  } else {
    m.Input(s.type, s.input, s.input_scale, s.input_zero_point);
  }
  if (s.bias_type != kNoBias) {
    std::vector<float> bias_scales;
    for (float scale : scales) bias_scales.push_back(scale * s.input_scale);
    m.Constant("bias", s.bias_type, {static_cast<int32_t>(channels)}, BiasBytes(s.bias_type, channels),
               is_float ? QuantizationSpec{}
                        : QuantizationSpec::PerChannel(bias_scales, std::vector<int64_t>(bias_scales.size(), 0), 0));
  } else if (s.omit_bias_slot) {
    m.op_inputs.push_back(-1);
  }
  tflite::TransposeConvOptionsT options;
  options.padding = s.padding;
  options.stride_h = s.stride_h;
  options.stride_w = s.stride_w;
  options.fused_activation_function = s.activation;
  return m.Finish(BuiltinOp::kTransposeConv, MakeBuiltinOptions(options), s.type, s.output, s.output_scale,
                  s.output_zero_point);
}

std::vector<Bytes> TransposeConvInputs(const TransposeConvSpec& s) {
  return {InputBytes(s.type, ElementCount(s.input))};
}

void ExpectTransposeConvSameAsOracle(const std::string& name, const TransposeConvSpec& s) {
  ExpectSameAsOracle(name, TransposeConvModel(s), TransposeConvInputs(s), kSmallArena);
}

struct Geometry {
  std::vector<int32_t> input;
  int32_t filter_h, filter_w, out_channels;
  tflite::Padding padding;
  int32_t stride_h, stride_w;
};

// Input shape, filter size, output channels, padding and strides; the
// output shape follows.
const Geometry kGeometries[] = {
    {{1, 1, 5, 8}, 3, 4, 8, tflite::Padding::VALID, 1, 2},  // seanet's decoder shape, smaller
    {{1, 2, 6, 4}, 3, 4, 6, tflite::Padding::VALID, 2, 2}, {{1, 3, 4, 3}, 3, 3, 5, tflite::Padding::SAME, 2, 2},
    {{1, 4, 4, 2}, 2, 2, 3, tflite::Padding::SAME, 1, 1},  {{2, 3, 3, 4}, 5, 3, 2, tflite::Padding::SAME, 3, 2},
    {{1, 2, 3, 2}, 1, 1, 4, tflite::Padding::VALID, 3, 3},  // taps leave gaps
    {{1, 3, 5, 3}, 4, 2, 3, tflite::Padding::VALID, 1, 3},
};

TransposeConvSpec SpecFor(const Geometry& g, TensorType type) {
  TransposeConvSpec s;
  s.type = type;
  s.filter_type = type == TensorType::kFloat32 ? TensorType::kFloat32 : TensorType::kInt8;
  s.bias_type = type == TensorType::kFloat32 ? TensorType::kFloat32
                : type == TensorType::kInt8  ? TensorType::kInt32
                                             : TensorType::kInt64;
  s.input = g.input;
  s.filter = {g.out_channels, g.filter_h, g.filter_w, g.input[3]};
  s.output = {g.input[0], TransposedSize(g.padding, g.input[1], g.filter_h, g.stride_h),
              TransposedSize(g.padding, g.input[2], g.filter_w, g.stride_w), g.out_channels};
  s.padding = g.padding;
  s.stride_h = g.stride_h;
  s.stride_w = g.stride_w;
  if (type == TensorType::kInt8) {
    s.input_scale = 0.05f;
    s.filter_scale = 0.01f;
    s.output_scale = 0.2f;
    s.input_zero_point = -3;
    s.output_zero_point = 5;
  }
  return s;
}

const char* TypeName(TensorType type) {
  return type == TensorType::kFloat32 ? "f32" : type == TensorType::kInt8 ? "i8" : "i16";
}

TEST(TransposeConvOracleTest, GeometriesMatchTflmInEveryType) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}) {
    for (const Geometry& g : kGeometries) {
      const TransposeConvSpec s = SpecFor(g, type);
      ExpectTransposeConvSameAsOracle(std::string("tconv_") + TypeName(type) + "_" + std::to_string(cases++), s);
    }
  }
}

// With and without a bias (3 inputs, or 4 with the last omitted), an int16
// bias for 16x8 (TFLM widens it to int64), per-tensor filter scales.
TEST(TransposeConvOracleTest, BiasVariantsAndPerTensorScalesMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}) {
    for (const Geometry& g : {kGeometries[0], kGeometries[2]}) {
      std::vector<TransposeConvSpec> specs;
      TransposeConvSpec no_bias = SpecFor(g, type);
      no_bias.bias_type = kNoBias;
      specs.push_back(no_bias);
      no_bias.omit_bias_slot = true;
      specs.push_back(no_bias);
      TransposeConvSpec per_tensor = SpecFor(g, type);
      per_tensor.per_channel = false;
      specs.push_back(per_tensor);
      if (type == TensorType::kInt16) {
        TransposeConvSpec bias16 = SpecFor(g, type);
        bias16.bias_type = TensorType::kInt16;
        specs.push_back(bias16);
      }
      for (const TransposeConvSpec& s : specs) {
        ExpectTransposeConvSameAsOracle(std::string("tconv_bias_") + TypeName(type) + "_" + std::to_string(cases++), s);
      }
    }
  }
}

// Fused activations, and quantized scales from tiny to large multipliers.
TEST(TransposeConvOracleTest, ActivationsAndScalesMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  const tflite::ActivationFunctionType activations[] = {
      tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
      tflite::ActivationFunctionType::RELU_N1_TO_1};
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}) {
    for (tflite::ActivationFunctionType activation : activations) {
      TransposeConvSpec s = SpecFor(kGeometries[1], type);
      s.activation = activation;
      ExpectTransposeConvSameAsOracle(std::string("tconv_act_") + TypeName(type) + "_" + std::to_string(cases++), s);
    }
  }
  struct Scales {
    float input, filter, output;
  };
  for (const Scales& sc : {Scales{1e-5f, 1e-4f, 0.3f}, Scales{0.02f, 0.03f, 0.0004f}, Scales{0.5f, 0.01f, 0.02f}}) {
    for (TensorType type : {TensorType::kInt8, TensorType::kInt16}) {
      TransposeConvSpec s = SpecFor(kGeometries[2], type);
      s.input_scale = sc.input;
      s.filter_scale = sc.filter;
      s.output_scale = sc.output;
      ExpectTransposeConvSameAsOracle(std::string("tconv_scales_") + TypeName(type) + "_" + std::to_string(cases++), s);
    }
  }
}

// Hand-computed, no oracle needed. Stride 2 with a 2x2 filter: each input
// value v at (y, x) writes the block v * filter at (2y, 2x), no overlap;
// plus the bias 0.5. Stride 1 with a 1x2 filter over {1, 2}: outputs
// 1*1, 1*10 + 2*1, 2*10 (the middle one sums two taps).
TEST(TransposeConvOracleTest, FloatMatchesHandComputedScatter) {
  const auto run = [](std::vector<int32_t> input_shape, std::vector<float> input, std::vector<int32_t> filter_shape,
                      std::vector<float> filter, std::vector<float> bias, std::vector<int32_t> output_shape,
                      int32_t stride) {
    OneOp m;
    m.Constant("output_shape", TensorType::kInt32, {4}, BytesOf(output_shape), {});
    m.Constant("filter", TensorType::kFloat32, filter_shape, BytesOf(filter), {});
    m.FloatInput(input_shape);
    if (!bias.empty()) m.Constant("bias", TensorType::kFloat32, {1}, BytesOf(bias), {});
    tflite::TransposeConvOptionsT options;
    options.padding = tflite::Padding::VALID;
    options.stride_h = options.stride_w = stride;
    const Bytes model =
        m.Finish(BuiltinOp::kTransposeConv, MakeBuiltinOptions(options), TensorType::kFloat32, output_shape, 0.0f, 0);
    return RunOursOn(model, {BytesOf(input)});
  };
  const Outcome blocks =
      run({1, 2, 2, 1}, {1, 2, 3, 4}, {1, 2, 2, 1}, {1, 10, 100, 1000}, {0.5f}, {1, 4, 4, 1}, /*stride=*/2);
  ASSERT_TRUE(blocks.ok) << blocks.error;
  EXPECT_EQ(blocks.outputs[0], BytesOf(std::vector<float>{1.5f, 10.5f, 2.5f, 20.5f, 100.5f, 1000.5f, 200.5f, 2000.5f,
                                                          3.5f, 30.5f, 4.5f, 40.5f, 300.5f, 3000.5f, 400.5f, 4000.5f}));
  const Outcome sums = run({1, 1, 2, 1}, {1, 2}, {1, 1, 2, 1}, {1, 10}, {}, {1, 1, 3, 1}, /*stride=*/1);
  ASSERT_TRUE(sums.ok) << sums.error;
  EXPECT_EQ(sums.outputs[0], BytesOf(std::vector<float>{1, 12, 20}));
}

// Output shapes other than the transposed size of the input: TFLM computes
// them anyway (padding from the output size, taps outside it dropped, rows
// no tap reaches holding the bias only), and so does microarena.
TEST(TransposeConvOracleTest, OutputSizesOtherThanTheTransposedOneMatchTflm) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}) {
    for (tflite::Padding padding : {tflite::Padding::VALID, tflite::Padding::SAME}) {
      for (const std::vector<int32_t>& size : {std::vector<int32_t>{4, 6}, std::vector<int32_t>{7, 3},
                                               std::vector<int32_t>{2, 2}, std::vector<int32_t>{9, 9}}) {
        TransposeConvSpec s = SpecFor({{1, 2, 3, 2}, 3, 3, 2, padding, 2, 2}, type);
        s.output[1] = size[0];
        s.output[2] = size[1];
        ExpectTransposeConvSameAsOracle(std::string("tconv_size_") + TypeName(type) + "_" + std::to_string(cases++), s);
      }
    }
  }
}

// TFLM's 16x8 kernel ignores the int16 zero points (only the clamp bounds
// move with the output's); the same here.
TEST(TransposeConvOracleTest, Int16ZeroPointsAreIgnoredAsTflmDoes) {
  MICROARENA_REQUIRE_ORACLE();
  TransposeConvSpec s = SpecFor(kGeometries[0], TensorType::kInt16);
  s.input_zero_point = 77;
  s.output_zero_point = -120;
  ExpectTransposeConvSameAsOracle("tconv_i16_zp", s);
}

// TFLM asks for a scratch accumulator array as big as the output (4 or 8
// bytes per element); microarena needs none, so its arena is smaller for
// every one-op model here and for TFLM's seanet TRANSPOSE_CONV models.
TEST(TransposeConvOracleTest, ArenaIsAtMostTflms) {
  MICROARENA_REQUIRE_ORACLE();
  std::vector<std::pair<std::string, Bytes>> models;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}) {
    models.emplace_back(std::string("tconv_arena_") + TypeName(type),
                        TransposeConvModel(SpecFor(kGeometries[4], type)));
  }
  TransposeConvSpec bias16 = SpecFor(kGeometries[4], TensorType::kInt16);
  bias16.bias_type = TensorType::kInt16;
  models.emplace_back("tconv_arena_i16_bias16", TransposeConvModel(bias16));
  const std::string dir = testing::SharedDir() + "/tflm_integration/seanet/transpose_conv";
  for (int k = 0; k <= 4; k += 2) {
    const std::string name = "transpose_conv" + std::to_string(k);
    models.emplace_back("seanet_" + name, testing::ReadFileBytes(dir + "/" + name + ".tflite"));
  }
  for (const auto& [name, model] : models) {
    ASSERT_FALSE(model.empty()) << name;
    Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
    ASSERT_TRUE(view.ok()) << name << ": " << view.status().message();
    Result<ArenaFigures> ours = MeasureArena(*view, AllOpsResolver());
    ASSERT_TRUE(ours.ok()) << name << ": " << ours.status().message();
    EXPECT_EQ(ours->scratch_buffers, 0u) << name;
    const size_t tflm = testing::OracleFigure(name, model, "min_arena_bytes");
    EXPECT_LE(ours->used_bytes, tflm) << name;
    std::printf("%s: microarena %zu bytes, TFLM %zu bytes\n", name.c_str(), ours->used_bytes, tflm);
  }
}

// Refused at prepare with a message naming the op, the tensor and the
// types or sizes; never a crash.
TEST(TransposeConvOracleTest, BadOperandsAreRefusedClearly) {
  struct Case {
    std::string name;
    TransposeConvSpec spec;
    std::string expected;  // a part of the message
  };
  std::vector<Case> cases;
  {
    TransposeConvSpec s = SpecFor(kGeometries[0], TensorType::kInt16);
    s.bias_type = TensorType::kInt32;  // TFLM would read it as int64
    cases.push_back({"int16_with_int32_bias", s, "an INT16 TRANSPOSE_CONV takes an INT16 or INT64 bias"});
  }
  {
    TransposeConvSpec s = SpecFor(kGeometries[0], TensorType::kInt16);
    s.filter_type = TensorType::kInt16;
    cases.push_back({"int16_filter", s, "filter tensor"});
  }
  {
    TransposeConvSpec s = SpecFor(kGeometries[0], TensorType::kInt8);
    s.bias_type = TensorType::kInt64;
    cases.push_back({"int8_with_int64_bias", s, "bias tensor"});
  }
  {
    TransposeConvSpec s = SpecFor(kGeometries[0], TensorType::kFloat32);
    s.filter_type = TensorType::kInt8;  // hybrid
    cases.push_back({"float_with_int8_filter", s, "filter tensor"});
  }
  {
    TransposeConvSpec s = SpecFor(kGeometries[0], TensorType::kInt8);
    s.filter[3] += 1;  // the filter takes more channels than the input has
    cases.push_back({"depth_mismatch", s, "channels but filter tensor"});
  }
  {
    TransposeConvSpec s = SpecFor(kGeometries[0], TensorType::kInt8);
    s.output[3] += 1;
    cases.push_back({"output_channels_mismatch", s, "output channels but output tensor"});
  }
  {
    TransposeConvSpec s = SpecFor(kGeometries[0], TensorType::kInt8);
    s.stride_w = 0;
    cases.push_back({"zero_stride", s, "stride"});
  }
  {
    TransposeConvSpec s = SpecFor(kGeometries[0], TensorType::kInt16);
    s.input_scale = 1.0f;
    s.filter_scale = 1.0f;
    s.output_scale = 1e-5f;  // multiplier 1e5: beyond the 64-bit rescale's shift
    cases.push_back({"int16_huge_multiplier", s, "64-bit rescale"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Outcome ours = RunOursOn(TransposeConvModel(c.spec), TransposeConvInputs(c.spec));
    ASSERT_FALSE(ours.ok);
    EXPECT_NE(ours.error.find("TRANSPOSE_CONV"), std::string::npos) << ours.error;
    EXPECT_NE(ours.error.find(c.expected), std::string::npos) << ours.error;
  }
  // No options table at all.
  OneOp m;
  m.Constant("output_shape", TensorType::kInt32, {4}, BytesOf(std::vector<int32_t>{1, 2, 2, 1}), {});
  m.Constant("filter", TensorType::kFloat32, {1, 1, 1, 1}, BytesOf(std::vector<float>{1.0f}), {});
  m.FloatInput({1, 2, 2, 1});
  const Bytes model =
      m.Finish(BuiltinOp::kTransposeConv, tflite::BuiltinOptionsUnion{}, TensorType::kFloat32, {1, 2, 2, 1}, 0.0f, 0);
  const Outcome ours = RunOursOn(model, {BytesOf(std::vector<float>{1, 2, 3, 4})});
  ASSERT_FALSE(ours.ok);
  EXPECT_NE(ours.error.find("TransposeConvOptions"), std::string::npos) << ours.error;
}

}  // namespace
}  // namespace microarena
