// The per-model resolver's kernel choice (report/resolver_header.h): an op
// whose every instance has INT8 input and output gets its int8-only kernel,
// any other the general one; the header says which and why; and every
// shared model gives with its per-model resolver the bytes it gives with
// AllOpsResolver.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_file.h"
#include "microarena/report/resolver_header.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::SharedDir;

TensorSpec Quantized(const std::string& name, TensorType type, std::vector<int32_t> shape, float scale) {
  return {name, type, std::move(shape), 0, QuantizationSpec::PerTensor(scale, 0), false};
}

// A chain of 1x1 CONV_2Ds over [1, 2, 2, 1]; conv i has INT8 activations
// when int8[i], else INT16 (16x8, INT8 filter), so a QUANTIZE sits between
// convs of different types. Ends with a RESHAPE.
std::vector<uint8_t> ConvChain(const std::vector<bool>& int8) {
  ModelBuilder builder;
  auto type_of = [&](size_t i) { return int8[i] ? TensorType::kInt8 : TensorType::kInt16; };
  const int32_t input = builder.AddTensor(Quantized("input", type_of(0), {1, 2, 2, 1}, 0.5f));
  int32_t current = input;
  for (size_t i = 0; i < int8.size(); ++i) {
    if (i > 0 && type_of(i) != type_of(i - 1)) {
      const int32_t converted = builder.AddTensor(Quantized("q" + std::to_string(i), type_of(i), {1, 2, 2, 1}, 0.5f));
      OperatorSpec quantize;
      quantize.op = BuiltinOp::kQuantize;
      quantize.inputs = {current};
      quantize.outputs = {converted};
      builder.AddOperator(std::move(quantize));
      current = converted;
    }
    const int32_t filter =
        builder.AddConstantTensor(Quantized("filter" + std::to_string(i), TensorType::kInt8, {1, 1, 1, 1}, 0.5f), {2});
    const int32_t out = builder.AddTensor(Quantized("conv" + std::to_string(i), type_of(i), {1, 2, 2, 1}, 0.5f));
    OperatorSpec conv;
    conv.op = BuiltinOp::kConv2d;
    conv.inputs = {current, filter};
    conv.outputs = {out};
    tflite::Conv2DOptionsT options;
    options.padding = tflite::Padding::VALID;
    options.stride_h = options.stride_w = 1;
    options.dilation_h_factor = options.dilation_w_factor = 1;
    conv.options = MakeBuiltinOptions(options);
    builder.AddOperator(std::move(conv));
    current = out;
  }
  const int32_t output = builder.AddTensor(Quantized("output", type_of(int8.size() - 1), {1, 4}, 0.5f));
  OperatorSpec reshape;
  reshape.op = BuiltinOp::kReshape;
  reshape.inputs = {current};
  reshape.outputs = {output};
  tflite::ReshapeOptionsT reshape_options;
  reshape_options.new_shape = {1, 4};
  reshape.options = MakeBuiltinOptions(reshape_options);
  builder.AddOperator(std::move(reshape));
  builder.SetInputs({input});
  builder.SetOutputs({output});
  return builder.Build();
}

std::string HeaderOf(const std::vector<uint8_t>& bytes) {
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return "";
  Result<std::string> header = report::ModelResolverHeader(*model, "chain_ops", "chain.tflite");
  EXPECT_TRUE(header.ok()) << header.status().message();
  return header.ok() ? *header : "";
}

// The choice is per op code over all its instances; ops without an
// int8-only kernel (RESHAPE, QUANTIZE) keep a plain comment.
TEST(Int8ResolverTest, HeaderNamesTheVariantAndWhy) {
  const std::string int8 = HeaderOf(ConvChain({true, true}));
  EXPECT_NE(
      int8.find("    &microarena::kConv2dInt8Kernel,  // CONV_2D (int8 only: 2 of 2 with INT8 input and output)\n"),
      std::string::npos)
      << int8;
  EXPECT_EQ(int8.find("kConv2dKernel"), std::string::npos) << int8;
  EXPECT_NE(int8.find("    &microarena::kReshapeKernel,  // RESHAPE\n"), std::string::npos) << int8;

  const std::string int16 = HeaderOf(ConvChain({false}));
  EXPECT_NE(int16.find("    &microarena::kConv2dKernel,  // CONV_2D (general: 1 of 1 not INT8 -> INT8 with INT8 weights)\n"),
            std::string::npos)
      << int16;
  EXPECT_EQ(int16.find("kConv2dInt8Kernel"), std::string::npos) << int16;

  // One INT16 conv among INT8 ones: the general kernel, which runs both.
  const std::string mixed = HeaderOf(ConvChain({true, false, true}));
  EXPECT_NE(mixed.find("    &microarena::kConv2dKernel,  // CONV_2D (general: 1 of 3 not INT8 -> INT8 with INT8 weights)\n"),
            std::string::npos)
      << mixed;
  EXPECT_NE(mixed.find("    &microarena::kQuantizeKernel,  // QUANTIZE\n"), std::string::npos) << mixed;
}

