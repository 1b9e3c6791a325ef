// The op table (kernels/op_types.h) against the kernels and the README:
//  - every kernel of AllOpsResolver has one entry, and every entry a kernel;
//  - README.md holds exactly `microarena ops --markdown` between its markers,
//    so the published table cannot drift from the code.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/op_types.h"
#include "microarena/model/model_builder.h"
#include "microarena/report/op_support.h"
#include "tests/support/kernel_harness.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::RunCli;

constexpr char kBeginMarker[] = "<!-- ops-table:begin (microarena ops --markdown) -->\n";
constexpr char kEndMarker[] = "<!-- ops-table:end -->";

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(OpsTableTest, EveryKernelHasOneEntryAndEveryEntryAKernel) {
  std::set<int32_t> kernel_ops;
  for (const KernelRegistration* kernel : AllOpsResolver().kernels()) {
    EXPECT_TRUE(kernel_ops.insert(static_cast<int32_t>(kernel->op)).second)
        << "two kernels for " << BuiltinOpName(kernel->op);
    EXPECT_NE(FindOpTypes(kernel->op), nullptr) << BuiltinOpName(kernel->op) << " has a kernel but no op table entry";
  }
  std::set<int32_t> table_ops;
  for (const OpTypes& entry : OpTypeTable()) {
    EXPECT_TRUE(table_ops.insert(static_cast<int32_t>(entry.op)).second)
        << "two entries for " << BuiltinOpName(entry.op);
    EXPECT_NE(AllOpsResolver().Find(entry.op), nullptr)
        << BuiltinOpName(entry.op) << " has an op table entry but no kernel";
    EXPECT_NE(entry.note, nullptr);
    EXPECT_EQ(entry.operand == TypedOperand::kNone, entry.types == 0) << BuiltinOpName(entry.op);
  }
  EXPECT_EQ(kernel_ops, table_ops);
}

// The custom ops alike: one entry per custom kernel of AllOpsResolver.
TEST(OpsTableTest, EveryCustomKernelHasOneEntryAndEveryEntryAKernel) {
  std::set<std::string> kernel_names;
  for (const CustomKernel& custom : AllOpsResolver().custom_kernels()) {
    EXPECT_TRUE(kernel_names.insert(custom.name).second) << "two kernels for " << custom.name;
    EXPECT_NE(FindCustomOpTypes(custom.name), nullptr) << custom.name << " has a kernel but no op table entry";
  }
  std::set<std::string> table_names;
  for (const CustomOpTypes& entry : CustomOpTypeTable()) {
    EXPECT_TRUE(table_names.insert(entry.name).second) << "two entries for " << entry.name;
    EXPECT_EQ(entry.types.op, BuiltinOp::kCustom) << entry.name;
    EXPECT_NE(entry.types.note, nullptr);
  }
  EXPECT_EQ(kernel_names, table_names);
  EXPECT_FALSE(table_names.empty());
}

// The named type sets mean what their names say, by TensorTypeBits.
TEST(OpsTableTest, NamedTypeSetsFollowTheElementSizes) {
  for (int value = 0; value < 18; ++value) {
    const TensorType type = static_cast<TensorType>(value);
    const size_t bits = TensorTypeBits(type);
    SCOPED_TRACE(TensorTypeName(type));
    EXPECT_NE(kAnyTensorType & TypeBit(type), 0u);
    EXPECT_EQ((kWholeByteTypes & TypeBit(type)) != 0, bits != 0 && bits % 8 == 0);
    EXPECT_EQ((k1To4ByteTypes & TypeBit(type)) != 0, bits == 8 || bits == 16 || bits == 32);
  }
}

// Every kernel is a TFLM builtin: the table covers a subset of TFLM's ops,
// and the rest are listed as missing.
TEST(OpsTableTest, MissingTflmBuiltinsAreTflmsOpsWithoutAKernel) {
  std::set<int32_t> tflm;
  for (BuiltinOp op : TflmBuiltinOps()) tflm.insert(static_cast<int32_t>(op));
  for (const OpTypes& entry : OpTypeTable()) {
    EXPECT_EQ(tflm.count(static_cast<int32_t>(entry.op)), 1u) << BuiltinOpName(entry.op) << " is not a TFLM builtin";
  }
  const std::vector<std::string> missing = report::MissingTflmBuiltins();
  EXPECT_EQ(missing.size() + OpTypeTable().size(), tflm.size());
}

