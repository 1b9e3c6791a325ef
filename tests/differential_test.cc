// Differential test against TFLM itself: thousands of small models from
// tests/differential/case_generator (every op family, int8, float32 and
// int32, random shapes, options, scales and zero points; IF and WHILE models
// whose subgraphs hold such ops), each run by the TFLM
// oracle and by microarena with the same inputs. Outputs must be equal byte
// for byte; microarena's minimum arena must be no larger than the arena TFLM
// used, and on every 20th case no larger than TFLM's minimum. Each failure is saved as a model and its inputs with
// the two commands that reproduce it.
//
//   MICROARENA_DIFF_CASES=N   cases per run (default 2,000: about a minute)
//   MICROARENA_DIFF_FIRST=K   first seed (default 0); scripts/differential.sh
//                             sweeps as long as asked
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "tests/differential/case_generator.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using differential::GenerateCase;
using differential::GeneratedCase;
using testing::Bytes;
using testing::Outcome;

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::strtoull(value, nullptr, 10) : fallback;
}

struct Tally {
  size_t cases = 0;
  size_t equal = 0;
  size_t refused_by_tflm = 0;  // TFLM refused the model (ours may run it)
  size_t failed = 0;           // refused by us only, or different bytes
};

// Saves a failing case under the build tree and says how to rerun both sides.
std::string SaveRepro(const GeneratedCase& c) {
  const std::string dir =
      std::string(MICROARENA_BINARY_DIR) + "/differential_failures/seed" + std::to_string(c.seed);
  std::filesystem::create_directories(dir);
  testing::WriteFile(dir + "/model.tflite", c.model);
  std::string inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const std::string path = dir + "/input_" + std::to_string(i) + ".bin";
    testing::WriteFile(path, c.inputs[i]);
    inputs += " --input " + path;
  }
  return "saved in " + dir + "\n  microarena run " + dir + "/model.tflite" + inputs + " --output-dir " + dir +
         "\n  " + testing::OraclePath() + " " + dir + "/model.tflite" + inputs + " --out-dir " + dir + "/tflm";
}

TEST(DifferentialTest, GeneratedModelsMatchTflmByteForByte) {
  MICROARENA_REQUIRE_ORACLE();
  const uint64_t first = EnvOr("MICROARENA_DIFF_FIRST", 0);
  const uint64_t count = EnvOr("MICROARENA_DIFF_CASES", 2000);
  std::map<std::string, Tally> by_op;
  size_t arenas_compared = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    const GeneratedCase c = GenerateCase(seed);
    Tally& tally = by_op[c.op];
    ++tally.cases;
    const Outcome theirs = testing::RunOracleOn("differential", c.model, c.inputs, size_t{1} << 20);
    const Outcome ours = testing::RunOursOn(c.model, c.inputs);
    if (!theirs.ok) {
      ++tally.refused_by_tflm;
      continue;
    }
    if (!ours.ok) {
      ++tally.failed;
      ADD_FAILURE() << "seed " << seed << " " << c.op << " " << c.description << ": TFLM runs it, microarena says "
                    << ours.error << "\n" << SaveRepro(c);
      continue;
    }
    if (ours.outputs != theirs.outputs) {
      ++tally.failed;
      ADD_FAILURE() << "seed " << seed << " " << c.op << " " << c.description << ": outputs differ from TFLM's\n"
                    << SaveRepro(c);
      continue;
    }
    ++tally.equal;
    // Every case: microarena's minimum arena against what TFLM used; every
    // 20th also against TFLM's own minimum (a binary search).
    testing::ExpectArenaNoLargerThanTflms("differential_" + std::to_string(seed) + " " + c.op + " " + c.description,
                                          c.model, c.inputs, ours.arena_used_bytes, theirs.arena_used_bytes);
    if (seed % 20 == 0) {
      Result<ModelView> view = LoadModel(Span<const uint8_t>(c.model.data(), c.model.size()));
      ASSERT_TRUE(view.ok());
      Result<size_t> ours_arena = MeasureArenaBytes(*view, AllOpsResolver(), InterpreterOptions{});
      std::string why;
      const size_t tflm_arena = testing::OracleMinimumArena("differential_arena", c.model, c.inputs, &why);
      ASSERT_TRUE(ours_arena.ok()) << ours_arena.status().message();
      ASSERT_GT(tflm_arena, 0u) << "no arena figure from the oracle for seed " << seed << " " << c.op << " "
                                << c.description << ": " << why << "\n" << SaveRepro(c);
      EXPECT_LE(*ours_arena, tflm_arena) << "seed " << seed << " " << c.op << " " << c.description;
      ++arenas_compared;
    }
  }
  std::ostringstream table;
  size_t total = 0, equal = 0, refused = 0;
  for (const auto& [op, t] : by_op) {
    table << "  " << op << ": " << t.cases << " cases, " << t.equal << " equal, " << t.refused_by_tflm
          << " refused by TFLM, " << t.failed << " failed\n";
    total += t.cases;
    equal += t.equal;
    refused += t.refused_by_tflm;
  }
  std::printf("differential: seeds %llu..%llu, %zu cases, %zu byte-identical with TFLM, %zu refused by TFLM, "
              "every arena no larger than TFLM's, %zu also against its minimum (a search)\n%s",
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + count - 1), total, equal,
              refused, arenas_compared, table.str().c_str());
  // The generator makes models TFLM runs: if it stops doing so, this test
  // would compare nothing.
  EXPECT_GE(equal * 10, total * 9) << "fewer than 90% of the cases ran in both runtimes";
}

}  // namespace
}  // namespace microarena
