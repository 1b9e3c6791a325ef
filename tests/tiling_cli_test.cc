// `plan --tile` and `run --tile` from the command line: the JSON names the
// chosen segments and the head below the untiled lower bound, the plan's
// head is what the runtime measures, the run is bit-exact with TFLM, and
// the options --tile excludes are refused as usage errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/support/cli_json.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::RunCli;
using testing::SharedDir;

json RunJson(const std::vector<std::string>& args) { return testing::RunCliJson(args); }

TEST(TilingCliTest, PlanAndRunWithTile) {
  MICROARENA_REQUIRE_SHARED();
  const std::string model = SharedDir() + "/models/vww_96_int8.tflite";
  const json plan = RunJson({"plan", model, "--tile", "--json", "--time-limit", "5"});
  ASSERT_TRUE(plan.contains("tiling")) << plan.dump();
  const json& tiling = plan["tiling"];
  ASSERT_FALSE(tiling["segments"].empty());
  EXPECT_EQ(tiling["extra_macs"], 0);
  EXPECT_EQ(tiling["untiled_lower_bound_bytes"], 55296);  // 18,432 + 36,864 B at op 2, by hand
  EXPECT_LT(plan["head_bytes"].get<size_t>(), 55296u);
  EXPECT_LE(plan["head_bytes"].get<size_t>(), tiling["search_head_bytes"].get<size_t>());
  for (const json& segment : tiling["segments"]) EXPECT_FALSE(segment["windows"].empty());
  // What is proven: the exact plan of this tiling reaches the tiled
  // problem's lower bound (40,704 B: the input, the sink and the windows
  // live at op 0); the tiling itself is searched, never proven.
  EXPECT_EQ(plan["head_bytes"], 40704);
  EXPECT_EQ(plan["lower_bound_bytes"], 40704);
  EXPECT_EQ(tiling["plan_proven_optimal"], true);
  EXPECT_EQ(tiling["tiling_proven_best"], false);
  // The linear planner gives every buffer its own bytes: far above the
  // tiled problem's bound, so not proven.
  const json linear = RunJson({"plan", model, "--tile", "--json", "--planner", "linear"});
  EXPECT_GT(linear["head_bytes"].get<size_t>(), linear["lower_bound_bytes"].get<size_t>());
  EXPECT_EQ(linear["tiling"]["plan_proven_optimal"], false);

  const std::string dir = testing::TempDir("tiling_cli_run");
  const json run = RunJson({"run", model, "--tile", "--json", "--output-dir", dir});
  ASSERT_TRUE(run.contains("tiling"));
  EXPECT_EQ(run["tiling"], [&] {
    json segments = json::array();
    for (const json& s : tiling["segments"]) {
      segments.push_back({{"first_op", s["first_op"]}, {"last_op", s["last_op"]}, {"band_rows", s["band_rows"]}});
    }
    return segments;
  }());
  // Without overlap, run plans with the runtime's greedy planner, and so does its search.
  EXPECT_LE(run["head_bytes"].get<size_t>(), tiling["untiled_greedy_head_bytes"].get<size_t>());
  EXPECT_LT(run["head_bytes"].get<size_t>(), 55296u);
  const std::vector<uint8_t> golden = testing::ReadFileBytes(SharedDir() + "/golden/vww_96_int8/seed1/output_0.bin");
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(testing::ReadFileBytes(dir + "/output_0.bin"), golden);

  const testing::CommandResult text = RunCli({"plan", model, "--tile", "--time-limit", "5"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.stdout_text.find("Tiling (--tile"), std::string::npos) << text.stdout_text;
  EXPECT_NE(text.stdout_text.find("below the untiled lower bound 55,296 B"), std::string::npos);
  EXPECT_NE(text.stdout_text.find("the plan: proven optimal for this tiling (optimal planner)"), std::string::npos)
      << text.stdout_text;
  EXPECT_NE(text.stdout_text.find("the tiling: searched"), std::string::npos);
  const testing::CommandResult linear_text = RunCli({"plan", model, "--tile", "--planner", "linear"});
  EXPECT_NE(linear_text.stdout_text.find("the plan: heuristic (linear planner)"), std::string::npos)
      << linear_text.stdout_text;
}

// Every technique at once on vww_96_int8: `optimize --overlap` (the
// kernels' data read from flash, so the persistent area is small), then
// `run --tile --overlap`: the arena is at most 0.33 x TFLM's minimum arena
// (golden/tflm_arena.csv, measured by TFLM), and the outputs are TFLM's.
TEST(TilingCliTest, EveryTechniqueRunsVwwInAThirdOfTflmsArena) {
  MICROARENA_REQUIRE_SHARED();
  const size_t tflm_arena = testing::TflmMinArena("vww_96_int8");
  ASSERT_GT(tflm_arena, 0u) << "golden/tflm_arena.csv has no vww_96_int8 row";
  const std::string dir = testing::TempDir("tiling_cli_every_technique");
  const std::string optimized = dir + "/vww_optimized.tflite";
  const testing::CommandResult optimize =
      RunCli({"optimize", SharedDir() + "/models/vww_96_int8.tflite", "-o", optimized, "--overlap"});
  ASSERT_EQ(optimize.exit_code, 0) << optimize.stderr_text;
  for (int seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string out = dir + "/seed" + std::to_string(seed);
    const json run = RunJson({"run", optimized, "--tile", "--overlap", "--seed", std::to_string(seed), "--json",
                              "--output-dir", out});
    ASSERT_TRUE(run.contains("tiling")) << run.dump();
    ASSERT_FALSE(run["tiling"].empty());
    EXPECT_EQ(run["overlap_used"], true);
    const size_t arena = run["arena_bytes"].get<size_t>();
    EXPECT_LE(100 * arena, 33 * tflm_arena) << arena << " B against TFLM's " << tflm_arena << " B";
    const std::vector<uint8_t> golden = testing::ReadFileBytes(SharedDir() + "/golden/vww_96_int8/seed" +
                                                               std::to_string(seed) + "/output_0.bin");
    ASSERT_FALSE(golden.empty());
    EXPECT_EQ(testing::ReadFileBytes(out + "/output_0.bin"), golden);
    if (seed == 1) {
      std::printf("vww_96_int8, optimize --overlap + run --tile --overlap: arena %zu B = %.3f x TFLM's %zu B "
                  "(head %zu B, persistent %zu B)\n",
                  arena, static_cast<double>(arena) / static_cast<double>(tflm_arena), tflm_arena,
                  run["head_bytes"].get<size_t>(), run["persistent_bytes"].get<size_t>());
    }
  }
}

// `budget` offers tiling as an action: vww_96_int8 in 34,000 B (TFLM needs
// 103,392 B) fits only with it, and the fitting combination's arena is the
// one `run` measures on the file `optimize --overlap --tile` writes.
TEST(TilingBudgetTest, VwwFitsThirtyFourThousandBytesOnlyTiled) {
  MICROARENA_REQUIRE_SHARED();
  const std::string model = SharedDir() + "/models/vww_96_int8.tflite";
  const testing::CommandResult result = RunCli({"budget", model, "--ram", "34000", "--json"});
  EXPECT_EQ(result.exit_code, 3) << result.stderr_text;  // the current setup does not fit
  const json doc = json::parse(result.stdout_text);
  ASSERT_FALSE(doc["best_fit"].is_null()) << doc.dump();
  EXPECT_EQ(doc["best_fit"]["setup"]["tile"], true);
  EXPECT_LE(doc["best_fit"]["arena_bytes"].get<size_t>(), 34000u);
  for (const json& c : doc["combinations"]) {
    if (c["fits"].get<bool>()) EXPECT_EQ(c["setup"]["tile"], true) << c.dump();
  }
  bool tile_action = false;
  for (const json& a : doc["actions"]) {
    if (a["setup"]["tile"].get<bool>()) {
      tile_action = true;
      EXPECT_GT(a["saves_bytes"].get<int64_t>(), 0) << a.dump();
    }
  }
  EXPECT_TRUE(tile_action);

  // The best fit's setup, written and run: the same arena (its alignment
  // rounds every persistent allocation, the tiling's state too).
  const std::string align = std::to_string(doc["best_fit"]["setup"]["alignment"].get<size_t>());
  const std::string dir = testing::TempDir("tiling_budget");
  ASSERT_EQ(RunCli({"optimize", model, "-o", dir + "/vww.tflite", "--overlap", "--tile", "--align", align}).exit_code, 0);
  const json run =
      RunJson({"run", dir + "/vww.tflite", "--overlap", "--align", align, "--json", "--output-dir", dir});
  EXPECT_EQ(run["arena_bytes"], doc["best_fit"]["arena_bytes"]);
}

TEST(TilingCliTest, ExclusionsAreUsageErrors) {
  MICROARENA_REQUIRE_SHARED();
  const std::string model = SharedDir() + "/models/vww_96_int8.tflite";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan", model, model, "--tile"},
        std::vector<std::string>{"run", model, "--tile", "--dump-tensors", "/tmp/never_written"},
        std::vector<std::string>{"plan", model, "--tile", "--runtime", "tflm"}}) {
    const testing::CommandResult result = RunCli(args);
    EXPECT_EQ(result.exit_code, 2) << args.back() << ": " << result.stderr_text;
    EXPECT_NE(result.stderr_text.find("tile"), std::string::npos) << result.stderr_text;
  }
}

}  // namespace
}  // namespace microarena
