// `microarena budget` end to end. Every arena it reports must be what the
// runtime measures for that setup: the test builds the InterpreterOptions of
// each action and combination itself and measures them with MeasureArenaBytes
// (the optimal planner's offline plan is held to greedy's arena). The verdict, the exit code and the fitting combination must
// follow from those numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/kernel_data_writer.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::RunCli;

std::string KwsPath() { return testing::SharedDir() + "/models/kws_ref_model.tflite"; }

// `model` with its kernels' data stored, as `optimize` writes it.
std::vector<uint8_t> WithKernelData(const ModelView& model, size_t alignment) {
  InterpreterOptions options;
  options.alignment_bytes = alignment;
  Result<ComputedKernelData> computed = ComputeKernelData(model, AllOpsResolver(), options);
  EXPECT_TRUE(computed.ok());
  ModelEdits edits;
  edits.metadata.push_back({kKernelDataMetadataName, EncodeKernelData(*computed)});
  Result<std::vector<uint8_t>> bytes = RewriteModel(model.bytes(), edits);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

size_t Measure(const ModelView& model, const std::string& planner, size_t alignment, bool overlap = false,
               bool kernel_data = false) {
  if (kernel_data) {
    const std::vector<uint8_t> stored = WithKernelData(model, alignment);
    Result<ModelView> view = LoadModel(Span<const uint8_t>(stored.data(), stored.size()));
    return view.ok() ? Measure(*view, planner, alignment, overlap) : 0;
  }
  InterpreterOptions options;
  options.allow_overlap = overlap;
  if (planner == "offline") options.planner = PlannerChoice::kOffline;
  options.alignment_bytes = alignment;
  if (planner == "greedy") options.planner = PlannerChoice::kGreedy;
  if (planner == "greedy-tflm") options.planner = PlannerChoice::kGreedyTflm;
  if (planner == "linear") options.planner = PlannerChoice::kLinear;
  Result<size_t> bytes = MeasureArenaBytes(model, AllOpsResolver(), options);
  return bytes.ok() ? *bytes : 0;
}

// kws has a kernel for every op and every setup budget tries is valid for it:
// each entry must be measured, none left out of the checks below.
void CheckMeasured(const ModelView& model, const json& entry, size_t current_arena, size_t ram) {
  SCOPED_TRACE(entry.dump());
  ASSERT_TRUE(entry["measured"].get<bool>()) << entry.value("error", std::string());
  EXPECT_FALSE(entry.contains("error"));
  const size_t arena = entry["arena_bytes"].get<size_t>();
  const std::string planner = entry["setup"]["planner"];
  const size_t alignment = entry["setup"]["alignment"];
  const bool overlap = entry["setup"]["overlap"];
  const bool kernel_data = entry["setup"]["kernel_data_in_flash"];
  if (entry["setup"]["order"] == "best") {
    // Reordered: the file `microarena optimize --order best` writes, run
    // with the planner named (its offline plan for "optimal").
    const std::string path =
        testing::TempDir(std::string("budget_optimize/") +
                         ::testing::UnitTest::GetInstance()->current_test_info()->name()) +
        "/reordered.tflite";
    std::vector<std::string> args = {"optimize", KwsPath(), "--order", "best", "--align", std::to_string(alignment),
                                     "--planner", planner == "optimal" ? "optimal" : "greedy", "-o", path};
    if (overlap && planner == "optimal") args.push_back("--overlap");  // the overlap plan in the file
    args.push_back("--kernel-data");
    args.push_back(kernel_data ? "flash" : "ram");
    CommandResult optimize = RunCli(args);
    ASSERT_EQ(optimize.exit_code, 0) << optimize.stderr_text;
    Result<ModelFile> reordered = ModelFile::Open(path);
    ASSERT_TRUE(reordered.ok());
    EXPECT_EQ(arena, Measure(reordered->view(), planner == "optimal" ? "offline" : planner, alignment, overlap));
  } else if (planner == "optimal") {
    // An offline plan from the optimal planner runs through the runtime's
    // offline path; it is never worse than greedy at the same alignment
    // (and with overlap, than greedy with overlap).
    EXPECT_LE(arena, Measure(model, "greedy", alignment, overlap, kernel_data));
  } else {
    EXPECT_EQ(arena, Measure(model, planner, alignment, overlap, kernel_data));
  }
  EXPECT_EQ(entry["saves_bytes"].get<int64_t>(), static_cast<int64_t>(current_arena) - static_cast<int64_t>(arena));
  EXPECT_EQ(entry["fits"].get<bool>(), arena <= ram);
}

TEST(BudgetCommandTest, KwsFourKibUnderItsArenaListsMeasuredActions) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(KwsPath());
  ASSERT_TRUE(file.ok());
  const size_t arena = Measure(file->view(), "auto", 16);
  ASSERT_GT(arena, 4096u);
  const size_t ram = arena - 4096;

  CommandResult run = RunCli({"budget", KwsPath(), "--ram", std::to_string(ram), "--json"});
  EXPECT_EQ(run.exit_code, 3) << run.stderr_text;  // does not fit
  json doc = json::parse(run.stdout_text);
  EXPECT_FALSE(doc["fits"].get<bool>());
  EXPECT_EQ(doc["current"]["arena_bytes"].get<size_t>(), arena);
  EXPECT_EQ(doc["over_bytes"].get<size_t>(), 4096u);
  ASSERT_GE(doc["actions"].size(), 4u);
  for (const json& action : doc["actions"]) CheckMeasured(file->view(), action, arena, ram);
  bool any_fits = false;
  for (const json& combination : doc["combinations"]) {
    CheckMeasured(file->view(), combination, arena, ram);
    any_fits |= combination.value("fits", false);
  }
  EXPECT_EQ(doc["best_fit"].is_null(), !any_fits);
  // Largest saving first.
  int64_t previous = INT64_MAX;
  for (const json& action : doc["actions"]) {
    EXPECT_LE(action["saves_bytes"].get<int64_t>(), previous);
    previous = action["saves_bytes"].get<int64_t>();
  }

  CommandResult text = RunCli({"budget", KwsPath(), "--ram", std::to_string(ram)});
  EXPECT_EQ(text.exit_code, 3);
  EXPECT_NE(text.stdout_text.find("does not fit: 4,096 B over"), std::string::npos) << text.stdout_text;
  EXPECT_NE(text.stdout_text.find(any_fits ? "  fits: " : "no combination fits"), std::string::npos)
      << text.stdout_text;
  EXPECT_NE(text.stdout_text.find("one channel less"), std::string::npos);
  EXPECT_NE(text.stdout_text.find("activation peak"), std::string::npos);
}

