// Arena size sweep: every model (shared + demo) in every arena size from 0 up
// to its exact minimum, in alignment steps, each arena its own heap block of
// exactly that size (so ASan flags any byte touched past its end). Every size
// below the minimum must fail AllocateTensors with kOutOfMemory and a message
// giving the bytes missing; the minimum must succeed and Invoke. The minimum
// comes from MeasureArenaBytes (a generous arena's arena_used_bytes()), so the
// sweep also holds the runtime to DESIGN.md's "the arena is exact".
#include <gtest/gtest.h>

#include <new>
#include <string>

#include "microarena/runtime/input_generator.h"
#include "tests/support/fault_models.h"

namespace microarena {
namespace {

// AllocateTensors (and Invoke on success) in an arena of exactly `size` bytes.
Status RunInArenaOfSize(const ModelView& model, size_t size, const InterpreterOptions& options) {
  // Aligned new gives a distinct block of exactly `size` bytes (also for 0)
  // whose start needs no padding.
  constexpr std::align_val_t kStartAlignment{64};
  auto* arena = static_cast<uint8_t*>(::operator new(size, kStartAlignment));
  Status status = [&] {
    Interpreter interpreter(model, AllOpsResolver(), arena, size, options);
    MICROARENA_RETURN_IF_ERROR(interpreter.AllocateTensors());
    for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
      GenerateInput(1, interpreter.input(i)->type, interpreter.input(i)->data, interpreter.input_bytes(i));
    }
    return interpreter.Invoke();
  }();
  ::operator delete(arena, kStartAlignment);
  return status;
}

void SweepArenaSizes(const testing::FaultModel& model, size_t alignment) {
  SCOPED_TRACE(model.name + ", alignment " + std::to_string(alignment));
  InterpreterOptions options;
  options.alignment_bytes = alignment;
  Result<size_t> minimum = MeasureArenaBytes(model.file.view(), AllOpsResolver(), options);
  ASSERT_TRUE(minimum.ok()) << minimum.status().message();
  ASSERT_EQ(*minimum % alignment, 0u);
  for (size_t size = 0; size < *minimum; size += alignment) {
    Status status = RunInArenaOfSize(model.file.view(), size, options);
    ASSERT_FALSE(status.ok()) << size << " B succeeded below the minimum of " << *minimum << " B";
    ASSERT_EQ(status.code(), ErrorCode::kOutOfMemory) << size << " B: " << status.message();
    ASSERT_NE(std::string(status.message()).find("missing"), std::string::npos) << status.message();
  }
  Status at_minimum = RunInArenaOfSize(model.file.view(), *minimum, options);
  EXPECT_TRUE(at_minimum.ok()) << *minimum << " B: " << at_minimum.message();
  // Sizes that are not a multiple of the alignment: the tail end is unusable
  // padding, so minimum + alignment - 1 succeeds and minimum - 1 fails.
  EXPECT_TRUE(RunInArenaOfSize(model.file.view(), *minimum + alignment - 1, options).ok());
  EXPECT_EQ(RunInArenaOfSize(model.file.view(), *minimum - 1, options).code(), ErrorCode::kOutOfMemory);
}

TEST(FaultArenaSizeTest, EverySizeBelowTheMinimumFailsCleanlyAndTheMinimumRuns) {
  std::vector<testing::FaultModel> models = testing::LoadFaultModels();
  ASSERT_FALSE(models.empty());
  for (const testing::FaultModel& model : models) SweepArenaSizes(model, 16);
}

TEST(FaultArenaSizeTest, SweepWithFourByteAlignmentOnSmallModels) {
  // The 4-byte steps of the big models add thousands of runs and nothing new;
  // the small ones cover the same code paths.
  std::vector<testing::FaultModel> models = testing::LoadFaultModels();
  for (const testing::FaultModel& model : models) {
    Result<size_t> minimum = MeasureArenaBytes(model.file.view(), AllOpsResolver(), {});
    ASSERT_TRUE(minimum.ok()) << minimum.status().message();
    if (*minimum <= 16 * 1024) SweepArenaSizes(model, 4);
  }
}

}  // namespace
}  // namespace microarena
