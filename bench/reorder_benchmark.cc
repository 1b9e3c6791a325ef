// Operator reordering and shared arenas, measured.
//
//   build/release/bench/reorder_benchmark            tables + timings
//   build/release/bench/reorder_benchmark --benchmark_filter=none   tables only
//
// Table 1: per shared model, the peak of the stored order and of the best
// order (ratio best/stored, proven or not) and the search's states.
// Table 2: model pairs in one SharedArena against one arena each (ratio
// shared/separate), both measured by allocating real interpreters.
// Timings: FindBestOrder on each model and on synthetic multi-branch graphs
// (k parallel two-op branches: 3^k executed-op sets, the search's worst case).
#include <benchmark/benchmark.h>

#include "bench/bench_support.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_file.h"
#include "microarena/plan/reorder.h"
#include "microarena/report/format.h"
#include "microarena/runtime/host_runner.h"

namespace {

using microarena::bench::SharedDir;

namespace fs = std::filesystem;
using namespace microarena;

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const std::string& path : microarena::bench::SharedModelPaths()) names.push_back(fs::path(path).stem().string());
  return names;
}

std::string Ratio(size_t a, size_t b) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b));
  return text;
}

std::string ModelPath(const std::string& name) { return SharedDir() + "/models/" + name + ".tflite"; }

// k branches from one input, each RELU -> RELU, all first ops stored first.
std::vector<uint8_t> BranchyGraph(int branches) {
  ModelBuilder builder;
  int32_t in = builder.AddTensor({"in", TensorType::kInt8, {1, 64}, 0, {}});
  std::vector<int32_t> mids, outs;
  for (int b = 0; b < branches; ++b) {
    mids.push_back(builder.AddTensor({"mid", TensorType::kInt8, {1, 32 + 16 * (b % 7)}, 0, {}}));
    outs.push_back(builder.AddTensor({"out", TensorType::kInt8, {1, 16}, 0, {}}));
  }
  for (int b = 0; b < branches; ++b) {
    OperatorSpec op;
    op.op = BuiltinOp::kRelu;
    op.inputs = {in};
    op.outputs = {mids[static_cast<size_t>(b)]};
    builder.AddOperator(std::move(op));
  }
  for (int b = 0; b < branches; ++b) {
    OperatorSpec op;
    op.op = BuiltinOp::kRelu;
    op.inputs = {mids[static_cast<size_t>(b)]};
    op.outputs = {outs[static_cast<size_t>(b)]};
    builder.AddOperator(std::move(op));
  }
  builder.SetInputs({in});
  builder.SetOutputs(outs);
  return builder.Build();
}

void PrintTables() {
  std::vector<std::string> names = ModelNames();
  if (names.empty()) {
    std::printf("shared models not found (set MICROARENA_SHARED_DIR); no tables\n");
    return;
  }
  report::TextTable orders({"model", "ops", "stored peak", "best peak", "best/stored", "proven", "states"},
                           {false, true, true, true, true, false, true});
  for (const std::string& name : names) {
    Result<ModelFile> file = ModelFile::Open(ModelPath(name));
    if (!file.ok()) continue;
    Result<std::vector<ScratchRequest>> scratch = CollectScratchRequests(file->view(), AllOpsResolver());
    if (!scratch.ok()) continue;
    Result<ReorderResult> found =
        FindBestOrder(file->view(), Span<const ScratchRequest>(scratch->data(), scratch->size()));
    if (!found.ok()) continue;
    orders.AddRow({name, std::to_string(found->order.size()), report::Bytes(found->stored_peak_bytes),
                   report::Bytes(found->peak_bytes),
                   Ratio(found->peak_bytes, found->stored_peak_bytes), found->proven_optimal ? "yes" : "no",
                   std::to_string(found->states)});
  }
  std::printf("best execution order (bytes live at the busiest step, alignment 16)\n%s\n", orders.Render("  ").c_str());

  report::TextTable pairs({"models", "separate arenas", "shared arena", "shared/separate"}, {false, true, true, true});
  const std::vector<std::pair<std::string, std::string>> pair_names = {
      {"kws_ref_model", "vww_96_int8"}, {"kws_ref_model", "ad01_int8"}, {"micro_speech_quantized", "vww_96_int8"}};
  for (const auto& [a, b] : pair_names) {
    Result<ModelFile> fa = ModelFile::Open(ModelPath(a));
    Result<ModelFile> fb = ModelFile::Open(ModelPath(b));
    if (!fa.ok() || !fb.ok()) continue;
    Result<size_t> alone_a = MeasureArenaBytes(fa->view(), AllOpsResolver());
    Result<size_t> alone_b = MeasureArenaBytes(fb->view(), AllOpsResolver());
    Result<SharedArenaFigures> shared = MeasureSharedArena({&fa->view(), &fb->view()}, AllOpsResolver());
    if (!alone_a.ok() || !alone_b.ok() || !shared.ok()) continue;
    pairs.AddRow({a + " + " + b, report::Bytes(*alone_a + *alone_b), report::Bytes(shared->used_bytes),
                  Ratio(shared->used_bytes, *alone_a + *alone_b)});
  }
  std::printf("two models, one arena (head shared, persistent areas separate)\n%s\n", pairs.Render("  ").c_str());
}

void BM_FindBestOrderSharedModel(benchmark::State& state, const std::string& name) {
  Result<ModelFile> file = ModelFile::Open(ModelPath(name));
  Result<std::vector<ScratchRequest>> scratch = CollectScratchRequests(file->view(), AllOpsResolver());
  if (!scratch.ok()) {
    state.SkipWithError(scratch.status().message());
    return;
  }
  for (auto _ : state) {
    Result<ReorderResult> found =
        FindBestOrder(file->view(), Span<const ScratchRequest>(scratch->data(), scratch->size()));
    benchmark::DoNotOptimize(found);
  }
}

void BM_FindBestOrderBranches(benchmark::State& state) {
  std::vector<uint8_t> bytes = BranchyGraph(static_cast<int>(state.range(0)));
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  size_t states = 0;
  bool proven = false;
  for (auto _ : state) {
    Result<ReorderResult> found = FindBestOrder(*model, {});
    states = found->states;
    proven = found->proven_optimal;
  }
  state.counters["states"] = static_cast<double>(states);
  state.counters["proven"] = proven ? 1 : 0;
}
BENCHMARK(BM_FindBestOrderBranches)->DenseRange(4, 12, 4)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  PrintTables();
  for (const std::string& name : ModelNames()) {
    benchmark::RegisterBenchmark(("BM_FindBestOrder/" + name).c_str(), BM_FindBestOrderSharedModel, name)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
