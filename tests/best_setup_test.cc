// The arena with every technique combined (`optimize --overlap`: the exact
// overlap plan stored whole, the kernels' data stored for flash), against
// the targets the project set itself in TFLM's terms (golden/tflm_arena.csv):
// every shared model at most 0.75 x TFLM's minimum arena, vww_96_int8 at most
// 0.42 x (43,400 B) and kws_ref_model at most 0.58 x (13,900 B); the
// persistent area other than variable state at most 25 % of TFLM's tail
// other than variable tensors, on the host and on a Cortex-M; nothing
// planned at boot, so the temp peak is within the head (0); bit-exact with
// TFLM's goldens on the written file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/report/optimize_job.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/target_layout.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using testing::ReadFileBytes;
using testing::SharedDir;

TEST(BestSetupTest, EverySharedModelMeetsTheArenaTargets) {
  MICROARENA_REQUIRE_SHARED();
  const std::vector<testing::TflmArenaCsvRow> rows = testing::ReadTflmArenaCsv();
  ASSERT_GE(rows.size(), 9u);
  for (const testing::TflmArenaCsvRow& row : rows) {
    const std::string name = row.at("model");
    SCOPED_TRACE(name);
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    report::OptimizeOptions options;
    options.overlap = true;
    options.time_limit_seconds = 0;  // every shared model is planned exactly in well under a second
    Result<report::OptimizedModel> optimized = report::OptimizeModel(file->view(), options);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    Result<ModelView> written = LoadModel(Span<const uint8_t>(optimized->bytes.data(), optimized->bytes.size()));
    ASSERT_TRUE(written.ok()) << written.status().message();

    RunOptions run;
    run.interpreter.allow_overlap = true;
    Result<RunResult> ran = RunModel(*written, AllOpsResolver(), run);
    ASSERT_TRUE(ran.ok()) << ran.status().message();
    EXPECT_TRUE(ran->stored_plan_used);
    EXPECT_LE(ran->temp_peak_bytes, ran->head_bytes);
    EXPECT_EQ(ran->kernel_data.state, KernelDataState::kUsed);
    EXPECT_EQ(ran->kernel_data.ops_recomputed, 0u);

    const size_t tflm = testing::TflmArenaFigure(row, "min_arena_bytes");
    ASSERT_GT(tflm, 0u);
    EXPECT_LE(ran->used_bytes * 100, tflm * 75) << ran->used_bytes << " B vs TFLM " << tflm << " B";
    if (name == "vww_96_int8") {
      EXPECT_LE(ran->used_bytes, 43400u);
      EXPECT_LE(ran->used_bytes * 100, tflm * 42);
    }
    if (name == "kws_ref_model") {
      EXPECT_LE(ran->used_bytes, 13900u);
      EXPECT_LE(ran->used_bytes * 100, tflm * 58);
    }

    // Persistent RAM other than variable state at most 25 % of TFLM's tail
    // other than variable tensors, counted for this host (TFLM's figures are
    // a 64-bit host's) and for a Cortex-M.
    const size_t tflm_tail =
        testing::TflmArenaFigure(row, "tail_bytes") - testing::TflmArenaFigure(row, "variable_tensor_bytes");
    for (const TargetLayout* target : {&HostLayout(), FindTargetLayout("cortex-m")}) {
      ASSERT_NE(target, nullptr);
      SCOPED_TRACE(target->name);
      InterpreterOptions counted = run.interpreter;
      counted.figures_for = target;
      Result<ArenaFigures> figures = MeasureArena(*written, AllOpsResolver(), counted);
      ASSERT_TRUE(figures.ok()) << figures.status().message();
      const size_t variables = figures->persistent_by_use[static_cast<size_t>(PersistentUse::kVariableState)];
      ASSERT_LE(variables, figures->persistent_bytes);
      EXPECT_LE((figures->persistent_bytes - variables) * 100, tflm_tail * 25)
          << figures->persistent_bytes << " B persistent, " << variables << " B of it variable state, TFLM's tail "
          << tflm_tail << " B without variables";
    }

    // Bit-exact with TFLM on the written file, run as a device runs it.
    const std::string golden = SharedDir() + "/golden/" + name + "/seed1";
    for (size_t o = 0; o < ran->outputs.size(); ++o) {
      EXPECT_EQ(ran->outputs[o], ReadFileBytes(golden + "/output_" + std::to_string(o) + ".bin")) << "output " << o;
    }
  }
}

}  // namespace
}  // namespace microarena