// Runs `model` with its per-model kernels and with AllOpsResolver (seed 1)
// and expects the same output bytes. Returns the kernels chosen.
std::vector<report::ModelKernel> ExpectSameOutputs(const ModelView& model, const std::string& label) {
  Result<std::vector<report::ModelKernel>> kernels = report::ModelKernels(model, label);
  EXPECT_TRUE(kernels.ok()) << kernels.status().message();
  if (!kernels.ok()) return {};
  std::vector<const KernelRegistration*> list;
  for (const report::ModelKernel& kernel : *kernels) list.push_back(kernel.kernel);
  const OpResolver resolver{Span<const KernelRegistration* const>(list.data(), list.size())};
  RunOptions options;
  options.seed = 1;
  Result<RunResult> expected = RunModel(model, AllOpsResolver(), options);
  EXPECT_TRUE(expected.ok()) << expected.status().message();
  Result<RunResult> actual = RunModel(model, resolver, options);
  EXPECT_TRUE(actual.ok()) << actual.status().message();
  if (!expected.ok() || !actual.ok()) return *kernels;
  EXPECT_FALSE(actual->outputs.empty());
  EXPECT_EQ(actual->outputs, expected->outputs);
  return *kernels;
}

TEST(Int8ResolverTest, HandBuiltModelsGiveTheSameOutputsAsAllOps) {
  for (const std::vector<bool>& int8 :
       {std::vector<bool>{true, true}, std::vector<bool>{false}, std::vector<bool>{true, false, true}}) {
    const std::vector<uint8_t> bytes = ConvChain(int8);
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    const std::vector<report::ModelKernel> kernels = ExpectSameOutputs(*model, "chain");
    const bool all_int8 = int8.size() == 2;
    bool found = false;
    for (const report::ModelKernel& kernel : kernels) {
      if (kernel.kernel->op != BuiltinOp::kConv2d) continue;
      found = true;
      EXPECT_EQ(kernel.kernel, all_int8 ? &kConv2dInt8Kernel : &kConv2dKernel);
    }
    EXPECT_TRUE(found);
  }
}

// An int8 FULLY_CONNECTED with weights per tensor or per channel (one
// scale per unit); input [1, 3], 2 units.
std::vector<uint8_t> FullyConnectedModel(bool per_channel) {
  ModelBuilder builder;
  const int32_t input = builder.AddTensor(Quantized("input", TensorType::kInt8, {1, 3}, 0.5f));
  TensorSpec weights = Quantized("weights", TensorType::kInt8, {2, 3}, 0.25f);
  if (per_channel) weights.quantization = QuantizationSpec::PerChannel({0.25f, 0.125f}, {0, 0}, 0);
  const int32_t filter = builder.AddConstantTensor(weights, {1, 2, 3, 4, 5, 6});
  const int32_t output = builder.AddTensor(Quantized("output", TensorType::kInt8, {1, 2}, 0.5f));
  OperatorSpec fc;
  fc.op = BuiltinOp::kFullyConnected;
  fc.inputs = {input, filter};
  fc.outputs = {output};
  fc.options = MakeBuiltinOptions(tflite::FullyConnectedOptionsT{});
  builder.AddOperator(std::move(fc));
  builder.SetInputs({input});
  builder.SetOutputs({output});
  return builder.Build();
}

// Per-channel weights take the general kernel (the int8-only one refuses
// them, to keep other models' flash lean); per-tensor ones the int8-only.
TEST(Int8ResolverTest, PerChannelFullyConnectedTakesTheGeneralKernel) {
  const std::string per_tensor = HeaderOf(FullyConnectedModel(false));
  EXPECT_NE(per_tensor.find("&microarena::kFullyConnectedInt8Kernel,  // FULLY_CONNECTED (int8 only: 1 of 1"),
            std::string::npos)
      << per_tensor;
  const std::string per_channel = HeaderOf(FullyConnectedModel(true));
  EXPECT_NE(per_channel.find("&microarena::kFullyConnectedKernel,  // FULLY_CONNECTED (general: 1 of 1 not INT8 -> "
                             "INT8 with per-tensor INT8 weights)\n"),
            std::string::npos)
      << per_channel;
  for (bool per_channel_weights : {false, true}) {
    const std::vector<uint8_t> bytes = FullyConnectedModel(per_channel_weights);
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    ExpectSameOutputs(*model, "fc");
    // The int8-only kernel alone: it refuses per-channel weights (the
    // general kernel's own).
    const KernelRegistration* only[] = {&kFullyConnectedInt8Kernel};
    const OpResolver resolver{Span<const KernelRegistration* const>(only, 1)};
    Result<RunResult> run = RunModel(*model, resolver, RunOptions{});
    EXPECT_EQ(run.ok(), !per_channel_weights);
    if (!run.ok()) {
      EXPECT_NE(std::string(run.status().message()).find("filter tensor 1 'weights' needs one quantization scale and zero point; it has 2"),
                std::string::npos)
          << run.status().message();
    }
  }
}

