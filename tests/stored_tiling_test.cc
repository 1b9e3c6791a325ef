// A tiling carried in the model (runtime/stored_tiling.h): `optimize --tile`
// writes the segments and the plan of their windows; microarena runs the
// file tiled with nothing planned at boot, in at most 0.33 x TFLM's minimum
// arena on vww_96_int8, with TFLM's golden outputs; stock TFLM (the oracle)
// runs the same file whole, as before; an interpreter that runs another
// tiling or none ignores the stored plan; a broken tiling is an error that
// names it, before anything runs.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/kernel_data_writer.h"
#include "microarena/runtime/stored_plan.h"
#include "microarena/runtime/stored_tiling.h"
#include "microarena/runtime/target_layout.h"
#include "microarena/runtime/tiled_execution.h"
#include "tests/support/cli_json.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::ReadFileBytes;
using testing::SharedDir;

std::vector<uint8_t> Golden(uint32_t seed) {
  return ReadFileBytes(SharedDir() + "/golden/vww_96_int8/seed" + std::to_string(seed) + "/output_0.bin");
}

// vww_96_int8 written by `optimize --overlap --tile` (once per test binary run).
const std::string& TiledVww() {
  static const std::string path = [] {
    const std::string out = testing::TempDir("stored_tiling") + "/vww_tiled.tflite";
    const json report = testing::RunCliJson(
        {"optimize", SharedDir() + "/models/vww_96_int8.tflite", "-o", out, "--overlap", "--tile", "--json"});
    EXPECT_FALSE(report["tiling"].empty()) << report.dump();
    EXPECT_EQ(report["tflm_safe"], true);  // no plan TFLM reads
    EXPECT_EQ(report["stored_plan"]["used"], true);
    EXPECT_EQ(report["outputs_identical"], true);
    return out;
  }();
  return path;
}

TEST(StoredTilingTest, VwwRunsTiledFromItsFileInAThirdOfTflmsArena) {
  MICROARENA_REQUIRE_SHARED();
  const size_t tflm_arena = testing::TflmMinArena("vww_96_int8");
  ASSERT_GT(tflm_arena, 0u);
  const std::string dir = testing::TempDir("stored_tiling_run");
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string out = dir + "/seed" + std::to_string(seed);
    const json run = testing::RunCliJson(
        {"run", TiledVww(), "--overlap", "--seed", std::to_string(seed), "--json", "--output-dir", out});
    ASSERT_FALSE(run["tiling"].empty()) << run.dump();
    EXPECT_EQ(run["planner"], "precomputed");  // the stored plan: nothing planned at boot
    EXPECT_EQ(run["temp_peak_bytes"], 0);
    EXPECT_LE(100 * run["arena_bytes"].get<size_t>(), 33 * tflm_arena) << run.dump();
    EXPECT_EQ(ReadFileBytes(out + "/output_0.bin"), Golden(seed));
    if (seed == 1) {
      std::printf("vww_96_int8 from its optimize --overlap --tile file: arena %zu B (%.3f x TFLM's %zu B), "
                  "temp peak 0\n",
                  run["arena_bytes"].get<size_t>(),
                  static_cast<double>(run["arena_bytes"].get<size_t>()) / static_cast<double>(tflm_arena), tflm_arena);
    }
  }
}

