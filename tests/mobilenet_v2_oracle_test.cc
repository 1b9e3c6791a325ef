// MobileNetV2 from code (model/mobilenet_v2_model.h), run: microarena runs the
// small variant and the full 224x224 model, the softmax sums to 1, the
// predicted activation ranges hold real activations (neither all in a few
// levels nor clipped), and TFLM itself (../shared/tools/tflm_oracle) gives the
// same output bytes for the same input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/mobilenet_v2_model.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/input_generator.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

// 96x96, width 50%, stages 1-4, 10 classes: 44 ops, about 10 M MACs.
MobileNetV2Options SmallOptions() {
  MobileNetV2Options options;
  options.input_size = 96;
  options.width_percent = 50;
  options.last_stage = 4;
  options.classes = 10;
  return options;
}

std::vector<uint8_t> BuildOrFail(const MobileNetV2Options& options) {
  Result<std::vector<uint8_t>> bytes = BuildMobileNetV2Model(options);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? std::move(*bytes) : std::vector<uint8_t>();
}

// The golden generator's input (seed `seed`) for an HxWx3 int8 image.
std::vector<uint8_t> ImageInput(int32_t size, uint32_t seed) {
  std::vector<uint8_t> bytes(static_cast<size_t>(size) * static_cast<size_t>(size) * 3u);
  GenerateInput(seed, TensorType::kInt8, bytes.data(), bytes.size());
  return bytes;
}

// The int8 softmax output as probabilities (scale 1/256, zero point -128).
std::vector<double> Probabilities(const std::vector<uint8_t>& output) {
  std::vector<double> probabilities;
  for (uint8_t byte : output) probabilities.push_back((static_cast<int8_t>(byte) + 128) / 256.0);
  return probabilities;
}

TEST(MobileNetV2OracleTest, SmallVariantRunsAndItsSoftmaxSumsToOne) {
  const std::vector<uint8_t> bytes = BuildOrFail(SmallOptions());
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  for (uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RunOptions options;
    options.seed = seed;
    Result<RunResult> run = RunModel(*model, AllOpsResolver(), options);
    ASSERT_TRUE(run.ok()) << run.status().message();
    ASSERT_EQ(run->outputs.size(), 1u);
    ASSERT_EQ(run->outputs[0].size(), 10u);
    const std::vector<double> probabilities = Probabilities(run->outputs[0]);
    double sum = 0.0;
    for (double p : probabilities) sum += p;
    // Each of the 10 values is rounded to 1/256.
    EXPECT_NEAR(sum, 1.0, 10.0 / 256.0);
    // Logits in a calibrated range: no class takes it all.
    EXPECT_LT(*std::max_element(probabilities.begin(), probabilities.end()), 0.9);
  }
}

TEST(MobileNetV2OracleTest, ActivationsUseTheirRanges) {
  const std::vector<uint8_t> bytes = BuildOrFail(SmallOptions());
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  RunOptions options;
  options.interpreter.preserve_all_tensors = true;
  options.capture_tensors = true;
  Result<RunResult> run = RunModel(*model, AllOpsResolver(), options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const SubgraphView main = model->subgraph(0);
  size_t checked = 0;
  for (const CapturedTensor& captured : run->tensors) {
    const TensorView tensor = main.tensor(captured.index);
    const std::string name = tensor.name();
    if (captured.subgraph != 0 || tensor.type() != TensorType::kInt8 || name == "input") continue;
    if (name.rfind("softmax", 0) == 0 || captured.bytes.size() < 64) continue;  // few values: no statistics
    SCOPED_TRACE(name);
    double sum = 0.0;
    double sum_squares = 0.0;
    size_t at_top = 0;
    for (uint8_t byte : captured.bytes) {
      const double q = static_cast<int8_t>(byte);
      sum += q;
      sum_squares += q * q;
      at_top += byte == 127;
    }
    const double n = static_cast<double>(captured.bytes.size());
    const double deviation = std::sqrt(sum_squares / n - (sum / n) * (sum / n));
    // A predicted range far too wide would leave a few levels in use, one far
    // too narrow would clip: both would make the model useless for figures.
    EXPECT_GT(deviation, 8.0) << "int8 levels of one standard deviation";
    EXPECT_LT(static_cast<double>(at_top) / n, 0.02) << "share of values clipped at 127";
    ++checked;
  }
  EXPECT_EQ(checked, 40u);  // the 44 ops' outputs but pool, reshape, fc and softmax (10 to 32 values)
}

TEST(MobileNetV2OracleTest, SmallVariantIsBitExactWithTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<uint8_t> bytes = BuildOrFail(SmallOptions());
  for (uint32_t seed : {1u, 2u}) {
    testing::ExpectSameAsOracle("mobilenet_v2_small_seed" + std::to_string(seed), bytes,
                                {ImageInput(SmallOptions().input_size, seed)}, testing::kSmallArena);
  }
}

TEST(MobileNetV2OracleTest, FullModelIsBitExactWithTflm) {
  MICROARENA_REQUIRE_ORACLE();
  // The default: 224x224, width 100%, 1000 classes, 71 ops, 300 M MACs (about
  // 0.2 s here and 0.5 s in the oracle).
  const std::vector<uint8_t> bytes = BuildOrFail(MobileNetV2Options());
  testing::ExpectSameAsOracle("mobilenet_v2_full", bytes, {ImageInput(224, 1)}, size_t{8} << 20);
}

}  // namespace
}  // namespace microarena
