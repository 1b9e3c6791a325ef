// Tiling composed with reordering: `plan --order best --tile` and
// `optimize --order best --tile` choose the tiling in the best order and in
// the stored one and keep the smaller arena; a file written in the best
// order carries segments numbered in that order and runs tiled, bit-exact
// with TFLM.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "microarena/model/quantized_layers.h"
#include "tests/support/cli_json.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::RunCli;

// Two branches read one 32x32x4 input X: A1 = conv1x1(X) and B1 = conv1x1(X)
// with 32 channels (32,768 B each), A2 = conv3x3(A1) and B2 = conv3x3(B1)
// with 4 (4,096 B each); A2 and B2 are the model's outputs. Stored order
// A1, B1, A2, B2: both wide maps live together.
std::vector<uint8_t> TwoBranchModel() {
  QuantizedModelWriter writer(/*seed=*/11);
  const QuantizedActivation x = writer.AddInput("input", {1, 32, 32, 4}, -1.0, 1.0, 0.5);
  const FilterLayer wide{1, 1, 1, tflite::Padding::SAME, 32, tflite::ActivationFunctionType::RELU};
  const FilterLayer narrow{3, 3, 1, tflite::Padding::SAME, 4, tflite::ActivationFunctionType::RELU};
  const QuantizedActivation a1 = writer.AddConv2d("a1", x, wide);
  const QuantizedActivation b1 = writer.AddConv2d("b1", x, wide);
  const QuantizedActivation a2 = writer.AddConv2d("a2", a1, narrow);
  const QuantizedActivation b2 = writer.AddConv2d("b2", b1, narrow);
  return writer.Finish({a2, b2}, "two branches");
}

std::string WriteModel(const std::string& dir) {
  const std::string path = dir + "/two_branches.tflite";
  testing::WriteFile(path, TwoBranchModel());
  return path;
}

// The heads by hand (every size a multiple of 16; X 4,096, A1/B1 32,768,
// A2/B2 4,096 B):
//  - stored order, untiled: at B1, X + A1 + B1 = 69,632 B. No tiling helps
//    in it: a segment's inner maps may not be read after it nor be outputs,
//    and every run of consecutive ops here has one that is (A1 is read by
//    A2 two ops later, B1 by B2, A2 is an output), so the tiled head is
//    the untiled one.
//  - best order A1, A2, B1, B2 (or the mirror), untiled: 40,960 B (X + A2
//    + B1 at B1; no order does better, X lives until the second wide map).
//  - best order, tiled: segments A1..A2 and B1..B2 with 1 row per band keep
//    3 rows of A1 and of B1 (the 3x3 convolution's rows), 3 x 32 x 32 =
//    3,072 B each; during the second segment X, A2 (an output), the B1
//    window and B2 are live: 4,096 + 4,096 + 3,072 + 4,096 = 15,360 B.
TEST(TiledOrderTest, PlanTilesInTheBestOrderWhenItIsSmaller) {
  const std::string model = WriteModel(testing::TempDir("tiled_order_plan"));
  const json stored_tiled = testing::RunCliJson({"plan", model, "--tile", "--json"});
  EXPECT_EQ(stored_tiled["head_bytes"], 69632);
  EXPECT_TRUE(stored_tiled["tiling"]["segments"].empty()) << stored_tiled["tiling"].dump();
  const json best_untiled = testing::RunCliJson({"plan", model, "--order", "best", "--json"});
  EXPECT_EQ(best_untiled["head_bytes"], 40960);

  const json both = testing::RunCliJson({"plan", model, "--order", "best", "--tile", "--json"});
  EXPECT_EQ(both["head_bytes"], 15360);
  EXPECT_EQ(both["model"], model);  // the path given, though the plan is of the model in the best order
  EXPECT_EQ(both["order"]["used"], true);
  ASSERT_EQ(both["tiling"]["segments"].size(), 2u) << both["tiling"].dump();
  // Op numbers are those of the model stored in the best order.
  EXPECT_EQ(both["tiling"]["segments"][0]["first_op"], 0);
  EXPECT_EQ(both["tiling"]["segments"][0]["last_op"], 1);
  EXPECT_EQ(both["tiling"]["segments"][1]["first_op"], 2);
  EXPECT_EQ(both["tiling"]["segments"][1]["last_op"], 3);
  for (const json& segment : both["tiling"]["segments"]) {
    ASSERT_EQ(segment["windows"].size(), 1u);
    EXPECT_EQ(segment["windows"][0]["bytes"], 3072);
  }
  // The runtime's arena is measured on that file: the same head.
  EXPECT_EQ(both["runtime"]["head_bytes"], 15360) << both["runtime"].dump();

  const testing::CommandResult text = RunCli({"plan", model, "--order", "best", "--tile"});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("op numbers"), std::string::npos) << text.stdout_text;
}

// A chain gains nothing from another order: on vww_96_int8 the tiling in the
// best order is the one in the stored order, same head.
TEST(TiledOrderTest, ChainKeepsItsTiling) {
  MICROARENA_REQUIRE_SHARED();
  const std::string model = testing::SharedDir() + "/models/vww_96_int8.tflite";
  const json stored = testing::RunCliJson({"plan", model, "--tile", "--json"});
  const json both = testing::RunCliJson({"plan", model, "--order", "best", "--tile", "--json"});
  EXPECT_EQ(both["head_bytes"], stored["head_bytes"]);
  EXPECT_EQ(both["tiling"]["segments"].size(), stored["tiling"]["segments"].size());
}

