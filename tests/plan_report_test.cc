// The memory plan dump (`plan`, `plan --format text`, `plan --json`) and the
// timeline (`plan --timeline`) end to end, checked against the runtime's own
// figures: an Interpreter is built here with the same planner and its
// arena_persistent_size(), arena_scratch_size(), arena_used_bytes() and
// lower_bound_bytes() must appear in the report.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/interpreter.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::RunCli;

// "1,234 B", written here so the test does not lean on the report's formatter.
std::string WithSeparators(size_t value) {
  std::string digits = std::to_string(value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out + " B";
}

// The line of `text` that starts (after spaces) with `label`; empty if none.
std::string LineStartingWith(const std::string& text, const std::string& label) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, label.size(), label) == 0) return line;
  }
  return "";
}

struct Runtime {
  size_t persistent = 0, head = 0, used = 0, lower_bound = 0;
  size_t by_use[kPersistentUseCount] = {};
};

Runtime RunInterpreter(const ModelView& model) {
  InterpreterOptions options;
  options.planner = PlannerChoice::kGreedy;
  Result<size_t> bytes = MeasureArenaBytes(model, AllOpsResolver(), options);
  EXPECT_TRUE(bytes.ok());
  HostArena arena(bytes.ok() ? *bytes : 0);
  Interpreter interpreter(model, AllOpsResolver(), arena.data(), arena.size(), options);
  EXPECT_TRUE(interpreter.AllocateTensors().ok());
  Runtime r;
  r.persistent = interpreter.arena_persistent_size();
  r.head = interpreter.arena_scratch_size();
  r.used = interpreter.arena_used_bytes();
  r.lower_bound = interpreter.lower_bound_bytes();
  for (size_t u = 0; u < kPersistentUseCount; ++u) r.by_use[u] = interpreter.arena_persistent_size(static_cast<PersistentUse>(u));
  return r;
}