// One int8 CONV_2D or DEPTHWISE_CONV_2D over [1, 3, 3, 2] with a 3x3 filter
// of INT8 or INT4 weights (INT4: two per byte, low nibble first).
std::vector<uint8_t> WeightsModel(BuiltinOp op, TensorType weights_type) {
  ModelBuilder builder;
  const int32_t input = builder.AddTensor(Quantized("input", TensorType::kInt8, {1, 3, 3, 2}, 0.5f));
  const bool depthwise = op == BuiltinOp::kDepthwiseConv2d;
  const std::vector<int32_t> shape = depthwise ? std::vector<int32_t>{1, 3, 3, 2} : std::vector<int32_t>{2, 3, 3, 2};
  std::vector<uint8_t> values;
  const size_t count = depthwise ? 18 : 36;
  for (size_t i = 0; i < (weights_type == TensorType::kInt4 ? count / 2 : count); ++i) {
    values.push_back(static_cast<uint8_t>(i * 37 + 11));
  }
  const int32_t filter = builder.AddConstantTensor(Quantized("filter", weights_type, shape, 0.25f), values);
  const int32_t output = builder.AddTensor(Quantized("output", TensorType::kInt8, {1, 1, 1, 2}, 0.5f));
  OperatorSpec conv;
  conv.op = op;
  conv.inputs = {input, filter};
  conv.outputs = {output};
  if (depthwise) {
    tflite::DepthwiseConv2DOptionsT options;
    options.padding = tflite::Padding::VALID;
    options.stride_h = options.stride_w = 1;
    options.depth_multiplier = 1;
    conv.options = MakeBuiltinOptions(options);
  } else {
    tflite::Conv2DOptionsT options;
    options.padding = tflite::Padding::VALID;
    options.stride_h = options.stride_w = 1;
    conv.options = MakeBuiltinOptions(options);
  }
  builder.AddOperator(std::move(conv));
  builder.SetInputs({input});
  builder.SetOutputs({output});
  return builder.Build();
}

// INT4 convolution weights take the general kernels, which read the nibbles;
// the int8-only kernels refuse them by the filter's type.
TEST(Int8ResolverTest, Int4ConvolutionWeightsTakeTheGeneralKernel) {
  struct Case {
    BuiltinOp op;
    const char* name;
    const KernelRegistration* general;
    const KernelRegistration* int8_only;
  };
  for (const Case& c : {Case{BuiltinOp::kConv2d, "CONV_2D", &kConv2dKernel, &kConv2dInt8Kernel},
                        Case{BuiltinOp::kDepthwiseConv2d, "DEPTHWISE_CONV_2D", &kDepthwiseConv2dKernel,
                             &kDepthwiseConv2dInt8Kernel}}) {
    const std::string int8 = HeaderOf(WeightsModel(c.op, TensorType::kInt8));
    EXPECT_NE(int8.find(std::string("Int8Kernel,  // ") + c.name + " (int8 only: 1 of 1"), std::string::npos) << int8;
    const std::string int4 = HeaderOf(WeightsModel(c.op, TensorType::kInt4));
    EXPECT_NE(int4.find(std::string("Kernel,  // ") + c.name +
                        " (general: 1 of 1 not INT8 -> INT8 with INT8 weights)\n"),
              std::string::npos)
        << int4;
    for (TensorType type : {TensorType::kInt8, TensorType::kInt4}) {
      const std::vector<uint8_t> bytes = WeightsModel(c.op, type);
      Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
      ASSERT_TRUE(model.ok()) << model.status().message();
      const std::vector<report::ModelKernel> kernels = ExpectSameOutputs(*model, c.name);
      ASSERT_EQ(kernels.size(), 1u);
      EXPECT_EQ(kernels[0].kernel, type == TensorType::kInt4 ? c.general : c.int8_only) << c.name;
      const KernelRegistration* only[] = {c.int8_only};
      const OpResolver resolver{Span<const KernelRegistration* const>(only, 1)};
      Result<RunResult> run = RunModel(*model, resolver, RunOptions{});
      EXPECT_EQ(run.ok(), type == TensorType::kInt8) << c.name;
      if (!run.ok()) {
        EXPECT_NE(std::string(run.status().message()).find("filter tensor 1 'filter' is INT4 where INT8 is required"),
                  std::string::npos)
            << run.status().message();
      }
    }
  }
}

// Every shared model: byte-identical outputs with its per-model resolver;
// kws_ref_model (all INT8) gets the int8-only kernel for every op that has one.
TEST(Int8ResolverTest, EverySharedModelGivesTheSameOutputsAsAllOps) {
  MICROARENA_REQUIRE_SHARED();
  const std::vector<std::string> names = testing::SharedModelNames();
  ASSERT_FALSE(names.empty());
  size_t int8_choices = 0;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    const std::vector<report::ModelKernel> kernels = ExpectSameOutputs(file->view(), name);
    for (const report::ModelKernel& kernel : kernels) {
      if (kernel.int8_only) ++int8_choices;
      if (name == "kws_ref_model") EXPECT_EQ(kernel.int8_only, kernel.has_int8_variant) << kernel.symbol;
    }
  }
  EXPECT_GT(int8_choices, 0u);
}

}  // namespace
}  // namespace microarena
