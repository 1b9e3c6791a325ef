// Several models in one SharedArena: the arena is padding + the sum of the
// persistent areas + the largest head; each model runs bit-exact with TFLM's
// goldens when the models alternate; one model's persistent data and variable
// state are never touched by another's Invoke; misuse is refused cleanly.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/input_generator.h"
#include "microarena/runtime/shared_arena.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::ReadFileBytes;
using testing::SharedDir;

ModelFile OpenShared(const std::string& name) {
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
  EXPECT_TRUE(file.ok()) << name << ": " << file.status().message();
  return std::move(*file);
}

void FillInputs(Interpreter& interpreter, uint32_t seed) {
  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    EvalTensor* input = interpreter.input(i);
    GenerateInput(seed, input->type, static_cast<uint8_t*>(input->data), interpreter.input_bytes(i));
  }
}

std::vector<std::vector<uint8_t>> Outputs(Interpreter& interpreter) {
  std::vector<std::vector<uint8_t>> outputs;
  for (size_t o = 0; o < interpreter.outputs_size(); ++o) {
    const auto* data = static_cast<const uint8_t*>(interpreter.output(o)->data);
    outputs.emplace_back(data, data + interpreter.output_bytes(o));
  }
  return outputs;
}

std::vector<std::vector<uint8_t>> GoldenOutputs(const std::string& model, uint32_t seed, size_t count) {
  std::vector<std::vector<uint8_t>> outputs;
  const std::string dir = SharedDir() + "/golden/" + model + "/seed" + std::to_string(seed);
  for (size_t o = 0; o < count; ++o) outputs.push_back(ReadFileBytes(dir + "/output_" + std::to_string(o) + ".bin"));
  return outputs;
}

// Fresh state, given inputs, one Invoke: what the goldens hold.
std::vector<std::vector<uint8_t>> RunOnce(Interpreter& interpreter, uint32_t seed) {
  EXPECT_TRUE(interpreter.ResetVariableTensors().ok());
  FillInputs(interpreter, seed);
  Status status = interpreter.Invoke();
  EXPECT_TRUE(status.ok()) << status.message();
  return Outputs(interpreter);
}

