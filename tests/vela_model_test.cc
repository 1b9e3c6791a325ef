// Models shaped like Arm Vela's output and other graphs TFLM accepts that read
// a tensor before any op writes it; each figure is compared with TFLM itself
// (the oracle of ../shared/tools) or computed by hand in a comment.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/plan/check.h"
#include "microarena/plan/reorder.h"
#include "microarena/plan/verify.h"
#include "microarena/report/model_plan.h"
#include "microarena/runtime/interpreter.h"
#include "tests/support/broken_plans.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

// Tensor indices of the Vela-like model.
constexpr int32_t kCommandStream = 0;
constexpr int32_t kFlash = 1;
constexpr int32_t kScratch = 2;
constexpr int32_t kScratchFast = 3;
constexpr int32_t kInput = 4;
constexpr int32_t kOutput = 5;
constexpr int32_t kScratchBytes = 1000;
constexpr int32_t kScratchFastBytes = 200;
constexpr int32_t kInputBytes = 192;  // 1x8x8x3 int8
constexpr int32_t kOutputBytes = 192;

// What Vela writes: one `ethos-u` op reading the command stream and weights
// (constants), two scratch areas no op writes, and the input; an offline plan
// that puts both scratch areas and the input at offset 0 (the NPU copies the
// input inside its scratch area); the output planned online.
std::vector<uint8_t> VelaLikeModel() {
  ModelBuilder builder;
  builder.AddConstantTensor({"command_stream", TensorType::kUInt8, {16}}, std::vector<uint8_t>(16, 1));
  builder.AddConstantTensor({"flash", TensorType::kUInt8, {32}}, std::vector<uint8_t>(32, 2));
  builder.AddTensor({"scratch", TensorType::kUInt8, {kScratchBytes}});
  builder.AddTensor({"scratch_fast", TensorType::kUInt8, {kScratchFastBytes}});
  builder.AddTensor({"input", TensorType::kInt8, {1, 8, 8, 3}, 0, QuantizationSpec::PerTensor(0.5f, 0)});
  builder.AddTensor({"output", TensorType::kInt8, {1, 8, 8, 3}, 0, QuantizationSpec::PerTensor(0.5f, 0)});
  OperatorSpec op;
  op.op = BuiltinOp::kCustom;
  op.custom_name = "ethos-u";
  op.inputs = {kCommandStream, kFlash, kScratch, kScratchFast, kInput};
  op.outputs = {kOutput};
  builder.AddOperator(std::move(op));
  builder.SetInputs({kInput});
  builder.SetOutputs({kOutput});
  // OfflineMemoryAllocation: version 0, one subgraph, six tensors, then one
  // offset per tensor (-1: planned online).
  const std::vector<int32_t> offline = {0, 1, 6, -1, -1, 0, 0, 0, -1};
  builder.AddMetadata("OfflineMemoryAllocation", BytesOf(offline));
  return builder.Build();
}

