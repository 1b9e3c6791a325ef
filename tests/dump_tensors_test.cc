// `microarena run --dump-tensors DIR` against TFLM's own dumps: the goldens
// (../shared/golden/<model>/seed<k>/tensors/), or, for a shared model that has
// none, a dump the TFLM oracle makes now. For every shared model and seeds
// 1-3: the same files, the same index lines (type, shape, bytes, scale, zero
// point, variable flag, name) and the same bytes in every tensor — every layer
// bit-exact, not only the outputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/test_support.h"

namespace microarena {
namespace {

namespace fs = std::filesystem;
using testing::SharedDir;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<std::string> FileNames(const std::string& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

TEST(DumpTensorsTest, EveryTensorMatchesTflmsDump) {
  MICROARENA_REQUIRE_ORACLE();
  int dumps = 0;
  int from_oracle = 0;
  for (const std::string& name : testing::SharedModelNames()) {
    for (int seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(name + " seed " + std::to_string(seed));
      const std::string model = SharedDir() + "/models/" + name + ".tflite";
      const std::string dir = testing::TempDir("dump_tensors") + "/" + name + "_seed" + std::to_string(seed);
      std::string golden = SharedDir() + "/golden/" + name + "/seed" + std::to_string(seed) + "/tensors";
      if (!fs::is_directory(golden)) {
        golden = dir + "_tflm";
        fs::remove_all(golden);
        const testing::CommandResult oracle =
            testing::RunOracle({model, "--seed", std::to_string(seed), "--dump-tensors", golden});
        ASSERT_EQ(oracle.exit_code, 0) << oracle.stderr_text;
        ++from_oracle;
      }
      fs::remove_all(dir);
      const testing::CommandResult run =
          testing::RunCli({"run", model, "--seed", std::to_string(seed), "--dump-tensors", dir, "--output-dir",
                           testing::TempDir("dump_tensors_outputs")});
      ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
      EXPECT_NE(run.stdout_text.find("written to " + dir), std::string::npos) << run.stdout_text;
      EXPECT_EQ(FileNames(dir), FileNames(golden));
      EXPECT_EQ(ReadText(dir + "/tensors.txt"), ReadText(golden + "/tensors.txt"));
      for (const std::string& file : FileNames(golden)) {
        if (file == "tensors.txt") continue;
        EXPECT_EQ(testing::ReadFileBytes(dir + "/" + file), testing::ReadFileBytes(golden + "/" + file)) << file;
      }
      ++dumps;
    }
  }
  EXPECT_EQ(dumps, 3 * static_cast<int>(testing::SharedModelNames().size()));
  std::printf("%d dumps compared, %d of them with the oracle's\n", dumps, from_oracle);
}

TEST(DumpTensorsTest, RefusesOverlapAndUnwritableFolders) {
  const std::string dir = testing::TempDir("dump_tensors_errors");
  const std::string model = dir + "/demo.tflite";
  ASSERT_EQ(testing::RunCli({"demo-model", "-o", model}).exit_code, 0);
  const testing::CommandResult both = testing::RunCli({"run", model, "--overlap", "--dump-tensors", "/tmp/x"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.stderr_text.find("excludes"), std::string::npos) << both.stderr_text;
  // A folder that cannot be made: a path under a regular file.
  const testing::CommandResult bad =
      testing::RunCli({"run", model, "--dump-tensors", model + "/tensors", "--output-dir", dir});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.stderr_text.find(model + "/tensors"), std::string::npos) << bad.stderr_text;
}

}  // namespace
}  // namespace microarena
