// The CLI's exit codes, as the README promises them: 0 for success and for
// --help / --version, 1 for a job that failed (an error naming the file), 2
// for a bad command line whatever CLI11 calls the mistake, 3 for `budget`
// when the arena does not fit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_support.h"

namespace microarena {
namespace {

using testing::RunCli;

TEST(CliExitCodesTest, BadCommandLinesExitTwo) {
  const std::string model = testing::TempDir("cli_exit_codes") + "/demo.tflite";
  ASSERT_EQ(RunCli({"demo-model", "-o", model}).exit_code, 0);
  const std::vector<std::vector<std::string>> bad = {
      {},                                          // no command
      {"no-such-command"},                         // unknown command
      {"plan"},                                    // missing MODEL
      {"plan", model, "--no-such-option"},         // unknown option
      {"plan", model, "--align", "3"},             // value outside the allowed set
      {"plan", model, "--align", "many"},          // not a number
      {"run", model, "--repeat", "0"},             // out of range
      {"run", model, "--overlap", "--dump-tensors", "d"},  // options that exclude each other
      {"budget", model},                           // required option missing
  };
  for (const std::vector<std::string>& args : bad) {
    std::string line;
    for (const std::string& arg : args) line += arg + " ";
    SCOPED_TRACE(line);
    const testing::CommandResult result = RunCli(args);
    EXPECT_EQ(result.exit_code, 2) << result.stderr_text;
    EXPECT_FALSE(result.stderr_text.empty());
  }
}

TEST(CliExitCodesTest, HelpVersionSuccessAndFailure) {
  EXPECT_EQ(RunCli({"--help"}).exit_code, 0);
  EXPECT_EQ(RunCli({"plan", "--help"}).exit_code, 0);
  const testing::CommandResult version = RunCli({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.stdout_text.find("microarena"), std::string::npos);
  const testing::CommandResult missing = RunCli({"inspect", "/nonexistent/model.tflite"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.stderr_text.find("/nonexistent/model.tflite"), std::string::npos) << missing.stderr_text;
}

}  // namespace
}  // namespace microarena
