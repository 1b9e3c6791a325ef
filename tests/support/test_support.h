// Helpers shared by the tests: where ../shared is, reading files, running the CLI.
#pragma once

#include "microarena/model/model_view.h"

#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace microarena::testing {

// The shared data folder (models, goldens, DSA problems, tools):
// $MICROARENA_SHARED_DIR, else ../shared beside the source tree. Empty when
// that folder has no models/.
std::string SharedDir();

// What the shared data folder lacks of `parts` (paths inside it, e.g.
// "models", "golden/tflm_plans", "tools/tflm_oracle"; a "tools/" entry must
// be executable), as one line naming each missing path; empty when all are
// there.
std::string MissingShared(const std::vector<std::string>& parts);

// Strict mode: MICROARENA_STRICT=1 (scripts/test.sh sets it unless told
// MICROARENA_STRICT=0). A test that lacks shared data or a tool then fails,
// saying what is missing; otherwise it skips (MICROARENA_REQUIRE below).
bool StrictMode();

// Counts a skip for the run's summary: with MICROARENA_SKIP_LOG=FILE set,
// appends "<test_name>: <missing>" to FILE (scripts/test.sh prints the count
// and the reasons after ctest).
void RecordSkip(const std::string& test_name, const std::string& missing);

// Whether `command` is found on PATH (a shell's `command -v`).
bool HasCommand(const std::string& command);

// Reads a whole file; an empty vector when it cannot be read.
std::vector<uint8_t> ReadFileBytes(const std::string& path);
// The same as text (empty when the file cannot be read).
std::string ReadFileText(const std::string& path);

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

// A fresh, empty directory under the build tree for the running test's files:
// test_tmp/<name>/<Suite.Test>. ctest runs tests as separate processes at once,
// so a folder named by `name` alone would be emptied by one test while another
// writes in it; scoped by the test, two tests never share one (support/temp_dir.cc).
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

// The tensor records a one-subgraph model keeps (runtime/interpreter.h),
// counted from the model by the rule the runtime documents: a record per
// variable, per subgraph input or output, per op output and per op input
// that is not a constant (a tensor no op lists, such as an LSTM's
// intermediates, gets none); plus a window of as many records as the most
// constant inputs without a record any op has. `index` is true when the
// model keeps an index (some tensor has no record): `index_bytes`, one byte
// per tensor below 255 tensors, else two.
struct TensorRecordCount {
  size_t records = 0;
  size_t window = 0;
  bool index = false;
  size_t index_bytes = 0;
};
TensorRecordCount CountTensorRecords(const ModelView& model);

}  // namespace microarena::testing

// Stops the current test when `missing` (what it lacks, e.g. from
// MissingShared) is not empty: a failure in strict mode, else a recorded skip.
#define MICROARENA_REQUIRE(missing)                                                                                    \
  do {                                                                                                                 \
    const std::string microarena_missing = (missing);                                                                  \
    if (microarena_missing.empty()) break;                                                                             \
    if (::microarena::testing::StrictMode()) {                                                                         \
      GTEST_FAIL() << "missing: " << microarena_missing                                                                \
                   << " (MICROARENA_STRICT=1: a missing part fails the run; MICROARENA_STRICT=0 skips instead)";       \
    }                                                                                                                  \
    const ::testing::TestInfo* microarena_test = ::testing::UnitTest::GetInstance()->current_test_info();              \
    ::microarena::testing::RecordSkip(std::string(microarena_test->test_suite_name()) + "." + microarena_test->name(), \
                                      microarena_missing);                                                             \
    GTEST_SKIP() << "missing: " << microarena_missing << " (skipped: MICROARENA_STRICT is not 1)";                     \
  } while (false)

// The shared models and goldens (models/, golden/).
#define MICROARENA_REQUIRE_SHARED() MICROARENA_REQUIRE(::microarena::testing::MissingShared({"models", "golden"}))

// The shared models and goldens and one more path in the shared folder.
#define MICROARENA_REQUIRE_SHARED_PATH(path) \
  MICROARENA_REQUIRE(::microarena::testing::MissingShared({"models", "golden", (path)}))

// The shared data as above; with it, fails when the oracle cannot be run, in
// either mode: a broken setup must not pass as a skip.
#define MICROARENA_REQUIRE_ORACLE()                                                                  \
  do {                                                                                               \
    MICROARENA_REQUIRE_SHARED();                                                                     \
    ASSERT_EQ(::access(::microarena::testing::OraclePath().c_str(), X_OK), 0)                        \
        << "the TFLM oracle " << ::microarena::testing::OraclePath()                                 \
        << " is missing or not executable; these tests need it";                                     \
  } while (false)
