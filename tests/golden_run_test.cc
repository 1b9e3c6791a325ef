// Whole models against TFLM: every shared model with goldens, every seed,
// run in exactly its minimum arena; outputs must equal TFLM's byte for byte,
// the arena must be no larger than TFLM's minimum, and every smaller arena
// (down to 256 bytes less, in alignment steps) must fail cleanly.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using testing::ReadFileBytes;
using testing::SharedDir;

// A model with golden outputs and the arena microarena measures for it.
struct MeasuredModel {
  std::string name;
  ModelFile file;
  size_t used_bytes = 0;
};

// Every model with golden outputs, opened and measured; one that cannot be
// fails the test and is left out.
std::vector<MeasuredModel> MeasureGoldenModels() {
  std::vector<MeasuredModel> models;
  for (const std::string& name : testing::GoldenOutputModels()) {
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    if (!file.ok()) {
      ADD_FAILURE() << name << ": " << file.status().message();
      continue;
    }
    Result<size_t> used = MeasureArenaBytes(file->view(), AllOpsResolver());
    if (!used.ok()) {
      ADD_FAILURE() << name << ": " << used.status().message();
      continue;
    }
    models.push_back({name, std::move(*file), *used});
  }
  return models;
}

TEST(GoldenRunTest, OutputsAreBitExactWithTflmForEveryModelAndSeed) {
  MICROARENA_REQUIRE_SHARED();
  std::vector<std::string> models = testing::GoldenOutputModels();
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
// to the alignment (computed here from the model, independently of the arena),
// and the tensor records grow to one per tensor (with weights in the arena
// every constant has its record, no index).
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
    const testing::TensorRecordCount records = testing::CountTensorRecords(file->view());
    const size_t compact_records = (records.index_bytes + 15) / 16 * 16 +
                                   ((records.records + records.window) * sizeof(EvalTensor) + 15) / 16 * 16;
    const size_t full_records = (subgraph.tensor_count() * sizeof(EvalTensor) + 15) / 16 * 16;
    EXPECT_EQ(b->persistent_bytes + compact_records, a->persistent_bytes + constant_bytes + full_records);
  }
}

TEST(GoldenRunTest, ArenaIsNoLargerThanTflmsMinimum) {
  MICROARENA_REQUIRE_SHARED();
  for (const MeasuredModel& m : MeasureGoldenModels()) {
    const size_t tflm = testing::TflmMinArena(m.name);
    ASSERT_GT(tflm, 0u) << m.name << " has no row in golden/tflm_arena.csv";
    EXPECT_LE(m.used_bytes, tflm) << m.name;
    std::printf("%-24s microarena %7zu B  TFLM %7zu B  ratio %.3f\n", m.name.c_str(), m.used_bytes, tflm,
                static_cast<double>(m.used_bytes) / static_cast<double>(tflm));
  }
}

TEST(GoldenRunTest, EverySmallerArenaFailsCleanly) {
  MICROARENA_REQUIRE_SHARED();
  for (const MeasuredModel& m : MeasureGoldenModels()) {
    const size_t first = m.used_bytes > 256 ? m.used_bytes - 256 : 0;
    for (size_t size = first; size <= m.used_bytes; size += 16) {
      HostArena arena(size);
      Interpreter interpreter(m.file.view(), AllOpsResolver(), arena.data(), size);
      Status status = interpreter.AllocateTensors();
      if (size == m.used_bytes) {
        EXPECT_TRUE(status.ok()) << m.name << " at " << size << ": " << status.message();
        EXPECT_TRUE(interpreter.Invoke().ok()) << m.name;
      } else {
        ASSERT_FALSE(status.ok()) << m.name << " succeeded with " << size << " < " << m.used_bytes;
        EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory) << status.message();
        EXPECT_NE(std::string(status.message()).find("missing"), std::string::npos) << status.message();
        EXPECT_FALSE(interpreter.Invoke().ok());
      }
    }
  }
}

}  // namespace
}  // namespace microarena
