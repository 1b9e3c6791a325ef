// `microarena plan` end to end, and TFLM parity through the whole pipeline:
// model -> our lifetimes -> greedy-tflm must give TFLM's own offsets
// (golden/tflm_plans, written by TFLM's GreedyMemoryPlanner).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "microarena/analysis/offline_plan.h"
#include "microarena/model/model_builder.h"
#include "microarena/plan/problem_csv.h"
#include "microarena/runtime/target_layout.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::RunCli;
using testing::SharedDir;

json PlanJson(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"plan", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto result = RunCli(args);
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  return json::parse(result.stdout_text);
}

TEST(PlanCommandTest, GreedyTflmReproducesTflmPlansFromTheModel) {
  MICROARENA_REQUIRE_SHARED();
  // Every shared model, the kernels' scratch buffers included (SVDF in
  // keyword_scrambled_8bit, LSTM in trained_lstm_int8), but simple_add_model
  // (a single ADD from TFLM's memory_footprint example), which has no TFLM
  // plan; the test fails when it gains one or leaves.
  int compared = 0;
  bool exempt_seen = false;
  for (const std::string& model : testing::SharedModelNames()) {
    SCOPED_TRACE(model);
    const std::vector<testing::TflmPlanBuffer> golden = testing::ReadTflmPlan(model);
    if (model == "simple_add_model") {
      EXPECT_TRUE(golden.empty()) << "it has a TFLM plan now: compare it";
      exempt_seen = true;
      continue;
    }
    ASSERT_FALSE(golden.empty()) << "no golden/tflm_plans file";
    json doc = PlanJson({"--planner", "greedy-tflm", SharedDir() + "/models/" + model + ".tflite"});
    const json& buffers = doc["buffers"];
    ASSERT_EQ(buffers.size(), golden.size());
    for (size_t i = 0; i < golden.size(); ++i) {
      EXPECT_EQ(buffers[i]["kind"], golden[i].kind) << "buffer " << i;
      EXPECT_EQ(buffers[i].value("tensor", -1), golden[i].tensor_index) << "buffer " << i;
      EXPECT_EQ(buffers[i]["size_bytes"].get<size_t>(), golden[i].size_bytes) << "buffer " << i;
      EXPECT_EQ(buffers[i]["offset_bytes"].get<size_t>(), golden[i].offset_bytes) << "buffer " << i;
    }
    EXPECT_EQ(doc["head_bytes"].get<size_t>(), testing::TflmPlanHeadBytes(golden));
    ++compared;
  }
  EXPECT_TRUE(exempt_seen) << "simple_add_model is not shared any more: drop its exemption";
  EXPECT_GE(compared, 9);
}