void CheckDump(const std::string& path) {
  SCOPED_TRACE(path);
  Result<ModelFile> file = ModelFile::Open(path);
  ASSERT_TRUE(file.ok());
  const Runtime runtime = RunInterpreter(file->view());

  CommandResult text = RunCli({"plan", path, "--planner", "greedy"});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  CommandResult text2 = RunCli({"plan", path, "--planner", "greedy", "--format", "text"});
  EXPECT_EQ(text2.stdout_text, text.stdout_text);
  const std::string& out = text.stdout_text;

  // Every field of the dump, with the runtime's numbers where it has them.
  EXPECT_NE(LineStartingWith(out, "arena ").find(WithSeparators(runtime.used)), std::string::npos) << out;
  EXPECT_NE(LineStartingWith(out, "persistent (RAM)").find(WithSeparators(runtime.persistent)), std::string::npos);
  EXPECT_NE(LineStartingWith(out, "head (RAM)").find(WithSeparators(runtime.head)), std::string::npos);
  for (size_t u = 0; u < kPersistentUseCount; ++u) {
    const auto use = static_cast<PersistentUse>(u);
    EXPECT_NE(LineStartingWith(out, PersistentUseName(use)).find(WithSeparators(runtime.by_use[u])),
              std::string::npos)
        << PersistentUseName(use);
  }
  EXPECT_NE(LineStartingWith(out, "lower bound").find(WithSeparators(runtime.lower_bound)), std::string::npos);
  for (const char* label : {"model", "planner      greedy", "alignment    16 B", "temp peak (RAM)", "read-only (flash)",
                            "activation peak", "scratch peak", "largest scratch", "alignment padding",
                            "Live at the activation peak", "Read-only persistent (flash) per layer", "total"}) {
    EXPECT_FALSE(LineStartingWith(out, label).empty()) << label << "\n" << out;
  }
  EXPECT_NE(LineStartingWith(out, "planner head").find("gap 0.00 %"), std::string::npos);
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("model ", 0) == 0) continue;  // the model's path is as long as it is
    EXPECT_LE(line.size(), 100u) << line;
  }

  CommandResult json_run = RunCli({"plan", path, "--planner", "greedy", "--json"});
  ASSERT_EQ(json_run.exit_code, 0) << json_run.stderr_text;
  json doc = json::parse(json_run.stdout_text);
  EXPECT_EQ(doc["arena_bytes"].get<size_t>(), runtime.used);
  EXPECT_EQ(doc["persistent_bytes"].get<size_t>(), runtime.persistent);
  EXPECT_EQ(doc["head_bytes"].get<size_t>(), runtime.head);
  EXPECT_EQ(doc["lower_bound_bytes"].get<size_t>(), runtime.lower_bound);
  EXPECT_EQ(doc["runtime"]["arena_bytes"].get<size_t>(), runtime.used);
  size_t sum = 0;
  for (auto& [key, value] : doc["persistent"]["by_use"].items()) sum += value.get<size_t>();
  EXPECT_EQ(sum, runtime.persistent);
  EXPECT_EQ(doc["persistent"]["by_use"]["tensor_metadata"].get<size_t>(),
            runtime.by_use[static_cast<size_t>(PersistentUse::kTensorMetadata)]);
  EXPECT_EQ(doc["persistent"]["by_use"]["op_data"].get<size_t>(),
            runtime.by_use[static_cast<size_t>(PersistentUse::kOpData)]);

  // The buffers live at the activation peak add up to it; with no scratch
  // the activation peak is the lower bound the runtime computed.
  size_t live = 0;
  for (const json& index : doc["head"]["activation_peak"]["buffers"]) {
    live += doc["buffers"][index.get<size_t>()]["size_bytes"].get<size_t>();
  }
  EXPECT_EQ(live, doc["head"]["activation_peak"]["bytes"].get<size_t>());
  if (doc["head"]["scratch_peak"]["bytes"].get<size_t>() == 0) {
    EXPECT_EQ(doc["head"]["activation_peak"]["bytes"].get<size_t>(), runtime.lower_bound);
  }
  // Padding = planned sizes - sizes from inspect's tensor table (and scratch requests).
  CommandResult inspect = RunCli({"inspect", path, "--json"});
  ASSERT_EQ(inspect.exit_code, 0);
  json tensors = json::parse(inspect.stdout_text)["subgraphs"][0]["tensors"];
  size_t padding = 0;
  for (const json& b : doc["buffers"]) {
    if (b["kind"] == "tensor") {
      EXPECT_EQ(b["requested_bytes"], tensors[b["tensor"].get<size_t>()]["size_bytes"]);
    }
    padding += b["size_bytes"].get<size_t>() - b["requested_bytes"].get<size_t>();
  }
  EXPECT_EQ(doc["head"]["padding_bytes"].get<size_t>(), padding);
  EXPECT_EQ(doc["read_only"]["total"], json::parse(inspect.stdout_text)["subgraphs"][0]["read_only"]["total"]);
}

