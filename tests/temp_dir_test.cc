// ctest runs the tests as separate processes, two at a time: a folder two
// tests share is emptied by one while the other writes in it (a tiled model
// written by one test vanished under another's run). TempDir scopes every
// folder by the running test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/test_support.h"

namespace microarena {
namespace {
namespace fs = std::filesystem;

TEST(TempDirTest, IsTheRunningTestsOwnAndStartsEmpty) {
  const std::string dir = testing::TempDir("temp_dir_probe");
  EXPECT_EQ(fs::path(dir).filename().string(), "TempDirTest.IsTheRunningTestsOwnAndStartsEmpty");
  EXPECT_EQ(fs::path(dir).parent_path().filename().string(), "temp_dir_probe");
  std::ofstream(dir + "/left_over") << "x";
  ASSERT_TRUE(fs::exists(dir + "/left_over"));
  EXPECT_EQ(testing::TempDir("temp_dir_probe"), dir);
  EXPECT_TRUE(fs::is_empty(dir));
}

}  // namespace
}  // namespace microarena
