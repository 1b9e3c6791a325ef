// The shared data folder holds everything the tests and scripts/cortex_m.sh
// read. Some tests use the shared models only when they are there (and
// otherwise fewer models); this one names every missing part at once, so that
// in strict mode (MICROARENA_STRICT=1) an incomplete folder fails the run.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_support.h"

namespace microarena {
namespace {

TEST(SharedDataTest, HoldsEverythingTheTestsRead) {
  MICROARENA_REQUIRE(testing::MissingShared({
      "models",                           // the third-party models (every shared-model test)
      "golden",                           // TFLM's outputs and tensors per model and seed
      "golden/tflm_arena.csv",            // TFLM's minimum arena per model (host)
      "golden/tflm_arena_cortex_m4.csv",  // the same on the Cortex-M4 board (scripts/cortex_m.sh)
      "golden/tflm_plans",                // TFLM's greedy plans
      "dsa",                              // MiniMalloc's allocation problems
      "regressions",                      // fuzz findings replayed by the tests
      "tflm_integration",                 // TFLM's integration-test models
      "tools/tflm_oracle",                // TFLM as a command
      "tools/minimalloc",                 // MiniMalloc, the reference exact solver
  }));
  EXPECT_FALSE(testing::SharedModelNames().empty()) << testing::SharedDir() << "/models holds no .tflite";
}

}  // namespace
}  // namespace microarena