std::string DemoModelPath() {
  // One folder per test: ctest runs tests in parallel.
  std::string path = testing::TempDir(std::string("plan_report_demo/") +
                                      ::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                     "/demo.tflite";
  std::vector<uint8_t> bytes = BuildDemoModel();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  return path;
}

TEST(PlanReportTest, DumpOfTheDemoModelAgreesWithTheRuntime) { CheckDump(DemoModelPath()); }

TEST(PlanReportTest, DumpOfKwsAgreesWithTheRuntime) {
  MICROARENA_REQUIRE_SHARED();
  CheckDump(testing::SharedDir() + "/models/kws_ref_model.tflite");
}

// A file `optimize` wrote carries its kernels' data: the dump, the JSON and
// the HTML page show how much of it is read from flash and the RAM that
// saves, the figures `run` measures on the same file; a model without it
// shows no such row.
TEST(PlanReportTest, KernelDataInFlashIsShownInEveryFormat) {
  MICROARENA_REQUIRE_SHARED();
  const std::string dir = testing::TempDir("plan_report_kernel_data");
  const std::string plain = testing::SharedDir() + "/models/kws_ref_model.tflite";
  const std::string optimized = dir + "/kws_opt.tflite";
  CommandResult written = RunCli({"optimize", plain, "-o", optimized, "--time-limit", "0"});
  ASSERT_EQ(written.exit_code, 0) << written.stderr_text;
  CommandResult ran = RunCli({"run", optimized, "--json", "--output-dir", dir});
  ASSERT_EQ(ran.exit_code, 0) << ran.stderr_text;
  const json measured = json::parse(ran.stdout_text)["kernel_data"];
  ASSERT_EQ(measured["state"], "used");
  const size_t flash = measured["flash_bytes"].get<size_t>();
  const size_t saved = measured["ram_bytes_saved"].get<size_t>();
  const size_t ops = measured["ops_in_flash"].get<size_t>();
  ASSERT_GT(flash, 0u);
  ASSERT_GT(ops, 0u);

  CommandResult text = RunCli({"plan", optimized, "--time-limit", "0"});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  const std::string row = LineStartingWith(text.stdout_text, "kernel data (flash)");
  EXPECT_NE(row.find(WithSeparators(flash)), std::string::npos) << text.stdout_text;
  EXPECT_NE(row.find(std::to_string(ops) + " ops' data"), std::string::npos) << row;
  EXPECT_NE(row.find(WithSeparators(saved) + " of RAM saved"), std::string::npos) << row;
  EXPECT_LE(row.size(), 100u) << row;
  // Every op's data is in flash: none left in the tail.
  EXPECT_NE(LineStartingWith(text.stdout_text, "op data").find(" 0 B "), std::string::npos) << text.stdout_text;

  CommandResult doc = RunCli({"plan", optimized, "--time-limit", "0", "--json"});
  ASSERT_EQ(doc.exit_code, 0) << doc.stderr_text;
  EXPECT_EQ(json::parse(doc.stdout_text)["kernel_data"], measured);

  const std::string html_path = dir + "/kws_opt.html";
  CommandResult html = RunCli({"plan", optimized, "--time-limit", "0", "--html", html_path});
  ASSERT_EQ(html.exit_code, 0) << html.stderr_text;
  std::ifstream in(html_path);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("kernel data (flash)"), std::string::npos);
  EXPECT_NE(page.find(WithSeparators(saved) + " of RAM saved"), std::string::npos);

  CommandResult before = RunCli({"plan", plain, "--time-limit", "0", "--json"});
  ASSERT_EQ(before.exit_code, 0) << before.stderr_text;
  EXPECT_EQ(json::parse(before.stdout_text)["kernel_data"]["state"], "absent");
  CommandResult before_text = RunCli({"plan", plain, "--time-limit", "0"});
  EXPECT_TRUE(LineStartingWith(before_text.stdout_text, "kernel data").empty());
}

TEST(PlanReportTest, DumpShowsScratchWhereKernelsAskForIt) {
  MICROARENA_REQUIRE_SHARED();
  // Every shared model plans; some have kernel scratch, and their largest
  // scratch row names the op.
  const std::vector<std::string> names = testing::SharedModelNames();
  ASSERT_FALSE(names.empty());
  int with_scratch = 0;
  for (const std::string& name : names) {
    CommandResult run = RunCli({"plan", testing::SharedDir() + "/models/" + name + ".tflite", "--planner", "greedy",
                                "--json"});
    ASSERT_EQ(run.exit_code, 0) << name << ": " << run.stderr_text;
    json doc = json::parse(run.stdout_text);
    size_t largest = 0;
    for (const json& b : doc["buffers"]) {
      if (b["kind"] == "scratch") largest = std::max(largest, b["size_bytes"].get<size_t>());
    }
    if (largest == 0) {
      EXPECT_TRUE(doc["head"]["largest_scratch"].is_null()) << name;
      continue;
    }
    ++with_scratch;
    EXPECT_EQ(doc["head"]["largest_scratch"]["bytes"].get<size_t>(), largest) << name;
    EXPECT_GE(doc["head"]["scratch_peak"]["bytes"].get<size_t>(), largest) << name;
  }
  EXPECT_GE(with_scratch, 1);
}

