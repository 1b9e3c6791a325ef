// `microarena run --output-dir DIR`: the folder is made, with its parents,
// when it does not exist; one that cannot be made is an error naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::CommandResult;
using testing::RunCli;

TEST(RunCommandTest, MakesTheOutputFolderWithItsParents) {
  const std::string dir = testing::TempDir("run_command_output_dir");
  const std::string model = dir + "/demo.tflite";
  ASSERT_EQ(RunCli({"demo-model", "-o", model}).exit_code, 0);
  const std::string out = dir + "/a/b/c";
  ASSERT_FALSE(std::filesystem::exists(dir + "/a"));
  const CommandResult run = RunCli({"run", model, "--output-dir", out});
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_TRUE(std::filesystem::is_directory(out));
  // The demo model has one 1x12 int8 output.
  EXPECT_EQ(std::filesystem::file_size(out + "/output_0.bin"), 12u);
  EXPECT_NE(run.stdout_text.find(out + "/output_0.bin"), std::string::npos) << run.stdout_text;
  // An existing folder is used as it is.
  const CommandResult again = RunCli({"run", model, "--output-dir", out, "--json"});
  EXPECT_EQ(again.exit_code, 0) << again.stderr_text;
}

TEST(RunCommandTest, AFolderThatCannotBeMadeIsAnErrorNamingIt) {
  const std::string dir = testing::TempDir("run_command_output_dir_bad");
  const std::string model = dir + "/demo.tflite";
  ASSERT_EQ(RunCli({"demo-model", "-o", model}).exit_code, 0);
  // Under a regular file, and the regular file itself.
  for (const std::string& out : {model + "/out", model}) {
    SCOPED_TRACE(out);
    const CommandResult run = RunCli({"run", model, "--output-dir", out});
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_EQ(run.stderr_text.rfind("error: --output-dir: " + out + ": cannot create the folder (", 0), 0u)
        << run.stderr_text;
    EXPECT_TRUE(run.stdout_text.empty()) << run.stdout_text;
  }
}

}  // namespace
}  // namespace microarena