std::string WriteModel(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = testing::TempDir(name) + "/" + name + ".tflite";
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

TensorSpec Activation(const std::string& name, std::vector<int32_t> shape) {
  return {name, TensorType::kInt8, std::move(shape), 0, QuantizationSpec::PerTensor(0.5f, 0)};
}

OperatorSpec Op(BuiltinOp code, std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
  OperatorSpec op;
  op.op = code;
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  if (code == BuiltinOp::kConcatenation) {
    tflite::ConcatenationOptionsT options;
    options.axis = 1;
    op.options = MakeBuiltinOptions(options);
  }
  return op;
}

// RELU, then a CONCATENATION that also reads `x`, which no op writes and
// which is not an input, then RELU: TFLM reads x as it finds it.
std::vector<uint8_t> ReadBeforeWriteModel() {
  ModelBuilder builder;
  const int32_t in = builder.AddTensor(Activation("in", {1, 16}));
  const int32_t a = builder.AddTensor(Activation("a", {1, 16}));
  const int32_t x = builder.AddTensor(Activation("x", {1, 48}));
  const int32_t c = builder.AddTensor(Activation("c", {1, 64}));
  const int32_t out = builder.AddTensor(Activation("out", {1, 64}));
  builder.AddOperator(Op(BuiltinOp::kRelu, {in}, {a}));
  builder.AddOperator(Op(BuiltinOp::kConcatenation, {a, x}, {c}));
  builder.AddOperator(Op(BuiltinOp::kRelu, {c}, {out}));
  builder.SetInputs({in});
  builder.SetOutputs({out});
  return builder.Build();
}

// x is read at step 0, written at step 1 and read again at step 2.
std::vector<uint8_t> ReadThenWrittenModel() {
  ModelBuilder builder;
  const int32_t in = builder.AddTensor(Activation("in", {1, 16}));
  const int32_t x = builder.AddTensor(Activation("x", {1, 16}));
  const int32_t c = builder.AddTensor(Activation("c", {1, 32}));
  const int32_t out = builder.AddTensor(Activation("out", {1, 48}));
  builder.AddOperator(Op(BuiltinOp::kConcatenation, {in, x}, {c}));
  builder.AddOperator(Op(BuiltinOp::kRelu, {in}, {x}));
  builder.AddOperator(Op(BuiltinOp::kConcatenation, {c, x}, {out}));
  builder.SetInputs({in});
  builder.SetOutputs({out});
  return builder.Build();
}

// One buffer of TFLM's plan as `tflm_oracle --print-plan` prints it.
struct TflmBuffer {
  size_t size_bytes = 0;
  int first_used = 0;  // TFLM's step numbering (analysis/lifetimes.h)
  int last_used = 0;
  size_t offset_bytes = 0;
  bool is_scratch = false;
  int tensor = -1;
};
struct TflmPlan {
  size_t head_bytes = 0;
  std::vector<TflmBuffer> buffers;
};

TflmPlan OraclePlan(const std::string& model_path, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {model_path, "--print-plan"};
  args.insert(args.end(), extra.begin(), extra.end());
  testing::CommandResult result = testing::RunOracle(args);
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  TflmPlan plan;
  std::istringstream lines(result.stdout_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("plan: buffers=", 0) == 0) {
      plan.head_bytes = std::stoul(line.substr(line.find("head_from_plan=") + 15));
      continue;
    }
    if (line.rfind("plan: ", 0) != 0 || line.find(" first_used ") != std::string::npos) continue;
    std::istringstream fields(line.substr(6));
    TflmBuffer buffer;
    std::string id, offline, kind, subgraph, tensor;
    fields >> id >> buffer.size_bytes >> buffer.first_used >> buffer.last_used >> buffer.offset_bytes >> offline >>
        kind >> subgraph >> tensor;
    buffer.is_scratch = kind == "scratch";
    if (!buffer.is_scratch) buffer.tensor = std::stoi(tensor);
    plan.buffers.push_back(buffer);
  }
  return plan;
}

// Our plan against TFLM's, buffer by buffer: lifetimes mapped from TFLM's
// numbering (its inclusive [first, last] is our [max(first - 1, 0), last)),
// offsets and head. `plan` comes from the planner that places buffers as
// TFLM does (greedy-tflm around the offline offsets).
void ExpectSamePlan(const report::ModelPlan& plan, const TflmPlan& tflm) {
  ASSERT_EQ(plan.buffers.size(), tflm.buffers.size());
  EXPECT_EQ(plan.head_bytes, tflm.head_bytes);
  size_t scratch_seen = 0;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& ours = plan.buffers[i];
    // TFLM lists tensors by index, then scratch in request order, as we do.
    const TflmBuffer& theirs = tflm.buffers[i];
    SCOPED_TRACE("buffer " + std::to_string(i));
    EXPECT_EQ(ours.kind == BufferKind::kScratch, theirs.is_scratch);
    if (!theirs.is_scratch) EXPECT_EQ(ours.owner_index, theirs.tensor);
    if (theirs.is_scratch) ++scratch_seen;
    EXPECT_EQ(ours.size_bytes, theirs.size_bytes);
    EXPECT_EQ(ours.lifetime.first_op, theirs.first_used > 0 ? theirs.first_used - 1 : 0);
    EXPECT_EQ(ours.lifetime.end_op, theirs.last_used);
    EXPECT_EQ(plan.offsets_bytes[i], theirs.offset_bytes);
  }
}

Result<report::ModelPlan> PlanAsTflm(const ModelView& model, std::vector<ScratchRequest> scratch = {}) {
  report::ModelPlanOptions options;
  options.planner = ReadOfflinePlan(model)->empty() ? "greedy-tflm" : "offline";
  options.compare = false;
  options.scratch = std::move(scratch);
  return report::PlanModel(model, options);
}

// A stand-in for the Ethos-U kernel with the allocations of TFLM's real one
// (what `tflm_oracle --emulate-ethosu` registers): op data in the persistent
// area and two 48 B scratch buffers. Eval copies the input to the output and
// fills the scratch buffers, so a wrong address shows in the output or in
// ASan.
constexpr size_t kEthosUScratchBytes = 48;
struct EthosUData {
  int32_t scratch[2];
};