TEST(PlanCommandTest, JsonHasTheDocumentedKeysAndOptimalBeatsTflmOnVww) {
  MICROARENA_REQUIRE_SHARED();
  // --time-limit 0 (no clock): "proven optimal" is the same on a busy machine.
  json doc = PlanJson({SharedDir() + "/models/vww_96_int8.tflite", "--time-limit", "0"});
  for (const char* key : {"planner", "alignment", "head_bytes", "lower_bound_bytes", "proven_optimal", "buffers",
                          "gap_percent", "comparison"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_EQ(doc["planner"], "optimal");
  EXPECT_EQ(doc["alignment"], 16);
  EXPECT_TRUE(doc["proven_optimal"].get<bool>());
  EXPECT_EQ(doc["head_bytes"], doc["lower_bound_bytes"]);
  // TFLM's head for this model is 73,728 B (golden/tflm_arena.csv, head_bytes).
  EXPECT_LT(doc["head_bytes"].get<size_t>(), 73728u);
  EXPECT_EQ(doc["comparison"]["greedy-tflm"], 73728);
  for (const json& b : doc["buffers"]) {
    for (const char* key : {"kind", "tensor", "size_bytes", "first_op", "end_op", "offset_bytes"}) {
      EXPECT_TRUE(b.contains(key)) << key;
    }
    EXPECT_EQ(b["offset_bytes"].get<size_t>() % 16, 0u);
  }
}

TEST(PlanCommandTest, GreedyReachesTheLowerBoundOnVww) {
  MICROARENA_REQUIRE_SHARED();
  json doc = PlanJson({"--planner", "greedy", SharedDir() + "/models/vww_96_int8.tflite"});
  EXPECT_EQ(doc["head_bytes"], doc["lower_bound_bytes"]);
}

TEST(PlanCommandTest, AlignmentRoundsSizes) {
  MICROARENA_REQUIRE_SHARED();
  json doc = PlanJson({"--align", "64", "--planner", "linear", SharedDir() + "/models/kws_ref_model.tflite"});
  EXPECT_EQ(doc["alignment"], 64);
  // The 490-byte input rounds to 512 at alignment 64 (to 496 at 16).
  EXPECT_EQ(doc["buffers"][0]["size_bytes"], 512);
}

TEST(PlanCommandTest, CsvExportReadsBackAsTheSameProblem) {
  MICROARENA_REQUIRE_SHARED();
  std::string csv = testing::TempDir("plan_csv") + "/kws.csv";
  json doc = PlanJson({"--csv", csv, SharedDir() + "/models/kws_ref_model.tflite"});
  Result<ProblemCsv> problem = ReadProblemCsv(csv);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  ASSERT_EQ(problem->buffers.size(), doc["buffers"].size());
  for (size_t i = 0; i < problem->buffers.size(); ++i) {
    EXPECT_EQ(problem->buffers[i].size_bytes, doc["buffers"][i]["size_bytes"].get<size_t>());
    EXPECT_EQ(problem->buffers[i].lifetime.first_op, doc["buffers"][i]["first_op"].get<int>());
    EXPECT_EQ(problem->buffers[i].lifetime.end_op, doc["buffers"][i]["end_op"].get<int>());
  }
}

// trained_lstm_int8 asks for four scratch buffers at op 0: each row needs
// its own id, or `solve` refuses the file (ids must be distinct).
TEST(PlanCommandTest, CsvExportOfSeveralScratchBuffersPerOpSolves) {
  MICROARENA_REQUIRE_SHARED();
  std::string csv = testing::TempDir("plan_csv_scratch") + "/lstm.csv";
  json doc = PlanJson({"--csv", csv, SharedDir() + "/models/trained_lstm_int8.tflite"});
  Result<ProblemCsv> problem = ReadProblemCsv(csv);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  ASSERT_EQ(problem->buffers.size(), doc["buffers"].size());
  int op0_scratch = 0;
  for (const std::string& id : problem->ids) op0_scratch += id.rfind("op0_scratch", 0) == 0 ? 1 : 0;
  EXPECT_GE(op0_scratch, 2);
  EXPECT_NE(std::find(problem->ids.begin(), problem->ids.end(), "op0_scratch1"), problem->ids.end());
}

// README.md quotes the shared arena of kws_ref_model + vww_96_int8 ("plan A.tflite
// B.tflite"): held to the command here, with the ratio to two decimals.
TEST(PlanCommandTest, ReadmeQuotesTheSharedArenaOfKwsAndVww) {
  MICROARENA_REQUIRE_SHARED();
  json doc = PlanJson({SharedDir() + "/models/kws_ref_model.tflite", SharedDir() + "/models/vww_96_int8.tflite"});
  const auto separated = [](size_t value) {
    std::string digits = std::to_string(value);
    for (size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
    return digits;
  };
  const size_t shared = doc["shared_arena_bytes"].get<size_t>();
  const size_t separate = doc["separate_arenas_bytes"].get<size_t>();
  char ratio[16];
  std::snprintf(ratio, sizeof(ratio), "%.2f", static_cast<double>(shared) / static_cast<double>(separate));
  const std::string quote = "kws_ref_model +\nvww_96_int8: " + separated(shared) + " B shared against " +
                            separated(separate) + " B in two arenas (" + ratio + ")";
  std::ifstream file(std::string(MICROARENA_SOURCE_DIR) + "/README.md");
  const std::string readme((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(readme.find(quote), std::string::npos) << "README.md should say:\n" << quote;
}

TEST(PlanCommandTest, OfflinePlanFromMetadataIsUsedByDefault) {
  // Two 16-byte activations that overlap in time, and an offline plan putting
  // t1 at 64 and t0 at 16; the output t2 is planned online around them.
  ModelBuilder builder;
  TensorSpec spec{"t", TensorType::kInt8, {16}};
  int32_t t0 = builder.AddTensor(spec);
  int32_t t1 = builder.AddTensor(spec);
  int32_t t2 = builder.AddTensor(spec);
  builder.AddOperator(OperatorSpec{BuiltinOp::kRelu, 1, "", {t0}, {t1}});
  builder.AddOperator(OperatorSpec{BuiltinOp::kAdd, 1, "", {t0, t1}, {t2}});
  builder.SetInputs({t0});
  builder.SetOutputs({t2});
  builder.AddMetadata(kOfflinePlanMetadataName, BytesOf(std::vector<int32_t>{0, 1, 3, 16, 64, -1}));
  std::string path = testing::TempDir("plan_offline") + "/offline.tflite";
  std::vector<uint8_t> bytes = builder.Build();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  json doc = PlanJson({path});
  EXPECT_EQ(doc["planner"], "offline");
  EXPECT_EQ(doc["buffers"][0]["offset_bytes"], 16);
  EXPECT_EQ(doc["buffers"][1]["offset_bytes"], 64);
  // t2 lives at step 1 with t0 [16, 32) and t1 [64, 80): the lowest gap is [0, 16).
  EXPECT_EQ(doc["buffers"][2]["offset_bytes"], 0);
  EXPECT_EQ(doc["head_bytes"], 80);
}

// The device's RAM: the runtime's arena for the target plus the stack and
// static data measured there (runtime/target_layout.h; scripts/cortex_m.sh
// fails when a firmware needs more). Only for a target with those figures.
TEST(PlanCommandTest, DeviceRamAddsTheTargetsStackAndStaticData) {
  const std::string dir = testing::TempDir("plan_device_ram");
  const std::string model = dir + "/demo.tflite";
  ASSERT_EQ(testing::RunCli({"demo-model", "-o", model}).exit_code, 0);
  testing::CommandResult result = testing::RunCli({"plan", model, "--target", "cortex-m", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json doc = json::parse(result.stdout_text);
  const json& ram = doc.at("device_ram");
  EXPECT_EQ(ram.at("arena_bytes").get<size_t>(), doc.at("runtime").at("arena_bytes").get<size_t>());
  EXPECT_EQ(ram.at("stack_bytes").get<size_t>(), kCortexMLayout.stack_bytes);
  EXPECT_EQ(ram.at("static_bytes").get<size_t>(), kCortexMLayout.static_ram_bytes);
  EXPECT_EQ(ram.at("total_bytes").get<size_t>(),
            ram.at("arena_bytes").get<size_t>() + kCortexMLayout.stack_bytes + kCortexMLayout.static_ram_bytes);
  EXPECT_GT(kCortexMLayout.stack_bytes, 0u);
  testing::CommandResult text = testing::RunCli({"plan", model, "--target", "cortex-m"});
  EXPECT_NE(text.stdout_text.find("device RAM"), std::string::npos) << text.stdout_text;
  // The host has no measured stack: no device figure.
  testing::CommandResult host = testing::RunCli({"plan", model, "--json"});
  ASSERT_EQ(host.exit_code, 0);
  EXPECT_FALSE(json::parse(host.stdout_text).contains("device_ram"));
}

TEST(PlanCommandTest, ErrorsAreClear) {
  MICROARENA_REQUIRE_SHARED();
  std::string kws = SharedDir() + "/models/kws_ref_model.tflite";
  auto offline = RunCli({"plan", "--planner", "offline", kws});
  EXPECT_EQ(offline.exit_code, 1);
  EXPECT_NE(offline.stderr_text.find("OfflineMemoryAllocation"), std::string::npos) << offline.stderr_text;
  EXPECT_EQ(offline.stderr_text.rfind("error: " + kws + ": ", 0), 0u) << offline.stderr_text;
  EXPECT_EQ(RunCli({"plan", "--align", "12", kws}).exit_code, 2);
  EXPECT_EQ(RunCli({"plan", "--planner", "best", kws}).exit_code, 2);
  auto missing = RunCli({"plan", "/no/such/model.tflite"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.stderr_text.find("no such file"), std::string::npos);
}

}  // namespace
}  // namespace microarena
