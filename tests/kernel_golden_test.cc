// Layer by layer against TFLM: for every op of every shared model and every
// golden seed, feed the op the input tensors TFLM computed
// (golden/<model>/seed<k>/tensors/) and compare each output byte with TFLM's.
// A difference names the model, seed, op, tensor and first differing byte.
// The convolution, pooling, fully-connected and reshape layers must also run
// without scratch, as their reference kernels promise.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "tests/support/kernel_harness.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::KernelHarness;
using testing::ReadFileBytes;
using testing::SharedDir;

struct LayerCounts {
  int compared = 0;
  int missing_kernel = 0;
};

// Ops whose reference kernels are documented to need no scratch; checked so
// that a kernel change which starts requesting some is noticed.
bool UsesNoScratch(BuiltinOp op) {
  switch (op) {
    case BuiltinOp::kAveragePool2d:
    case BuiltinOp::kConv2d:
    case BuiltinOp::kDepthwiseConv2d:
    case BuiltinOp::kFullyConnected:
    case BuiltinOp::kMaxPool2d:
    case BuiltinOp::kReshape:
      return true;
    default:
      return false;
  }
}

std::string DumpPath(const std::string& model, int seed, int32_t tensor) {
  return SharedDir() + "/golden/" + model + "/seed" + std::to_string(seed) + "/tensors/tensor_s0_t" +
         std::to_string(tensor) + ".bin";
}

void CheckModel(const std::string& name, LayerCounts& counts) {
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  const ModelView& model = file->view();
  SubgraphView subgraph = model.subgraph(0);
  for (int seed = 1; seed <= 3; ++seed) {
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      OperatorView op = subgraph.op(o);
      KernelHarness harness(model, static_cast<int32_t>(o), AllOpsResolver());
      if (!harness.has_kernel()) {
        ++counts.missing_kernel;
        continue;
      }
      SCOPED_TRACE(name + " seed " + std::to_string(seed) + " op " + std::to_string(o) + " " + op.name());
      for (int32_t t : op.inputs()) {
        if (t < 0 || subgraph.tensor(static_cast<size_t>(t)).is_constant() ||
            subgraph.tensor(static_cast<size_t>(t)).is_variable()) {
          continue;
        }
        std::vector<uint8_t> bytes = ReadFileBytes(DumpPath(name, seed, t));
        ASSERT_EQ(bytes.size(), subgraph.tensor(static_cast<size_t>(t)).byte_size()) << "input tensor " << t;
        harness.SetTensorBytes(t, bytes);
      }
      Status prepared = harness.Prepare();
      ASSERT_TRUE(prepared.ok()) << prepared.message();
      Status evaluated = harness.Eval();
      ASSERT_TRUE(evaluated.ok()) << evaluated.message();
      if (UsesNoScratch(op.code())) EXPECT_EQ(harness.scratch_bytes(), 0u);
      std::vector<int32_t> checked(op.outputs().begin(), op.outputs().end());
      for (int32_t t : op.inputs()) {
        if (t >= 0 && subgraph.tensor(static_cast<size_t>(t)).is_variable()) checked.push_back(t);
      }
      for (int32_t t : checked) {
        std::vector<uint8_t> expected = ReadFileBytes(DumpPath(name, seed, t));
        std::vector<uint8_t> actual = harness.TensorBytes(t);
        ASSERT_EQ(actual.size(), expected.size()) << "tensor " << t;
        size_t first = actual.size(), differing = 0;
        for (size_t i = 0; i < actual.size(); ++i) {
          if (actual[i] != expected[i]) {
            if (first == actual.size()) first = i;
            ++differing;
          }
        }
        EXPECT_EQ(differing, 0u) << "tensor " << t << ": " << differing << " of " << actual.size()
                                 << " bytes differ, first at byte " << first << " (ours "
                                 << (first < actual.size() ? int(actual[first]) : -1) << ", TFLM "
                                 << (first < actual.size() ? int(expected[first]) : -1) << ")";
      }
      ++counts.compared;
    }
  }
}

TEST(KernelGoldenTest, EveryLayerWithAKernelMatchesTflm) {
  MICROARENA_REQUIRE_SHARED();
  // The shared models TFLM made no tensor dumps for, and why. Every other
  // shared model must have them; a model named here must be shared and have
  // none (else the list is stale and the test says so).
  const std::map<std::string, std::string> kModelsWithoutDumps = {
      {"simple_add_model", "a single ADD from TFLM's memory_footprint example: no golden run"},
  };
  LayerCounts counts;
  size_t without_dumps = 0;
  for (const std::string& name : testing::SharedModelNames()) {
    const bool has_dumps = std::ifstream(SharedDir() + "/golden/" + name + "/seed1/tensors/tensors.txt").good();
    const auto exempt = kModelsWithoutDumps.find(name);
    if (exempt != kModelsWithoutDumps.end()) {
      std::printf("not compared: %s (%s)\n", name.c_str(), exempt->second.c_str());
      EXPECT_FALSE(has_dumps) << name << " has golden dumps now: compare it (drop it from kModelsWithoutDumps)";
      ++without_dumps;
      continue;
    }
    EXPECT_TRUE(has_dumps) << name << ": no golden tensor dumps and not named in kModelsWithoutDumps";
    if (has_dumps) CheckModel(name, counts);
  }
  EXPECT_EQ(without_dumps, kModelsWithoutDumps.size()) << "a model in kModelsWithoutDumps is not shared any more";
  std::printf("layers compared with TFLM: %d; layers without a kernel: %d\n", counts.compared,
              counts.missing_kernel);
  // Every op of the nine models with dumps (99 layers, 3 seeds each) has a kernel.
  EXPECT_EQ(counts.missing_kernel, 0);
  EXPECT_EQ(counts.compared, 99 * 3);
}

}  // namespace
}  // namespace microarena