Status EthosUPrepare(PrepareContext& context, const void** op_data) {
  if (context.input_count() != 5 || context.output_count() != 1 ||
      context.input(4).byte_size() != context.output(0).byte_size()) {
    return context.Error(ErrorCode::kInvalidArgument, "expects Vela's five inputs and one output of the input's size");
  }
  auto* data = static_cast<EthosUData*>(context.AllocatePersistent(sizeof(EthosUData)));
  if (data == nullptr) return context.OutOfMemory();
  for (int32_t& handle : data->scratch) {
    MICROARENA_RETURN_IF_ERROR(context.RequestScratch(kEthosUScratchBytes, &handle));
  }
  *op_data = data;
  return OkStatus();
}

Status EthosUEval(EvalContext& context, const void* op_data) {
  const auto* data = static_cast<const EthosUData*>(op_data);
  for (int32_t handle : data->scratch) std::memset(context.scratch(handle), 0x5a, kEthosUScratchBytes);
  std::memcpy(context.output(0)->data, context.input(4)->data, kInputBytes);
  return OkStatus();
}

constexpr KernelRegistration kTestEthosUKernel = {BuiltinOp::kCustom, EthosUPrepare, EthosUEval};
constexpr CustomKernel kTestCustomKernels[] = {{"ethos-u", &kTestEthosUKernel}};

const OpResolver& ResolverWithEthosU() {
  static const OpResolver resolver = AllOpsResolver().WithCustom(Span<const CustomKernel>(kTestCustomKernels));
  return resolver;
}

TEST(VelaModelTest, ReadBeforeWriteGetsTflmLifetime) {
  MICROARENA_REQUIRE_ORACLE();
  // x is read by op 1 and written by no op: TFLM gives it first_used -1 (open
  // at the start) and last_used 2, which is our [0, 2).
  const std::vector<uint8_t> bytes = ReadBeforeWriteModel();
  const std::string path = WriteModel("read_before_write", bytes);
  const TflmPlan tflm = OraclePlan(path);
  ASSERT_EQ(tflm.buffers.size(), 5u);
  EXPECT_EQ(tflm.buffers[2].tensor, 2);
  EXPECT_EQ(tflm.buffers[2].first_used, -1);
  EXPECT_EQ(tflm.buffers[2].last_used, 2);
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  Result<report::ModelPlan> plan = PlanAsTflm(*model);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->buffers[2].lifetime.first_op, 0);
  EXPECT_EQ(plan->buffers[2].lifetime.end_op, 2);
  ExpectSamePlan(*plan, tflm);  // head 128 B in TFLM
}

TEST(VelaModelTest, ReadThenWrittenGetsTflmLifetime) {
  MICROARENA_REQUIRE_ORACLE();
  // x is read by op 0, written by op 1, read by op 2: TFLM starts it at the
  // write (first_used 2, last_used 3: our [1, 3)); the early read does not count.
  const std::vector<uint8_t> bytes = ReadThenWrittenModel();
  const std::string path = WriteModel("read_then_written", bytes);
  const TflmPlan tflm = OraclePlan(path);
  ASSERT_EQ(tflm.buffers.size(), 4u);
  EXPECT_EQ(tflm.buffers[1].first_used, 2);
  EXPECT_EQ(tflm.buffers[1].last_used, 3);
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  Result<report::ModelPlan> plan = PlanAsTflm(*model);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ExpectSamePlan(*plan, tflm);  // head 96 B in TFLM
}

TEST(VelaModelTest, ReorderAgreesWithTheLifetimes) {
  // The reorder search counts live bytes its own way; the peak it reports
  // must equal the lower bound over AnalyzeLifetimes for its order.
  for (const std::vector<uint8_t>& bytes : {VelaLikeModel(), ReadBeforeWriteModel(), ReadThenWrittenModel()}) {
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    Result<ReorderResult> best = FindBestOrder(*model, {}, ReorderOptions{});
    ASSERT_TRUE(best.ok()) << best.status().message();
    Result<size_t> peak = PeakLiveBytes(*model, {}, best->order, 16);
    ASSERT_TRUE(peak.ok()) << peak.status().message();
    EXPECT_EQ(best->peak_bytes, *peak);
  }
  // The model that reads x before op 1 writes it keeps its stored order.
  const std::vector<uint8_t> bytes = ReadThenWrittenModel();
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok());
  Result<ReorderResult> best = FindBestOrder(*model, {}, ReorderOptions{});
  ASSERT_TRUE(best.ok());
  EXPECT_EQ(best->method, "stored");
  EXPECT_NE(best->note.find("read before"), std::string::npos) << best->note;
}

