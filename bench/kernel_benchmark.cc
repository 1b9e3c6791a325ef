// The fast int8 and 16x8 paths against their baseline, the reference kernels, on the
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
#include "microarena/kernels/optimized/int16_kernels.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/optimized/recurrent_int8.h"
#include "microarena/kernels/optimized/self_check.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/fully_connected.h"
#include "microarena/kernels/reference/lstm.h"
#include "microarena/kernels/reference/mul.h"
#include "microarena/kernels/reference/pooling.h"
#include "microarena/kernels/reference/softmax.h"
#include "microarena/kernels/reference/svdf.h"

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
// once per iteration. The bodies read every size and parameter from their
// Operands, not from constants: the reference kernels are inline headers, and sizes the
// compiler could see would let it specialise them (a fixed trip count
// vectorises without an epilogue) as the runtime's glue never does.
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
  // Read at run time: no shape or parameter is a constant the compiler
  // can fold.
  reference::SvdfShape svdf;
  reference::PoolParams pool;
  reference::ConvParams conv;
  reference::QuantizedConvParams quant;
  bool scalar = false;
  reference::LstmMultiplier gate_scale;
  int32_t offset = 0;
  reference::MulQuantizedParams mul;
  reference::SoftmaxQuantizedParams softmax;
  reference::SvdfIntegerParams svdf_params;
  std::vector<int8_t> input, input2, output, filter;
  std::vector<int16_t> input16, output16, state16;
  std::vector<int32_t> dims, out_dims, filter_dims, bias_dims, bias, multipliers, scratch, scratch2;
  std::vector<int64_t> bias64;
  std::vector<int8_t> shifts;
};

