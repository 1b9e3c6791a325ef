// The interpreter with small test kernels (not the real ones): arena figures,
// exact sizes, scratch, variables, errors. Real kernels are tested against
// TFLM in tests/.
#include "microarena/runtime/interpreter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "microarena/base/align.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_file.h"

namespace microarena {
namespace {

// ADD: out[i] = a[i] + b[i] (int8, wrapping); keeps 24 bytes of op data.
Status AddPrepare(PrepareContext& context, const void** op_data) {
  void* data = context.AllocatePersistent(24);
  if (data == nullptr) return context.OutOfMemory();
  *op_data = data;
  return OkStatus();
}
Status AddEval(EvalContext& context, const void*) {
  EvalTensor* a = context.input(0);
  EvalTensor* b = context.input(1);
  EvalTensor* out = context.output(0);
  for (size_t i = 0; i < out->element_count(); ++i) {
    out->As<int8_t>()[i] = static_cast<int8_t>(a->As<int8_t>()[i] + b->As<int8_t>()[i]);
  }
  return OkStatus();
}
// RELU: uses a 40-byte scratch buffer as a staging copy.
struct ReluData {
  int32_t scratch_index;
};
Status ReluPrepare(PrepareContext& context, const void** op_data) {
  auto* data = static_cast<ReluData*>(context.AllocatePersistent(sizeof(ReluData)));
  if (data == nullptr) return context.OutOfMemory();
  MICROARENA_RETURN_IF_ERROR(context.RequestScratch(40, &data->scratch_index));
  *op_data = data;
  return OkStatus();
}
Status ReluEval(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const ReluData*>(op_data);
  auto* staging = static_cast<int8_t*>(context.scratch(data->scratch_index));
  EvalTensor* in = context.input(0);
  EvalTensor* out = context.output(0);
  size_t n = out->element_count();
  std::memcpy(staging, in->data, n);
  for (size_t i = 0; i < n; ++i) out->As<int8_t>()[i] = staging[i] < 0 ? 0 : staging[i];
  return OkStatus();
}
constexpr KernelRegistration kTestAdd{BuiltinOp::kAdd, AddPrepare, AddEval};
constexpr KernelRegistration kTestRelu{BuiltinOp::kRelu, ReluPrepare, ReluEval};
constexpr const KernelRegistration* kTestKernels[] = {&kTestAdd, &kTestRelu};
constexpr OpResolver kTestResolver{Span<const KernelRegistration* const>(kTestKernels)};

// input x (32 B) -> RELU -> r (32 B) -> ADD(r, state) -> y (32 B); state is a
// variable tensor (32 B) that ADD reads.
ModelFile BuildModel(bool with_sub = false) {
  ModelBuilder builder;
  TensorSpec spec{"x", TensorType::kInt8, {32}};
  int32_t x = builder.AddTensor(spec);
  spec.name = "r";
  int32_t r = builder.AddTensor(spec);
  spec.name = "y";
  int32_t y = builder.AddTensor(spec);
  TensorSpec state{"state", TensorType::kInt8, {32}};
  state.is_variable = true;
  state.quantization = QuantizationSpec::PerTensor(0.5f, 3);
  int32_t s = builder.AddTensor(state);
  builder.AddOperator(OperatorSpec{BuiltinOp::kRelu, 1, "", {x}, {r}});
  builder.AddOperator(OperatorSpec{BuiltinOp::kAdd, 1, "", {r, s}, {y}});
  if (with_sub) {
    spec.name = "z";
    int32_t z = builder.AddTensor(spec);
    builder.AddOperator(OperatorSpec{BuiltinOp::kSub, 1, "", {y, x}, {z}});
  }
  builder.SetInputs({x});
  builder.SetOutputs({y});
  Result<ModelFile> file = ModelFile::FromBytes(builder.Build(), "test");
  EXPECT_TRUE(file.ok()) << file.status().message();
  return std::move(*file);
}

struct AlignedBuffer {
  explicit AlignedBuffer(size_t bytes) : storage(new uint64_t[bytes / 8 + 2]()), size(bytes) {}
  uint8_t* data() { return reinterpret_cast<uint8_t*>(storage.get()); }
  std::unique_ptr<uint64_t[]> storage;
  size_t size;
};

TEST(InterpreterTest, RunsAndReportsFigures) {
  ModelFile file = BuildModel();
  AlignedBuffer arena(4096);
  Interpreter interpreter(file.view(), kTestResolver, arena.data(), arena.size);
  Status status = interpreter.AllocateTensors();
  ASSERT_TRUE(status.ok()) << status.message();
  // Head by hand: x [0,1), r [0,2), y [1,2) are 32 B each, the RELU scratch
  // (40 B -> 48) lives at step 0: step 0 holds x, r, scratch = 112 B; step 1
  // holds r, y = 64 B. The lower bound is 112 B and greedy reaches it.
  EXPECT_EQ(interpreter.lower_bound_bytes(), 112u);
  EXPECT_EQ(interpreter.arena_scratch_size(), 112u);
  EXPECT_EQ(interpreter.scratch_buffer_count(), 1u);
  // Tail by hand (alignment 16): 4 EvalTensors (24 B each on 64-bit hosts:
  // 96 B), 2 nodes (32 B), the state (32 B), ADD's op data (24 -> 32 B),
  // RELU's (4 -> 16 B), the scratch table (4 -> 16 B).
  size_t eval_tensors = AlignUpUnchecked(4 * sizeof(EvalTensor), 16);
  EXPECT_EQ(interpreter.arena_persistent_size(), eval_tensors + 32 + 32 + 32 + 16 + 16);
  EXPECT_EQ(interpreter.arena_used_bytes(),
            interpreter.arena_persistent_size() +
                std::max(interpreter.arena_scratch_size(), interpreter.arena_temp_peak()));

  int8_t* x = interpreter.input(0)->As<int8_t>();
  for (int i = 0; i < 32; ++i) x[i] = static_cast<int8_t>(i - 16);
  ASSERT_TRUE(interpreter.Invoke().ok());
  const int8_t* y = interpreter.output(0)->As<int8_t>();
  for (int i = 0; i < 32; ++i) {
    // relu(i - 16) + state, the state reset to its zero point 3.
    EXPECT_EQ(y[i], std::max(i - 16, 0) + 3) << i;
  }
}

TEST(InterpreterTest, ExactArenaSizeSweep) {
  ModelFile file = BuildModel();
  size_t used = 0;
  {
    AlignedBuffer arena(8192);
    Interpreter probe(file.view(), kTestResolver, arena.data(), arena.size);
    ASSERT_TRUE(probe.AllocateTensors().ok());
    used = probe.arena_used_bytes();
  }
  for (size_t size = 0; size <= used + 32; size += 16) {
    AlignedBuffer arena(size);
    Interpreter interpreter(file.view(), kTestResolver, arena.data(), size);
    Status status = interpreter.AllocateTensors();
    EXPECT_EQ(status.ok(), size >= used) << "arena " << size << " used " << used << ": " << status.message();
    if (!status.ok()) {
      EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory);
      EXPECT_NE(std::string(status.message()).find("missing"), std::string::npos) << status.message();
      EXPECT_FALSE(interpreter.Invoke().ok());
    } else {
      EXPECT_EQ(interpreter.arena_used_bytes(), used);
      EXPECT_TRUE(interpreter.Invoke().ok());
    }
  }
}

TEST(InterpreterTest, UnsupportedOpIsNamedAtAllocation) {
  ModelFile file = BuildModel(/*with_sub=*/true);
  AlignedBuffer arena(4096);
  Interpreter interpreter(file.view(), kTestResolver, arena.data(), arena.size);
  Status status = interpreter.AllocateTensors();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(status.message()).find("op 2 (SUB): no kernel"), std::string::npos) << status.message();
  EXPECT_NE(std::string(status.message()).find("INT8 32, INT8 32"), std::string::npos) << status.message();
}