TEST(BudgetCommandTest, SaysWhichCombinationFits) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(KwsPath());
  ASSERT_TRUE(file.ok());
  const size_t arena = Measure(file->view(), "auto", 16);
  const size_t aligned_8 = Measure(file->view(), "greedy", 8);
  ASSERT_LT(aligned_8, arena) << "alignment 8 no longer saves anything on this model; pick another case";
  // RAM exactly the 8-byte-aligned arena: the current setup is over, a combination fits.
  CommandResult run = RunCli({"budget", KwsPath(), "--ram", std::to_string(aligned_8), "--json"});
  EXPECT_EQ(run.exit_code, 3);
  json doc = json::parse(run.stdout_text);
  ASSERT_FALSE(doc["best_fit"].is_null());
  // The smallest measured combination, at most the 8-byte-aligned arena.
  size_t smallest = SIZE_MAX;
  for (const json& c : doc["combinations"]) {
    ASSERT_TRUE(c["measured"].get<bool>()) << c.dump();
    smallest = std::min(smallest, c["arena_bytes"].get<size_t>());
  }
  EXPECT_EQ(doc["best_fit"]["arena_bytes"].get<size_t>(), smallest);
  EXPECT_LE(smallest, aligned_8);
  EXPECT_TRUE(doc["best_fit"]["fits"].get<bool>());
  CommandResult text = RunCli({"budget", KwsPath(), "--ram", std::to_string(aligned_8)});
  EXPECT_NE(text.stdout_text.find("  fits: planner"), std::string::npos) << text.stdout_text;
}

TEST(BudgetCommandTest, FitsWithRoomToSpare) {
  MICROARENA_REQUIRE_SHARED();
  CommandResult run = RunCli({"budget", KwsPath(), "--ram", "64KiB"});
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_NE(run.stdout_text.find("budget     65,536 B"), std::string::npos) << run.stdout_text;
  EXPECT_NE(run.stdout_text.find("verdict    fits"), std::string::npos) << run.stdout_text;
}

TEST(BudgetCommandTest, RejectsBadSizes) {
  for (const char* bad : {"64Q", "-1", "0x", "99999999999999999999999", "0"}) {
    CommandResult run = RunCli({"budget", "no-such-model.tflite", "--ram", bad});
    EXPECT_EQ(run.exit_code, 2) << bad;  // a bad option value: usage
    EXPECT_NE(run.stderr_text.find(std::string("--ram: size '") + bad + "'"), std::string::npos) << run.stderr_text;
  }
}

}  // namespace
}  // namespace microarena