TEST(VelaModelTest, PlanShowsTheOfflineOffsetsAsTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<uint8_t> bytes = VelaLikeModel();
  const std::string path = WriteModel("vela_plan", bytes);
  // TFLM with a do-nothing ethos-u kernel: scratch (1008 B), scratch_fast
  // (208 B) and input (192 B) at offset 0 as the model says, the output
  // planned online above the largest of them: 1008 + 192 = 1200 B.
  const TflmPlan tflm = OraclePlan(path, {"--dummy-custom", "ethos-u"});
  EXPECT_EQ(tflm.head_bytes, 1200u);
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  Result<report::ModelPlan> plan = PlanAsTflm(*model);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ExpectSamePlan(*plan, tflm);
  // Three offline buffers share offset 0 while live: three pairs.
  EXPECT_EQ(plan->offline_shared_pairs, 3u);

  // The CLI plans it too: the head and tensor plan, with a note that the
  // custom op has no kernel here (so no runtime figures).
  testing::CommandResult text = testing::RunCli({"plan", path});
  EXPECT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("custom op 'ethos-u'"), std::string::npos) << text.stdout_text;
  EXPECT_NE(text.stdout_text.find("offline plan shares bytes between 3 pair(s)"), std::string::npos)
      << text.stdout_text;
  testing::CommandResult json = testing::RunCli({"plan", path, "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.stderr_text;
  EXPECT_NE(json.stdout_text.find("\"head_bytes\": 1200"), std::string::npos) << json.stdout_text;
}

TEST(VelaModelTest, RegisteredKernelRunsWithTflmPlan) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<uint8_t> bytes = VelaLikeModel();
  const std::string path = WriteModel("vela_run", bytes);
  // TFLM with the real kernel's allocations: two 48 B scratch buffers at the
  // step of the op, above the output: head 1296 B.
  const TflmPlan tflm = OraclePlan(path, {"--emulate-ethosu"});
  EXPECT_EQ(tflm.head_bytes, 1296u);
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  const std::vector<ScratchRequest> scratch = {{0, kEthosUScratchBytes}, {0, kEthosUScratchBytes}};
  Result<report::ModelPlan> plan = PlanAsTflm(*model, scratch);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ExpectSamePlan(*plan, tflm);

  InterpreterOptions options;
  options.trust_offline_plan = true;
  std::vector<uint8_t> arena(64 * 1024);
  Interpreter interpreter(*model, ResolverWithEthosU(), arena.data(), arena.size(), options);
  ASSERT_TRUE(interpreter.AllocateTensors().ok());
  EXPECT_EQ(interpreter.planner_used(), PlannerChoice::kOffline);
  EXPECT_EQ(interpreter.planned_head_bytes(), tflm.head_bytes);
  for (size_t i = 0; i < tflm.buffers.size(); ++i) {
    const TflmBuffer& buffer = tflm.buffers[i];
    if (buffer.is_scratch) {
      EXPECT_EQ(interpreter.scratch_offset_bytes(i - 4), buffer.offset_bytes) << "scratch " << i - 4;
    } else {
      EXPECT_EQ(interpreter.tensor_offset_bytes(static_cast<size_t>(buffer.tensor)), buffer.offset_bytes)
          << "tensor " << buffer.tensor;
    }
  }
  for (size_t i = 0; i < kInputBytes; ++i) interpreter.input(0)->data[i] = static_cast<uint8_t>(i * 7);
  ASSERT_TRUE(interpreter.Invoke().ok());
  for (size_t i = 0; i < kOutputBytes; ++i) {
    ASSERT_EQ(interpreter.output(0)->data[i], static_cast<uint8_t>(i * 7)) << "byte " << i;
  }
}

TEST(VelaModelTest, UnregisteredCustomOpFailsNamingIt) {
  const std::vector<uint8_t> bytes = VelaLikeModel();
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  InterpreterOptions options;
  options.trust_offline_plan = true;
  std::vector<uint8_t> arena(64 * 1024);
  Interpreter interpreter(*model, AllOpsResolver(), arena.data(), arena.size(), options);
  Status status = interpreter.AllocateTensors();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(status.message()).find("op 0 (custom op 'ethos-u'): no kernel is registered"),
            std::string::npos)
      << status.message();

  const std::string path = WriteModel("vela_no_kernel", bytes);
  testing::CommandResult run = testing::RunCli({"run", path, "--trust-offline-plan", "--output-dir",
                                                testing::TempDir("vela_no_kernel_out")});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.stderr_text.find("custom op 'ethos-u'"), std::string::npos) << run.stderr_text;
}

