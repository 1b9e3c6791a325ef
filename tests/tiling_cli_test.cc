// `plan --tile` and `run --tile` from the command line: the JSON names the
// chosen segments and the head below the untiled lower bound, the plan's
// head is what the runtime measures, the run is bit-exact with TFLM, and
// the options --tile excludes are refused as usage errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/cli_json.h"
#include "tests/support/test_support.h"

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
  EXPECT_LE(plan["head_bytes"].get<size_t>(), tiling["greedy_head_bytes"].get<size_t>());
  for (const json& segment : tiling["segments"]) EXPECT_FALSE(segment["windows"].empty());

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
  EXPECT_EQ(run["head_bytes"], tiling["greedy_head_bytes"]);  // run plans with greedy, as the search
  const std::vector<uint8_t> golden = testing::ReadFileBytes(SharedDir() + "/golden/vww_96_int8/seed1/output_0.bin");
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(testing::ReadFileBytes(dir + "/output_0.bin"), golden);

  const testing::CommandResult text = RunCli({"plan", model, "--tile", "--time-limit", "5"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.stdout_text.find("Tiling (--tile"), std::string::npos) << text.stdout_text;
  EXPECT_NE(text.stdout_text.find("below the untiled lower bound 55,296 B"), std::string::npos);
}

TEST(TilingCliTest, ExclusionsAreUsageErrors) {
  MICROARENA_REQUIRE_SHARED();
  const std::string model = SharedDir() + "/models/vww_96_int8.tflite";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan", model, "--tile", "--order", "best"},
        std::vector<std::string>{"plan", model, "--tile", "--header", "/tmp/never_written.h"},
        std::vector<std::string>{"plan", model, model, "--tile"},
        std::vector<std::string>{"run", model, "--tile", "--dump-tensors", "/tmp/never_written"},
        std::vector<std::string>{"plan", model, "--tile", "--runtime", "tflm"}}) {
    const testing::CommandResult result = RunCli(args);
    EXPECT_EQ(result.exit_code, 2) << args.back() << ": " << result.stderr_text;
    EXPECT_NE(result.stderr_text.find("tile"), std::string::npos) << result.stderr_text;
  }
}

}  // namespace
}  // namespace microarena
