// Failure injection: for every model (shared + demo) and both weight modes,
// count the arena allocations a successful AllocateTensors makes, then fail
// each one in turn (Interpreter::FailAllocationNumber(n), n = 1..count). Every
// injected failure must come back as kOutOfMemory naming the place, leave the
// interpreter unusable (no input pointers, Invoke refused) and never crash or
// leak (the asan preset runs this under ASan/LSan). Across all models, every
// allocation site of AllocateTensors must have been failed at least once: the
// sites are listed below by the context each one's error message starts with.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "tests/support/fault_models.h"

namespace microarena {
namespace {

// Each allocation site of Interpreter::AllocateTensors and the context its
// error message starts with (see runtime/interpreter.cc).
const char* const kAllocationSites[] = {
    "tensor record index",  // record per tensor, one-subgraph models (tail)
    "tensor metadata",   // EvalTensor array (tail)
    "op table",          // node array (tail)
    "variable tensor",   // LSTM/SVDF state (tail)
    "weights of tensor", // constant data copied to the tail (copy_weights_to_arena)
    "op data",           // kernel op data (tail, through PrepareContext)
    "scratch request",   // pending scratch requests (temp)
    "scratch table",     // scratch offsets (tail)
    "lifetimes",         // buffer requests (temp)
    "lifetime analysis", // per-tensor working memory of the analysis (temp)
    "plan offsets",      // planner output (temp)
    "planner working memory",  // planner workspace (temp)
    "planned head",      // the head commit
};

// The site an error message comes from, or "" when none matches. A kernel's
// error may carry the op in front ("op 3 (CONV_2D): op data: ..."), so the
// context is searched, not only matched at the start.
std::string SiteOf(const std::string& message) {
  std::string best;
  size_t best_at = std::string::npos;
  for (const char* site : kAllocationSites) {
    size_t at = message.find(site);
    if (at != std::string::npos && at < best_at) {
      best = site;
      best_at = at;
    }
  }
  return best;
}

TEST(FaultInjectionTest, EveryAllocationOfAllocateTensorsFailsCleanly) {
  std::vector<testing::FaultModel> models = testing::LoadFaultModels();
  ASSERT_FALSE(models.empty());
  std::map<std::string, int> failures_per_site;
  size_t injections = 0;
  for (const testing::FaultModel& model : models) {
    for (bool copy_weights : {false, true}) {
      SCOPED_TRACE(model.name + (copy_weights ? " (weights copied)" : ""));
      InterpreterOptions options;
      options.copy_weights_to_arena = copy_weights;
      Result<size_t> minimum = MeasureArenaBytes(model.file.view(), AllOpsResolver(), options);
      ASSERT_TRUE(minimum.ok()) << minimum.status().message();
      HostArena arena(*minimum);

      // The allocations a successful run makes.
      uint32_t allocation_count = 0;
      {
        Interpreter interpreter(model.file.view(), AllOpsResolver(), arena.data(), arena.size(), options);
        Status status = interpreter.AllocateTensors();
        ASSERT_TRUE(status.ok()) << status.message();
        allocation_count = interpreter.arena_allocation_count();
        // At least the tensor metadata, the op table, the lifetimes, the plan
        // offsets, the planner working memory and the head.
        ASSERT_GE(allocation_count, 6u);
      }

      for (uint32_t n = 1; n <= allocation_count; ++n) {
        SCOPED_TRACE("allocation " + std::to_string(n) + " of " + std::to_string(allocation_count));
        Interpreter interpreter(model.file.view(), AllOpsResolver(), arena.data(), arena.size(), options);
        interpreter.FailAllocationNumber(n);
        Status status = interpreter.AllocateTensors();
        ++injections;
        ASSERT_FALSE(status.ok()) << "the injected failure was swallowed";
        EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory) << status.message();
        // The run stopped at the injected allocation: none after it was asked for.
        EXPECT_EQ(interpreter.arena_allocation_count(), n) << status.message();
        const std::string message = status.message();
        EXPECT_NE(message.find("arena too small"), std::string::npos) << message;
        const std::string site = SiteOf(message);
        EXPECT_FALSE(site.empty()) << "no allocation site named in: " << message;
        ++failures_per_site[site];
        // Unusable afterwards, with clear errors rather than stale pointers.
        EXPECT_EQ(interpreter.input(0), nullptr);
        EXPECT_EQ(interpreter.output(0), nullptr);
        EXPECT_FALSE(interpreter.Invoke().ok());
        EXPECT_FALSE(interpreter.AllocateTensors().ok());
      }

      // One past the count: nothing is failed and the run succeeds.
      Interpreter interpreter(model.file.view(), AllOpsResolver(), arena.data(), arena.size(), options);
      interpreter.FailAllocationNumber(allocation_count + 1);
      Status status = interpreter.AllocateTensors();
      EXPECT_TRUE(status.ok()) << status.message();
      EXPECT_TRUE(interpreter.Invoke().ok());
    }
  }
  std::string seen;
  for (const auto& [site, count] : failures_per_site) seen += "'" + site + "': " + std::to_string(count) + "; ";
  std::printf("[fault injection] %zu injected failures over %zu models: %s\n", injections, models.size(),
              seen.c_str());
  // Scratch, variable tensors and per-channel op data only occur in some of the
  // shared models; with the demo model alone, require the sites it has.
  const bool all_models = !testing::SharedDir().empty();
  for (const char* site : kAllocationSites) {
    const bool demo_has_it = std::string(site) != "variable tensor" && std::string(site) != "scratch request" &&
                             std::string(site) != "scratch table";
    if (!all_models && !demo_has_it) continue;
    EXPECT_GT(failures_per_site[site], 0) << "allocation site never failed: " << site;
  }
}

}  // namespace
}  // namespace microarena