// `plan` shows the tiling the file carries (not searched) and the arena the
// runtime then needs, the same as `run` measures.
TEST(StoredTilingTest, PlanShowsTheStoredTiling) {
  MICROARENA_REQUIRE_SHARED();
  const json plan = testing::RunCliJson({"plan", TiledVww(), "--overlap", "--json"});
  ASSERT_TRUE(plan.contains("tiling")) << plan.dump();
  EXPECT_EQ(plan["tiling"]["stored"], true);
  EXPECT_EQ(plan["tiling"]["candidates"], 0);
  const json run = testing::RunCliJson({"run", TiledVww(), "--overlap", "--json", "--output-dir",
                                        testing::TempDir("stored_tiling_plan")});
  EXPECT_EQ(plan["head_bytes"], run["head_bytes"]);
  EXPECT_EQ(plan["arena_bytes"], run["arena_bytes"]);
  EXPECT_EQ(plan["temp_peak_bytes"], 0);
  // The walk's memory is in the persistent area, rounded to the alignment.
  Result<ModelFile> file = ModelFile::Open(TiledVww());
  ASSERT_TRUE(file.ok()) << file.status().message();
  Result<Span<const TiledSegment>> stored = ReadStoredTiling(file->view());
  ASSERT_TRUE(stored.ok() && !stored->empty());
  EXPECT_EQ(plan["persistent"]["by_use"]["tiling_state"], (TilingStateBytes(file->view(), *stored) + 15) / 16 * 16);
  ASSERT_EQ(plan["tiling"]["segments"].size(), run["tiling"].size());
  for (size_t i = 0; i < run["tiling"].size(); ++i) {
    EXPECT_EQ(plan["tiling"]["segments"][i]["first_op"], run["tiling"][i]["first_op"]);
    EXPECT_EQ(plan["tiling"]["segments"][i]["last_op"], run["tiling"][i]["last_op"]);
    EXPECT_EQ(plan["tiling"]["segments"][i]["band_rows"], run["tiling"][i]["band_rows"]);
  }
}

// A header is for a firmware that runs the model whole (it makes no
// TiledExecution): its arena is the untiled one, not the stored tiling's.
TEST(StoredTilingTest, HeaderDescribesTheUntiledRun) {
  MICROARENA_REQUIRE_SHARED();
  const std::string header = testing::TempDir("stored_tiling_header") + "/arena.h";
  const testing::CommandResult result = testing::RunCli({"plan", TiledVww(), "--header", header});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::vector<uint8_t> text = ReadFileBytes(header);
  const std::string source(text.begin(), text.end());
  const std::string key = "constexpr size_t kTensorArenaSize = ";
  const size_t at = source.find(key);
  ASSERT_NE(at, std::string::npos) << source;
  const size_t header_arena = std::stoul(source.substr(at + key.size()));
  Result<ModelFile> file = ModelFile::Open(TiledVww());
  ASSERT_TRUE(file.ok()) << file.status().message();
  Result<ArenaFigures> whole = MeasureArena(file->view(), AllOpsResolver(), InterpreterOptions());
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_EQ(header_arena, whole->used_bytes);
  const json tiled = testing::RunCliJson({"plan", TiledVww(), "--json"});
  EXPECT_LT(tiled["arena_bytes"].get<size_t>(), header_arena);  // the tiled run needs less
}

// Stock TFLM ignores microarena's metadata: it plans the file whole, in the
// arena it needs for the original model, and gives the same outputs.
TEST(StoredTilingTest, StockTflmRunsTheFileWhole) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<uint8_t> bytes = ReadFileBytes(TiledVww());
  const std::vector<uint8_t> input = ReadFileBytes(SharedDir() + "/golden/vww_96_int8/seed1/input_0.bin");
  ASSERT_FALSE(input.empty());
  const testing::Outcome tflm = testing::RunOracleOn("vww_96_int8 tiled file", bytes, {input});
  ASSERT_TRUE(tflm.ok) << tflm.error;
  EXPECT_EQ(tflm.outputs, std::vector<std::vector<uint8_t>>{Golden(1)});
  EXPECT_EQ(testing::OracleSummary("vww_96_int8 tiled file", bytes, {input})["min_arena_bytes"],
            testing::TflmMinArena("vww_96_int8"));
}

