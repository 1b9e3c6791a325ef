// The oracle's answers kept between the presets of one test run
// (support/oracle_cache.h): a second identical call is answered from the
// cache with what the oracle itself answered (outputs, dumped tensors,
// summary line) at the new call's paths; a call that differs in any file it
// reads is not.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>

#include "tests/support/oracle_cache.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

namespace fs = std::filesystem;

// Sets (or, with nullptr, unsets) MICROARENA_ORACLE_CACHE for one scope,
// and restores it after.
class ScopedCacheDir {
 public:
  explicit ScopedCacheDir(const char* dir) {
    const char* old = std::getenv("MICROARENA_ORACLE_CACHE");
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (dir != nullptr) ::setenv("MICROARENA_ORACLE_CACHE", dir, 1); else ::unsetenv("MICROARENA_ORACLE_CACHE");
  }
  ~ScopedCacheDir() {
    if (had_) ::setenv("MICROARENA_ORACLE_CACHE", old_.c_str(), 1); else ::unsetenv("MICROARENA_ORACLE_CACHE");
  }

 private:
  bool had_ = false;
  std::string old_;
};

std::map<std::string, testing::Bytes> FilesUnder(const std::string& dir) {
  std::map<std::string, testing::Bytes> files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[fs::relative(entry.path(), dir).string()] = testing::ReadFileBytes(entry.path().string());
    }
  }
  return files;
}

testing::Bytes SharedModel(const std::string& name) {
  return testing::ReadFileBytes(testing::SharedDir() + "/models/" + name + ".tflite");
}

TEST(OracleCacheTest, SameCallIsAnsweredWithTheOraclesOutputs) {
  MICROARENA_REQUIRE_ORACLE();
  const testing::Bytes model = SharedModel("kws_ref_model");
  ASSERT_FALSE(model.empty());
  // Without a cache: the oracle itself.
  testing::Outcome direct;
  {
    ScopedCacheDir no_cache(nullptr);
    direct = testing::RunOracleOn("cache_direct", model, {}, size_t{1} << 20);
  }
  ASSERT_TRUE(direct.ok) << direct.error;
  ASSERT_FALSE(direct.outputs.empty());

  ScopedCacheDir cache(testing::TempDir("oracle_cache_store").c_str());
  const size_t hits = testing::OracleCacheHits();
  const testing::Outcome first = testing::RunOracleOn("cache_first", model, {}, size_t{1} << 20);
  EXPECT_EQ(testing::OracleCacheHits(), hits) << "an empty cache answered";
  const testing::Outcome second = testing::RunOracleOn("cache_second", model, {}, size_t{1} << 20);
  EXPECT_EQ(testing::OracleCacheHits(), hits + 1) << "the same call ran the oracle again";
  ASSERT_TRUE(first.ok && second.ok) << first.error << second.error;
  EXPECT_EQ(first.outputs, direct.outputs);
  EXPECT_EQ(second.outputs, direct.outputs);
  EXPECT_EQ(second.arena_used_bytes, direct.arena_used_bytes);

  // Another arena size: the oracle runs.
  testing::RunOracleOn("cache_first", model, {}, size_t{2} << 20);
  EXPECT_EQ(testing::OracleCacheHits(), hits + 1) << "another --arena was answered from the cache";
  // The same arguments, the same paths, other bytes in the input file: the
  // oracle runs, and its outputs follow the bytes.
  const testing::Bytes sevens(49 * 10, 7);  // kws: one int8 input of 1x49x10x1
  const testing::Bytes minus(49 * 10, 0xf0);
  const testing::Outcome with_sevens = testing::RunOracleOn("cache_bytes", model, {sevens}, size_t{1} << 20);
  const testing::Outcome with_minus = testing::RunOracleOn("cache_bytes", model, {minus}, size_t{1} << 20);
  EXPECT_EQ(testing::OracleCacheHits(), hits + 1) << "other input bytes were answered from the cache";
  ASSERT_TRUE(with_sevens.ok && with_minus.ok) << with_sevens.error << with_minus.error;
  EXPECT_NE(with_sevens.outputs, with_minus.outputs) << "two constant inputs should give kws different scores";
  // Other model bytes at the same path: the same, for the model file.
  testing::Bytes other_model = SharedModel("ad01_int8");
  ASSERT_FALSE(other_model.empty());
  const testing::Outcome other = testing::RunOracleOn("cache_first", other_model, {}, size_t{1} << 20);
  EXPECT_EQ(testing::OracleCacheHits(), hits + 1) << "another model at the same path was answered from the cache";
  ASSERT_TRUE(other.ok) << other.error;
  EXPECT_NE(other.outputs, direct.outputs);
}

TEST(OracleCacheTest, DumpedTensorsAndSummaryComeBackAtTheNewPaths) {
  MICROARENA_REQUIRE_ORACLE();
  const std::string model = testing::SharedDir() + "/models/kws_ref_model.tflite";
  const std::string dumps = testing::TempDir("oracle_cache_dump");  // emptied once, here
  const std::string direct_dir = dumps + "/direct";
  testing::CommandResult direct;
  {
    ScopedCacheDir no_cache(nullptr);
    direct = testing::RunOracle({model, "--seed", "2", "--dump-tensors", direct_dir});
  }
  ASSERT_EQ(direct.exit_code, 0) << direct.stderr_text;

  ScopedCacheDir cache(testing::TempDir("oracle_cache_store").c_str());
  const size_t hits = testing::OracleCacheHits();
  const std::string first_dir = dumps + "/first";
  const std::string second_dir = dumps + "/second";
  const testing::CommandResult first = testing::RunOracle({model, "--seed", "2", "--dump-tensors", first_dir});
  const testing::CommandResult second = testing::RunOracle({model, "--seed", "2", "--dump-tensors", second_dir});
  EXPECT_EQ(testing::OracleCacheHits(), hits + 1);
  EXPECT_EQ(second.exit_code, 0);
  // The oracle names the folder it wrote ("dumped N tensors to DIR"): the
  // answer names the new call's folder, not the stored call's.
  std::string expected = first.stdout_text;
  const size_t at = expected.find(first_dir);
  ASSERT_NE(at, std::string::npos) << expected;
  expected.replace(at, first_dir.size(), second_dir);
  EXPECT_EQ(second.stdout_text, expected);
  const auto tensors = FilesUnder(direct_dir);
  EXPECT_GT(tensors.size(), 5u);
  EXPECT_EQ(FilesUnder(first_dir), tensors);
  EXPECT_EQ(FilesUnder(second_dir), tensors);

  // The search's summary line; another seed is another call.
  const testing::CommandResult search = testing::RunOracle({model, "--seed", "3"});
  const testing::CommandResult again = testing::RunOracle({model, "--seed", "3"});
  EXPECT_EQ(testing::OracleCacheHits(), hits + 2);
  EXPECT_EQ(search.exit_code, 0) << search.stderr_text;
  EXPECT_NE(search.stdout_text.find("min_arena_bytes="), std::string::npos) << search.stdout_text;
  EXPECT_EQ(again.stdout_text, search.stdout_text);
}

}  // namespace
}  // namespace microarena
