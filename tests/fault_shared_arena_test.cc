// A shared arena used wrongly must give a clear error and leave the other
// model alone, byte for byte. Model A is allocated first; then model B, on
// the same SharedArena, is made to fail in every way the API promises to
// survive: every single allocation of its AllocateTensors failed in turn
// (failure injection), a model that does not fit, an alignment that differs
// from the arena's, AllocateTensors twice, Reset while attached. After each,
// A's persistent area (its tail, at the top of the buffer) must hold exactly
// the bytes it held before, A must still produce its solo outputs, and the
// room B took must have been given back (a correct B then fits).
//
// What cannot be detected and is not tested: two interpreters handed
// overlapping raw buffers without a SharedArena; the API's answer to that is
// SharedArena itself.
#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "microarena/runtime/input_generator.h"
#include "microarena/runtime/shared_arena.h"
#include "tests/support/fault_models.h"

namespace microarena {
namespace {

using Outputs = std::vector<std::vector<uint8_t>>;

Outputs FillInvokeRead(Interpreter& interpreter) {
  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    GenerateInput(1, interpreter.input(i)->type, interpreter.input(i)->data, interpreter.input_bytes(i));
  }
  Status status = interpreter.Invoke();
  EXPECT_TRUE(status.ok()) << status.message();
  Outputs outputs;
  for (size_t o = 0; o < interpreter.outputs_size(); ++o) {
    const uint8_t* data = interpreter.output(o)->data;
    outputs.emplace_back(data, data + interpreter.output_bytes(o));
  }
  return outputs;
}

// A 64-byte aligned heap block of exactly `size` bytes (ASan sees overruns).
class Buffer {
 public:
  explicit Buffer(size_t size) : size_(size), data_(static_cast<uint8_t*>(::operator new(size, kAlign))) {}
  ~Buffer() { ::operator delete(data_, kAlign); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  uint8_t* data() { return data_; }
  size_t size() const { return size_; }
  // The top `bytes` of the buffer: the first model's tail.
  std::vector<uint8_t> Top(size_t bytes) const { return {data_ + size_ - bytes, data_ + size_}; }

 private:
  static constexpr std::align_val_t kAlign{64};
  size_t size_;
  uint8_t* data_;
};

struct Pair {
  const testing::FaultModel* a;
  const testing::FaultModel* b;
};

// A = the demo model; B = each model in turn (the demo model too: two
// instances of one model must not disturb each other either).
class FaultSharedArenaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    models_ = testing::LoadFaultModels();
    ASSERT_FALSE(models_.empty());
    ASSERT_EQ(models_[0].name, "demo");
  }
  std::vector<testing::FaultModel> models_;
};

TEST_F(FaultSharedArenaTest, EveryInjectedFailureOfTheSecondModelLeavesTheFirstIntact) {
  const testing::FaultModel& a = models_[0];
  size_t injections = 0;
  for (const testing::FaultModel& b : models_) {
    SCOPED_TRACE("A = " + a.name + ", B = " + b.name);
    Result<SharedArenaFigures> figures = MeasureSharedArena({&a.file.view(), &b.file.view()}, AllOpsResolver());
    ASSERT_TRUE(figures.ok()) << figures.status().message();
    Result<RunResult> a_solo = RunModel(a.file.view(), AllOpsResolver(), RunOptions{});
    Result<RunResult> b_solo = RunModel(b.file.view(), AllOpsResolver(), RunOptions{});
    ASSERT_TRUE(a_solo.ok() && b_solo.ok());

    // How many allocations B's AllocateTensors makes in the shared arena.
    Buffer buffer(figures->used_bytes);
    uint32_t b_allocations = 0;
    {
      SharedArena arena(buffer.data(), buffer.size());
      Interpreter first(a.file.view(), AllOpsResolver(), arena);
      ASSERT_TRUE(first.AllocateTensors().ok());
      Interpreter second(b.file.view(), AllOpsResolver(), arena);
      const uint32_t before = second.arena_allocation_count();
      Status status = second.AllocateTensors();
      ASSERT_TRUE(status.ok()) << status.message();
      b_allocations = second.arena_allocation_count() - before;
      ASSERT_GE(b_allocations, 6u);
    }

    for (uint32_t n = 1; n <= b_allocations; ++n) {
      SCOPED_TRACE("B's allocation " + std::to_string(n) + " of " + std::to_string(b_allocations));
      SharedArena arena(buffer.data(), buffer.size());
      Interpreter first(a.file.view(), AllOpsResolver(), arena);
      ASSERT_TRUE(first.AllocateTensors().ok());
      const size_t a_tail = arena.persistent_bytes();
      const std::vector<uint8_t> a_tail_bytes = buffer.Top(a_tail);
      {
        Interpreter second(b.file.view(), AllOpsResolver(), arena);
        second.FailAllocationNumber(n);
        Status status = second.AllocateTensors();
        ++injections;
        ASSERT_FALSE(status.ok());
        EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory) << status.message();
        EXPECT_EQ(std::string(status.message()).rfind("shared arena", 0), 0u) << status.message();
        EXPECT_FALSE(second.Invoke().ok());
        EXPECT_EQ(second.input(0), nullptr);
      }
      EXPECT_EQ(arena.persistent_bytes(), a_tail) << "B's partial tail was not given back";
      EXPECT_TRUE(buffer.Top(a_tail) == a_tail_bytes) << "B's failed AllocateTensors wrote into A's tail";
      EXPECT_EQ(FillInvokeRead(first), a_solo->outputs);
      // The room is back: a correct B fits, and both run as they do alone
      // (B's Invoke, slow for the big models, once per pair).
      Interpreter second(b.file.view(), AllOpsResolver(), arena);
      Status status = second.AllocateTensors();
      ASSERT_TRUE(status.ok()) << status.message();
      if (n == b_allocations) {
        EXPECT_EQ(FillInvokeRead(second), b_solo->outputs);
        EXPECT_TRUE(buffer.Top(a_tail) == a_tail_bytes) << "B's Invoke wrote into A's tail";
        EXPECT_EQ(FillInvokeRead(first), a_solo->outputs);
      }
    }
  }
  std::printf("[shared arena] %zu injected failures of a second model, first model intact after each\n",
              injections);
}