std::vector<int16_t> RandomInt16(size_t count, uint32_t seed) {
  Random random{seed};
  std::vector<int16_t> values(count);
  for (int16_t& v : values) v = static_cast<int16_t>(random.Uniform(-32768, 32767));
  return values;
}
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
  o.pool = params;
  Operands* p = &o;
  RegisterPair(
      name,
      [p] {
        reference::MaxPoolInt8(p->pool, {1, p->dims[1], p->dims[2], p->dims[3]}, p->input.data(),
                               {1, p->out_dims[1], p->out_dims[2], p->out_dims[3]}, p->output.data());
      },
      [p] {
        EvalTensor input = optimized::self_check::Tensor(p->input.data(), p->dims.data(), 4, TensorType::kInt8);
        EvalTensor output = optimized::self_check::Tensor(p->output.data(), p->out_dims.data(), 4, TensorType::kInt8);
        (void)optimized::MaxPoolInt8(p->pool, input, output);
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
  o.scalar = scalar;
  o.mul = params;
  Operands* p = &o;
  RegisterPair(
      "MUL/" + std::to_string(count) + (scalar ? "_by_scalar" : ""),
      [p] {
        for (size_t i = 0; i < p->output.size(); ++i) {
          p->output[i] = reference::MulQuantizedElement(p->input[i], p->input2[p->scalar ? 0 : i], p->mul);
        }
      },
      [p] {
        optimized::MulInt8(p->mul, p->input.data(), false, p->input2.data(), p->scalar, p->output.data(),
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
  o.dims = {static_cast<int32_t>(rows), static_cast<int32_t>(depth)};
  o.softmax = params;
  Operands* p = &o;
  RegisterPair(
      "SOFTMAX/" + std::to_string(rows) + "x" + std::to_string(depth),
      [p] {
        reference::SoftmaxQuantized(p->softmax, static_cast<size_t>(p->dims[0]), static_cast<size_t>(p->dims[1]),
                                    p->input.data(), p->output.data());
      },
      [p] {
        optimized::SoftmaxInt8(p->softmax, static_cast<size_t>(p->dims[0]), static_cast<size_t>(p->dims[1]),
                               p->input.data(), p->output.data());
      });
}

// CONV_2D 16x8, 3x3 stride 1 SAME over height x width x depth -> channels,
// int64 bias (int64 sums, the 64-bit rescale).
void RegisterConv16(int32_t height, int32_t width, int32_t depth, int32_t channels) {
  auto& o = *operands.emplace_back(std::make_unique<Operands>());
  o.input16 = RandomInt16(static_cast<size_t>(height) * width * depth, 5);
  o.filter = RandomInt8(static_cast<size_t>(channels) * 9 * depth, 6);
  o.output16.resize(static_cast<size_t>(height) * width * channels);
  o.bias64.assign(static_cast<size_t>(channels), 12345);
  o.multipliers.assign(static_cast<size_t>(channels), 1518500250);
  o.shifts.assign(static_cast<size_t>(channels), -12);
  o.dims = {1, height, width, depth};
  o.filter_dims = {channels, 3, 3, depth};
  o.out_dims = {1, height, width, channels};
  o.bias_dims = {channels};
  o.conv.padding_height = o.conv.padding_width = 1;
  o.quant.activation_min = -32768;
  o.quant.activation_max = 32767;
  o.quant.output_multiplier = o.multipliers.data();
  o.quant.output_shift = o.shifts.data();
  Operands* p = &o;
  RegisterPair(
      "CONV_2D_16x8/" + std::to_string(height) + "x" + std::to_string(width) + "x" + std::to_string(depth) + "_3x3_" +
          std::to_string(channels),
      [p] {
        const reference::ConvFilterShape filter_shape{p->filter_dims[0], p->filter_dims[1], p->filter_dims[2],
                                                      p->filter_dims[3]};
        reference::ConvPerChannelInt16(p->conv, p->quant, {1, p->dims[1], p->dims[2], p->dims[3]}, p->input16.data(),
                                       filter_shape, p->filter.data(), p->bias64.data(),
                                       {1, p->out_dims[1], p->out_dims[2], p->out_dims[3]}, p->output16.data());
      },
      [p] {
        using optimized::self_check::Tensor;
        const EvalTensor input = Tensor(p->input16.data(), p->dims.data(), 4, TensorType::kInt16);
        const EvalTensor filter = Tensor(p->filter.data(), p->filter_dims.data(), 4, TensorType::kInt8);
        const EvalTensor bias = Tensor(p->bias64.data(), p->bias_dims.data(), 1, TensorType::kInt64);
        EvalTensor output = Tensor(p->output16.data(), p->out_dims.data(), 4, TensorType::kInt16);
        optimized::ConvInt16(p->conv, p->quant, input, filter, &bias, output);
      });
}

// SVDF with int16 state, keyword_scrambled_8bit's first layer's shape.
void RegisterSvdf(int32_t input_size, int32_t filters, int32_t memory) {
  auto& o = *operands.emplace_back(std::make_unique<Operands>());
  reference::SvdfShape shape;
  shape.batches = 1;
  shape.input_size = input_size;
  shape.filters = filters;
  shape.units = filters;
  shape.rank = 1;
  shape.memory_size = memory;
  reference::SvdfIntegerParams params;
  params.input_zero_point = -3;
  params.state_zero_point = 0;
  params.output_zero_point = 5;
  params.feature_multiplier = 1518500250;
  params.feature_shift = -6;
  params.output_multiplier = 1518500250;
  params.output_shift = -9;
  o.input = RandomInt8(static_cast<size_t>(input_size), 7);
  o.filter = RandomInt8(static_cast<size_t>(filters) * input_size, 8);
  o.input16 = RandomInt16(static_cast<size_t>(filters) * memory, 9);  // weights_time
  o.state16 = RandomInt16(static_cast<size_t>(filters) * memory, 10);
  o.bias.assign(static_cast<size_t>(filters), 777);
  o.scratch.resize(static_cast<size_t>(filters));
  o.scratch2.resize(static_cast<size_t>(filters));
  o.output.resize(static_cast<size_t>(filters));
  o.svdf = shape;
  o.svdf_params = params;
  Operands* p = &o;
  RegisterPair(
      "SVDF/" + std::to_string(input_size) + "_to_" + std::to_string(filters) + "_memory" + std::to_string(memory),
      [p] {
        reference::SvdfInteger<int16_t>(p->svdf_params, p->svdf, p->input.data(), p->filter.data(), p->input16.data(),
                                        p->bias.data(), p->state16.data(), p->scratch.data(), p->scratch2.data(),
                                        p->output.data());
      },
      [p] {
        optimized::SvdfInteger<int16_t>(p->svdf_params, p->svdf, p->input.data(), p->filter.data(), p->input16.data(),
                                        p->bias.data(), p->state16.data(), p->scratch.data(), p->scratch2.data(),
                                        p->output.data());
      });
}

// The integer LSTM's 8x8->16 gate matmul: one row of input_size -> units.
void RegisterLstmGate(int32_t input_size, int32_t units) {
  auto& o = *operands.emplace_back(std::make_unique<Operands>());
  o.input = RandomInt8(static_cast<size_t>(input_size), 11);
  o.filter = RandomInt8(static_cast<size_t>(units) * input_size, 12);
  o.bias.assign(static_cast<size_t>(units), -999);
  o.output16.resize(static_cast<size_t>(units));
  o.dims = {input_size, units};
  o.gate_scale = {1518500250, -10};
  o.offset = 7;
  Operands* p = &o;
  RegisterPair(
      "LSTM_gate/" + std::to_string(input_size) + "_to_" + std::to_string(units),
      [p] {
        reference::FullyConnectedInt8ToInt16(p->gate_scale, p->offset, 1, p->dims[0], p->dims[1], p->input.data(),
                                             p->filter.data(), p->bias.data(), p->output16.data());
      },
      [p] {
        optimized::FullyConnectedInt8ToInt16(p->gate_scale, p->offset, 1, p->dims[0], p->dims[1], p->input.data(),
                                             p->filter.data(), p->bias.data(), p->output16.data());
      });
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
  RegisterSvdf(40, 256, 8);  // keyword_scrambled_8bit's first SVDF
  RegisterLstmGate(64, 64);
  RegisterConv16(16, 16, 32, 32);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
