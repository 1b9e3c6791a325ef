// Overlap plans end to end: every shared model with goldens, every seed, run
// in exactly its minimum arena with the kernels' approved overlaps (planned by
// the exact planner, as `run --overlap`, and by the device greedy planner);
// outputs must equal TFLM's byte for byte. The demo model (no goldens) must
// give the same bytes as without overlap. And the figures the overlap is for:
// on vww_96_int8 the head at least 25% below the no-overlap lower bound and
// the whole arena below 0.6 x TFLM's minimum arena (golden/tflm_arena.csv).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_file.h"
#include "microarena/plan/optimal.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using testing::ReadFileBytes;
using testing::SharedDir;

// The exact planner as `run --overlap` uses it: a node limit, no time limit,
// so that measuring the arena and running plan alike.
OptimalPlanner OverlapPlanner() {
  OptimalOptions options;
  options.time_limit_seconds = 0;
  options.node_limit = 2000000;
  return OptimalPlanner(options);
}

TEST(OverlapGoldenTest, OutputsAreBitExactWithEveryOverlapPlan) {
  MICROARENA_REQUIRE_SHARED();
  const std::vector<std::string> models = testing::GoldenOutputModels();
  ASSERT_GE(models.size(), 9u);
  const OptimalPlanner optimal = OverlapPlanner();
  size_t models_with_overlap = 0;
  for (const std::string& name : models) {
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    bool any_overlap = false;
    for (const Planner* planner : {static_cast<const Planner*>(&optimal), static_cast<const Planner*>(nullptr)}) {
      for (uint32_t seed = 1; seed <= 3; ++seed) {
        SCOPED_TRACE(name + (planner != nullptr ? " exact" : " greedy") + " seed " + std::to_string(seed));
        const std::string dir = SharedDir() + "/golden/" + name + "/seed" + std::to_string(seed);
        RunOptions options;
        options.seed = seed;
        options.interpreter.allow_overlap = true;
        options.interpreter.planner = PlannerChoice::kGreedy;
        options.interpreter.custom_planner = planner;
        Result<RunResult> run = RunModel(file->view(), AllOpsResolver(), options);  // in exactly the minimum
        ASSERT_TRUE(run.ok()) << run.status().message();
        EXPECT_EQ(run->arena_bytes, run->used_bytes);
        any_overlap |= run->overlap_permissions > 0 && run->head_bytes < run->lower_bound_bytes;
        for (size_t o = 0; o < run->outputs.size(); ++o) {
          EXPECT_EQ(run->outputs[o], ReadFileBytes(dir + "/output_" + std::to_string(o) + ".bin")) << "output " << o;
        }
      }
    }
    models_with_overlap += any_overlap ? 1 : 0;
  }
  // The overlaps are really used: most models' heads go below the bound.
  EXPECT_GE(models_with_overlap, 4u);
}

TEST(OverlapGoldenTest, DemoModelGivesTheSameBytesWithOverlap) {
  const std::vector<uint8_t> bytes = BuildDemoModel();
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  const OptimalPlanner optimal = OverlapPlanner();
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    RunOptions plain;
    plain.seed = seed;
    RunOptions overlapped = plain;
    overlapped.interpreter.allow_overlap = true;
    overlapped.interpreter.custom_planner = &optimal;
    Result<RunResult> a = RunModel(*model, AllOpsResolver(), plain);
    Result<RunResult> b = RunModel(*model, AllOpsResolver(), overlapped);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->outputs, b->outputs);
    EXPECT_LT(b->head_bytes, a->head_bytes);
  }
}

TEST(OverlapGoldenTest, VwwHeadAndArenaFigures) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok());
  const size_t tflm_min_arena = testing::TflmMinArena("vww_96_int8");
  ASSERT_EQ(tflm_min_arena, 103392u);  // the figure this test is about
  const OptimalPlanner optimal = OverlapPlanner();
  InterpreterOptions options;
  options.allow_overlap = true;
  options.custom_planner = &optimal;
  Result<size_t> used = MeasureArenaBytes(file->view(), AllOpsResolver(), options);
  ASSERT_TRUE(used.ok()) << used.status().message();
  HostArena arena(*used);
  Interpreter interpreter(file->view(), AllOpsResolver(), arena.data(), arena.size(), options);
  ASSERT_TRUE(interpreter.AllocateTensors().ok());
  // The no-overlap lower bound by hand: the busiest step is the 1x1
  // convolution 48x48x8 -> 48x48x16, 18,432 + 36,864 = 55,296 B live.
  EXPECT_EQ(interpreter.lower_bound_bytes(), 55296u);
  EXPECT_LE(4 * interpreter.planned_head_bytes(), 3 * interpreter.lower_bound_bytes());  // >= 25% below
  EXPECT_LT(10 * interpreter.arena_used_bytes(), 6 * tflm_min_arena);                      // < 0.6 x TFLM
  std::printf("vww_96_int8 with overlap: head %zu B (no-overlap bound %zu B), persistent %zu B, arena %zu B, "
              "TFLM %zu B\n",
              interpreter.planned_head_bytes(), interpreter.lower_bound_bytes(), interpreter.arena_persistent_size(),
              interpreter.arena_used_bytes(), tflm_min_arena);
}

// Without allow_overlap the kernels' declarations change nothing: the same
// plan, head and arena as a plain interpreter (every other test holds the
// figures themselves).
TEST(OverlapGoldenTest, WithoutAllowOverlapNoPermissionIsUsed) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/vww_96_int8.tflite");
  ASSERT_TRUE(file.ok());
  Result<RunResult> run = RunModel(file->view(), AllOpsResolver(), RunOptions{});
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->overlap_permissions, 0u);
  EXPECT_GE(run->head_bytes, run->lower_bound_bytes);
}

}  // namespace
}  // namespace microarena