// optimize --order best --tile writes the ops in the best order with the
// tiling numbered in it; the file runs tiled in the planned head, and its
// outputs are TFLM's for the original model, byte for byte.
TEST(TiledOrderTest, OptimizedFileRunsTiledBitExactWithTflm) {
  MICROARENA_REQUIRE_SHARED();
  const std::string dir = testing::TempDir("tiled_order_optimize");
  const std::string model = WriteModel(dir);
  const std::string written = dir + "/two_branches.opt.tflite";
  const json optimized =
      testing::RunCliJson({"optimize", model, "-o", written, "--order", "best", "--tile", "--json"});
  EXPECT_EQ(optimized["order_used"], true);
  EXPECT_EQ(optimized["outputs_identical"], true);
  EXPECT_EQ(optimized["planned_head_bytes"], 15360);
  ASSERT_EQ(optimized["tiling"].size(), 2u) << optimized.dump();
  const std::vector<int32_t> order = optimized["operator_order"].get<std::vector<int32_t>>();
  ASSERT_EQ(order.size(), 4u);
  // Each branch's two ops next to each other, in either order of branches.
  EXPECT_TRUE((order == std::vector<int32_t>{0, 2, 1, 3}) || (order == std::vector<int32_t>{1, 3, 0, 2}))
      << optimized["operator_order"].dump();

  // One input, drawn here; the oracle runs the original, we run the file.
  Lcg random(5);
  std::vector<uint8_t> input(32 * 32 * 4);
  for (uint8_t& byte : input) byte = static_cast<uint8_t>(random.NextBits());
  testing::WriteFile(dir + "/input.bin", input);
  const testing::Outcome tflm = testing::RunOracleOn("tiled_order_tflm", TwoBranchModel(), {input});
  ASSERT_TRUE(tflm.ok) << tflm.error;
  ASSERT_EQ(tflm.outputs.size(), 2u);
  const json run = testing::RunCliJson(
      {"run", written, "--input", dir + "/input.bin", "--output-dir", dir + "/out", "--json"});
  ASSERT_EQ(run["tiling"].size(), 2u) << run.dump();
  EXPECT_EQ(run["head_bytes"], 15360);
  EXPECT_EQ(testing::ReadFileBytes(dir + "/out/output_0.bin"), tflm.outputs[0]);
  EXPECT_EQ(testing::ReadFileBytes(dir + "/out/output_1.bin"), tflm.outputs[1]);
}

// A branch and a side output: A1 = conv1x1(X) with 32 channels (32,768 B),
// A2 = conv3x3(A1) with 4 (4,096 B), C = conv1x1(X) with 1 (1,024 B); A2
// and C are outputs; stored order A1, A2, C. By hand:
//  - untiled: stored peak 40,960 B (X + A1 + A2 at A2); C first (or
//    between) keeps X shorter: C, A1, A2 peaks at 37,888 B (X + C + A1),
//    so the best order is not the stored one.
//  - tiled in the stored order: segment A1..A2, A1 a window of 3 rows
//    (3,072 B): X + window + A2 = 11,264 B, then X + A2 + C = 9,216 B.
//  - tiled in C, A1, A2: C lives through the segment: 12,288 B; in A1, C,
//    A2 no two consecutive ops form a segment with a window: 37,888 B.
// So with --order best --tile the stored order is kept.
std::vector<uint8_t> BranchAndSideModel() {
  QuantizedModelWriter writer(/*seed=*/12);
  const QuantizedActivation x = writer.AddInput("input", {1, 32, 32, 4}, -1.0, 1.0, 0.5);
  const QuantizedActivation a1 =
      writer.AddConv2d("a1", x, {1, 1, 1, tflite::Padding::SAME, 32, tflite::ActivationFunctionType::RELU});
  const QuantizedActivation a2 =
      writer.AddConv2d("a2", a1, {3, 3, 1, tflite::Padding::SAME, 4, tflite::ActivationFunctionType::RELU});
  const QuantizedActivation c =
      writer.AddConv2d("c", x, {1, 1, 1, tflite::Padding::SAME, 1, tflite::ActivationFunctionType::RELU});
  return writer.Finish({a2, c}, "a branch and a side output");
}

TEST(TiledOrderTest, StoredOrderIsKeptWhenItTilesSmaller) {
  const std::string dir = testing::TempDir("tiled_order_keep");
  const std::string model = dir + "/branch_and_side.tflite";
  testing::WriteFile(model, BranchAndSideModel());
  const json best_untiled = testing::RunCliJson({"plan", model, "--order", "best", "--json"});
  EXPECT_EQ(best_untiled["head_bytes"], 37888);
  EXPECT_EQ(best_untiled["order"]["stored_peak_bytes"], 40960);

  const json both = testing::RunCliJson({"plan", model, "--order", "best", "--tile", "--json"});
  EXPECT_EQ(both["order"]["used"], false);
  EXPECT_EQ(both["head_bytes"], 11264);
  EXPECT_EQ(both["order"]["best_order_head_bytes"], 12288);
  ASSERT_EQ(both["tiling"]["segments"].size(), 1u);
  EXPECT_EQ(both["tiling"]["segments"][0]["first_op"], 0);
  EXPECT_EQ(both["tiling"]["segments"][0]["last_op"], 1);

  const json optimized = testing::RunCliJson(
      {"optimize", model, "-o", dir + "/branch_and_side.opt.tflite", "--order", "best", "--tile", "--json"});
  EXPECT_EQ(optimized["order_used"], false);
  EXPECT_EQ(optimized["operator_order"], json::array());
  EXPECT_EQ(optimized["planned_head_bytes"], 11264);
  EXPECT_GT(optimized["best_order_arena_bytes"].get<size_t>(), optimized["offline_arena_bytes"].get<size_t>());
  EXPECT_EQ(optimized["outputs_identical"], true);
}

}  // namespace
}  // namespace microarena