TEST(PlanReportTest, TimelineHasOneRowPerStepFitsTheWidthAndListsEveryBuffer) {
  MICROARENA_REQUIRE_SHARED();
  for (const std::string& name : {std::string("kws_ref_model"), std::string("vww_96_int8")}) {
    const std::string path = testing::SharedDir() + "/models/" + name + ".tflite";
    CommandResult json_run = RunCli({"plan", path, "--planner", "greedy", "--json"});
    ASSERT_EQ(json_run.exit_code, 0);
    json doc = json::parse(json_run.stdout_text);
    CommandResult run = RunCli({"plan", path, "--planner", "greedy", "--timeline"});
    ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
    // At the narrowest width taken, every row fits it too.
    CommandResult narrow = RunCli({"plan", path, "--planner", "greedy", "--timeline", "--columns", "80"});
    ASSERT_EQ(narrow.exit_code, 0) << narrow.stderr_text;
    {
      std::istringstream narrow_lines(narrow.stdout_text.substr(narrow.stdout_text.find("Timeline:")));
      std::string row;
      std::getline(narrow_lines, row);  // title
      size_t rows = 0;
      for (; std::getline(narrow_lines, row) && !row.empty(); ++rows) EXPECT_LE(row.size(), 80u) << row;
      EXPECT_EQ(rows, doc["steps"].size() + 1);  // the axis and one row per step
    }
    const std::string& out = run.stdout_text;
    size_t at = out.find("Timeline:");
    ASSERT_NE(at, std::string::npos);
    std::istringstream lines(out.substr(at));
    std::string line;
    std::getline(lines, line);  // title with the scale
    EXPECT_NE(line.find("1 column ="), std::string::npos);
    std::getline(lines, line);  // axis
    size_t rows = 0, peaks = 0;
    for (; std::getline(lines, line) && !line.empty(); ++rows) {
      EXPECT_LE(line.size(), 100u) << line;
      peaks += line.find("<- peak") != std::string::npos;
      // The row's live bytes are the step's bytes in the JSON.
      const json& step = doc["steps"][rows];
      EXPECT_NE(line.find(WithSeparators(step["tensor_bytes"].get<size_t>() + step["scratch_bytes"].get<size_t>())),
                std::string::npos)
          << line;
    }
    EXPECT_EQ(rows, doc["steps"].size());
    EXPECT_EQ(peaks, 1u);
    std::getline(lines, line);  // legend title
    EXPECT_NE(line.find("Legend"), std::string::npos);
    std::getline(lines, line);  // header
    std::getline(lines, line);  // rule
    size_t legend = 0;
    while (std::getline(lines, line) && line.rfind("  ", 0) == 0 && line.find("characters repeat") == std::string::npos) {
      ++legend;
    }
    EXPECT_EQ(legend, doc["buffers"].size()) << name;
  }
}

// A step of 2,400,000 B (two float tensors of 300,000): the live column
// widens to fit "2,400,000 B", and at --columns 80 every row still fits.
TEST(PlanReportTest, TimelineLiveColumnWidensForMillionsOfBytes) {
  ModelBuilder builder;
  const int32_t input = builder.AddTensor({"input", TensorType::kFloat32, {300000}, 0, {}});
  const int32_t output = builder.AddTensor({"output", TensorType::kFloat32, {300000}, 0, {}});
  OperatorSpec relu;
  relu.op = BuiltinOp::kRelu;
  relu.inputs = {input};
  relu.outputs = {output};
  builder.AddOperator(std::move(relu));
  builder.SetInputs({input});
  builder.SetOutputs({output});
  const std::string path = testing::TempDir("plan_report_large") + "/relu.tflite";
  testing::WriteFile(path, builder.Build());
  CommandResult run = RunCli({"plan", path, "--timeline", "--columns", "80"});
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  const size_t at = run.stdout_text.find("Timeline:");
  ASSERT_NE(at, std::string::npos) << run.stdout_text;
  std::istringstream lines(run.stdout_text.substr(at));
  std::string row;
  std::getline(lines, row);  // title
  size_t rows = 0;
  bool live_shown = false;
  for (; std::getline(lines, row) && !row.empty(); ++rows) {
    EXPECT_LE(row.size(), 80u) << row;
    live_shown = live_shown || row.find("2,400,000 B") != std::string::npos;
  }
  EXPECT_EQ(rows, 2u);  // the axis and the one step
  EXPECT_TRUE(live_shown) << run.stdout_text;
}

TEST(PlanReportTest, RejectsAnUnknownFormat) {
  CommandResult run = RunCli({"plan", DemoModelPath(), "--format", "xml"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.stderr_text.find("xml"), std::string::npos) << run.stderr_text;
}

}  // namespace
}  // namespace microarena
