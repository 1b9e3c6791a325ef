// Helpers shared by the tests: where ../shared is, reading files, running the CLI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace microarena::testing {

// The shared data folder (models, goldens, DSA problems): $MICROARENA_SHARED_DIR,
// else ../shared beside the source tree. Empty when neither exists.
std::string SharedDir();

// Reads a whole file; an empty vector when it cannot be read.
std::vector<uint8_t> ReadFileBytes(const std::string& path);

// Names (without .tflite) of the models in <shared>/models, sorted.
std::vector<std::string> SharedModelNames();

struct CommandResult {
  int exit_code = -1;
  std::string stdout_text;
  std::string stderr_text;
};
// Runs the microarena CLI with `args` (shell-quoted here) and captures its output.
CommandResult RunCli(const std::vector<std::string>& args);
// Runs a shell command line (not quoted here) and captures its output.
CommandResult RunCommand(const std::string& shell_command);

// A fresh, empty directory under the build tree for one test's files.
std::string TempDir(const std::string& name);

}  // namespace microarena::testing

// Skips the current test with a clear message when ../shared is absent.
#define MICROARENA_REQUIRE_SHARED()                                                  \
  do {                                                                             \
    if (::microarena::testing::SharedDir().empty())                                \
      GTEST_SKIP() << "shared data not found: set MICROARENA_SHARED_DIR or place " \
                      "it at ../shared beside the source tree";                      \
  } while (false)
