// Interpreter::AllocateTensors(const PrecomputedPlan&): the head's layout
// planned ahead of time (on the host, with the exact planner) gives the same
// outputs as planning at AllocateTensors, on every shared model, in less
// arena (no scratch table, no lifetime or planner memory in temp); a plan
// that does not fit the model is refused with a clear error, never used.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "microarena/base/align.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_file.h"
#include "microarena/plan/optimal.h"
#include "microarena/runtime/host_runner.h"
#include "tests/control_flow/control_flow_models.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::SharedDir;

// The plan with the exact planner (as `plan --precomputed-plan` makes it).
Result<PrecomputedPlanData> ExactPlan(const ModelView& model, InterpreterOptions options) {
  OptimalOptions exact_options;
  exact_options.node_limit = 200000;  // deterministic
  exact_options.time_limit_seconds = 0;
  const OptimalPlanner exact(exact_options);
  options.custom_planner = &exact;
  return PrecomputePlan(model, AllOpsResolver(), options);
}

void ExpectSameOutputsAsPlanning(const std::string& name, const ModelView& model, bool overlap) {
  SCOPED_TRACE(name + (overlap ? " with overlap" : ""));
  InterpreterOptions options;
  options.allow_overlap = overlap;
  Result<PrecomputedPlanData> data = ExactPlan(model, options);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const PrecomputedPlan plan = data->plan();

  RunOptions planned;
  planned.interpreter = options;
  Result<RunResult> reference = RunModel(model, AllOpsResolver(), planned);
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  RunOptions precomputed = planned;
  precomputed.precomputed_plan = &plan;
  Result<RunResult> run = RunModel(model, AllOpsResolver(), precomputed);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->planner, PlannerChoice::kPrecomputed);
  EXPECT_EQ(run->outputs, reference->outputs);
  // The arena it ran in is the figure PrecomputePlan reported, exactly.
  EXPECT_EQ(run->arena_bytes, data->figures.used_bytes);
  EXPECT_EQ(run->head_bytes, data->head_bytes);
  // Never more arena than planning at AllocateTensors with the device's
  // greedy planner: the same tail minus the scratch table, and temp holds
  // only the kernels' scratch requests.
  EXPECT_LE(run->used_bytes, reference->used_bytes);
  EXPECT_EQ(data->figures.persistent_by_use[static_cast<size_t>(PersistentUse::kScratchHandles)], 0u);
  EXPECT_EQ(data->figures.persistent_bytes,
            reference->persistent_bytes -
                AlignUpUnchecked(data->scratch_offsets.size() * sizeof(uint32_t), options.alignment_bytes));
}

TEST(PrecomputedPlanTest, SameOutputsAsPlanningOnEverySharedModel) {
  MICROARENA_REQUIRE_SHARED();
  const std::vector<std::string> names = testing::SharedModelNames();
  ASSERT_GE(names.size(), 9u);
  for (const std::string& name : names) {
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    ExpectSameOutputsAsPlanning(name, file->view(), false);
    ExpectSameOutputsAsPlanning(name, file->view(), true);
  }
}

// The demo model, planned once; each test breaks one thing in a copy.
class BrokenPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = BuildDemoModel();
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes_.data(), bytes_.size()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    model_.emplace(*model);
    Result<PrecomputedPlanData> data = ExactPlan(*model_, {});
    ASSERT_TRUE(data.ok()) << data.status().message();
    data_ = *data;
    // The first tensor in the head, and one that is not (a constant).
    for (size_t t = 0; t < data_.tensor_offsets.size(); ++t) {
      if (data_.tensor_offsets[t] != PrecomputedPlan::kNotInHead && planned_ == SIZE_MAX) planned_ = t;
      if (model_->subgraph(0).tensor(t).is_constant() && constant_ == SIZE_MAX) constant_ = t;
    }
    ASSERT_NE(planned_, SIZE_MAX);
    ASSERT_NE(constant_, SIZE_MAX);
  }

  // AllocateTensors with `data` in an arena of the figure PrecomputePlan gave.
  Status Allocate(const PrecomputedPlanData& data, size_t arena_bytes = 0) {
    if (arena_bytes == 0) arena_bytes = data_.figures.used_bytes;
    arena_.emplace(arena_bytes);
    Interpreter interpreter(*model_, AllOpsResolver(), arena_->data(), arena_->size());
    return interpreter.AllocateTensors(data.plan());
  }

  std::vector<uint8_t> bytes_;
  std::optional<ModelView> model_;
  PrecomputedPlanData data_;
  std::optional<HostArena> arena_;
  size_t planned_ = SIZE_MAX;
  size_t constant_ = SIZE_MAX;
};

TEST_F(BrokenPlanTest, TheUnbrokenPlanFitsItsFigureExactly) {
  EXPECT_TRUE(Allocate(data_).ok());
  Status too_small = Allocate(data_, data_.figures.used_bytes - 16);
  EXPECT_EQ(too_small.code(), ErrorCode::kOutOfMemory) << too_small.message();
}

TEST_F(BrokenPlanTest, AnotherTensorCountIsRefused) {
  PrecomputedPlanData broken = data_;
  broken.tensor_offsets.pop_back();
  Status status = Allocate(broken);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(
      std::string(status.message()).find("this model has " + std::to_string(data_.tensor_offsets.size()) + " tensors"),
      std::string::npos)
      << status.message();
}

TEST_F(BrokenPlanTest, ATensorOutsideTheHeadIsRefused) {
  PrecomputedPlanData broken = data_;
  broken.tensor_offsets[planned_] = static_cast<uint32_t>(AlignUpUnchecked(data_.head_bytes, 16));
  Status status = Allocate(broken);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("tensor " + std::to_string(planned_)), std::string::npos)
      << status.message();
  EXPECT_NE(std::string(status.message()).find("is not inside the " + std::to_string(data_.head_bytes) + " B head"),
            std::string::npos)
      << status.message();
}