TEST_F(FaultSharedArenaTest, WrongUseOfTheSecondInterpreterIsRefusedAndHarmsNothing) {
  const testing::FaultModel& a = models_[0];
  // B: the demo model with its weights copied into the arena: a larger tail
  // than A's, so it cannot fit in A's exact arena.
  InterpreterOptions copy_weights;
  copy_weights.copy_weights_to_arena = true;
  Result<size_t> a_minimum = MeasureArenaBytes(a.file.view(), AllOpsResolver());
  ASSERT_TRUE(a_minimum.ok());
  Result<RunResult> a_solo = RunModel(a.file.view(), AllOpsResolver(), RunOptions{});
  ASSERT_TRUE(a_solo.ok());

  Buffer buffer(*a_minimum);
  SharedArena arena(buffer.data(), buffer.size());
  Interpreter first(a.file.view(), AllOpsResolver(), arena);
  ASSERT_TRUE(first.AllocateTensors().ok());
  const size_t a_tail = arena.persistent_bytes();
  EXPECT_EQ(FillInvokeRead(first), a_solo->outputs);
  const std::vector<uint8_t> a_tail_bytes = buffer.Top(a_tail);

  // 1. A second model that does not fit: the error says the shared arena and
  //    how many bytes are missing.
  {
    Interpreter second(a.file.view(), AllOpsResolver(), arena, copy_weights);
    Status status = second.AllocateTensors();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory) << status.message();
    EXPECT_NE(std::string(status.message()).find("missing"), std::string::npos) << status.message();
    EXPECT_FALSE(second.Invoke().ok());
  }
  // 2. An alignment other than the arena's.
  {
    InterpreterOptions options;
    options.alignment_bytes = 8;
    Interpreter second(a.file.view(), AllOpsResolver(), arena, options);
    Status status = second.AllocateTensors();
    EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument) << status.message();
    EXPECT_NE(std::string(status.message()).find("alignment 8"), std::string::npos) << status.message();
  }
  // 3. Reset while A (and here B) are attached; AllocateTensors twice.
  {
    Interpreter second(a.file.view(), AllOpsResolver(), arena);
    EXPECT_FALSE(arena.Reset().ok());
    EXPECT_FALSE(first.AllocateTensors().ok());
    EXPECT_FALSE(second.Invoke().ok()) << "Invoke before AllocateTensors";
  }
  EXPECT_EQ(arena.persistent_bytes(), a_tail);
  EXPECT_TRUE(buffer.Top(a_tail) == a_tail_bytes) << "a refused call wrote into A's tail";
  EXPECT_EQ(FillInvokeRead(first), a_solo->outputs);
}

}  // namespace
}  // namespace microarena