// The sum-of-tails + max-head figure, and both models bit-exact in an arena of
// exactly that size, alternating; one alignment step less does not fit.
void CheckPair(const std::string& a_name, const std::string& b_name, int rounds) {
  SCOPED_TRACE(a_name + " + " + b_name);
  ModelFile a = OpenShared(a_name);
  ModelFile b = OpenShared(b_name);
  Result<ArenaFigures> a_alone = MeasureArena(a.view(), AllOpsResolver());
  Result<ArenaFigures> b_alone = MeasureArena(b.view(), AllOpsResolver());
  ASSERT_TRUE(a_alone.ok() && b_alone.ok());
  Result<SharedArenaFigures> shared = MeasureSharedArena({&a.view(), &b.view()}, AllOpsResolver());
  ASSERT_TRUE(shared.ok()) << shared.status().message();

  // Each model's own areas are what it needs alone; together they need the
  // sum of the persistent areas and the larger head (temp stays below it).
  ASSERT_EQ(shared->models.size(), 2u);
  EXPECT_EQ(shared->models[0].persistent_bytes, a_alone->persistent_bytes);
  EXPECT_EQ(shared->models[1].persistent_bytes, b_alone->persistent_bytes);
  EXPECT_EQ(shared->models[0].head_bytes, a_alone->head_bytes);
  EXPECT_EQ(shared->models[1].head_bytes, b_alone->head_bytes);
  const size_t max_head = std::max(a_alone->head_bytes, b_alone->head_bytes);
  const size_t max_temp = std::max(a_alone->temp_peak_bytes, b_alone->temp_peak_bytes);
  ASSERT_LE(max_temp, max_head) << "pick models whose temp peak is below the shared head";
  EXPECT_EQ(shared->used_bytes, a_alone->persistent_bytes + b_alone->persistent_bytes + max_head);
  EXPECT_LT(shared->used_bytes, a_alone->used_bytes + b_alone->used_bytes);

  // Reversed allocation order: the same arena.
  Result<SharedArenaFigures> reversed = MeasureSharedArena({&b.view(), &a.view()}, AllOpsResolver());
  ASSERT_TRUE(reversed.ok());
  EXPECT_EQ(reversed->used_bytes, shared->used_bytes);

  // Exactly that size.
  HostArena buffer(shared->used_bytes);
  SharedArena arena(buffer.data(), buffer.size());
  Interpreter first(a.view(), AllOpsResolver(), arena);
  Interpreter second(b.view(), AllOpsResolver(), arena);
  ASSERT_TRUE(first.AllocateTensors().ok());
  Status status = second.AllocateTensors();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(arena.used_bytes(), shared->used_bytes);
  for (int round = 0; round < rounds; ++round) {
    const uint32_t seed = 1 + static_cast<uint32_t>(round % 3);
    SCOPED_TRACE("round " + std::to_string(round) + " seed " + std::to_string(seed));
    ASSERT_EQ(RunOnce(first, seed), GoldenOutputs(a_name, seed, first.outputs_size()));
    ASSERT_EQ(RunOnce(second, seed), GoldenOutputs(b_name, seed, second.outputs_size()));
  }

  // One alignment step smaller: the second model does not fit, says so, and
  // gives its partial tail back; the first keeps running bit-exact.
  HostArena small_buffer(shared->used_bytes - 16);
  SharedArena small(small_buffer.data(), small_buffer.size());
  Interpreter small_first(a.view(), AllOpsResolver(), small);
  Interpreter small_second(b.view(), AllOpsResolver(), small);
  ASSERT_TRUE(small_first.AllocateTensors().ok());
  const size_t tail_before = small.persistent_bytes();
  Status too_small = small_second.AllocateTensors();
  ASSERT_FALSE(too_small.ok());
  EXPECT_EQ(too_small.code(), ErrorCode::kOutOfMemory);
  EXPECT_NE(std::string(too_small.message()).find("shared arena"), std::string::npos) << too_small.message();
  EXPECT_EQ(small.persistent_bytes(), tail_before);
  EXPECT_EQ(RunOnce(small_first, 1), GoldenOutputs(a_name, 1, small_first.outputs_size()));
  EXPECT_FALSE(small_second.Invoke().ok());
}

TEST(SharedArenaTest, KeywordSpotterAndPersonDetectorShareOneHead) {
  MICROARENA_REQUIRE_SHARED();
  CheckPair("kws_ref_model", "vww_96_int8", 3);
}

TEST(SharedArenaTest, TwoModelsAlternateBitExactFor100Rounds) {
  MICROARENA_REQUIRE_SHARED();
  CheckPair("ad01_int8", "micro_speech_quantized", 100);
}