// The stored plan holds windows: an interpreter running no tiling, or
// another one, plans at boot instead, and still gives TFLM's outputs.
TEST(StoredTilingTest, StoredPlanOnlyForTheStoredTiling) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(TiledVww());
  ASSERT_TRUE(file.ok()) << file.status().message();
  Result<Span<const TiledSegment>> stored = ReadStoredTiling(file->view());
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  ASSERT_FALSE(stored->empty());
  // Under its own name: a runtime that does not tile never reads it, and no
  // whole-map plan or offline plan sits beside it.
  EXPECT_TRUE(file->view().has_metadata(kTiledPlanMetadataName));
  EXPECT_FALSE(file->view().has_metadata(kStoredPlanMetadataName));
  EXPECT_FALSE(file->view().has_metadata("OfflineMemoryAllocation"));
  // Bound to the tiling: parsed with the model's fingerprint alone, it is not a plan.
  StoredPlan parsed;
  const size_t tensors = file->view().subgraph(0).tensor_count();
  EXPECT_FALSE(ParseStoredPlan(file->view().metadata(kTiledPlanMetadataName), ModelFingerprint(file->view()), tensors,
                               &parsed));
  ASSERT_TRUE(ParseStoredPlan(file->view().metadata(kTiledPlanMetadataName),
                              TilingFingerprint(ModelFingerprint(file->view()), *stored), tensors, &parsed));
  EXPECT_TRUE(parsed.tiled);
  const TiledExecution same(*stored);
  const TiledSegment other_segments[] = {{0, 2, 1}};
  const TiledExecution other(other_segments);
  struct Case {
    const char* name;
    const TiledExecution* tiling;
    bool stored_plan_used;
  };
  for (const Case& c : {Case{"the stored tiling", &same, true}, Case{"no tiling", nullptr, false},
                        Case{"another tiling", &other, false}}) {
    SCOPED_TRACE(c.name);
    RunOptions options;
    options.seed = 1;
    options.interpreter.allow_overlap = true;
    options.interpreter.tiling = c.tiling;
    Result<RunResult> run = RunModel(file->view(), AllOpsResolver(), options);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_EQ(run->stored_plan_used, c.stored_plan_used);
    EXPECT_EQ(run->outputs, std::vector<std::vector<uint8_t>>{Golden(1)});
  }
}

// A tiling blob whose bytes were changed fails its hash; one that parses but
// names ops that cannot run in bands is refused by the walk at
// AllocateTensors. Both name the problem; `run` exits non-zero.
TEST(StoredTilingTest, BrokenTilingsAreErrors) {
  MICROARENA_REQUIRE_SHARED();
  const std::vector<uint8_t> bytes = ReadFileBytes(TiledVww());
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  const Span<const uint8_t> blob = model->metadata(kStoredTilingMetadataName);
  ASSERT_GE(blob.size(), kStoredTilingHeaderBytes + sizeof(TiledSegment));

  std::vector<uint8_t> flipped = bytes;
  flipped[static_cast<size_t>(blob.data() - bytes.data()) + kStoredTilingHeaderBytes + 4] ^= 0x01;  // last op
  Result<ModelView> flipped_model = LoadModel(Span<const uint8_t>(flipped.data(), flipped.size()));
  ASSERT_TRUE(flipped_model.ok()) << flipped_model.status().message();
  Result<Span<const TiledSegment>> read = ReadStoredTiling(*flipped_model);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(std::string(read.status().message()).find("microarena.Tiling"), std::string::npos);
  const std::string flipped_path = testing::TempDir("stored_tiling_broken") + "/flipped.tflite";
  testing::WriteFile(flipped_path, flipped);
  const testing::CommandResult result = testing::RunCli({"run", flipped_path, "--overlap"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.stderr_text.find("does not match its hash"), std::string::npos) << result.stderr_text;

  // Well formed, but op 28 is a RESHAPE.
  const TiledSegment through_reshape[] = {{0, 28, 1}};
  ModelEdits edits;
  edits.metadata.push_back({kStoredTilingMetadataName, EncodeStoredTiling(*model, through_reshape)});
  Result<std::vector<uint8_t>> rewritten = RewriteModel(Span<const uint8_t>(bytes.data(), bytes.size()), edits);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status().message();
  const std::string reshape_path = testing::TempDir("stored_tiling_broken") + "/reshape.tflite";
  testing::WriteFile(reshape_path, *rewritten);
  const testing::CommandResult refused = testing::RunCli({"run", reshape_path, "--overlap"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.stderr_text.find("op 28 (RESHAPE) cannot run in bands"), std::string::npos)
      << refused.stderr_text;
}

}  // namespace
}  // namespace microarena

