// ModelBuilder: what it writes reads back through LoadModel unchanged, and what
// it writes wrong on purpose is rejected by LoadModel with a message that names
// the tensor or op and the numbers involved.
#include "microarena/model/model_builder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "microarena/model/model_view.h"

namespace microarena {
namespace {

Span<const uint8_t> AsSpan(const std::vector<uint8_t>& bytes) { return {bytes.data(), bytes.size()}; }

// An int8 tensor without data.
TensorSpec Activation(const std::string& name, std::vector<int32_t> shape) {
  return {name, TensorType::kInt8, std::move(shape), 0, QuantizationSpec::PerTensor(0.5f, -3), false};
}

// A model whose one ADD reads "a" and "b" and writes "sum" (tensors 0, 1, 2).
ModelBuilder AddModel() {
  ModelBuilder builder;
  const int32_t a = builder.AddTensor(Activation("a", {1, 8}));
  const int32_t b = builder.AddTensor(Activation("b", {1, 8}));
  const int32_t sum = builder.AddTensor(Activation("sum", {1, 8}));
  OperatorSpec add;
  add.op = BuiltinOp::kAdd;
  add.inputs = {a, b};
  add.outputs = {sum};
  tflite::AddOptionsT options;
  options.fused_activation_function = tflite::ActivationFunctionType::RELU6;
  add.options = MakeBuiltinOptions(std::move(options));
  builder.AddOperator(std::move(add));
  builder.SetInputs({a, b});
  builder.SetOutputs({sum});
  return builder;
}

// Loads `bytes`, expects failure, and returns the message.
std::string LoadError(const std::vector<uint8_t>& bytes) {
  Result<ModelView> model = LoadModel(AsSpan(bytes));
  EXPECT_FALSE(model.ok()) << "the model loaded, but it is invalid";
  return model.ok() ? std::string() : std::string(model.status().message());
}

TEST(ModelBuilderTest, WritesTheFileHeaderAndConventions) {
  const std::vector<uint8_t> bytes = AddModel().Build();
  ASSERT_GE(bytes.size(), 8u);
  EXPECT_EQ(std::memcmp(bytes.data() + 4, "TFL3", 4), 0);
  Result<ModelView> model = LoadModel(AsSpan(bytes));
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->schema_version(), 3u);
  ASSERT_EQ(model->buffer_count(), 1u);  // buffer 0 only: the empty sentinel
  EXPECT_TRUE(model->raw()->buffers()->Get(0)->data() == nullptr ||
              model->raw()->buffers()->Get(0)->data()->size() == 0);
  ASSERT_EQ(model->subgraph_count(), 1u);
  EXPECT_STREQ(model->subgraph(0).name(), "main");
}

TEST(ModelBuilderTest, TensorsRoundTrip) {
  ModelBuilder builder;
  TensorSpec variable = Activation("state", {1, 16});
  variable.type = TensorType::kInt16;
  variable.is_variable = true;
  builder.AddTensor(variable);
  const std::vector<int32_t> weights = {1, -2, 3, -4, 5, -6};
  builder.AddConstantTensor(
      {"weights", TensorType::kInt32, {2, 3}, 0, QuantizationSpec::PerChannel({0.25f, 0.125f}, {0, 0}, 0), false},
      BytesOf(weights));
  TensorSpec plain = {"plain", TensorType::kFloat32, {}, 0, QuantizationSpec(), false};
  builder.AddTensor(plain);

  const std::vector<uint8_t> bytes = builder.Build();
  Result<ModelView> model = LoadModel(AsSpan(bytes));
  ASSERT_TRUE(model.ok()) << model.status().message();
  SubgraphView main = model->subgraph(0);
  ASSERT_EQ(main.tensor_count(), 3u);
  EXPECT_EQ(model->buffer_count(), 2u);

  TensorView state = main.tensor(0);
  EXPECT_STREQ(state.name(), "state");
  EXPECT_EQ(state.type(), TensorType::kInt16);
  ASSERT_EQ(state.rank(), 2u);
  EXPECT_EQ(state.shape()[0], 1);
  EXPECT_EQ(state.shape()[1], 16);
  EXPECT_EQ(state.byte_size(), 32u);  // 16 x int16
  EXPECT_TRUE(state.is_variable());
  EXPECT_FALSE(state.is_constant());
  EXPECT_EQ(state.buffer_index(), 0u);
  ASSERT_TRUE(state.quantization().is_quantized());
  EXPECT_EQ(state.quantization().channel_count(), 1u);
  EXPECT_FLOAT_EQ(state.quantization().scale(0), 0.5f);
  EXPECT_EQ(state.quantization().zero_point(0), -3);

  TensorView constant = main.tensor(1);
  EXPECT_STREQ(constant.name(), "weights");
  EXPECT_EQ(constant.type(), TensorType::kInt32);
  EXPECT_EQ(constant.buffer_index(), 1u);
  EXPECT_TRUE(constant.is_constant());
  ASSERT_EQ(constant.byte_size(), 24u);  // 2 x 3 x int32
  ASSERT_EQ(constant.data().size(), 24u);
  EXPECT_EQ(std::memcmp(constant.data().data(), weights.data(), 24), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(constant.data().data()) % 16, 0u) << "constant data is 16-byte aligned";
  QuantizationView per_channel = constant.quantization();
  ASSERT_EQ(per_channel.channel_count(), 2u);
  EXPECT_FLOAT_EQ(per_channel.scale(0), 0.25f);
  EXPECT_FLOAT_EQ(per_channel.scale(1), 0.125f);
  EXPECT_EQ(per_channel.quantized_dimension(), 0);

  TensorView scalar = main.tensor(2);
  EXPECT_EQ(scalar.rank(), 0u);
  EXPECT_EQ(scalar.element_count(), 1u);
  EXPECT_EQ(scalar.byte_size(), 4u);
  EXPECT_FALSE(scalar.quantization().is_quantized());
  EXPECT_EQ(scalar.raw()->quantization(), nullptr) << "an empty QuantizationSpec writes no table";
}

TEST(ModelBuilderTest, OperatorsAndOptionsRoundTrip) {
  ModelBuilder builder = AddModel();
  // A second ADD shares the operator code; a CONV_2D adds one.
  OperatorSpec second_add;
  second_add.op = BuiltinOp::kAdd;
  second_add.inputs = {2, -1};  // -1: an omitted optional input
  second_add.outputs = {0};
  builder.AddOperator(std::move(second_add));
  const int32_t filter = builder.AddConstantTensor(
      {"filter", TensorType::kInt8, {8, 1, 1, 8}, 0, QuantizationSpec::PerTensor(0.1f, 0), false},
      std::vector<uint8_t>(64, 1));
  OperatorSpec conv;
  conv.op = BuiltinOp::kConv2d;
  conv.version = 3;
  conv.inputs = {0, filter, -1};
  conv.outputs = {1};
  tflite::Conv2DOptionsT conv_options;
  conv_options.padding = tflite::Padding::VALID;
  conv_options.stride_w = 2;
  conv_options.stride_h = 3;
  conv_options.fused_activation_function = tflite::ActivationFunctionType::RELU;
  conv.options = MakeBuiltinOptions(std::move(conv_options));
  EXPECT_EQ(builder.AddOperator(std::move(conv)), 2);
  EXPECT_EQ(builder.operator_count(), 3u);
  EXPECT_EQ(builder.operator_code_count(), 2u);

  const std::vector<uint8_t> bytes = builder.Build();
  Result<ModelView> model = LoadModel(AsSpan(bytes));
  ASSERT_TRUE(model.ok()) << model.status().message();
  SubgraphView main = model->subgraph(0);
  ASSERT_EQ(main.operator_count(), 3u);
  EXPECT_EQ(model->operator_code_count(), 2u);

  OperatorView add = main.op(0);
  EXPECT_EQ(add.code(), BuiltinOp::kAdd);
  EXPECT_STREQ(add.name(), "ADD");
  EXPECT_EQ(add.version(), 1);
  ASSERT_EQ(add.inputs().size(), 2u);
  EXPECT_EQ(add.inputs()[1], 1);
  ASSERT_EQ(add.outputs().size(), 1u);
  EXPECT_EQ(add.outputs()[0], 2);
  ASSERT_NE(add.raw()->builtin_options_as_AddOptions(), nullptr);
  EXPECT_EQ(add.raw()->builtin_options_as_AddOptions()->fused_activation_function(),
            tflite::ActivationFunctionType::RELU6);
  EXPECT_EQ(main.op(1).raw()->opcode_index(), add.raw()->opcode_index());
  EXPECT_EQ(main.op(1).inputs()[1], -1);
  EXPECT_EQ(main.op(1).raw()->builtin_options(), nullptr);

  OperatorView conv_view = main.op(2);
  EXPECT_EQ(conv_view.code(), BuiltinOp::kConv2d);
  EXPECT_EQ(conv_view.version(), 3);
  const tflite::Conv2DOptions* read_options = conv_view.raw()->builtin_options_as_Conv2DOptions();
  ASSERT_NE(read_options, nullptr);
  EXPECT_EQ(read_options->padding(), tflite::Padding::VALID);
  EXPECT_EQ(read_options->stride_w(), 2);
  EXPECT_EQ(read_options->stride_h(), 3);
  EXPECT_EQ(read_options->fused_activation_function(), tflite::ActivationFunctionType::RELU);
  EXPECT_EQ(read_options->dilation_w_factor(), 1);

  ASSERT_EQ(main.inputs().size(), 2u);
  EXPECT_TRUE(main.IsInput(0));
  EXPECT_TRUE(main.IsInput(1));
  EXPECT_TRUE(main.IsOutput(2));
  EXPECT_FALSE(main.IsOutput(0));
}

TEST(ModelBuilderTest, OperatorCodesFillBothFieldsAndDeduplicate) {
  ModelBuilder builder;
  EXPECT_EQ(builder.AddOperatorCode(BuiltinOp::kSoftmax, 2), 0u);
  EXPECT_EQ(builder.AddOperatorCode(BuiltinOp::kSoftmax, 2), 0u);
  EXPECT_EQ(builder.AddOperatorCode(BuiltinOp::kSoftmax, 1), 1u) << "another version is another code";
  EXPECT_EQ(builder.AddOperatorCode(BuiltinOp::kCumsum), 2u);
  EXPECT_EQ(builder.AddCustomOperatorCode("TFLite_Detection_PostProcess"), 3u);
  EXPECT_EQ(builder.AddCustomOperatorCode("TFLite_Detection_PostProcess"), 3u);
  EXPECT_EQ(builder.AddCustomOperatorCode("Other"), 4u);
  builder.AddTensor(Activation("x", {4}));
  builder.AddOperatorWithOpcodeIndex(2, {0}, {0});
  OperatorSpec custom;
  custom.op = BuiltinOp::kCustom;
  custom.custom_name = "Other";
  custom.inputs = {0};
  custom.outputs = {0};
  custom.custom_options = {1, 2, 3};
  EXPECT_EQ(builder.AddOperator(std::move(custom)), 1);

  const std::vector<uint8_t> bytes = builder.Build();
  Result<ModelView> model = LoadModel(AsSpan(bytes));
  ASSERT_TRUE(model.ok()) << model.status().message();
  const auto* codes = model->raw()->operator_codes();
  ASSERT_EQ(codes->size(), 5u);
  EXPECT_EQ(codes->Get(0)->deprecated_builtin_code(), 25);
  EXPECT_EQ(codes->Get(0)->builtin_code(), 25);
  EXPECT_EQ(codes->Get(0)->version(), 2);
  // CUMSUM (128) does not fit the byte field: 127 there, the real code beside it.
  EXPECT_EQ(codes->Get(2)->deprecated_builtin_code(), 127);
  EXPECT_EQ(codes->Get(2)->builtin_code(), 128);
  EXPECT_EQ(codes->Get(3)->deprecated_builtin_code(), 32);
  EXPECT_STREQ(codes->Get(3)->custom_code()->c_str(), "TFLite_Detection_PostProcess");

  SubgraphView main = model->subgraph(0);
  EXPECT_EQ(main.op(0).code(), BuiltinOp::kCumsum);
  EXPECT_STREQ(main.op(0).name(), "CUMSUM");
  EXPECT_TRUE(main.op(1).is_custom());
  EXPECT_STREQ(main.op(1).name(), "Other");
  ASSERT_NE(main.op(1).raw()->custom_options(), nullptr);
  EXPECT_EQ(main.op(1).raw()->custom_options()->size(), 3u);
}

TEST(ModelBuilderTest, SubgraphsAndMetadataRoundTrip) {
  ModelBuilder builder = AddModel();
  const size_t body = builder.AddSubgraph("body");
  EXPECT_EQ(body, 1u);
  const int32_t in = builder.AddTensor(Activation("body/in", {2, 2}), body);
  const int32_t out = builder.AddTensor(Activation("body/out", {2, 2}), body);
  OperatorSpec relu;
  relu.op = BuiltinOp::kRelu;
  relu.inputs = {in};
  relu.outputs = {out};
  builder.AddOperator(std::move(relu), body);
  builder.SetInputs({in}, body);
  builder.SetOutputs({out}, body);

  // TFLM's offline plan: version, subgraph count, tensor count, one offset per tensor.
  const std::vector<int32_t> offline_plan = {1, 1, 3, 0, 32, -1};
  const uint32_t plan_buffer = builder.AddMetadata("OfflineMemoryAllocation", BytesOf(offline_plan));
  builder.AddMetadata("empty", {});
  builder.SetDescription("round trip");

  const std::vector<uint8_t> bytes = builder.Build();
  Result<ModelView> model = LoadModel(AsSpan(bytes));
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_STREQ(model->description(), "round trip");
  ASSERT_EQ(model->subgraph_count(), 2u);
  SubgraphView second = model->subgraph(1);
  EXPECT_STREQ(second.name(), "body");
  EXPECT_EQ(second.tensor_count(), 2u);
  EXPECT_STREQ(second.tensor(1).name(), "body/out");
  ASSERT_EQ(second.operator_count(), 1u);
  EXPECT_EQ(second.op(0).code(), BuiltinOp::kRelu);
  EXPECT_EQ(model->subgraph(0).tensor_count(), 3u);

  ASSERT_EQ(model->metadata_count(), 2u);
  EXPECT_STREQ(model->metadata_name(0), "OfflineMemoryAllocation");
  EXPECT_TRUE(model->has_metadata("OfflineMemoryAllocation"));
  EXPECT_FALSE(model->has_metadata("missing"));
  Span<const uint8_t> plan = model->metadata("OfflineMemoryAllocation");
  ASSERT_EQ(plan.size(), offline_plan.size() * sizeof(int32_t));
  EXPECT_EQ(std::memcmp(plan.data(), offline_plan.data(), plan.size()), 0);
  EXPECT_EQ(model->raw()->metadata()->Get(0)->buffer(), plan_buffer);
  EXPECT_TRUE(model->has_metadata("empty"));
  EXPECT_TRUE(model->metadata("empty").empty());
}

TEST(ModelBuilderTest, BuildIsDeterministic) {
  EXPECT_EQ(AddModel().Build(), AddModel().Build());
}

// --- Invalid models: the builder writes them, LoadModel rejects them. ---

TEST(ModelBuilderInvalidTest, OpInputOutOfRange) {
  ModelBuilder builder = AddModel();
  builder.mutable_model().subgraphs[0]->operators[0]->inputs[1] = 57;
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("op 0"), std::string::npos) << message;
  EXPECT_NE(message.find("57"), std::string::npos) << message;
  EXPECT_NE(message.find("3)"), std::string::npos) << "names the valid range [0, 3): " << message;
}

