#include "microarena/analysis/lifetimes.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "microarena/analysis/offline_plan.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_file.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

std::vector<BufferRequest> Analyze(const ModelView& model, const LifetimeOptions& options = {},
                                   std::vector<ScratchRequest> scratch = {}) {
  std::vector<BufferRequest> requests(LifetimeCapacity(model.subgraph(0), scratch.size()));
  Result<size_t> count = AnalyzeLifetimes(model, 0, Span<const ScratchRequest>(scratch.data(), scratch.size()),
                                          options, Span<BufferRequest>(requests.data(), requests.size()));
  EXPECT_TRUE(count.ok()) << count.status().message();
  requests.resize(count.ok() ? *count : 0);
  // The device's form (working memory apart, room for planned buffers only)
  // gives the same requests, and never needs more room than it says.
  std::vector<Lifetime> work(model.subgraph(0).tensor_count());
  std::vector<BufferRequest> compact(CompactLifetimeCapacity(model.subgraph(0), scratch.size()));
  Result<size_t> compact_count =
      AnalyzeLifetimes(model, 0, Span<const ScratchRequest>(scratch.data(), scratch.size()), options,
                       Span<Lifetime>(work.data(), work.size()), Span<BufferRequest>(compact.data(), compact.size()));
  EXPECT_TRUE(compact_count.ok()) << compact_count.status().message();
  if (compact_count.ok()) {
    EXPECT_EQ(*compact_count, requests.size());
    for (size_t i = 0; i < requests.size() && i < *compact_count; ++i) {
      EXPECT_EQ(compact[i].size_bytes, requests[i].size_bytes) << i;
      EXPECT_EQ(compact[i].lifetime.first_op, requests[i].lifetime.first_op) << i;
      EXPECT_EQ(compact[i].lifetime.end_op, requests[i].lifetime.end_op) << i;
      EXPECT_EQ(compact[i].kind, requests[i].kind) << i;
      EXPECT_EQ(compact[i].owner_index, requests[i].owner_index) << i;
      EXPECT_EQ(compact[i].fixed_offset_bytes, requests[i].fixed_offset_bytes) << i;
    }
  }
  return requests;
}