// Variable state (SVDF, LSTM) lives in each model's own tail: two stateful
// models alternating in one arena, never reset, produce round for round what
// each produces alone in its own arena.
TEST(SharedArenaTest, VariableStateIsNeverTouchedByTheOtherModel) {
  MICROARENA_REQUIRE_SHARED();
  ModelFile a = OpenShared("keyword_scrambled_8bit");
  ModelFile b = OpenShared("trained_lstm_int8");
  Result<size_t> a_bytes = MeasureArenaBytes(a.view(), AllOpsResolver());
  Result<size_t> b_bytes = MeasureArenaBytes(b.view(), AllOpsResolver());
  ASSERT_TRUE(a_bytes.ok() && b_bytes.ok());
  HostArena a_buffer(*a_bytes);
  HostArena b_buffer(*b_bytes);
  Interpreter a_alone(a.view(), AllOpsResolver(), a_buffer.data(), a_buffer.size());
  Interpreter b_alone(b.view(), AllOpsResolver(), b_buffer.data(), b_buffer.size());
  ASSERT_TRUE(a_alone.AllocateTensors().ok());
  ASSERT_TRUE(b_alone.AllocateTensors().ok());

  Result<SharedArenaFigures> figures = MeasureSharedArena({&a.view(), &b.view()}, AllOpsResolver());
  ASSERT_TRUE(figures.ok());
  HostArena buffer(figures->used_bytes);
  SharedArena arena(buffer.data(), buffer.size());
  Interpreter a_shared(a.view(), AllOpsResolver(), arena);
  Interpreter b_shared(b.view(), AllOpsResolver(), arena);
  ASSERT_TRUE(a_shared.AllocateTensors().ok());
  ASSERT_TRUE(b_shared.AllocateTensors().ok());

  size_t state_changes = 0;
  std::vector<std::vector<uint8_t>> previous;
  for (int round = 0; round < 100; ++round) {
    const uint32_t seed = 1 + static_cast<uint32_t>(round % 3);
    SCOPED_TRACE("round " + std::to_string(round));
    FillInputs(a_alone, seed);
    FillInputs(b_alone, seed);
    ASSERT_TRUE(a_alone.Invoke().ok() && b_alone.Invoke().ok());
    // Outputs sit in the shared head: read each right after its own Invoke.
    FillInputs(a_shared, seed);
    ASSERT_TRUE(a_shared.Invoke().ok());
    ASSERT_EQ(Outputs(a_shared), Outputs(a_alone));
    FillInputs(b_shared, seed);
    ASSERT_TRUE(b_shared.Invoke().ok());
    ASSERT_EQ(Outputs(b_shared), Outputs(b_alone));
    if (round == 0) {
      EXPECT_EQ(Outputs(b_alone), GoldenOutputs("trained_lstm_int8", seed, b_alone.outputs_size()));
    }
    if (!previous.empty() && previous != Outputs(b_alone)) ++state_changes;
    previous = Outputs(b_alone);
  }
  // The LSTM's outputs depend on its state: if they never changed between
  // rounds with repeating inputs, this test would not be exercising state.
  EXPECT_GT(state_changes, 0u);
}

TEST(SharedArenaTest, MisuseIsRefusedWithoutHarmingTheOtherModel) {
  MICROARENA_REQUIRE_SHARED();
  ModelFile a = OpenShared("ad01_int8");
  ModelFile b = OpenShared("micro_speech_quantized");
  HostArena buffer(64 * 1024);
  SharedArena arena(buffer.data(), buffer.size(), 16);
  auto first = std::make_unique<Interpreter>(a.view(), AllOpsResolver(), arena);
  ASSERT_TRUE(first->AllocateTensors().ok());
  const size_t tail = arena.persistent_bytes();

  // A different alignment than the arena's.
  InterpreterOptions options;
  options.alignment_bytes = 32;
  {
    Interpreter misaligned(b.view(), AllOpsResolver(), arena, options);
    Status status = misaligned.AllocateTensors();
    ASSERT_FALSE(status.ok());
    EXPECT_NE(std::string(status.message()).find("alignment 32 differs from the shared arena's 16"),
              std::string::npos)
        << status.message();
    EXPECT_EQ(arena.persistent_bytes(), tail);
    EXPECT_EQ(arena.attached_interpreters(), 2u);
  }
  EXPECT_EQ(arena.attached_interpreters(), 1u);

  // Reset while a model still uses the arena.
  Status reset = arena.Reset();
  ASSERT_FALSE(reset.ok());
  EXPECT_NE(std::string(reset.message()).find("1 interpreter(s)"), std::string::npos) << reset.message();
  EXPECT_EQ(arena.persistent_bytes(), tail);
  EXPECT_EQ(RunOnce(*first, 2), GoldenOutputs("ad01_int8", 2, first->outputs_size()));

  // AllocateTensors twice.
  EXPECT_FALSE(first->AllocateTensors().ok());
  EXPECT_EQ(arena.persistent_bytes(), tail);

  // Once every interpreter is gone the arena can take new models.
  first.reset();
  ASSERT_TRUE(arena.Reset().ok());
  EXPECT_EQ(arena.persistent_bytes(), 0u);
  Interpreter again(b.view(), AllOpsResolver(), arena);
  ASSERT_TRUE(again.AllocateTensors().ok());
  EXPECT_EQ(RunOnce(again, 1), GoldenOutputs("micro_speech_quantized", 1, again.outputs_size()));
}

}  // namespace
}  // namespace microarena