TEST_F(BrokenPlanTest, AMisalignedTensorIsRefused) {
  PrecomputedPlanData broken = data_;
  broken.tensor_offsets[planned_] += 4;
  Status status = Allocate(broken);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("at a multiple of 16"), std::string::npos) << status.message();
}

TEST_F(BrokenPlanTest, AConstantInTheHeadIsRefused) {
  PrecomputedPlanData broken = data_;
  broken.tensor_offsets[constant_] = 0;
  Status status = Allocate(broken);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("constant tensor " + std::to_string(constant_)), std::string::npos)
      << status.message();
}

TEST_F(BrokenPlanTest, AUsedTensorWithoutMemoryIsRefused) {
  PrecomputedPlanData broken = data_;
  broken.tensor_offsets[planned_] = PrecomputedPlan::kNotInHead;
  Status status = Allocate(broken);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("tensor " + std::to_string(planned_) + " is used but has no bytes"),
            std::string::npos)
      << status.message();
}

TEST_F(BrokenPlanTest, AHeadLargerThanTheArenaRunsOutOfMemory) {
  PrecomputedPlanData broken = data_;
  broken.head_bytes += 1024;
  Status status = Allocate(broken);
  EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory) << status.message();
}

TEST_F(BrokenPlanTest, ASharedArenaIsRefused) {
  HostArena memory(1 << 20);
  SharedArena shared(memory.data(), memory.size());
  Interpreter interpreter(*model_, AllOpsResolver(), shared);
  Status status = interpreter.AllocateTensors(data_.plan());
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(status.message()).find("not a shared one"), std::string::npos) << status.message();
}

TEST(PrecomputedPlanModelsTest, AScratchBufferOutsideTheHeadIsRefused) {
  MICROARENA_REQUIRE_SHARED();
  // kws_ref_model's kernels ask for no scratch; micro_speech and resnet do.
  for (const char* name : {"micro_speech_quantized", "pretrainedResnet_quant", "trained_lstm_int8"}) {
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    Result<PrecomputedPlanData> data = ExactPlan(file->view(), {});
    ASSERT_TRUE(data.ok()) << data.status().message();
    if (data->scratch_offsets.empty()) continue;
    data->scratch_offsets[0] = static_cast<uint32_t>(AlignUpUnchecked(data->head_bytes, 16));
    HostArena arena(data->figures.used_bytes);
    Interpreter interpreter(file->view(), AllOpsResolver(), arena.data(), arena.size());
    Status status = interpreter.AllocateTensors(data->plan());
    EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(status.message()).find("scratch buffer 0"), std::string::npos) << status.message();
    return;
  }
  FAIL() << "none of the models asked for a scratch buffer";
}

// trained_lstm_int8's LSTM lists five intermediates (tensors 18-22) that no
// op reads or writes, so they get no tensor record; a plan that places one
// in the head is refused by name, not written through a missing record.
TEST(PrecomputedPlanModelsTest, ATensorNoOpUsesInTheHeadIsRefused) {
  MICROARENA_REQUIRE_SHARED();
  Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/trained_lstm_int8.tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  Result<PrecomputedPlanData> data = ExactPlan(file->view(), {});
  ASSERT_TRUE(data.ok()) << data.status().message();
  const size_t intermediate = 18;
  ASSERT_EQ(std::string(file->view().subgraph(0).tensor(intermediate).name()), "input_to_input_intermediate");
  ASSERT_EQ(data->tensor_offsets[intermediate], PrecomputedPlan::kNotInHead);
  data->tensor_offsets[intermediate] = 0;
  HostArena arena(data->figures.used_bytes);
  Interpreter interpreter(file->view(), AllOpsResolver(), arena.data(), arena.size());
  Status status = interpreter.AllocateTensors(data->plan());
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("tensor no op uses 18"), std::string::npos) << status.message();
}

TEST(PrecomputedPlanModelsTest, AModelWithSubgraphsIsRefused) {
  control_flow::ControlFlowModel model = control_flow::WhileModel(3);
  Result<ModelView> view = LoadModel(Span<const uint8_t>(model.model.data(), model.model.size()));
  ASSERT_TRUE(view.ok()) << view.status().message();
  Result<PrecomputedPlanData> data = PrecomputePlan(*view, AllOpsResolver(), {});
  EXPECT_EQ(data.status().code(), ErrorCode::kUnsupported);
  PrecomputedPlan empty;
  HostArena arena(1 << 16);
  Interpreter interpreter(*view, AllOpsResolver(), arena.data(), arena.size());
  Status status = interpreter.AllocateTensors(empty);
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(status.message()).find("one subgraph"), std::string::npos) << status.message();
}

TEST(LoadVerifiedModelTest, ViewsTheSameModelAndKeepsTheCheapChecks) {
  std::vector<uint8_t> bytes = BuildDemoModel();
  Result<ModelView> verified = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  Result<ModelView> trusted = LoadVerifiedModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(verified.ok() && trusted.ok());
  EXPECT_EQ(trusted->raw(), verified->raw());
  EXPECT_EQ(trusted->subgraph(0).operator_count(), verified->subgraph(0).operator_count());
  EXPECT_EQ(LoadVerifiedModel(Span<const uint8_t>()).status().code(), ErrorCode::kMalformedModel);
  std::vector<uint8_t> other = bytes;
  other[4] = 'X';  // not "TFL3"
  EXPECT_EQ(LoadVerifiedModel(Span<const uint8_t>(other.data(), other.size())).status().code(),
            ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace microarena
