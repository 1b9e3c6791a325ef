// `microarena inspect` on the shared models, checked against figures that do
// not come from microarena:
//  - TFLM's tensor dumps (golden/<model>/seed1/tensors/tensors.txt) list every
//    non-constant tensor with its shape and byte size, as TFLM allocated it;
//  - TFLM's arena breakdown (golden/tflm_arena.csv) counts 24 bytes of
//    TfLiteEvalTensor per tensor and 64 bytes of NodeAndRegistration per op, so
//    eval_tensor_bytes / 24 is the tensor count and
//    node_and_registration_bytes / 64 the op count;
//  - hand arithmetic from the published DS-CNN architecture for kws_ref_model.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::RunCli;
using testing::SharedDir;

std::map<std::string, std::string> ParseFields(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::istringstream in(line);
  std::string token;
  while (in >> token) {
    size_t eq = token.find('=');
    if (eq != std::string::npos) fields[token.substr(0, eq)] = token.substr(eq + 1);
  }
  return fields;
}

std::string ShapeString(const json& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "x" : "") + std::to_string(shape[i].get<int>());
  return out;
}

json InspectJson(const std::string& model) {
  auto result = RunCli({"inspect", "--json", SharedDir() + "/models/" + model + ".tflite"});
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  return json::parse(result.stdout_text);
}

TEST(InspectTest, EverySharedModelInspectsAndItsJsonParses) {
  MICROARENA_REQUIRE_SHARED();
  auto models = testing::SharedModelNames();
  ASSERT_GE(models.size(), 9u);
  for (const std::string& model : models) {
    SCOPED_TRACE(model);
    auto text = RunCli({"inspect", SharedDir() + "/models/" + model + ".tflite"});
    EXPECT_EQ(text.exit_code, 0) << text.stderr_text;
    EXPECT_NE(text.stdout_text.find("Read-only persistent"), std::string::npos);
    json doc = InspectJson(model);
    ASSERT_TRUE(doc.contains("subgraphs"));
    EXPECT_GE(doc["subgraphs"].size(), 1u);
  }
}

TEST(InspectTest, CountsMatchTflmArenaBreakdown) {
  MICROARENA_REQUIRE_SHARED();
  // simple_add_model (a single ADD from TFLM's memory_footprint example) has
  // no row in tflm_arena.csv; every other shared model must have one, and
  // the test fails when it gains one.
  int checked = 0;
  bool exempt_seen = false;
  for (const std::string& model : testing::SharedModelNames()) {
    SCOPED_TRACE(model);
    auto row = testing::TflmArenaRow(model);
    if (model == "simple_add_model") {
      EXPECT_TRUE(row.empty()) << "it has TFLM figures now: check it";
      exempt_seen = true;
      continue;
    }
    ASSERT_FALSE(row.empty()) << "no row in golden/tflm_arena.csv";
    json doc = InspectJson(model);
    size_t tensors = 0, ops = 0;
    for (const json& sg : doc["subgraphs"]) {
      tensors += sg["tensors"].size();
      ops += sg["operators"].size();
    }
    EXPECT_EQ(tensors * 24, std::stoul(row["eval_tensor_bytes"]));
    EXPECT_EQ(ops * 64, std::stoul(row["node_and_registration_bytes"]));
    ++checked;
  }
  EXPECT_TRUE(exempt_seen) << "simple_add_model is not shared any more: drop its exemption";
  EXPECT_GE(checked, 9);
}

