// Planning time of every planner on random problems (100 to 100,000 buffers)
// and on the DSA problems in ../shared/dsa (skipped when absent).
#include <benchmark/benchmark.h>

#include "bench/bench_support.h"

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "microarena/plan/greedy.h"
#include "microarena/plan/greedy_tflm.h"
#include "microarena/plan/linear.h"
#include "microarena/plan/optimal.h"
#include "microarena/plan/problem_csv.h"

namespace microarena {
namespace {

using bench::SharedDir;

// A model-like problem: buffer i starts near step i/2 and lives a few steps,
// with an occasional long-lived one; sizes 16 B to 64 KiB, 16-aligned.
std::vector<BufferRequest> RandomModelProblem(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<BufferRequest> buffers(count);
  for (size_t i = 0; i < count; ++i) {
    BufferRequest& buffer = buffers[i];
    buffer.lifetime.first_op = static_cast<int32_t>(i / 2);
    const int32_t length = random() % 20 == 0 ? 1 + static_cast<int32_t>(random() % 200)
                                                : 1 + static_cast<int32_t>(random() % 6);
    buffer.lifetime.end_op = buffer.lifetime.first_op + length;
    buffer.size_bytes = 16 * (1 + random() % 4096);
  }
  return buffers;
}

void RunPlanner(benchmark::State& state, const Planner& planner,
                const std::vector<BufferRequest>& buffers, size_t alignment) {
  PlanningProblem problem;
  problem.buffers = Span<const BufferRequest>(buffers.data(), buffers.size());
  problem.alignment_bytes = alignment;
  std::vector<uint8_t> workspace(planner.WorkspaceBytes(buffers.size()));
  std::vector<size_t> offsets(buffers.size());
  PlanSummary summary;
  for (auto _ : state) {
    const Status status = planner.Plan(problem, Span<uint8_t>(workspace.data(), workspace.size()),
                                       Span<size_t>(offsets.data(), offsets.size()), &summary);
    if (!status.ok()) {
      state.SkipWithError(status.message());
      return;
    }
    benchmark::DoNotOptimize(offsets.data());
  }
  state.counters["head_bytes"] = static_cast<double>(summary.head_bytes);
  state.counters["proven"] = summary.proven_optimal ? 1 : 0;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(buffers.size()));
}

void BM_Linear(benchmark::State& state) {
  RunPlanner(state, LinearPlanner(), RandomModelProblem(static_cast<size_t>(state.range(0)), 1),
             16);
}
void BM_GreedyTflm(benchmark::State& state) {
  RunPlanner(state, GreedyTflmPlanner(),
             RandomModelProblem(static_cast<size_t>(state.range(0)), 1), 16);
}
void BM_Greedy(benchmark::State& state) {
  RunPlanner(state, GreedyPlanner(), RandomModelProblem(static_cast<size_t>(state.range(0)), 1),
             16);
}
void BM_Optimal(benchmark::State& state) {
  OptimalOptions options;
  options.time_limit_seconds = 1.0;
  RunPlanner(state, OptimalPlanner(options),
             RandomModelProblem(static_cast<size_t>(state.range(0)), 1), 16);
}
BENCHMARK(BM_Linear)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GreedyTflm)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Greedy)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Optimal)->Arg(10)->Arg(30)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(1);

// One benchmark per planner per DSA problem (registered at start-up).
void RegisterDsaBenchmarks() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(SharedDir()) / "dsa";
  if (!fs::is_directory(dir)) return;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    Result<ProblemCsv> csv = ReadProblemCsv(file.string());
    if (!csv.ok()) continue;
    auto buffers = std::make_shared<std::vector<BufferRequest>>(csv->buffers);
    const std::string stem = file.stem().string();
    benchmark::RegisterBenchmark(("BM_Dsa/greedy-tflm/" + stem).c_str(),
                                 [buffers](benchmark::State& state) {
                                   RunPlanner(state, GreedyTflmPlanner(), *buffers, 1);
                                 });
    benchmark::RegisterBenchmark(("BM_Dsa/greedy/" + stem).c_str(),
                                 [buffers](benchmark::State& state) {
                                   RunPlanner(state, GreedyPlanner(), *buffers, 1);
                                 });
    // The MiniMalloc task: a plan within the capacity in the file name.
    const size_t capacity = std::stoull(stem.substr(stem.find('.') + 1));
    benchmark::RegisterBenchmark(("BM_Dsa/optimal-capacity/" + stem).c_str(),
                                 [buffers, capacity](benchmark::State& state) {
                                   OptimalOptions options;
                                   options.capacity_bytes = capacity;
                                   options.time_limit_seconds = 60.0;
                                   RunPlanner(state, OptimalPlanner(options), *buffers, 1);
                                 })
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace microarena

int main(int argc, char** argv) {
  microarena::RegisterDsaBenchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
