// TempDir: one folder per name and running test (test_support.h says why).
// Apart from test_support.cc because it asks GoogleTest which test runs;
// the no-heap test links test_support.cc without GoogleTest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/support/test_support.h"

namespace microarena::testing {
namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  // Outside a test (a static set up before any runs) the process names it.
  const std::string scope = test != nullptr ? std::string(test->test_suite_name()) + "." + test->name()
                                            : "process_" + std::to_string(::getpid());
  fs::path dir = fs::path(MICROARENA_BINARY_DIR) / "test_tmp" / name / scope;
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  fs::create_directories(dir);
  return dir.string();
}

}  // namespace microarena::testing
