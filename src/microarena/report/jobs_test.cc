// The CLI's jobs as library calls (plan_job, optimize_job, run_job), each
// checked against the lower-level calls it is made of, run independently.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_file.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/plan/reorder.h"
#include "microarena/report/optimize_job.h"
#include "microarena/report/plan_job.h"
#include "microarena/report/run_job.h"
#include "microarena/runtime/host_runner.h"

namespace microarena::report {
namespace {

ModelFile DemoFile() {
  Result<ModelFile> file = ModelFile::FromBytes(BuildDemoModel(), "demo");
  EXPECT_TRUE(file.ok()) << file.status().message();
  return std::move(*file);
}

TEST(PlanJobTest, BestOrderFiguresAreThoseOfTheModelStoredInThatOrder) {
  const ModelFile file = DemoFile();
  PlanJobOptions options;
  options.plan.planner = "greedy";
  options.best_order = true;
  Result<PlanJob> job = RunPlanJob(file, options);
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_TRUE(job->reorder.has_value());
  ASSERT_TRUE(job->plan.has_runtime) << job->plan.runtime_note;
  EXPECT_EQ(job->plan.order, job->reorder->order);

  // Independently: the peak of that order, and the runtime on the model
  // rewritten into it.
  Result<PrepareRequests> requests = CollectPrepareRequests(file.view(), AllOpsResolver());
  ASSERT_TRUE(requests.ok());
  Result<size_t> peak =
      PeakLiveBytes(file.view(), Span<const ScratchRequest>(requests->scratch.data(), requests->scratch.size()),
                    job->reorder->order, 16);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(job->plan.lower_bound_bytes, *peak);
  ModelEdits edits;
  edits.operator_order = job->reorder->order;
  Result<std::vector<uint8_t>> bytes = RewriteModel(file.bytes(), edits);
  ASSERT_TRUE(bytes.ok());
  Result<ModelFile> rewritten = ModelFile::FromBytes(*bytes, "rewritten");
  ASSERT_TRUE(rewritten.ok());
  Result<ArenaFigures> figures = MeasureArena(rewritten->view(), AllOpsResolver(), RuntimeOptionsFor("greedy", 16));
  ASSERT_TRUE(figures.ok());
  EXPECT_EQ(job->plan.runtime.used_bytes, figures->used_bytes);
  EXPECT_EQ(job->plan.runtime.head_bytes, figures->head_bytes);
}

TEST(PlanJobTest, PrecomputedPlanRunsInItsOwnArenaAndNotOneByteLess) {
  const ModelFile file = DemoFile();
  PlanJobOptions options;
  options.precomputed_plan = true;
  Result<PlanJob> job = RunPlanJob(file, options);
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_TRUE(job->precomputed.has_value());
  const PrecomputedPlan plan = job->precomputed->plan();
  RunOptions run;
  run.precomputed_plan = &plan;
  run.arena_bytes = job->plan.runtime.used_bytes;
  Result<RunResult> fits = RunModel(file.view(), AllOpsResolver(), run);
  ASSERT_TRUE(fits.ok()) << fits.status().message();
  Result<RunResult> planned_on_host = RunModel(file.view(), AllOpsResolver(), RunOptions());
  ASSERT_TRUE(planned_on_host.ok());
  EXPECT_EQ(fits->outputs, planned_on_host->outputs);
  run.arena_bytes -= 1;
  EXPECT_EQ(RunModel(file.view(), AllOpsResolver(), run).status().code(), ErrorCode::kOutOfMemory);
}

TEST(OptimizeJobTest, WrittenModelChecksAndATamperedPlanIsCaught) {
  const ModelFile file = DemoFile();
  OptimizeOptions options;
  options.planner = "greedy";
  Result<OptimizedModel> optimized = OptimizeModel(file.view(), options);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  Result<ModelFile> written = ModelFile::FromBytes(optimized->bytes, "optimized");
  ASSERT_TRUE(written.ok()) << written.status().message();
  Result<OptimizeCheck> check = CheckOptimizedModel(file.view(), written->view(), *optimized, options);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_TRUE(check->outputs_identical);
  EXPECT_EQ(check->offline_head_bytes, optimized->plan.head_bytes);

  // The check compares what the file holds with what was planned.
  OptimizedModel tampered = *optimized;
  for (int32_t& offset : tampered.offsets) {
    if (offset >= 0) {
      offset += 16;
      break;
    }
  }
  Result<OptimizeCheck> caught = CheckOptimizedModel(file.view(), written->view(), tampered, options);
  ASSERT_FALSE(caught.ok());
  EXPECT_NE(std::string(caught.status().message()).find("differs"), std::string::npos) << caught.status().message();
}

TEST(RunJobTest, TooSmallArenaReportsTheExactMinimum) {
  const ModelFile file = DemoFile();
  Result<size_t> minimum = MeasureArenaBytes(file.view(), AllOpsResolver(), InterpreterOptions());
  ASSERT_TRUE(minimum.ok());
  RunJobOptions options;
  options.run.arena_bytes = *minimum;
  Result<RunJob> fits = RunModelJob(file.view(), options);
  ASSERT_TRUE(fits.ok()) << fits.status().message();
  EXPECT_EQ(fits->result.used_bytes, *minimum);

  options.run.arena_bytes = *minimum - 16;
  size_t exact_minimum_bytes = 0;
  Result<RunJob> short_by_16 = RunModelJob(file.view(), options, &exact_minimum_bytes);
  ASSERT_FALSE(short_by_16.ok());
  EXPECT_EQ(short_by_16.status().code(), ErrorCode::kOutOfMemory);
  EXPECT_EQ(exact_minimum_bytes, *minimum);
}

TEST(RunJobTest, ExactOverlapPlanOnlyWithOverlapAndNoStoredPlan) {
  const ModelFile file = DemoFile();
  RunJobOptions options;
  options.exact_overlap_plan = true;
  Result<RunJob> without_overlap = RunModelJob(file.view(), options);
  ASSERT_TRUE(without_overlap.ok());
  options.run.interpreter.allow_overlap = true;
  Result<RunJob> with_overlap = RunModelJob(file.view(), options);
  ASSERT_TRUE(with_overlap.ok()) << with_overlap.status().message();
  EXPECT_NE(without_overlap->planner, with_overlap->planner);
  EXPECT_EQ(without_overlap->result.outputs, with_overlap->result.outputs);
  EXPECT_LE(with_overlap->result.head_bytes, without_overlap->result.head_bytes);
}

}  // namespace
}  // namespace microarena::report