// The table against the kernels themselves, for the elementwise ops whose
// operands all share one type (comparisons: a BOOL output): Prepare refuses every type the table leaves
// out, and accepts FLOAT32 where the table lists it (integer types need
// op-specific quantization, which the oracle tests cover).
TEST(OpsTableTest, ElementwiseKernelsRefuseEveryTypeTheTableLeavesOut) {
  struct Case {
    BuiltinOp op;
    size_t inputs;
    bool bool_output = false;  // comparisons
  };
  const Case cases[] = {
      {BuiltinOp::kAbs, 1},
      {BuiltinOp::kCeil, 1},
      {BuiltinOp::kCos, 1},
      {BuiltinOp::kExp, 1},
      {BuiltinOp::kFloor, 1},
      {BuiltinOp::kLog, 1},
      {BuiltinOp::kNeg, 1},
      {BuiltinOp::kRound, 1},
      {BuiltinOp::kRsqrt, 1},
      {BuiltinOp::kSin, 1},
      {BuiltinOp::kSqrt, 1},
      {BuiltinOp::kSquare, 1},
      {BuiltinOp::kRelu, 1},
      {BuiltinOp::kRelu6, 1},
      {BuiltinOp::kLogistic, 1},
      {BuiltinOp::kTanh, 1},
      {BuiltinOp::kHardSwish, 1},
      {BuiltinOp::kLeakyRelu, 1},
      {BuiltinOp::kZerosLike, 1},
      {BuiltinOp::kLogicalNot, 1},
      {BuiltinOp::kAdd, 2},
      {BuiltinOp::kSub, 2},
      {BuiltinOp::kMul, 2},
      {BuiltinOp::kDiv, 2},
      {BuiltinOp::kMaximum, 2},
      {BuiltinOp::kMinimum, 2},
      {BuiltinOp::kSquaredDifference, 2},
      {BuiltinOp::kFloorDiv, 2},
      {BuiltinOp::kFloorMod, 2},
      {BuiltinOp::kLogicalAnd, 2},
      {BuiltinOp::kLogicalOr, 2},
      {BuiltinOp::kEqual, 2, true},
      {BuiltinOp::kNotEqual, 2, true},
      {BuiltinOp::kLess, 2, true},
      {BuiltinOp::kLessEqual, 2, true},
      {BuiltinOp::kGreater, 2, true},
      {BuiltinOp::kGreaterEqual, 2, true},
  };
  for (const Case& c : cases) {
    const OpTypes* entry = FindOpTypes(c.op);
    ASSERT_NE(entry, nullptr) << BuiltinOpName(c.op);
    ASSERT_EQ(entry->operand, TypedOperand::kInput0);
    for (int value = 0; value < 18; ++value) {
      const TensorType type = static_cast<TensorType>(value);
      SCOPED_TRACE(std::string(BuiltinOpName(c.op)) + " " + TensorTypeName(type));
      const bool is_integer = type == TensorType::kInt8 || type == TensorType::kUInt8 || type == TensorType::kInt16;
      const QuantizationSpec q = is_integer ? QuantizationSpec::PerTensor(0.5f, 0) : QuantizationSpec();
      ModelBuilder builder;
      OperatorSpec op;
      op.op = c.op;
      for (size_t i = 0; i < c.inputs; ++i) op.inputs.push_back(builder.AddTensor({"in", type, {1, 4}, 0, q}));
      op.outputs = {c.bool_output ? builder.AddTensor({"out", TensorType::kBool, {1, 4}})
                                  : builder.AddTensor({"out", type, {1, 4}, 0, q})};
      builder.SetInputs(op.inputs);
      builder.SetOutputs(op.outputs);
      builder.AddOperator(std::move(op));
      const std::vector<uint8_t> bytes = builder.Build();
      Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
      if (!model.ok()) {
        // Only a type no model may hold (STRING, VARIANT: no fixed size) is refused at load.
        EXPECT_TRUE(type == TensorType::kString || type == TensorType::kVariant) << model.status().message();
        continue;
      }
      testing::KernelHarness harness(*model, 0, AllOpsResolver());
      ASSERT_TRUE(harness.has_kernel());
      const Status status = harness.Prepare();
      if (!Accepts(*entry, type)) {
        EXPECT_FALSE(status.ok()) << "the table refuses this type but Prepare accepts it";
      } else if (type == TensorType::kFloat32) {
        EXPECT_TRUE(status.ok()) << status.message();
      }
    }
  }
}

TEST(OpsTableTest, ReadmeHoldsTheMarkdownOfTheOpsCommand) {
  auto result = RunCli({"ops", "--markdown"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(result.stdout_text, report::OpsTableMarkdown());
  const std::string readme = ReadText(std::string(MICROARENA_SOURCE_DIR) + "/README.md");
  const size_t begin = readme.find(kBeginMarker);
  const size_t end = readme.find(kEndMarker);
  ASSERT_NE(begin, std::string::npos) << "README.md lacks the marker " << kBeginMarker;
  ASSERT_NE(end, std::string::npos) << "README.md lacks the marker " << kEndMarker;
  ASSERT_LT(begin, end);
  const size_t body = begin + std::string(kBeginMarker).size();
  EXPECT_EQ(readme.substr(body, end - body), result.stdout_text)
      << "README.md's op table is stale: replace the text between the markers with the output of "
         "'microarena ops --markdown'";
}

TEST(OpsTableTest, TextAndJsonListTheSameOps) {
  auto text = RunCli({"ops"});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  auto json_result = RunCli({"ops", "--json"});
  ASSERT_EQ(json_result.exit_code, 0) << json_result.stderr_text;
  const nlohmann::json doc = nlohmann::json::parse(json_result.stdout_text);
  ASSERT_EQ(doc["ops"].size(), OpTypeTable().size());
  for (const nlohmann::json& op : doc["ops"]) {
    EXPECT_NE(text.stdout_text.find("\n" + op["op"].get<std::string>() + " "), std::string::npos) << op["op"];
  }
  ASSERT_EQ(doc["custom_ops"].size(), CustomOpTypeTable().size());
  for (const nlohmann::json& op : doc["custom_ops"]) {
    EXPECT_NE(text.stdout_text.find("\n" + op["op"].get<std::string>() + " (custom) "), std::string::npos) << op["op"];
  }
  const nlohmann::json conv = *std::find_if(doc["ops"].begin(), doc["ops"].end(),
                                            [](const nlohmann::json& op) { return op["op"] == "CONV_2D"; });
  EXPECT_EQ(conv["types"], nlohmann::json({"FLOAT32", "INT8", "INT16"}));
  EXPECT_TRUE(conv["int16_is_16x8"].get<bool>());
  EXPECT_EQ(doc["tflm_builtins_missing"].size(), report::MissingTflmBuiltins().size());
  // One format at a time.
  EXPECT_EQ(RunCli({"ops", "--json", "--markdown"}).exit_code, 2);
}

}  // namespace
}  // namespace microarena