namespace microarena {
namespace {

// A firmware that runs the model tiled, built on the host: the header of
// `plan --tile --precomputed-plan --header` gives the arena size, the
// segments and the plan of their windows; the program makes a
// TiledExecution over the header's segments, allocates with the plan in an
// arena of exactly kTensorArenaSize (one alignment step less must run out of
// memory), runs seed 1's inputs and writes output 0. With TILED=0 its
// options name no tiling, and the header's check stops the build.
constexpr const char* kTiledFirmware = R"(
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>
#include "arena.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/input_generator.h"
#include "microarena/runtime/interpreter.h"
#include "microarena/runtime/tiled_execution.h"

#if TILED
const microarena::TiledExecution g_tiling(microarena::Span<const microarena::TiledSegment>(
    microarena_arena::TilingOf<microarena::TiledSegment>::segments, microarena_arena::kTensorArenaTilingSegmentCount));
constexpr const microarena::TilingHooks* kTiling = &g_tiling;
#else
constexpr const microarena::TilingHooks* kTiling = nullptr;
#endif
constexpr microarena::InterpreterOptions Options() {
  microarena::InterpreterOptions options{};
  options.alignment_bytes = microarena_arena::kTensorArenaAlignment;
  options.allow_overlap = microarena_arena::kTensorArenaAllowOverlap;
  options.tiling = kTiling;
  return options;
}
constexpr microarena::InterpreterOptions kOptions = Options();
MICROARENA_CHECK_INTERPRETER_OPTIONS(kOptions);
constexpr microarena::PrecomputedPlan kPlan = microarena_arena::PrecomputedPlanOf<microarena::PrecomputedPlan>();
alignas(microarena_arena::kTensorArenaAlignment) static unsigned char arena[microarena_arena::kTensorArenaSize];

int main(int argc, char** argv) {
  if (argc != 3) return 10;
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<unsigned long long> words((file.size() + 7) / 8);  // 8-byte aligned model bytes
  std::copy(file.begin(), file.end(), reinterpret_cast<char*>(words.data()));
  const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
  if (!microarena_arena::ModelMatches(bytes, file.size())) return 11;
  microarena::Result<microarena::ModelView> model =
      microarena::LoadVerifiedModel(microarena::Span<const uint8_t>(bytes, file.size()));
  if (!model.ok()) return 12;
  microarena::Interpreter interpreter(*model, microarena::AllOpsResolver(), arena, sizeof(arena), kOptions);
  microarena::Status status = interpreter.AllocateTensors(kPlan);
  if (!status.ok()) { std::printf("AllocateTensors: %s\n", status.message()); return 13; }
  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    microarena::EvalTensor* input = interpreter.input(i);
    microarena::GenerateInput(1, input->type, input->data, interpreter.input_bytes(i));
  }
  status = interpreter.Invoke();
  if (!status.ok()) { std::printf("Invoke: %s\n", status.message()); return 14; }
  std::ofstream out(argv[2], std::ios::binary);
  out.write(reinterpret_cast<const char*>(interpreter.output(0)->data),
            static_cast<std::streamsize>(interpreter.output_bytes(0)));
  const size_t used = interpreter.arena_used_bytes();
  microarena::Interpreter below(*model, microarena::AllOpsResolver(), arena,
                                sizeof(arena) - microarena_arena::kTensorArenaAlignment, kOptions);
  if (below.AllocateTensors(kPlan).code() != microarena::ErrorCode::kOutOfMemory) return 15;
  std::printf("%zu %zu\n", sizeof(arena), used);
  return 0;
}
)";