// TFLM's own plans list every buffer it planned with its (inclusive) first and
// last step: our lifetimes must agree for every tensor of every model. TFLM
// numbers its steps from 1 for op 0 and keeps step 0 for the subgraph inputs
// alone; op i is our step i. So TFLM's [first_used, last_used] is our
// [max(first_used - 1, 0), last_used).
TEST(LifetimesTest, MatchTflmPlansOfEverySharedModel) {
  MICROARENA_REQUIRE_SHARED();
  // simple_add_model (a single ADD from TFLM's memory_footprint example) has
  // no TFLM plan; every other shared model must have one, and the test fails
  // when it gains one or leaves.
  int models = 0;
  bool exempt_seen = false;
  for (const std::string& name : testing::SharedModelNames()) {
    SCOPED_TRACE(name);
    const std::vector<testing::TflmPlanBuffer> plan = testing::ReadTflmPlan(name);
    if (name == "simple_add_model") {
      EXPECT_TRUE(plan.empty()) << "it has a TFLM plan now: compare it";
      exempt_seen = true;
      continue;
    }
    ASSERT_FALSE(plan.empty()) << "no golden/tflm_plans file";
    Result<ModelFile> file = ModelFile::Open(testing::SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    std::vector<BufferRequest> ours = Analyze(file->view());
    size_t golden_tensors = 0;
    for (const testing::TflmPlanBuffer& buffer : plan) {
      if (!buffer.is_tensor()) continue;
      const size_t id = static_cast<size_t>(buffer.id);
      ASSERT_LT(id, ours.size());
      const BufferRequest& r = ours[id];
      EXPECT_EQ(r.kind, BufferKind::kTensor);
      EXPECT_EQ(r.owner_index, buffer.tensor_index) << "id " << id;
      EXPECT_EQ(r.size_bytes, buffer.size_bytes) << "id " << id;
      EXPECT_EQ(r.lifetime.first_op, std::max(buffer.first_used - 1, 0)) << "id " << id;
      EXPECT_EQ(r.lifetime.end_op, buffer.last_used) << "id " << id;
      ++golden_tensors;
    }
    EXPECT_EQ(ours.size(), golden_tensors);
    ++models;
  }
  EXPECT_TRUE(exempt_seen) << "simple_add_model is not shared any more: drop its exemption";
  EXPECT_GE(models, 9);
}

// The scope walk used for models with control flow (AnalyzeModelLifetimes)
// and the single-subgraph rules must agree on every one-subgraph model: the
// shared models with their kernels' real scratch requests.
TEST(LifetimesTest, ScopeWalkEqualsSingleSubgraphRulesOnEverySharedModel) {
  MICROARENA_REQUIRE_SHARED();
  int models = 0;
  for (const std::string& name : testing::SharedModelNames()) {
    SCOPED_TRACE(name);
    Result<ModelFile> file = ModelFile::Open(testing::SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok()) << file.status().message();
    Result<std::vector<ScratchRequest>> scratch = CollectScratchRequests(file->view(), AllOpsResolver());
    ASSERT_TRUE(scratch.ok()) << scratch.status().message();  // microarena runs every shared model
    const std::vector<BufferRequest> rules = Analyze(file->view(), {}, *scratch);
    std::vector<BufferRequest> walk(LifetimeCapacity(file->view(), scratch->size()));
    Result<size_t> count = AnalyzeModelLifetimes(file->view(), Span<const ScratchRequest>(scratch->data(), scratch->size()),
                                                 LifetimeOptions{}, Span<BufferRequest>(walk.data(), walk.size()));
    ASSERT_TRUE(count.ok()) << count.status().message();
    ASSERT_EQ(*count, rules.size());
    for (size_t i = 0; i < rules.size(); ++i) {
      EXPECT_EQ(walk[i].kind, rules[i].kind) << i;
      EXPECT_EQ(walk[i].owner_index, rules[i].owner_index) << i;
      EXPECT_EQ(walk[i].size_bytes, rules[i].size_bytes) << i;
      EXPECT_EQ(walk[i].lifetime.first_op, rules[i].lifetime.first_op) << i;
      EXPECT_EQ(walk[i].lifetime.end_op, rules[i].lifetime.end_op) << i;
    }
    ++models;
  }
  EXPECT_GE(models, 9);
}

// A hand-made graph; each expected lifetime is derived in the comments.
//   t0 input (4x4 int8 = 16 B)     t1 constant        t5 variable state
//   op0: ADD(t0, t1) -> t2, t6     t6 is written but never read
//   op1: ADD(t2, t5) -> t3
//   op2: ADD(t3, t0) -> t4 (output)
//   t7: referenced by nothing
class HandGraph : public ::testing::Test {
 protected:
  void SetUp() override {
    TensorSpec act{"", TensorType::kInt8, {4, 4}};
    auto add = [&](const char* name) {
      act.name = name;
      return builder_.AddTensor(act);
    };
    int32_t t0 = add("t0");
    int32_t t1 = builder_.AddConstantTensor(TensorSpec{"t1", TensorType::kInt8, {4, 4}}, std::vector<uint8_t>(16, 1));
    int32_t t2 = add("t2");
    int32_t t3 = add("t3");
    act.shape = {5};  // 5 bytes: rounds to 8 at alignment 8, 16 at 16
    int32_t t4 = add("t4");
    act.shape = {4, 4};
    TensorSpec state{"t5", TensorType::kInt8, {4, 4}};
    state.is_variable = true;
    int32_t t5 = builder_.AddTensor(state);
    int32_t t6 = add("t6");
    add("t7");
    builder_.AddOperator(OperatorSpec{BuiltinOp::kAdd, 1, "", {t0, t1}, {t2, t6}});
    builder_.AddOperator(OperatorSpec{BuiltinOp::kAdd, 1, "", {t2, t5}, {t3}});
    builder_.AddOperator(OperatorSpec{BuiltinOp::kAdd, 1, "", {t3, t0}, {t4}});
    builder_.SetInputs({t0});
    builder_.SetOutputs({t4});
  }
  Result<ModelFile> Build() { return ModelFile::FromBytes(builder_.Build(), "hand"); }
  ModelBuilder builder_;
};

TEST_F(HandGraph, FollowsTheRules) {
  auto file = Build();
  ASSERT_TRUE(file.ok()) << file.status().message();
  LifetimeOptions options;
  options.alignment_bytes = 8;
  std::vector<BufferRequest> r = Analyze(file->view(), options, {{1, 3}});
  // Planned: t0, t2, t3, t4, t6 (t1 constant, t5 variable, t7 unused), then the scratch.
  ASSERT_EQ(r.size(), 6u);
  auto expect = [&](size_t i, int32_t tensor, size_t size, int32_t first, int32_t end) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r[i].owner_index, tensor);
    EXPECT_EQ(r[i].size_bytes, size);
    EXPECT_EQ(r[i].lifetime.first_op, first);
    EXPECT_EQ(r[i].lifetime.end_op, end);
  };
  expect(0, 0, 16, 0, 3);  // input: from step 0; last read by op2 -> [0, 3)
  expect(1, 2, 16, 0, 2);  // written by op0, read by op1 -> [0, 2)
  expect(2, 3, 16, 1, 3);  // written by op1, read by op2 -> [1, 3)
  expect(3, 4, 8, 2, 3);   // output written by op2, to the last step; 5 B -> 8 at alignment 8
  expect(4, 6, 16, 0, 1);  // written by op0, never read -> its own step
  EXPECT_EQ(r[5].kind, BufferKind::kScratch);
  EXPECT_EQ(r[5].owner_index, 1);
  EXPECT_EQ(r[5].size_bytes, 8u);  // 3 B rounded to 8
  EXPECT_EQ(r[5].lifetime.first_op, 1);
  EXPECT_EQ(r[5].lifetime.end_op, 2);
}

