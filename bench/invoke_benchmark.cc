// Invoke time per shared model (and the demo model), each in exactly its
// minimum arena, inputs from the golden generator (seed 1).
//
//   build/release/bench/invoke_benchmark
// Instructions per Invoke (the repeatable figure, compared with TFLM's):
//   bench/callgrind_invoke.sh
#include <benchmark/benchmark.h>

#include "bench/bench_support.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/input_generator.h"

namespace {

using microarena::bench::SharedDir;

namespace fs = std::filesystem;
using namespace microarena;

void BM_Invoke(benchmark::State& state, std::vector<uint8_t> bytes, std::string name) {
  Result<ModelFile> file = ModelFile::FromBytes(bytes, name);
  if (!file.ok()) {
    state.SkipWithError(file.status().message());
    return;
  }
  Result<size_t> used = MeasureArenaBytes(file->view(), AllOpsResolver());
  if (!used.ok()) {
    state.SkipWithError(used.status().message());
    return;
  }
  HostArena arena(*used);
  Interpreter interpreter(file->view(), AllOpsResolver(), arena.data(), arena.size());
  if (!interpreter.AllocateTensors().ok()) {
    state.SkipWithError("AllocateTensors failed");
    return;
  }
  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    GenerateInput(1, interpreter.input(i)->type, interpreter.input(i)->data, interpreter.input_bytes(i));
  }
  for (auto _ : state) {
    Status status = interpreter.Invoke();
    benchmark::DoNotOptimize(status.ok());
  }
  state.counters["arena_bytes"] = static_cast<double>(*used);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("Invoke/demo_kws", BM_Invoke, BuildDemoModel(), std::string("demo"))
      ->Unit(benchmark::kMillisecond);
  fs::path dir = fs::path(SharedDir()) / "models";
  if (fs::is_directory(dir)) {
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".tflite") paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const fs::path& path : paths) {
      Result<std::vector<uint8_t>> bytes = ReadFileBytes(path.string());
      if (!bytes.ok()) continue;
      std::string name = "Invoke/" + path.stem().string();
      benchmark::RegisterBenchmark(name.c_str(), BM_Invoke, *bytes, path.stem().string())
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