TEST(ModelBuilderInvalidTest, OpOutputNegative) {
  ModelBuilder builder = AddModel();
  builder.mutable_model().subgraphs[0]->operators[0]->outputs[0] = -1;  // -1 is for optional inputs only
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("op 0"), std::string::npos) << message;
  EXPECT_NE(message.find("-1"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, OpcodeIndexOutOfRange) {
  ModelBuilder builder = AddModel();
  builder.AddOperatorWithOpcodeIndex(42, {0}, {1});
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("op 1"), std::string::npos) << message;
  EXPECT_NE(message.find("42"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, UnknownBuiltinCode) {
  ModelBuilder builder = AddModel();
  builder.AddRawOperatorCode(127, 4321, "", 1);
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("4321"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, CustomOpWithoutName) {
  ModelBuilder builder = AddModel();
  builder.AddRawOperatorCode(32, 32, "", 1);
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("CUSTOM"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, TensorBufferOutOfRange) {
  ModelBuilder builder = AddModel();
  TensorSpec spec = Activation("dangling", {4});
  spec.buffer_index = 977;
  builder.AddTensor(spec);
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("dangling"), std::string::npos) << message;
  EXPECT_NE(message.find("977"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, NegativeDimension) {
  ModelBuilder builder = AddModel();
  builder.AddTensor(Activation("dynamic", {1, -3, 4}));
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("dynamic"), std::string::npos) << message;
  EXPECT_NE(message.find("-3"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, HugeDimensionsOverflow) {
  ModelBuilder builder = AddModel();
  // 2^31-1 four times: the element count overflows 64 bits.
  builder.AddTensor(Activation("huge", {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF}));
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("huge"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, TensorLargerThanTheLimit) {
  ModelBuilder builder = AddModel();
  TensorSpec spec = Activation("big", {65536, 65536});  // 4 GiB of float32 bytes, no overflow
  spec.type = TensorType::kFloat32;
  builder.AddTensor(spec);
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("big"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, ShortBuffer) {
  ModelBuilder builder = AddModel();
  builder.AddConstantTensor({"short", TensorType::kInt32, {4, 4}, 0, QuantizationSpec(), false},
                            std::vector<uint8_t>(10, 7));
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("short"), std::string::npos) << message;
  EXPECT_NE(message.find("10"), std::string::npos) << "the bytes there: " << message;
  EXPECT_NE(message.find("64"), std::string::npos) << "the bytes needed: " << message;
}

// TFLM loads quantization arrays that disagree with each other or with the
// shape (tools/tflm_oracle runs such models), so LoadModel does too: reads are
// bounded by the arrays themselves, and kernels check per-channel counts.
TEST(ModelBuilderTest, QuantizationArraysThatDisagreeLoad) {
  for (const QuantizationSpec& spec : {QuantizationSpec::PerChannel({0.1f, 0.2f, 0.3f}, {0, 0}, 0),
                                       QuantizationSpec::PerChannel({0.1f, 0.2f, 0.3f}, {0, 0, 0, 0}, 0),
                                       QuantizationSpec::PerChannel({0.1f, 0.2f, 0.3f}, {0, 0, 0}, 1)}) {
    ModelBuilder builder = AddModel();
    const int32_t t = builder.AddTensor({"mismatch", TensorType::kInt8, {5, 2}, 0, spec, false});
    const std::vector<uint8_t> bytes = builder.Build();
    std::vector<uint32_t> aligned((bytes.size() + 3) / 4);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    Result<ModelView> model = LoadModel({reinterpret_cast<const uint8_t*>(aligned.data()), bytes.size()});
    ASSERT_TRUE(model.ok()) << model.status().message();
    const QuantizationView q = model->subgraph(0).tensor(static_cast<size_t>(t)).quantization();
    EXPECT_EQ(q.channel_count(), 3u);
    // A zero point the file omits reads as 0, never past the array.
    EXPECT_EQ(q.zero_point(3), 0);
  }
}

// TFLM copies quantized_dimension without checking it against the rank
// (older converters write 3 on rank-1 biases), so LoadModel accepts it too
// and reports it as stored; tests/load_rules_test.cc runs such a model.
TEST(ModelBuilderTest, QuantizedDimensionOutsideTheRankLoads) {
  ModelBuilder builder = AddModel();
  const int32_t axis = builder.AddTensor({"axis", TensorType::kInt8, {2, 2}, 0,
                                          QuantizationSpec::PerChannel({0.1f, 0.2f}, {0, 0}, 6), false});
  const std::vector<uint8_t> bytes = builder.Build();
  std::vector<uint32_t> aligned((bytes.size() + 3) / 4);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  Result<ModelView> model = LoadModel({reinterpret_cast<const uint8_t*>(aligned.data()), bytes.size()});
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->subgraph(0).tensor(static_cast<size_t>(axis)).quantization().quantized_dimension(), 6);
}

TEST(ModelBuilderInvalidTest, TypeWithoutFixedSize) {
  ModelBuilder builder = AddModel();
  builder.AddTensor({"text", TensorType::kString, {2}, 0, QuantizationSpec(), false});
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("text"), std::string::npos) << message;
  EXPECT_NE(message.find("STRING"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, RankTooLarge) {
  ModelBuilder builder = AddModel();
  builder.AddTensor(Activation("deep", std::vector<int32_t>(kMaxRank + 1, 1)));
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("deep"), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(kMaxRank + 1)), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, SubgraphOutputOutOfRange) {
  ModelBuilder builder = AddModel();
  builder.SetOutputs({2, 99});
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("99"), std::string::npos) << message;
  EXPECT_NE(message.find("output"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, MetadataBufferOutOfRange) {
  ModelBuilder builder = AddModel();
  builder.AddMetadataEntry("OfflineMemoryAllocation", 555);
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("OfflineMemoryAllocation"), std::string::npos) << message;
  EXPECT_NE(message.find("555"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, SchemaVersionOtherThan3) {
  ModelBuilder builder = AddModel();
  builder.mutable_model().version = 2;
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("version 2"), std::string::npos) << message;
}

TEST(ModelBuilderInvalidTest, NoSubgraph) {
  ModelBuilder builder;
  builder.mutable_model().subgraphs.clear();
  const std::string message = LoadError(builder.Build());
  EXPECT_NE(message.find("subgraph"), std::string::npos) << message;
}

// (A variable tensor with data loads, as in TFLM: tests/load_rules_test.cc.)

}  // namespace
}  // namespace microarena