TEST(InterpreterTest, VariablesPersistAcrossInvokeUntilReset) {
  ModelFile file = BuildModel();
  AlignedBuffer arena(4096);
  Interpreter interpreter(file.view(), kTestResolver, arena.data(), arena.size);
  ASSERT_TRUE(interpreter.AllocateTensors().ok());
  EvalTensor* state = interpreter.tensor(3);
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(state->As<int8_t>()[0], 3);
  state->As<int8_t>()[0] = 50;  // as a stateful kernel would
  std::memset(interpreter.input(0)->data, 1, 32);
  ASSERT_TRUE(interpreter.Invoke().ok());
  EXPECT_EQ(interpreter.output(0)->As<int8_t>()[0], 51);
  ASSERT_TRUE(interpreter.ResetVariableTensors().ok());
  EXPECT_EQ(state->As<int8_t>()[0], 3);
}

TEST(InterpreterTest, MisuseIsReported) {
  ModelFile file = BuildModel();
  AlignedBuffer arena(4096);
  Interpreter interpreter(file.view(), kTestResolver, arena.data(), arena.size);
  EXPECT_FALSE(interpreter.Invoke().ok());
  EXPECT_EQ(interpreter.input(0), nullptr);
  ASSERT_TRUE(interpreter.AllocateTensors().ok());
  EXPECT_FALSE(interpreter.AllocateTensors().ok());
  EXPECT_EQ(interpreter.input(1), nullptr);
  InterpreterOptions bad;
  bad.alignment_bytes = 12;
  Interpreter misaligned(file.view(), kTestResolver, arena.data(), arena.size, bad);
  EXPECT_FALSE(misaligned.AllocateTensors().ok());
  Interpreter null_arena(file.view(), kTestResolver, nullptr, 0);
  EXPECT_FALSE(null_arena.AllocateTensors().ok());
}

