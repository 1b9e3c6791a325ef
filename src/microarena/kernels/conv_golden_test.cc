// Layer by layer against TFLM for the convolution, pooling, fully-connected
// and reshape kernels only: every such op of every shared model with tensor
// dumps (including models whose tensor 0 is a constant, which the
// all-kernel golden test does not probe), every golden seed. Prints how many
// layers of each op were compared; a difference names model, seed, op and byte.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "microarena/kernels/conv_test_util.h"
#include "microarena/model/model_file.h"
#include "tests/kernel_harness.h"
#include "tests/test_support.h"

namespace microarena {
namespace {

std::string TensorDump(const std::string& model, int seed, int32_t tensor) {
  return testing::SharedDir() + "/golden/" + model + "/seed" + std::to_string(seed) + "/tensors/tensor_s0_t" +
         std::to_string(tensor) + ".bin";
}

TEST(ConvKernelsGoldenTest, EveryConvPoolFcReshapeLayerMatchesTflm) {
  MICROARENA_REQUIRE_SHARED();
  std::map<std::string, int> compared;  // op name -> layers compared (all seeds)
  for (const std::string& name : testing::SharedModelNames()) {
    std::ifstream probe(testing::SharedDir() + "/golden/" + name + "/seed1/tensors/tensors.txt");
    if (!probe) continue;
    Result<ModelFile> file = ModelFile::Open(testing::SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    const ModelView& model = file->view();
    SubgraphView subgraph = model.subgraph(0);
    for (int seed = 1; seed <= 3; ++seed) {
      for (size_t o = 0; o < subgraph.operator_count(); ++o) {
        OperatorView op = subgraph.op(o);
        testing::KernelHarness harness(model, static_cast<int32_t>(o), conv_test::Resolver());
        if (!harness.has_kernel()) continue;
        SCOPED_TRACE(name + " seed " + std::to_string(seed) + " op " + std::to_string(o) + " " + op.name());
        for (int32_t t : op.inputs()) {
          if (t < 0 || subgraph.tensor(static_cast<size_t>(t)).is_constant()) continue;
          std::vector<uint8_t> bytes = testing::ReadFileBytes(TensorDump(name, seed, t));
          ASSERT_EQ(bytes.size(), subgraph.tensor(static_cast<size_t>(t)).byte_size()) << "input tensor " << t;
          harness.SetTensorBytes(t, bytes);
        }
        Status prepared = harness.Prepare();
        ASSERT_TRUE(prepared.ok()) << prepared.message();
        Status evaluated = harness.Eval();
        ASSERT_TRUE(evaluated.ok()) << evaluated.message();
        EXPECT_EQ(harness.scratch_bytes(), 0u);
        for (int32_t t : op.outputs()) {
          std::vector<uint8_t> expected = testing::ReadFileBytes(TensorDump(name, seed, t));
          std::vector<uint8_t> actual = harness.TensorBytes(t);
          ASSERT_EQ(actual.size(), expected.size()) << "tensor " << t;
          size_t differing = 0, first = actual.size();
          for (size_t i = 0; i < actual.size(); ++i) {
            if (actual[i] == expected[i]) continue;
            if (differing++ == 0) first = i;
          }
          EXPECT_EQ(differing, 0u) << "tensor " << t << ": " << differing << " of " << actual.size()
                                   << " bytes differ, first at byte " << first;
        }
        ++compared[op.name()];
      }
    }
  }
  for (const auto& [op_name, count] : compared) std::printf("%s: %d layers compared with TFLM\n", op_name.c_str(), count);
  // Shared models hold every one of these ops; absent data skipped above.
  EXPECT_EQ(compared.size(), 5u);
}

}  // namespace
}  // namespace microarena
