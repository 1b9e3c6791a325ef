// TFLM's own integration suite (<shared>/tflm_integration: single-op models
// from a SEANet speech model, mostly int16 activations with int8 weights).
// Every model loads (LoadModel refuses none); every model whose op and types
// microarena's kernels support runs bit-exact with TFLM itself (the oracle,
// same inputs); the others are refused at prepare with an "unsupported"
// error that names the op and types. The counts are printed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

namespace fs = std::filesystem;
using testing::Bytes;

// One CSV line of integers as little-endian `type` bytes (int8, int16, int32).
Bytes ReadCsvInput(const fs::path& path, const std::string& type) {
  std::ifstream in(path);
  Bytes bytes;
  std::string cell;
  const size_t width = type == "int8" ? 1 : type == "int16" ? 2 : 4;
  while (std::getline(in, cell, ',')) {
    const long long value = std::stoll(cell);
    for (size_t b = 0; b < width; ++b)
      bytes.push_back(static_cast<uint8_t>((static_cast<uint64_t>(value) >> (8 * b)) & 0xFF));
  }
  return bytes;
}

// The inputs of model `stem` in `dir`: <stem>_input<i>_<type>.csv, in order.
std::vector<Bytes> ReadInputs(const fs::path& dir, const std::string& stem) {
  std::vector<Bytes> inputs;
  for (int i = 0;; ++i) {
    bool found = false;
    for (const char* type : {"int8", "int16", "int32"}) {
      const fs::path path = dir / (stem + "_input" + std::to_string(i) + "_" + type + ".csv");
      if (fs::exists(path)) {
        inputs.push_back(ReadCsvInput(path, type));
        found = true;
      }
    }
    if (!found) return inputs;
  }
}

TEST(TflmIntegrationTest, EveryModelLoadsAndEverySupportedOneMatchesTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const fs::path root = fs::path(testing::SharedDir()) / "tflm_integration" / "seanet";
  ASSERT_TRUE(fs::is_directory(root)) << root << " is missing; the shared data is incomplete";
  std::vector<fs::path> models;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() == ".tflite") models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  size_t matched = 0;
  size_t unsupported = 0;
  for (const fs::path& path : models) {
    SCOPED_TRACE(path.string());
    Result<ModelFile> file = ModelFile::Open(path.string());
    ASSERT_TRUE(file.ok()) << file.status().message();
    const std::vector<Bytes> inputs = ReadInputs(path.parent_path(), path.stem().string());
    ASSERT_FALSE(inputs.empty());
    RunOptions options;
    options.inputs = inputs;
    Result<RunResult> ours = RunModel(file->view(), AllOpsResolver(), options);
    if (!ours.ok()) {
      // Only a missing kernel or type may stop a model, and it says which.
      EXPECT_EQ(ours.status().code(), ErrorCode::kUnsupported) << ours.status().message();
      EXPECT_NE(std::string(ours.status().message()).find("op 0 ("), std::string::npos) << ours.status().message();
      ++unsupported;
      continue;
    }
    const Bytes model_bytes(file->view().bytes().begin(), file->view().bytes().end());
    const testing::Outcome tflm =
        testing::RunOracleOn("tflm_integration_" + path.stem().string(), model_bytes, inputs, 1 << 20);
    ASSERT_TRUE(tflm.ok) << tflm.error;
    ASSERT_EQ(ours->outputs.size(), tflm.outputs.size());
    for (size_t o = 0; o < tflm.outputs.size(); ++o) EXPECT_EQ(ours->outputs[o], tflm.outputs[o]) << "output " << o;
    testing::ExpectArenaNoLargerThanTflms("tflm_integration_" + path.stem().string(), model_bytes, inputs,
                                          ours->used_bytes, tflm.arena_used_bytes);
    ++matched;
  }
  std::printf(
      "tflm_integration: %zu models, %zu bit-exact with TFLM, %zu refused at prepare (op or type unsupported)\n",
      models.size(), matched, unsupported);
  EXPECT_EQ(models.size(), 66u);
  // Every model: ADD, SUB, LEAKY_RELU, PAD, STRIDED_SLICE and QUANTIZE, and
  // the 16x8 CONV_2D and TRANSPOSE_CONV ones.
  EXPECT_EQ(matched, 66u);
  EXPECT_EQ(unsupported, 0u);
}

}  // namespace
}  // namespace microarena