TEST(VelaModelTest, OfflineOverlapsNeedTrust) {
  const std::vector<uint8_t> bytes = VelaLikeModel();
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(model.ok()) << model.status().message();
  std::vector<uint8_t> arena(64 * 1024);
  Interpreter interpreter(*model, ResolverWithEthosU(), arena.data(), arena.size());
  Status status = interpreter.AllocateTensors();
  ASSERT_FALSE(status.ok());
  const std::string message = status.message();
  EXPECT_NE(message.find("the offline plan (OfflineMemoryAllocation) is an invalid plan"), std::string::npos) << message;
  EXPECT_NE(message.find("both are fixed by the offline plan"), std::string::npos) << message;
  EXPECT_NE(message.find("trust_offline_plan"), std::string::npos) << message;
}

TEST(VelaModelTest, TrustDoesNotCoverOverlapPlans) {
  // microarena's own overlap plan (every offset fixed) is checked against
  // the kernels' permissions, trusted or not: one that puts every tensor at
  // offset 0 is refused.
  const std::vector<uint8_t> bad = testing::DemoModelWithEveryTensorAtZero(kOverlapPlanMetadataName);
  ASSERT_FALSE(bad.empty());
  Result<ModelView> bad_model = LoadModel(Span<const uint8_t>(bad.data(), bad.size()));
  ASSERT_TRUE(bad_model.ok());
  InterpreterOptions options;
  options.allow_overlap = true;
  options.trust_offline_plan = true;
  std::vector<uint8_t> arena(256 * 1024);
  Interpreter interpreter(*bad_model, AllOpsResolver(), arena.data(), arena.size(), options);
  Status status = interpreter.AllocateTensors();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find(kOverlapPlanMetadataName), std::string::npos) << status.message();
}

// A plan with fixed offsets: buffers 0 and 1 fixed at 0 (the model's own
// placements), buffer 2 placed by a planner, all live at step 0.
struct FixedProblem {
  BufferRequest buffers[3];
  PlanningProblem problem;
  FixedProblem() {
    for (BufferRequest& buffer : buffers) {
      buffer.size_bytes = 64;
      buffer.lifetime = Lifetime{0, 1};
    }
    buffers[0].fixed_offset_bytes = 0;
    buffers[1].fixed_offset_bytes = 0;
    problem.buffers = Span<const BufferRequest>(buffers);
  }
};

TEST(VelaModelTest, TrustCoversOnlyTheModelsOwnPlacements) {
  FixedProblem fixed;
  const size_t shared[] = {0, 0, 64};
  // Untrusted: the two fixed buffers sharing bytes are refused, saying why.
  for (const Status& status : {CheckPlan(fixed.problem, Span<const size_t>(shared), 128),
                               VerifyPlan(fixed.problem, Span<const size_t>(shared), 128)}) {
    ASSERT_FALSE(status.ok());
    EXPECT_NE(std::string(status.message()).find("trust_offline_plan"), std::string::npos) << status.message();
  }
  fixed.problem.trust_fixed_overlaps = true;
  EXPECT_TRUE(CheckPlan(fixed.problem, Span<const size_t>(shared), 128).ok());
  EXPECT_TRUE(VerifyPlan(fixed.problem, Span<const size_t>(shared), 128).ok());
  // Trusted, but a buffer placed by a planner over a fixed one: corrupted.
  const size_t corrupted[] = {0, 0, 32};
  for (const Status& status : {CheckPlan(fixed.problem, Span<const size_t>(corrupted), 96),
                               VerifyPlan(fixed.problem, Span<const size_t>(corrupted), 96)}) {
    ASSERT_FALSE(status.ok());
    EXPECT_NE(std::string(status.message()).find("corrupted plan"), std::string::npos) << status.message();
  }
  // Trusted, but a fixed buffer moved from its offset: refused as before.
  const size_t moved[] = {0, 64, 128};
  EXPECT_FALSE(VerifyPlan(fixed.problem, Span<const size_t>(moved), 192).ok());
  EXPECT_FALSE(CheckPlan(fixed.problem, Span<const size_t>(moved), 192).ok());
}

}  // namespace
}  // namespace microarena