TEST_F(HandGraph, OrderChangesSteps) {
  auto file = Build();
  ASSERT_TRUE(file.ok());
  // The only topological order of this chain is 0,1,2. Another one reads t2
  // before op0 writes it; TFLM accepts such a read (rule 10 of lifetimes.h):
  // the read sees whatever the bytes hold and does not start t2's lifetime,
  // op0's write at step 1 does, and nothing reads t2 after it: [1, 2).
  const int32_t swapped[] = {1, 0, 2};
  LifetimeOptions options;
  options.order = Span<const int32_t>(swapped);
  std::vector<BufferRequest> requests(16);
  auto result = AnalyzeLifetimes(file->view(), 0, {}, options, Span<BufferRequest>(requests.data(), requests.size()));
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(requests[1].owner_index, 2);
  EXPECT_EQ(requests[1].lifetime.first_op, 1);
  EXPECT_EQ(requests[1].lifetime.end_op, 2);
  const int32_t repeated[] = {0, 0, 2};
  options.order = Span<const int32_t>(repeated);
  result = AnalyzeLifetimes(file->view(), 0, {}, options, Span<BufferRequest>(requests.data(), requests.size()));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(std::string(result.status().message()).find("twice"), std::string::npos);
  const int32_t out_of_range[] = {0, 1, 7};
  options.order = Span<const int32_t>(out_of_range);
  result = AnalyzeLifetimes(file->view(), 0, {}, options, Span<BufferRequest>(requests.data(), requests.size()));
  EXPECT_FALSE(result.ok());
}

