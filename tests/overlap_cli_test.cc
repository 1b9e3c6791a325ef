// `microarena plan --overlap` and `microarena run --overlap` end to end.
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

// vww_96_int8's busiest op is the 1x1 CONV_2D from tensor 59 (1x48x48x8) to
// tensor 60 (1x48x48x16). By hand: R_in = 48*8 = 384 B, R_out = 48*16 = 768 B,
// stride 1, no padding, so D = max_y (y+1)*768 - y*384 = 48*768 - 47*384 =
// 18,816 B; the two need 18,816 + 18,432 = 37,248 B instead of 55,296 B.
TEST(OverlapCliTest, PlanJsonListsTheApprovedOverlaps) {
  MICROARENA_REQUIRE_SHARED();
  const std::string model = SharedDir() + "/models/vww_96_int8.tflite";
  const json plan = RunJson({"plan", model, "--overlap", "--json", "--time-limit", "20"});
  ASSERT_TRUE(plan.contains("overlaps"));
  bool found = false;
  for (const json& overlap : plan["overlaps"]) {
    if (overlap["input_tensor"] == 59 && overlap["output_tensor"] == 60) {
      found = true;
      EXPECT_EQ(overlap["min_displacement_bytes"], 18816);
      EXPECT_EQ(overlap["used"], true);
    }
  }
  EXPECT_TRUE(found) << plan["overlaps"].dump();
  EXPECT_EQ(plan["lower_bound_bytes"], 55296);
  EXPECT_EQ(plan["overlap_lower_bound_bytes"], 37248);
  EXPECT_LE(4 * plan["head_bytes"].get<size_t>(), 3 * 55296u);

  // Without --overlap: no overlaps, the head at or above the bound.
  const json plain = RunJson({"plan", model, "--json", "--time-limit", "5"});
  EXPECT_TRUE(plain["overlaps"].empty());
  EXPECT_GE(plain["head_bytes"].get<size_t>(), 55296u);
}

TEST(OverlapCliTest, RunWithOverlapIsBitExactInASmallerArena) {
  MICROARENA_REQUIRE_SHARED();
  const std::string model = SharedDir() + "/models/vww_96_int8.tflite";
  const std::string plain_dir = testing::TempDir("overlap_cli_plain");
  const std::string overlap_dir = testing::TempDir("overlap_cli_overlap");
  const json plain = RunJson({"run", model, "--json", "--output-dir", plain_dir});
  const json overlapped = RunJson({"run", model, "--overlap", "--json", "--output-dir", overlap_dir});
  EXPECT_LT(overlapped["arena_used_bytes"].get<size_t>(), plain["arena_used_bytes"].get<size_t>());
  EXPECT_LT(overlapped["head_bytes"].get<size_t>(), overlapped["lower_bound_bytes"].get<size_t>());
  EXPECT_GT(overlapped["overlap_permissions"].get<size_t>(), 0u);
  const std::vector<uint8_t> golden = testing::ReadFileBytes(SharedDir() + "/golden/vww_96_int8/seed1/output_0.bin");
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(testing::ReadFileBytes(overlap_dir + "/output_0.bin"), golden);
  EXPECT_EQ(testing::ReadFileBytes(plain_dir + "/output_0.bin"), golden);
}

}  // namespace
}  // namespace microarena
