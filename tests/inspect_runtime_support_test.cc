// `microarena inspect` says which ops of a model the runtime lacks and which
// op/type combinations it refuses, on a model built to hold each case.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "microarena/model/model_builder.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::RunCli;

// Subgraph 0:
//   op 0 RELU            INT8 -> INT8         runs
//   op 1 CUSTOM "my_npu"                      lacks: no kernel registered by name
//   op 2 LSH_PROJECTION  FLOAT32             lacks: a TFLite builtin with no kernel here (TFLM has none)
//   op 3 RELU            UINT8 -> UINT8       refused: RELU takes FLOAT32 or INT8
//   op 4 FULLY_CONNECTED INT16 x INT16        refused: an INT16 input takes INT8 weights
// Subgraph 1:
//   op 0 LOCAL_RESPONSE_NORMALIZATION FLOAT32  lacks
std::string WriteModel(const std::string& name) {
  ModelBuilder builder;
  const QuantizationSpec q = QuantizationSpec::PerTensor(0.5f, 0);
  const int32_t a = builder.AddTensor({"a", TensorType::kInt8, {1, 4}, 0, q});
  const int32_t b = builder.AddTensor({"b", TensorType::kInt8, {1, 4}, 0, q});
  const int32_t c = builder.AddTensor({"c", TensorType::kFloat32, {1, 4}});
  const int32_t paddings =
      builder.AddConstantTensor({"paddings", TensorType::kInt32, {2, 2}}, BytesOf(std::vector<int32_t>{0, 0, 1, 1}));
  const int32_t d = builder.AddTensor({"d", TensorType::kFloat32, {1, 6}});
  const int32_t e = builder.AddTensor({"e", TensorType::kUInt8, {1, 4}, 0, q});
  const int32_t f = builder.AddTensor({"f", TensorType::kUInt8, {1, 4}, 0, q});
  const int32_t g = builder.AddTensor({"g", TensorType::kInt16, {1, 4}, 0, q});
  const int32_t weights =
      builder.AddConstantTensor({"weights", TensorType::kInt16, {2, 4}, 0, q}, BytesOf(std::vector<int16_t>(8, 1)));
  const int32_t h = builder.AddTensor({"h", TensorType::kInt16, {1, 2}, 0, q});
  auto add = [&builder](BuiltinOp code, std::vector<int32_t> inputs, int32_t output, size_t subgraph = 0,
                        const std::string& custom_name = "") {
    OperatorSpec op;
    op.op = code;
    op.custom_name = custom_name;
    op.inputs = std::move(inputs);
    op.outputs = {output};
    builder.AddOperator(std::move(op), subgraph);
  };
  add(BuiltinOp::kRelu, {a}, b);
  add(BuiltinOp::kCustom, {b}, c, 0, "my_npu");
  add(BuiltinOp::kLshProjection, {c, paddings}, d);
  add(BuiltinOp::kRelu, {e}, f);
  add(BuiltinOp::kFullyConnected, {g, weights, -1}, h);
  builder.SetInputs({a, e, g});
  builder.SetOutputs({d, f, h});

  const size_t second = builder.AddSubgraph("other");
  const int32_t x = builder.AddTensor({"x", TensorType::kFloat32, {1, 4}}, second);
  const int32_t y = builder.AddTensor({"y", TensorType::kFloat32, {1, 4}}, second);
  add(BuiltinOp::kLocalResponseNormalization, {x}, y, second);
  builder.SetInputs({x}, second);
  builder.SetOutputs({y}, second);

  const std::string path = testing::TempDir(name) + "/model.tflite";
  testing::WriteFile(path, builder.Build());
  return path;
}

TEST(InspectRuntimeSupportTest, JsonListsLackingAndRefusedOps) {
  const std::string model = WriteModel("inspect_runtime_support_json");
  auto result = RunCli({"inspect", "--json", model});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json support = json::parse(result.stdout_text)["runtime_support"];
  EXPECT_FALSE(support["ok"].get<bool>());
  EXPECT_EQ(support["missing_ops"], json::parse(R"([{"subgraph": 0, "op_index": 1, "op": "my_npu", "custom": true},
                            {"subgraph": 0, "op_index": 2, "op": "LSH_PROJECTION", "custom": false},
                            {"subgraph": 1, "op_index": 0, "op": "LOCAL_RESPONSE_NORMALIZATION", "custom": false}])"));
  ASSERT_EQ(support["refused_types"].size(), 2u) << support.dump(2);
  EXPECT_EQ(support["refused_types"][0],
            json::parse(R"({"subgraph": 0, "op_index": 3, "op": "RELU", "operand": "input 0", "tensor_index": 5,
                            "type": "UINT8", "accepted": "FLOAT32, INT8, INT16"})"));
  EXPECT_EQ(support["refused_types"][1]["op"], "FULLY_CONNECTED");
  EXPECT_EQ(support["refused_types"][1]["operand"], "input 1");
  EXPECT_EQ(support["refused_types"][1]["type"], "INT16");
}

TEST(InspectRuntimeSupportTest, TextNamesEachOpWithItsIndexAndSubgraph) {
  const std::string model = WriteModel("inspect_runtime_support_text");
  auto result = RunCli({"inspect", model});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::string& text = result.stdout_text;
  EXPECT_NE(text.find("runtime      3 op(s) without a kernel, 2 refused type(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("Ops the runtime lacks"), std::string::npos) << text;
  EXPECT_NE(text.find("CUSTOM 'my_npu'"), std::string::npos) << text;
  EXPECT_NE(text.find("LSH_PROJECTION"), std::string::npos) << text;
  EXPECT_NE(text.find("LOCAL_RESPONSE_NORMALIZATION"), std::string::npos) << text;
  EXPECT_NE(text.find("Op/type combinations the runtime refuses"), std::string::npos) << text;
  EXPECT_NE(text.find("UINT8"), std::string::npos) << text;
}

// The shared models all run on microarena, and inspect says so.
TEST(InspectRuntimeSupportTest, SharedModelsNeedNothingTheRuntimeLacks) {
  MICROARENA_REQUIRE_SHARED();
  for (const std::string& name : testing::SharedModelNames()) {
    SCOPED_TRACE(name);
    auto result = RunCli({"inspect", "--json", testing::SharedDir() + "/models/" + name + ".tflite"});
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
    const json support = json::parse(result.stdout_text)["runtime_support"];
    EXPECT_TRUE(support["ok"].get<bool>()) << support.dump(2);
  }
}

}  // namespace
}  // namespace microarena