// Builds the program with TILED=`tiled`; the compiler's log on failure.
testing::CommandResult BuildTiledFirmware(const std::string& dir, bool tiled) {
  {
    std::ofstream(dir + "/firmware.cc") << kTiledFirmware;
  }
  // -fno-rtti as a firmware (and the portable core) is built.
  return testing::RunCommand(std::string(MICROARENA_CXX_COMPILER) + " -std=c++17 -fno-rtti " + MICROARENA_CORE_DEFINES +
                             " -DTILED=" + (tiled ? "1" : "0") + " -Wall -Werror -I" + dir + " -I" +
                             MICROARENA_SOURCE_DIR + "/src -I" + MICROARENA_BINARY_DIR + "/generated " + dir +
                             "/firmware.cc " + MICROARENA_CORE_LIBS + " -o " + dir + "/firmware " +
                             MICROARENA_LINK_FLAGS);
}

TEST(StoredTilingTest, TiledHeaderBuildsAFirmwareThatRunsTheModelTiled) {
  MICROARENA_REQUIRE_SHARED();
  const std::string dir = testing::TempDir("stored_tiling_firmware");
  const testing::CommandResult plan = testing::RunCli(
      {"plan", TiledVww(), "--overlap", "--tile", "--precomputed-plan", "--header", dir + "/arena.h"});
  ASSERT_EQ(plan.exit_code, 0) << plan.stderr_text;
  // The header carries the segments the file carries.
  const std::vector<uint8_t> text = ReadFileBytes(dir + "/arena.h");
  const std::string header(text.begin(), text.end());
  EXPECT_NE(header.find("constexpr bool kTensorArenaTiled = true;"), std::string::npos);
  const json run = testing::RunCliJson(
      {"run", TiledVww(), "--overlap", "--json", "--output-dir", testing::TempDir("stored_tiling_firmware_run")});
  std::string segments;
  for (const json& s : run["tiling"]) {
    segments += (segments.empty() ? "" : ", ") + std::string("{") + std::to_string(s["first_op"].get<int>()) + ", " +
                std::to_string(s["last_op"].get<int>()) + ", " + std::to_string(s["band_rows"].get<int>()) + "}";
  }
  ASSERT_FALSE(segments.empty());
  EXPECT_NE(header.find("segments[" + std::to_string(run["tiling"].size()) + "] = {" + segments + "};"),
            std::string::npos)
      << header;

  const testing::CommandResult built = BuildTiledFirmware(dir, true);
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  const testing::CommandResult ran = testing::RunCommand(dir + "/firmware " + TiledVww() + " " + dir + "/output_0.bin");
  ASSERT_EQ(ran.exit_code, 0) << ran.stdout_text;
  EXPECT_EQ(ReadFileBytes(dir + "/output_0.bin"), Golden(1));
  size_t arena = 0, used = 0;
  ASSERT_EQ(std::sscanf(ran.stdout_text.c_str(), "%zu %zu", &arena, &used), 2) << ran.stdout_text;
  EXPECT_EQ(used, arena);  // the header's size, to the byte
  EXPECT_LE(100 * arena, 33 * testing::TflmMinArena("vww_96_int8"));

  // A firmware that makes no TiledExecution does not build with this header ...
  const testing::CommandResult untiled = BuildTiledFirmware(dir, false);
  EXPECT_NE(untiled.exit_code, 0);
  EXPECT_NE(untiled.stderr_text.find("tiling"), std::string::npos) << untiled.stderr_text;
  // ... and one that does, not with a header for the model run whole.
  ASSERT_EQ(testing::RunCli({"plan", TiledVww(), "--overlap", "--precomputed-plan", "--header", dir + "/arena.h"})
                .exit_code,
            0);
  const testing::CommandResult whole = BuildTiledFirmware(dir, true);
  EXPECT_NE(whole.exit_code, 0);
  EXPECT_NE(whole.stderr_text.find("tiling"), std::string::npos) << whole.stderr_text;
}

}  // namespace
}  // namespace microarena

