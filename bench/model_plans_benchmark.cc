// Side-by-side: for every model in ../shared/models, the head each planner
// needs next to the lower bound, and the time each planner takes.
//
//   build/release/bench/model_plans_benchmark            table + timings
//   build/release/bench/model_plans_benchmark --benchmark_filter=none   table only
#include <benchmark/benchmark.h>

#include "bench/bench_support.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "microarena/model/model_file.h"
#include "microarena/report/format.h"
#include "microarena/report/model_plan.h"

namespace {

using microarena::bench::SharedDir;

namespace fs = std::filesystem;
using microarena::ModelFile;
using microarena::Result;
using microarena::report::ModelPlan;
using microarena::report::ModelPlanOptions;
using microarena::report::PlanModel;

void PrintComparisonTable() {
  std::vector<std::string> paths = microarena::bench::SharedModelPaths();
  if (paths.empty()) {
    std::printf("shared models not found (set MICROARENA_SHARED_DIR); no comparison table\n");
    return;
  }
  microarena::report::TextTable table(
      {"model", "lower bound", "optimal", "greedy", "greedy-tflm", "linear", "tflm/optimal"},
      {false, true, true, true, true, true, true});
  for (const std::string& path : paths) {
    Result<ModelFile> file = ModelFile::Open(path);
    if (!file.ok()) continue;
    ModelPlanOptions options;
    options.planner = "optimal";
    Result<ModelPlan> plan = PlanModel(file->view(), options);
    if (!plan.ok()) {
      std::printf("%s: %s\n", path.c_str(), plan.status().message());
      continue;
    }
    size_t heads[3] = {};
    for (size_t i = 0; i < plan->comparison.size() && i < 3; ++i) heads[i] = plan->comparison[i].head_bytes;
    // comparison order: linear, greedy-tflm, greedy
    using microarena::report::Thousands;
    char ratio[32];
    std::snprintf(ratio, sizeof(ratio), "%.3f",
                  plan->head_bytes == 0 ? 1.0 : static_cast<double>(heads[1]) / static_cast<double>(plan->head_bytes));
    table.AddRow({fs::path(path).stem().string(), Thousands(plan->lower_bound_bytes),
                  Thousands(plan->head_bytes) + (plan->proven_optimal ? "" : "*"), Thousands(heads[2]),
                  Thousands(heads[1]), Thousands(heads[0]), ratio});
  }
  std::printf("Head bytes per planner (alignment 16, no op scratch; * = not proven optimal)\n%s\n",
              table.Render().c_str());
}

void BM_PlanModel(benchmark::State& state, const std::string& path, const std::string& planner) {
  Result<ModelFile> file = ModelFile::Open(path);
  if (!file.ok()) {
    state.SkipWithError(file.status().message());
    return;
  }
  ModelPlanOptions options;
  options.planner = planner;
  options.compare = false;
  for (auto _ : state) {
    Result<ModelPlan> plan = PlanModel(file->view(), options);
    benchmark::DoNotOptimize(plan.ok());
  }
}

}  // namespace

int main(int argc, char** argv) {
  PrintComparisonTable();
  for (const std::string& path : microarena::bench::SharedModelPaths()) {
    for (const char* planner : {"greedy-tflm", "greedy", "optimal"}) {
      std::string name = "PlanModel/" + fs::path(path).stem().string() + "/" + planner;
      benchmark::RegisterBenchmark(name.c_str(), BM_PlanModel, path, std::string(planner));
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
