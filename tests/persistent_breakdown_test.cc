// The persistent area by use: the interpreter tags every tail allocation, and
// the uses must add up to arena_persistent_size() exactly. The parts whose
// size follows from the model alone are recomputed here by hand: the tensor
// records (tests/support's count of the runtime's rule) and their index, one
// node (two pointers) per op in one allocation, each variable tensor and (with copy_weights_to_arena) each
// constant in its own allocation, and one uint32 offset per scratch buffer —
// every allocation rounded up to the alignment.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/interpreter.h"
#include "microarena/runtime/shared_arena.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

size_t RoundUp(size_t bytes, size_t alignment) { return (bytes + alignment - 1) / alignment * alignment; }

void CheckBreakdown(const ModelView& model, const std::string& name, const InterpreterOptions& options) {
  Result<size_t> arena_bytes = MeasureArenaBytes(model, AllOpsResolver(), options);
  ASSERT_TRUE(arena_bytes.ok()) << name << ": " << arena_bytes.status().message();
  HostArena arena(*arena_bytes);
  Interpreter interpreter(model, AllOpsResolver(), arena.data(), arena.size(), options);
  ASSERT_TRUE(interpreter.AllocateTensors().ok()) << name;

  size_t sum = 0;
  for (size_t u = 0; u < kPersistentUseCount; ++u) sum += interpreter.arena_persistent_size(static_cast<PersistentUse>(u));
  EXPECT_EQ(sum, interpreter.arena_persistent_size()) << name;

  // Every tail allocation is rounded to the plan alignment, but to at least
  // the host's pointer size (Arena::granule()).
  const size_t align = std::max(options.alignment_bytes, sizeof(void*));
  SubgraphView subgraph = model.subgraph(0);
  // Records (and their index) as the runtime's rule gives them, counted
  // here from the model; each allocation rounded to the alignment.
  const testing::TensorRecordCount records =
      options.copy_weights_to_arena ? testing::TensorRecordCount{subgraph.tensor_count(), 0, false, 0}
                                    : testing::CountTensorRecords(model);
  EXPECT_EQ(interpreter.arena_persistent_size(PersistentUse::kTensorMetadata),
            RoundUp(records.index_bytes, align) +
                RoundUp((records.records + records.window) * sizeof(EvalTensor), align))
      << name;
  EXPECT_EQ(interpreter.arena_persistent_size(PersistentUse::kOpTable),
            RoundUp(subgraph.operator_count() * 2 * sizeof(void*), align))
      << name;
  size_t variables = 0, constants = 0;
  for (size_t t = 0; t < subgraph.tensor_count(); ++t) {
    TensorView tensor = subgraph.tensor(t);
    if (tensor.is_variable()) variables += RoundUp(tensor.byte_size(), align);
    if (tensor.is_constant()) constants += RoundUp(tensor.byte_size(), align);
  }
  EXPECT_EQ(interpreter.arena_persistent_size(PersistentUse::kVariableState), variables) << name;
  EXPECT_EQ(interpreter.arena_persistent_size(PersistentUse::kWeightsCopy),
            options.copy_weights_to_arena ? constants : 0u)
      << name;
  const size_t scratch = interpreter.scratch_buffer_count();
  EXPECT_EQ(interpreter.arena_persistent_size(PersistentUse::kScratchHandles),
            scratch == 0 ? 0u : RoundUp(scratch * sizeof(uint32_t), align))
      << name;
  EXPECT_LE(interpreter.arena_persistent_requested_size(), interpreter.arena_persistent_size()) << name;
}

TEST(PersistentBreakdownTest, UsesSumToThePersistentAreaOnTheDemoModel) {
  std::vector<uint8_t> bytes = BuildDemoModel();
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok());
  for (size_t align : {4u, 8u, 16u, 64u}) {
    for (bool copy : {false, true}) {
      InterpreterOptions options;
      options.alignment_bytes = align;
      options.copy_weights_to_arena = copy;
      CheckBreakdown(*model, "demo align " + std::to_string(align) + (copy ? " copy" : ""), options);
    }
  }
}

TEST(PersistentBreakdownTest, UsesSumToThePersistentAreaOnEverySharedModel) {
  MICROARENA_REQUIRE_SHARED();
  // Every shared model runs (CheckBreakdown fails on one that cannot allocate).
  const std::vector<std::string> names = testing::SharedModelNames();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    Result<ModelFile> file = ModelFile::Open(testing::SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << name;
    for (bool copy : {false, true}) {
      InterpreterOptions options;
      options.copy_weights_to_arena = copy;
      CheckBreakdown(file->view(), name + (copy ? " copy" : ""), options);
    }
  }
}

TEST(PersistentBreakdownTest, EachModelInASharedArenaCountsItsOwnTail) {
  // Two models in one arena: each interpreter's uses sum to its own tail, and
  // the two tails to the arena's.
  std::vector<uint8_t> bytes = BuildDemoModel();
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok());
  HostArena buffer(size_t{1} << 20);
  SharedArena arena(buffer.data(), buffer.size());
  Interpreter first(*model, AllOpsResolver(), arena);
  Interpreter second(*model, AllOpsResolver(), arena);
  ASSERT_TRUE(first.AllocateTensors().ok());
  ASSERT_TRUE(second.AllocateTensors().ok());
  size_t total = 0;
  for (Interpreter* interpreter : {&first, &second}) {
    size_t sum = 0;
    for (size_t u = 0; u < kPersistentUseCount; ++u) {
      sum += interpreter->arena_persistent_size(static_cast<PersistentUse>(u));
    }
    EXPECT_EQ(sum, interpreter->arena_persistent_size());
    total += sum;
  }
  EXPECT_EQ(total, arena.persistent_bytes());
}

}  // namespace
}  // namespace microarena
