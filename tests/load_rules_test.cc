// LoadModel's quantization rules on models made from the demo model: what
// TFLM loads, LoadModel loads; a kernel that would index past an array
// refuses the model in Prepare with the tensor named.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

// 4-byte aligned copy of a model file, as LoadModel needs.
struct AlignedModel {
  explicit AlignedModel(const std::vector<uint8_t>& bytes) : words((bytes.size() + 3) / 4), size(bytes.size()) {
    std::memcpy(words.data(), bytes.data(), bytes.size());
  }
  Span<const uint8_t> span() const { return {reinterpret_cast<const uint8_t*>(words.data()), size}; }
  std::vector<uint32_t> words;
  size_t size;
};

// The demo model with `edit` applied to every per-channel-quantized rank-1
// tensor (the biases of its convolutions); returns how many were edited.
std::vector<uint8_t> EditRankOnePerChannel(void (*edit)(tflite::QuantizationParametersT*), int* edited) {
  const std::vector<uint8_t> demo = BuildDemoModel();
  std::unique_ptr<tflite::ModelT> model = tflite::UnPackModel(demo.data());
  *edited = 0;
  for (auto& tensor : model->subgraphs[0]->tensors) {
    if (tensor->shape.size() == 1 && tensor->quantization != nullptr && tensor->quantization->scale.size() > 1) {
      edit(tensor->quantization.get());
      ++*edited;
    }
  }
  ModelBuilder builder(std::move(*model));
  return builder.Build();
}

std::vector<std::vector<uint8_t>> RunOutputs(const std::vector<uint8_t>& bytes) {
  AlignedModel aligned(bytes);
  Result<ModelView> model = LoadModel(aligned.span());
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.status().message());
  if (!model.ok()) return {};
  Result<RunResult> run = RunModel(*model, AllOpsResolver(), RunOptions{});
  EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.status().message());
  return run.ok() ? run->outputs : std::vector<std::vector<uint8_t>>{};
}

// Older converters write per-channel biases of rank 1 with
// quantized_dimension 3 (the filter's axis). TFLM copies the field without
// checking it against the rank, and its convolutions take the channel axis
// from the op, never from the bias, so such models run there unchanged. Here
// too: they load, and the outputs are those of the same model with
// quantized_dimension 0, since no kernel reads a bias's channel axis.
TEST(LoadRulesTest, QuantizedDimensionPastTheRankLoadsAndRunsAsTflmDoes) {
  int edited = 0;
  const std::vector<uint8_t> past_rank =
      EditRankOnePerChannel([](tflite::QuantizationParametersT* q) { q->quantized_dimension = 3; }, &edited);
  ASSERT_GT(edited, 0) << "the demo model has no per-channel bias to edit";
  const std::vector<uint8_t> original =
      EditRankOnePerChannel([](tflite::QuantizationParametersT* q) { q->quantized_dimension = 0; }, &edited);
  const std::vector<std::vector<uint8_t>> expected = RunOutputs(original);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(RunOutputs(past_rank), expected);
}

// A negative axis is as meaningless to TFLM as one past the rank, and as
// harmless: accepted too.
TEST(LoadRulesTest, NegativeQuantizedDimensionLoads) {
  int edited = 0;
  const std::vector<uint8_t> bytes =
      EditRankOnePerChannel([](tflite::QuantizationParametersT* q) { q->quantized_dimension = -1; }, &edited);
  ASSERT_GT(edited, 0);
  AlignedModel aligned(bytes);
  Result<ModelView> model = LoadModel(aligned.span());
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.status().message());
}

// Per-channel scales that do not match the channel axis load too, as in TFLM;
// the convolution that reads them refuses the count in Prepare, naming the
// filter, so `run` fails with a clear error instead of reading past the array.
TEST(LoadRulesTest, ScalesNotMatchingTheChannelAxisLoadButConvRefusesThem) {
  const std::vector<uint8_t> demo = BuildDemoModel();
  std::unique_ptr<tflite::ModelT> unpacked = tflite::UnPackModel(demo.data());
  int edited = 0;
  for (auto& tensor : unpacked->subgraphs[0]->tensors) {
    if (tensor->shape.size() == 4 && tensor->quantization != nullptr && tensor->quantization->scale.size() > 1) {
      tensor->quantization->scale.push_back(tensor->quantization->scale.back());
      tensor->quantization->zero_point.push_back(0);
      ++edited;
      break;
    }
  }
  ASSERT_EQ(edited, 1) << "the demo model has no per-channel filter to edit";
  ModelBuilder builder(std::move(*unpacked));
  AlignedModel aligned(builder.Build());
  Result<ModelView> model = LoadModel(aligned.span());
  ASSERT_TRUE(model.ok()) << model.status().message();
  Result<RunResult> run = RunModel(*model, AllOpsResolver(), RunOptions{});
  ASSERT_FALSE(run.ok());
  const std::string message = run.status().message();
  EXPECT_NE(message.find("quantization scales; expected 1 or"), std::string::npos) << message;
}

// A variable tensor that carries data loads and runs as in TFLM, which
// ignores the data: the variable starts at zero (TFLM gives variables fresh
// persistent memory and resets them). Checked against the oracle: out = x + 0.
TEST(LoadRulesTest, VariableTensorWithDataLoadsAndItsDataIsIgnoredAsInTflm) {
  MICROARENA_REQUIRE_ORACLE();
  ModelBuilder builder;
  const int32_t x = builder.AddTensor({"x", TensorType::kFloat32, {4}, 0, {}});
  TensorSpec state{"state", TensorType::kFloat32, {4}, 0, {}};
  state.is_variable = true;
  const int32_t s = builder.AddConstantTensor(state, BytesOf(std::vector<float>{5, 5, 5, 5}));
  const int32_t out = builder.AddTensor({"out", TensorType::kFloat32, {4}, 0, {}});
  OperatorSpec add;
  add.op = BuiltinOp::kAdd;
  add.inputs = {x, s};
  add.outputs = {out};
  add.options = MakeBuiltinOptions(tflite::AddOptionsT{});
  builder.AddOperator(std::move(add));
  builder.SetInputs({x});
  builder.SetOutputs({out});
  const std::vector<uint8_t> model = builder.Build();
  const std::vector<uint8_t> input = BytesOf(std::vector<float>{1, -2, 3.5f, 0});
  const testing::Outcome tflm = testing::RunOracleOn("variable_with_data", model, {input}, 1 << 20);
  ASSERT_TRUE(tflm.ok) << tflm.error;
  const testing::Outcome ours = testing::RunOursOn(model, {input});
  ASSERT_TRUE(ours.ok) << ours.error;
  EXPECT_EQ(ours.outputs, tflm.outputs);
  EXPECT_EQ(ours.outputs[0], input);  // x + 0: the 5s are ignored
}

}  // namespace
}  // namespace microarena