TEST(InterpreterTest, MisalignedArenaPointerCountsItsPadding) {
  ModelFile file = BuildModel();
  AlignedBuffer arena(4096);
  Interpreter aligned(file.view(), kTestResolver, arena.data(), 4000);
  ASSERT_TRUE(aligned.AllocateTensors().ok());
  Interpreter shifted(file.view(), kTestResolver, arena.data() + 3, 4000);
  ASSERT_TRUE(shifted.AllocateTensors().ok());
  EXPECT_EQ(shifted.arena_used_bytes(), aligned.arena_used_bytes() + 13);  // 3 + 13 = 16
}

TEST(InterpreterTest, PreserveAllTensorsUsesTheLinearPlan) {
  ModelFile file = BuildModel();
  AlignedBuffer arena(4096);
  InterpreterOptions options;
  options.preserve_all_tensors = true;
  Interpreter interpreter(file.view(), kTestResolver, arena.data(), arena.size, options);
  ASSERT_TRUE(interpreter.AllocateTensors().ok());
  EXPECT_EQ(interpreter.planner_used(), PlannerChoice::kLinear);
  EXPECT_EQ(interpreter.arena_scratch_size(), 32u * 3 + 48);  // x, r, y and the scratch, no reuse
}

TEST(InterpreterTest, FailureInjectionAtEveryAllocationFailsCleanly) {
  ModelFile file = BuildModel();
  for (uint32_t n = 1; n < 64; ++n) {
    AlignedBuffer arena(4096);
    Interpreter interpreter(file.view(), kTestResolver, arena.data(), arena.size);
    interpreter.FailAllocationNumber(n);
    Status status = interpreter.AllocateTensors();
    if (status.ok()) {
      EXPECT_GT(n, 5u);  // at least tensors, nodes, state, op data x2, ... were reached
      break;
    }
    EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory) << n << ": " << status.message();
  }
}

}  // namespace
}  // namespace microarena
