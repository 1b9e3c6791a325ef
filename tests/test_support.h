// Helpers shared by the tests: where ../shared is, reading files, running the CLI.
#pragma once

#include <unistd.h>

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

// One shell word: `text` in single quotes, any quote in it escaped.
std::string ShellQuote(const std::string& text);

// TFLM itself as a command (<shared>/tools/tflm_oracle; tools/README.md there).
std::string OraclePath();
// Runs the oracle with `args` (shell-quoted here) and captures its output.
CommandResult RunOracle(const std::vector<std::string>& args);

// With MICROARENA_ORACLE_COVERAGE=FILE set, appends to FILE one line per op
// of `model` that TFLM ran and a test compared with microarena: "<op> <type>"
// (the type of the op table's operand; a custom op as "<name> (custom)").
// RunOracle and RunOracleOn call it for every model the oracle runs; golden
// tests call it for the shared models. scripts/oracle_coverage.py holds the op
// table to the file (scripts/test.sh).
void RecordOracleCoverage(const std::vector<uint8_t>& model);

}  // namespace microarena::testing

// Skips the current test with a clear message when ../shared is absent.
#define MICROARENA_REQUIRE_SHARED()                                                  \
  do {                                                                             \
    if (::microarena::testing::SharedDir().empty())                                \
      GTEST_SKIP() << "shared data not found: set MICROARENA_SHARED_DIR or place " \
                      "it at ../shared beside the source tree";                      \
  } while (false)

// Skips without the shared folder; with it, fails when the oracle cannot be
// run: a broken setup must not pass as a skip.
#define MICROARENA_REQUIRE_ORACLE()                                                                  \
  do {                                                                                               \
    MICROARENA_REQUIRE_SHARED();                                                                     \
    ASSERT_EQ(::access(::microarena::testing::OraclePath().c_str(), X_OK), 0)                        \
        << "the TFLM oracle " << ::microarena::testing::OraclePath()                                 \
        << " is missing or not executable; these tests need it";                                     \
  } while (false)