TEST_F(HandGraph, RejectsBadArguments) {
  auto file = Build();
  ASSERT_TRUE(file.ok());
  std::vector<BufferRequest> requests(16);
  LifetimeOptions options;
  options.alignment_bytes = 12;
  EXPECT_FALSE(AnalyzeLifetimes(file->view(), 0, {}, options, Span<BufferRequest>(requests.data(), 16)).ok());
  options.alignment_bytes = 16;
  EXPECT_FALSE(AnalyzeLifetimes(file->view(), 0, {}, options, Span<BufferRequest>(requests.data(), 3)).ok());
  ScratchRequest bad_op{9, 16};
  EXPECT_FALSE(AnalyzeLifetimes(file->view(), 0, Span<const ScratchRequest>(&bad_op, 1), options,
                                Span<BufferRequest>(requests.data(), 16))
                   .ok());
  // The device's form: a working array shorter than the tensors, or a request
  // array shorter than the planned buffers, is refused with both counts.
  const size_t tensors = file->view().subgraph(0).tensor_count();
  const size_t planned = CompactLifetimeCapacity(file->view().subgraph(0), 0);
  ASSERT_GT(planned, 0u);
  std::vector<Lifetime> work(tensors);
  Result<size_t> short_work = AnalyzeLifetimes(file->view(), 0, {}, options, Span<Lifetime>(work.data(), tensors - 1),
                                               Span<BufferRequest>(requests.data(), planned));
  ASSERT_FALSE(short_work.ok());
  EXPECT_NE(std::string(short_work.status().message()).find("needed"), std::string::npos)
      << short_work.status().message();
  EXPECT_FALSE(AnalyzeLifetimes(file->view(), 0, {}, options, Span<Lifetime>(work.data(), tensors),
                                Span<BufferRequest>(requests.data(), planned - 1))
                   .ok());
  EXPECT_TRUE(AnalyzeLifetimes(file->view(), 0, {}, options, Span<Lifetime>(work.data(), tensors),
                               Span<BufferRequest>(requests.data(), planned))
                  .ok());
}

TEST_F(HandGraph, OfflinePlanGivesFixedOffsets) {
  // 8 tensors: t0 at 0, t2 at 32, the rest online.
  std::vector<int32_t> words = {0, 1, 8, 0, -1, 32, -1, -1, -1, -1, -1};
  builder_.AddMetadata(kOfflinePlanMetadataName, BytesOf(words));
  auto file = Build();
  ASSERT_TRUE(file.ok()) << file.status().message();
  Result<Span<const int32_t>> offsets = ReadOfflinePlan(file->view());
  ASSERT_TRUE(offsets.ok()) << offsets.status().message();
  ASSERT_EQ(offsets->size(), 8u);
  LifetimeOptions options;
  options.fixed_offsets_bytes = *offsets;
  std::vector<BufferRequest> r = Analyze(file->view(), options);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].fixed_offset_bytes, 0);
  EXPECT_EQ(r[1].fixed_offset_bytes, 32);
  EXPECT_EQ(r[2].fixed_offset_bytes, kNoFixedOffset);
}

TEST_F(HandGraph, OfflinePlanErrorsNameTheProblem) {
  std::vector<int32_t> words = {0, 1, 5, 0, -1};  // says 5 tensors, the model has 8
  builder_.AddMetadata(kOfflinePlanMetadataName, BytesOf(words));
  auto file = Build();
  ASSERT_TRUE(file.ok());
  Result<Span<const int32_t>> offsets = ReadOfflinePlan(file->view());
  ASSERT_FALSE(offsets.ok());
  EXPECT_NE(std::string(offsets.status().message()).find("tensor count 5 but the model has 8"), std::string::npos)
      << offsets.status().message();
}

TEST(LifetimesTest, ModelWithoutOfflinePlanReadsEmpty) {
  MICROARENA_REQUIRE_SHARED();
  auto file = ModelFile::Open(testing::SharedDir() + "/models/kws_ref_model.tflite");
  ASSERT_TRUE(file.ok());
  auto offsets = ReadOfflinePlan(file->view());
  ASSERT_TRUE(offsets.ok());
  EXPECT_TRUE(offsets->empty());
}

}  // namespace
}  // namespace microarena
