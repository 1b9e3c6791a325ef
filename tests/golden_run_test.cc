// Whole models against TFLM: every shared model with goldens, every seed,
// run in exactly its minimum arena; outputs must equal TFLM's byte for byte,
// the arena must be no larger than TFLM's minimum, and every smaller arena
// (down to 256 bytes less, in alignment steps) must fail cleanly.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::ReadFileBytes;
using testing::SharedDir;

std::map<std::string, size_t> TflmMinArena() {
  std::map<std::string, size_t> result;
  std::ifstream in(SharedDir() + "/golden/tflm_arena.csv");
  std::string line;
  std::getline(in, line);  // header: model,min_arena_bytes,...
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::string model, min_arena;
    std::getline(cells, model, ',');
    std::getline(cells, min_arena, ',');
    result[model] = std::stoul(min_arena);
  }
  return result;
}

std::vector<std::string> GoldenModels() {
  std::vector<std::string> names;
  for (const std::string& name : testing::SharedModelNames()) {
    std::ifstream probe(SharedDir() + "/golden/" + name + "/seed1/output_0.bin");
    if (probe) names.push_back(name);
  }
  return names;
}

TEST(GoldenRunTest, OutputsAreBitExactWithTflmForEveryModelAndSeed) {
  MICROARENA_REQUIRE_SHARED();
  std::vector<std::string> models = GoldenModels();
  ASSERT_GE(models.size(), 9u);
  for (const std::string& name : models) {
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(name + " seed " + std::to_string(seed));
      const std::string dir = SharedDir() + "/golden/" + name + "/seed" + std::to_string(seed);
      RunOptions options;
      options.seed = seed;
      Result<RunResult> run = RunModel(file->view(), AllOpsResolver(), options);
      ASSERT_TRUE(run.ok()) << run.status().message();
      for (size_t i = 0; i < run->inputs.size(); ++i) {
        EXPECT_EQ(run->inputs[i], ReadFileBytes(dir + "/input_" + std::to_string(i) + ".bin")) << "input " << i;
      }
      for (size_t o = 0; o < run->outputs.size(); ++o) {
        EXPECT_EQ(run->outputs[o], ReadFileBytes(dir + "/output_" + std::to_string(o) + ".bin")) << "output " << o;
      }
    }
    testing::RecordOracleCoverage(std::vector<uint8_t>(file->view().bytes().begin(), file->view().bytes().end()));
  }
}

// Weights copied into the persistent area (for models kept in slow memory):
// the same outputs, and the tail grows by the constant bytes, each rounded up
// to the alignment (computed here from the model, independently of the arena).
TEST(GoldenRunTest, CopyWeightsToArenaKeepsOutputsAndCountsTheWeights) {
  MICROARENA_REQUIRE_SHARED();
  for (const char* name : {"kws_ref_model", "trained_lstm_int8"}) {
    SCOPED_TRACE(name);
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok());
    size_t constant_bytes = 0;
    SubgraphView subgraph = file->view().subgraph(0);
    for (size_t t = 0; t < subgraph.tensor_count(); ++t) {
      if (subgraph.tensor(t).is_constant()) constant_bytes += (subgraph.tensor(t).byte_size() + 15) / 16 * 16;
    }
    RunOptions plain;
    RunOptions copied;
    copied.interpreter.copy_weights_to_arena = true;
    Result<RunResult> a = RunModel(file->view(), AllOpsResolver(), plain);
    Result<RunResult> b = RunModel(file->view(), AllOpsResolver(), copied);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->outputs, b->outputs);
    EXPECT_EQ(b->outputs[0], ReadFileBytes(SharedDir() + "/golden/" + name + "/seed1/output_0.bin"));
    EXPECT_EQ(b->persistent_bytes, a->persistent_bytes + constant_bytes);
  }
}

TEST(GoldenRunTest, ArenaIsNoLargerThanTflmsMinimum) {
  MICROARENA_REQUIRE_SHARED();
  std::map<std::string, size_t> tflm = TflmMinArena();
  for (const std::string& name : GoldenModels()) {
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok());
    Result<size_t> used = MeasureArenaBytes(file->view(), AllOpsResolver());
    ASSERT_TRUE(used.ok()) << name << ": " << used.status().message();
    ASSERT_TRUE(tflm.count(name)) << name;
    EXPECT_LE(*used, tflm[name]) << name;
    std::printf("%-24s microarena %7zu B  TFLM %7zu B  ratio %.3f\n", name.c_str(), *used, tflm[name],
                static_cast<double>(*used) / static_cast<double>(tflm[name]));
  }
}

TEST(GoldenRunTest, EverySmallerArenaFailsCleanly) {
  MICROARENA_REQUIRE_SHARED();
  for (const std::string& name : GoldenModels()) {
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok());
    Result<size_t> used = MeasureArenaBytes(file->view(), AllOpsResolver());
    ASSERT_TRUE(used.ok()) << name << ": " << used.status().message();
    const size_t first = *used > 256 ? *used - 256 : 0;
    for (size_t size = first; size <= *used; size += 16) {
      HostArena arena(size);
      Interpreter interpreter(file->view(), AllOpsResolver(), arena.data(), size);
      Status status = interpreter.AllocateTensors();
      if (size == *used) {
        EXPECT_TRUE(status.ok()) << name << " at " << size << ": " << status.message();
        EXPECT_TRUE(interpreter.Invoke().ok()) << name;
      } else {
        ASSERT_FALSE(status.ok()) << name << " succeeded with " << size << " < " << *used;
        EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory) << status.message();
        EXPECT_NE(std::string(status.message()).find("missing"), std::string::npos) << status.message();
        EXPECT_FALSE(interpreter.Invoke().ok());
      }
    }
  }
}

}  // namespace
}  // namespace microarena
