// The fast int8 paths against their baseline, the reference kernels, on the
// same operands in the same run: one pair of benchmarks per op and shape
// ("<op>/<shape>/reference" and ".../fast"), then a table of the ratios
// fast / reference (CPU time; below 1 is faster).
//
//   build/release/bench/kernel_benchmark [--benchmark_filter=REGEX]
// Instructions on the device: bench/cortex_m_invoke.sh (whole models).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "microarena/kernels/eval_tensor.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/optimized/self_check.h"
#include "microarena/kernels/reference/mul.h"
#include "microarena/kernels/reference/pooling.h"
#include "microarena/kernels/reference/softmax.h"

namespace {

using namespace microarena;
using optimized::self_check::Random;

std::vector<int8_t> RandomInt8(size_t count, uint32_t seed) {
  Random random{seed};
  std::vector<int8_t> values(count);
  for (int8_t& v : values) v = static_cast<int8_t>(random.Uniform(-128, 127));
  return values;
}

// Registers "<name>/reference" and "<name>/fast", each running its body
// once per iteration.
void RegisterPair(const std::string& name, std::function<void()> reference, std::function<void()> fast) {
  benchmark::RegisterBenchmark((name + "/reference").c_str(), [reference](benchmark::State& state) {
    for (auto _ : state) {
      reference();
      benchmark::ClobberMemory();
    }
  });
  benchmark::RegisterBenchmark((name + "/fast").c_str(), [fast](benchmark::State& state) {
    for (auto _ : state) {
      fast();
      benchmark::ClobberMemory();
    }
  });
}

// Operands kept alive for the benchmarks' lambdas.
struct Operands {
  std::vector<int8_t> input, input2, output;
  std::vector<int16_t> output16;
  std::vector<int32_t> dims, out_dims;
};
std::vector<std::unique_ptr<Operands>> operands;

void RegisterMaxPool(int32_t height, int32_t width, int32_t channels, int32_t filter, int32_t stride) {
  auto& o = *operands.emplace_back(std::make_unique<Operands>());
  reference::PoolParams params;
  params.filter_height = params.filter_width = filter;
  params.stride_height = params.stride_width = stride;
  const int32_t out_h = (height - filter) / stride + 1;
  const int32_t out_w = (width - filter) / stride + 1;
  o.input = RandomInt8(static_cast<size_t>(height) * width * channels, 1);
  o.output.resize(static_cast<size_t>(out_h) * out_w * channels);
  o.dims = {1, height, width, channels};
  o.out_dims = {1, out_h, out_w, channels};
  const std::string name = "MAX_POOL_2D/" + std::to_string(height) + "x" + std::to_string(width) + "x" +
                           std::to_string(channels) + "_f" + std::to_string(filter) + "s" + std::to_string(stride);
  Operands* p = &o;
  RegisterPair(
      name,
      [p, params] {
        reference::MaxPoolInt8(params, {1, p->dims[1], p->dims[2], p->dims[3]}, p->input.data(),
                               {1, p->out_dims[1], p->out_dims[2], p->out_dims[3]}, p->output.data());
      },
      [p, params] {
        EvalTensor input = optimized::self_check::Tensor(p->input.data(), p->dims.data(), 4, TensorType::kInt8);
        EvalTensor output = optimized::self_check::Tensor(p->output.data(), p->out_dims.data(), 4, TensorType::kInt8);
        (void)optimized::MaxPoolInt8(params, input, output);
      });
}

void RegisterMul(size_t count, bool scalar) {
  auto& o = *operands.emplace_back(std::make_unique<Operands>());
  reference::MulQuantizedParams params;
  params.input1_offset = 3;
  params.input2_offset = -17;
  params.output_offset = -9;
  params.output_multiplier = 1518500250;
  params.output_shift = -8;
  params.activation_min = -128;
  params.activation_max = 127;
  o.input = RandomInt8(count, 2);
  o.input2 = RandomInt8(scalar ? 1 : count, 3);
  o.output.resize(count);
  Operands* p = &o;
  RegisterPair(
      "MUL/" + std::to_string(count) + (scalar ? "_by_scalar" : ""),
      [p, params, scalar] {
        for (size_t i = 0; i < p->output.size(); ++i) {
          p->output[i] = reference::MulQuantizedElement(p->input[i], p->input2[scalar ? 0 : i], params);
        }
      },
      [p, params, scalar] {
        optimized::MulInt8(params, p->input.data(), false, p->input2.data(), scalar, p->output.data(),
                           p->output.size());
      });
}

void RegisterSoftmax(size_t rows, size_t depth) {
  auto& o = *operands.emplace_back(std::make_unique<Operands>());
  reference::SoftmaxQuantizedParams params;
  int left_shift = 0;
  double real = 0.0;
  // beta 1, input scale 1/16 (logits over [-8, 8)).
  (void)reference::PrepareSoftmaxDiffScaling(1.0, 1.0 / 16, &params.input_multiplier, &left_shift, &params.diff_min,
                                             &real);
  params.input_left_shift = left_shift;
  o.input = RandomInt8(rows * depth, 4);
  o.output.resize(rows * depth);
  Operands* p = &o;
  RegisterPair(
      "SOFTMAX/" + std::to_string(rows) + "x" + std::to_string(depth),
      [p, params, rows, depth] { reference::SoftmaxQuantized(params, rows, depth, p->input.data(), p->output.data()); },
      [p, params, rows, depth] { optimized::SoftmaxInt8(params, rows, depth, p->input.data(), p->output.data()); });
}

// Collects each run's CPU time per iteration by name, and prints as usual.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) times_[run.benchmark_name()] = run.GetAdjustedCPUTime();
    ConsoleReporter::ReportRuns(runs);
  }
  void PrintRatios() const {
    std::printf("\n%-40s %14s %14s %8s\n", "op/shape", "reference", "fast", "ratio");
    for (const auto& [name, time] : times_) {
      const std::string suffix = "/reference";
      if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      const std::string base = name.substr(0, name.size() - suffix.size());
      const auto fast = times_.find(base + "/fast");
      if (fast == times_.end()) continue;
      std::printf("%-40s %14.0f %14.0f %8.3f\n", base.c_str(), time, fast->second, fast->second / time);
    }
  }

 private:
  std::map<std::string, double> times_;
};

}  // namespace

int main(int argc, char** argv) {
  RegisterMaxPool(48, 48, 16, 2, 2);  // a MobileNet-style downsampling pool
  RegisterMaxPool(24, 24, 36, 3, 1);
  RegisterMul(4096, false);
  RegisterMul(4096, true);
  RegisterSoftmax(1, 12);    // kws_ref_model's classifier
  RegisterSoftmax(4, 1000);  // ImageNet-sized rows
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
