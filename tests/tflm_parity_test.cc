// TFLM parity through the real runtime: the interpreter with the greedy-tflm
// planner must put every tensor and every kernel scratch buffer at the offset
// TFLM's GreedyMemoryPlanner chose (golden/tflm_plans), for every shared model
// — including keyword_scrambled_8bit (SVDF) and trained_lstm_int8 (LSTM), whose
// kernels request scratch exactly as TFLM's reference kernels do.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using testing::SharedDir;

TEST(TflmParityTest, InterpreterPlacesEveryBufferWhereTflmDoes) {
  MICROARENA_REQUIRE_SHARED();
  // The one shared model without a TFLM plan, and why; every other must have
  // one, and the test fails when this one gains a plan or leaves.
  const std::string kWithoutPlan = "simple_add_model";  // a single ADD from TFLM's memory_footprint example
  int models = 0;
  bool without_plan_seen = false;
  for (const std::string& name : testing::SharedModelNames()) {
    SCOPED_TRACE(name);
    const std::vector<testing::TflmPlanBuffer> plan = testing::ReadTflmPlan(name);
    if (name == kWithoutPlan) {
      EXPECT_TRUE(plan.empty()) << "it has a TFLM plan now: compare it";
      without_plan_seen = true;
      continue;
    }
    ASSERT_FALSE(plan.empty()) << "no golden/tflm_plans file";
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok());
    InterpreterOptions options;
    options.planner = PlannerChoice::kGreedyTflm;
    HostArena arena(1 << 20);
    Interpreter interpreter(file->view(), AllOpsResolver(), arena.data(), arena.size(), options);
    Status status = interpreter.AllocateTensors();
    ASSERT_TRUE(status.ok()) << status.message();
    size_t scratch_seen = 0;
    for (const testing::TflmPlanBuffer& buffer : plan) {
      if (buffer.is_tensor()) {
        EXPECT_EQ(interpreter.tensor_offset_bytes(static_cast<size_t>(buffer.tensor_index)), buffer.offset_bytes)
            << buffer.line;
      } else {
        EXPECT_EQ(interpreter.scratch_offset_bytes(scratch_seen++), buffer.offset_bytes) << buffer.line;
      }
    }
    EXPECT_EQ(interpreter.scratch_buffer_count(), scratch_seen);
    EXPECT_EQ(interpreter.arena_scratch_size(), testing::TflmPlanHeadBytes(plan));
    ++models;
  }
  EXPECT_TRUE(without_plan_seen) << kWithoutPlan << " is not shared any more";
  EXPECT_GE(models, 9);
}

}  // namespace
}  // namespace microarena