TEST(InspectTest, NonConstantTensorsMatchTflmTensorDumps) {
  MICROARENA_REQUIRE_SHARED();
  // simple_add_model has no golden run (as above); every other shared model
  // must have tensor dumps, and the test fails when it gains them.
  int checked = 0;
  bool exempt_seen = false;
  for (const std::string& model : testing::SharedModelNames()) {
    SCOPED_TRACE(model);
    std::ifstream dump(SharedDir() + "/golden/" + model + "/seed1/tensors/tensors.txt");
    if (model == "simple_add_model") {
      EXPECT_FALSE(dump.good()) << "it has tensor dumps now: check it";
      exempt_seen = true;
      continue;
    }
    ASSERT_TRUE(dump.good()) << "no golden tensor dumps";
    json doc = InspectJson(model);
    const json& tensors = doc["subgraphs"][0]["tensors"];
    uint64_t golden_bytes = 0, our_bytes = 0;
    size_t golden_count = 0;
    for (std::string line; std::getline(dump, line);) {
      auto fields = ParseFields(line);
      ASSERT_EQ(fields["subgraph"], "0");
      size_t index = std::stoul(fields["tensor"]);
      ASSERT_LT(index, tensors.size());
      const json& ours = tensors[index];
      EXPECT_NE(ours["kind"], "constant") << "tensor " << index;
      EXPECT_EQ(ShapeString(ours["shape"]), fields["shape"]) << "tensor " << index;
      EXPECT_EQ(ours["size_bytes"].get<uint64_t>(), std::stoull(fields["bytes"])) << "tensor " << index;
      EXPECT_EQ(ours["type"], fields["type"]) << "tensor " << index;
      EXPECT_EQ(ours["kind"] == "variable", fields["variable"] == "1") << "tensor " << index;
      golden_bytes += std::stoull(fields["bytes"]);
      ++golden_count;
    }
    size_t our_count = 0;
    // TFLM's dump leaves out op intermediates (LSTM bookkeeping, 0 bytes here).
    for (const json& t : tensors) {
      if (t["kind"] != "constant" && t["kind"] != "intermediate") {
        ++our_count;
        our_bytes += t["size_bytes"].get<uint64_t>();
      }
    }
    EXPECT_EQ(our_count, golden_count);
    EXPECT_EQ(our_bytes, golden_bytes);
    ++checked;
  }
  EXPECT_TRUE(exempt_seen) << "simple_add_model is not shared any more: drop its exemption";
  EXPECT_GE(checked, 9);
}

// kws_ref_model is the MLPerf Tiny DS-CNN: conv 10x4x1 -> 64 channels, four
// blocks of depthwise 3x3 (64 ch) + pointwise 1x1 (64 -> 64), average pool,
// fully connected 64 -> 12, softmax. By hand:
//   weights: conv 64*10*4*1 = 2,560; pointwise 4 * 64*64 = 16,384;
//            depthwise 4 * 3*3*64 = 2,304; fc 12*64 = 768; reshape's shape
//            constant 2 int32 = 8           -> 22,024
//   biases:  9 conv/depthwise layers * 64 int32 = 2,304; fc 12 int32 = 48 -> 2,352
//   MACs:    conv 25*5*64 * 10*4 = 320,000; each depthwise 25*5*64*9 = 72,000;
//            each pointwise 25*5*64*64 = 512,000; fc 64*12 = 768
//            -> 320,000 + 4*72,000 + 4*512,000 + 768 = 2,656,768
TEST(InspectTest, KwsReadOnlyBytesAndMacsMatchHandArithmetic) {
  MICROARENA_REQUIRE_SHARED();
  json doc = InspectJson("kws_ref_model");
  const json& sg = doc["subgraphs"][0];
  EXPECT_EQ(sg["read_only"]["total"]["weights_bytes"], 22024);
  EXPECT_EQ(sg["read_only"]["total"]["bias_bytes"], 2352);
  EXPECT_EQ(sg["total_macs"], 2656768);
  EXPECT_EQ(sg["op_counts"]["CONV_2D"], 5);
  EXPECT_EQ(sg["op_counts"]["DEPTHWISE_CONV_2D"], 4);
  EXPECT_EQ(sg["tensor_counts"]["constant"], 21);  // 9 filters + 9 biases + fc weights, bias, shape
}

TEST(InspectTest, BadFilesGetOneLineErrors) {
  std::string dir = testing::TempDir("inspect_bad_files");
  std::ofstream(dir + "/empty.tflite").close();
  std::ofstream(dir + "/text.tflite") << "this is not a model, just some text that is long enough\n";
  struct Case {
    std::string path;
    std::string expected;
  };
  std::vector<Case> cases = {
      {dir + "/missing.tflite", "no such file"},
      {dir, "is a directory"},
      {dir + "/empty.tflite", "empty"},
      {dir + "/text.tflite", "not a .tflite file"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    auto result = RunCli({"inspect", c.path});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.stdout_text, "");
    EXPECT_EQ(result.stderr_text.rfind("error: " + c.path + ": ", 0), 0u) << result.stderr_text;
    EXPECT_NE(result.stderr_text.find(c.expected), std::string::npos) << result.stderr_text;
    EXPECT_EQ(std::count(result.stderr_text.begin(), result.stderr_text.end(), '\n'), 1);
  }
}

TEST(InspectTest, BadArgumentsExitWithUsageError) {
  EXPECT_EQ(RunCli({"inspect"}).exit_code, 2);
  EXPECT_EQ(RunCli({"inspect", "a.tflite", "--no-such-flag"}).exit_code, 2);
  EXPECT_EQ(RunCli({"no-such-command"}).exit_code, 2);
  auto help = RunCli({"inspect", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.stdout_text.find("--json"), std::string::npos);
}

}  // namespace
}  // namespace microarena
