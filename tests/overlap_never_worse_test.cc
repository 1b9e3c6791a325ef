// `--overlap` never makes the arena larger: for every shared model, `run`,
// `plan`, `optimize` (and a run of the file it writes) and `budget` need no
// more with it than without it, and budget's best combination is no larger
// than what `plan --overlap` reaches. Figures come from the CLI's JSON, each
// compared with the same command without --overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::RunCli;
using testing::SharedDir;
using testing::SharedModelNames;

// Short, and the same for every command compared: the shared models' plans
// without overlap are found well within it.
const char* const kTimeLimit = "2";

json CliJson(const std::vector<std::string>& args) {
  testing::CommandResult result = RunCli(args);
  std::string line;
  for (const std::string& arg : args) line += " " + arg;
  EXPECT_EQ(result.exit_code, 0) << "microarena" << line << "\n" << result.stderr_text;
  if (result.exit_code != 0) return json();
  return json::parse(result.stdout_text);
}

// `args` with and without --overlap: the figure at `key` of each.
struct Pair {
  size_t without = 0;
  size_t with = 0;
};

Pair Compare(std::vector<std::string> args, const std::string& key) {
  const json without = CliJson(args);
  args.push_back("--overlap");
  const json with = CliJson(args);
  if (without.is_null() || with.is_null()) return {};
  return {without.at(key).get<size_t>(), with.at(key).get<size_t>()};
}

size_t SmallestCombination(const json& budget) {
  size_t smallest = SIZE_MAX;
  for (const json& entry : budget.at("combinations")) {
    if (entry.at("measured").get<bool>()) smallest = std::min(smallest, entry.at("arena_bytes").get<size_t>());
  }
  return smallest;
}

class OverlapNeverWorseTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string ModelPath() const { return SharedDir() + "/models/" + GetParam() + ".tflite"; }
};

TEST_P(OverlapNeverWorseTest, Run) {
  MICROARENA_REQUIRE_SHARED();
  const std::string dir = testing::TempDir("overlap_never_worse_run_" + GetParam());
  for (const char* planner : {"auto", "greedy", "greedy-tflm"}) {
    const Pair arena =
        Compare({"run", ModelPath(), "--planner", planner, "--json", "--output-dir", dir}, "arena_used_bytes");
    EXPECT_LE(arena.with, arena.without) << GetParam() << ", run --planner " << planner;
  }
}

TEST_P(OverlapNeverWorseTest, Plan) {
  MICROARENA_REQUIRE_SHARED();
  for (const char* planner : {"optimal", "greedy", "greedy-tflm"}) {
    const Pair arena =
        Compare({"plan", ModelPath(), "--planner", planner, "--time-limit", kTimeLimit, "--json"}, "arena_bytes");
    EXPECT_LE(arena.with, arena.without) << GetParam() << ", plan --planner " << planner;
  }
}

TEST_P(OverlapNeverWorseTest, OptimizeAndRunTheFile) {
  MICROARENA_REQUIRE_SHARED();
  const std::string dir = testing::TempDir("overlap_never_worse_optimize_" + GetParam());
  for (const char* planner : {"optimal", "greedy"}) {
    const std::string plain_path = dir + "/plain.tflite";
    const std::string overlap_path = dir + "/overlap.tflite";
    const json plain = CliJson(
        {"optimize", ModelPath(), "-o", plain_path, "--planner", planner, "--time-limit", kTimeLimit, "--json"});
    const json overlapped = CliJson({"optimize", ModelPath(), "-o", overlap_path, "--planner", planner, "--time-limit",
                                     kTimeLimit, "--overlap", "--json"});
    if (plain.is_null() || overlapped.is_null()) continue;
    EXPECT_LE(overlapped.at("offline_arena_bytes").get<size_t>(), plain.at("offline_arena_bytes").get<size_t>())
        << GetParam() << ", optimize --planner " << planner;
    // The written files, each run as its setup would run it.
    const json run_plain = CliJson({"run", plain_path, "--json", "--output-dir", dir});
    const json run_overlap = CliJson({"run", overlap_path, "--overlap", "--json", "--output-dir", dir});
    if (run_plain.is_null() || run_overlap.is_null()) continue;
    EXPECT_LE(run_overlap.at("arena_used_bytes").get<size_t>(), run_plain.at("arena_used_bytes").get<size_t>())
        << GetParam() << ", run of optimize --planner " << planner << "'s file";
  }
}

TEST_P(OverlapNeverWorseTest, BudgetBestIsNeverWorseThanPlanWithOverlap) {
  MICROARENA_REQUIRE_SHARED();
  const json plain = CliJson({"budget", ModelPath(), "--ram", "64M", "--time-limit", kTimeLimit, "--json"});
  const json overlapped =
      CliJson({"budget", ModelPath(), "--ram", "64M", "--time-limit", kTimeLimit, "--overlap", "--json"});
  const json plan = CliJson({"plan", ModelPath(), "--overlap", "--time-limit", kTimeLimit, "--json"});
  if (plain.is_null() || overlapped.is_null() || plan.is_null()) return;
  const size_t best = SmallestCombination(overlapped);
  EXPECT_LE(best, SmallestCombination(plain)) << GetParam();
  EXPECT_LE(best, plan.at("arena_bytes").get<size_t>()) << GetParam() << ": budget's best vs plan --overlap";
  // Every planner that plans overlap is among the combinations with it.
  for (const char* planner : {"greedy", "optimal"}) {
    const json& combinations = overlapped.at("combinations");
    EXPECT_TRUE(std::any_of(combinations.begin(), combinations.end(),
                            [&](const json& entry) {
                              return entry.at("setup").at("planner") == planner &&
                                     entry.at("setup").at("overlap").get<bool>();
                            }))
        << GetParam() << ": no combination of " << planner << " with overlap";
  }
}

// The shared models, or one placeholder that skips when they are absent.
std::vector<std::string> ModelsOrPlaceholder() {
  std::vector<std::string> names = SharedModelNames();
  if (names.empty()) names.push_back("no_shared_models");
  return names;
}

INSTANTIATE_TEST_SUITE_P(SharedModels, OverlapNeverWorseTest, ::testing::ValuesIn(ModelsOrPlaceholder()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace microarena
