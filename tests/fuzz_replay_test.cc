// Replays every saved fuzz finding through the target that found it, in the
// ordinary build and under ASan + UBSan (the asan preset), so that a bug the
// fuzzers once found stays fixed without depending on what a random fuzzing
// run happens to try. Two sources:
//   tests/fuzz/regressions/<target>/*   the project's findings (scripts/fuzz.sh
//                                        saves every new one there);
//   <shared>/regressions/<target>-*     inputs that once broke microarena,
//                                        read from the shared folder.
// An input passes when the target returns: a broken invariant aborts and a
// sanitizer report halts, either of which fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_targets.h"
#include "tests/support/test_support.h"

namespace microarena::fuzz {
// gtest prints a parameter in the test list; the name, not its bytes (which
// hold addresses, different on every run).
void PrintTo(const FuzzTarget& target, std::ostream* out) { *out << target.name; }
}  // namespace microarena::fuzz

namespace microarena {
namespace {

namespace fs = std::filesystem;
using fuzz::FuzzTarget;
using fuzz::kFuzzTargets;

std::string ProjectRegressionsDir() { return std::string(MICROARENA_SOURCE_DIR) + "/tests/fuzz/regressions"; }

// Regular files of `dir` (sorted, so the replay order is fixed), except notes.
std::vector<std::string> InputFiles(const std::string& dir, const std::string& prefix = "") {
  std::vector<std::string> files;
  std::error_code error;
  if (!fs::is_directory(dir, error)) return files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.rfind(prefix, 0) != 0) continue;
    if (name.size() >= 3 && name.compare(name.size() - 3, 3, ".md") == 0) continue;
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void Replay(const FuzzTarget& target, const std::string& path) {
  SCOPED_TRACE(path);
  std::vector<uint8_t> bytes = testing::ReadFileBytes(path);
  // libFuzzer hands over a pointer to exactly `size` bytes; a separate heap
  // block of that size lets ASan see a read one past the end, as it would there.
  std::unique_ptr<uint8_t[]> exact(new uint8_t[std::max<size_t>(bytes.size(), 1)]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  EXPECT_EQ(target.one_input(exact.get(), bytes.size()), 0);
}

class FuzzReplayTest : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzReplayTest, ProjectFindingsStayFixed) {
  const FuzzTarget& target = GetParam();
  const std::vector<std::string> files = InputFiles(ProjectRegressionsDir() + "/" + target.name);
  for (const std::string& path : files) Replay(target, path);
  std::printf("replayed %zu saved findings of %s\n", files.size(), target.name);
}

TEST_P(FuzzReplayTest, SharedRegressionsStayFixed) {
  MICROARENA_REQUIRE_SHARED();
  const FuzzTarget& target = GetParam();
  const std::vector<std::string> files =
      InputFiles(testing::SharedDir() + "/regressions", std::string(target.name) + "-");
  for (const std::string& path : files) Replay(target, path);
  std::printf("replayed %zu shared regressions of %s\n", files.size(), target.name);
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplayTest, ::testing::ValuesIn(kFuzzTargets),
                         [](const ::testing::TestParamInfo<FuzzTarget>& info) { return std::string(info.param.name); });

bool IsTargetName(const std::string& name) {
  return std::any_of(std::begin(kFuzzTargets), std::end(kFuzzTargets),
                     [&](const FuzzTarget& target) { return name == target.name; });
}

// An input nobody replays protects nothing: every shared regression must name
// its target, and the project's folder holds one folder per target.
TEST(FuzzReplayLayoutTest, EveryRegressionBelongsToATarget) {
  for (const fs::directory_entry& entry : fs::directory_iterator(ProjectRegressionsDir())) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name == "README.md") continue;
    EXPECT_TRUE(entry.is_directory() && IsTargetName(name))
        << entry.path() << ": expected one folder per fuzz target (model_load_fuzz, ...)";
  }
  MICROARENA_REQUIRE_SHARED();
  const std::vector<std::string> shared = InputFiles(testing::SharedDir() + "/regressions");
  EXPECT_FALSE(shared.empty()) << testing::SharedDir() << "/regressions holds no inputs";
  for (const std::string& path : shared) {
    const std::string name = fs::path(path).filename().string();
    const size_t dash = name.find('-');
    EXPECT_TRUE(dash != std::string::npos && IsTargetName(name.substr(0, dash)))
        << path << ": a shared regression is named <target>-<what>, <target> one of the fuzz targets";
  }
}

}  // namespace
}  // namespace microarena