namespace microarena {
namespace {

// `plan --target cortex-m` counts the deeper stack of a tiled run: the
// measured base and one walk frame per op of the longest segment and one
// for its input (vww's stored segment is ops 0-3: five frames), more than
// the untiled bound;
// the model run whole (--tiling off by a header without --tile) keeps it.
TEST(StoredTilingTest, DeviceRamCountsTheWalksStack) {
  MICROARENA_REQUIRE_SHARED();
  const json tiled = testing::RunCliJson({"plan", TiledVww(), "--target", "cortex-m", "--overlap", "--json"});
  ASSERT_TRUE(tiled.contains("device_ram")) << tiled.dump();
  ASSERT_EQ(tiled["tiling"]["segments"].size(), 1u);
  const int ops = tiled["tiling"]["segments"][0]["last_op"].get<int>() - tiled["tiling"]["segments"][0]["first_op"].get<int>() + 1;
  EXPECT_EQ(ops, 4);
  EXPECT_EQ(tiled["device_ram"]["stack_bytes"].get<size_t>(),
            kCortexMLayout.tiled_stack_bytes + 5 * kCortexMLayout.band_frame_bytes);
  EXPECT_GT(tiled["device_ram"]["stack_bytes"].get<size_t>(), kCortexMLayout.stack_bytes);
  const json whole = testing::RunCliJson({"plan", SharedDir() + "/models/vww_96_int8.tflite", "--target", "cortex-m",
                                          "--overlap", "--json"});
  EXPECT_EQ(whole["device_ram"]["stack_bytes"].get<size_t>(), kCortexMLayout.stack_bytes);
}

}  // namespace
}  // namespace microarena

namespace microarena {
namespace {

// The timeline shows the bands: a line per segment naming its ops and
// bands, its ops' rows marked '~' (the first with the band count), and each
// window named in the legend with its rows. The bands are counted here from
// the model: the sink (the last op's output) has as many rows as its shape
// says, one band per `band_rows` of them.
TEST(StoredTilingTest, TimelineShowsTheBands) {
  MICROARENA_REQUIRE_SHARED();
  const json plan = testing::RunCliJson({"plan", TiledVww(), "--overlap", "--json"});
  ASSERT_EQ(plan["tiling"]["segments"].size(), 1u);
  const json& segment = plan["tiling"]["segments"][0];
  const int first = segment["first_op"].get<int>();
  const int last = segment["last_op"].get<int>();
  const int band_rows = segment["band_rows"].get<int>();
  Result<ModelFile> file = ModelFile::Open(TiledVww());
  ASSERT_TRUE(file.ok());
  const SubgraphView subgraph = file->view().subgraph(0);
  const int sink_rows = subgraph.tensor(static_cast<size_t>(subgraph.op(static_cast<size_t>(last)).outputs()[0])).shape()[1];
  const int bands = (sink_rows + band_rows - 1) / band_rows;

  const testing::CommandResult text = testing::RunCli({"plan", TiledVww(), "--overlap", "--timeline", "--columns", "120"});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  const std::string label = "ops " + std::to_string(first) + "-" + std::to_string(last) + " in " +
                            std::to_string(bands) + " bands of " + std::to_string(band_rows) + " row";
  EXPECT_NE(text.stdout_text.find("Tiled: " + label), std::string::npos) << text.stdout_text;
  const size_t timeline = text.stdout_text.find("Timeline:");
  ASSERT_NE(timeline, std::string::npos);
  std::istringstream lines(text.stdout_text.substr(timeline));
  int marked = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("Legend") == 0) break;
    if (line.find('|') != std::string::npos) EXPECT_LE(line.size(), 120u) << line;  // marks included
    const size_t tilde = line.find(" ~");
    if (tilde == std::string::npos || line.find('|') == std::string::npos) continue;
    ++marked;
    if (std::stoi(line) == first) EXPECT_NE(line.find("~ " + std::to_string(bands) + " bands"), std::string::npos) << line;
  }
  EXPECT_EQ(marked, last - first + 1);
  for (const json& w : segment["windows"]) {
    const std::string named = "(window: " + std::to_string(w["rows"].get<int>()) + " of " +
                              std::to_string(w["height"].get<int>()) + " rows)";
    EXPECT_NE(text.stdout_text.find(named), std::string::npos) << named;
  }
}

}  // namespace
}  // namespace microarena
