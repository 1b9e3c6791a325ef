// Control flow (IF, WHILE, CALL_ONCE) and resource variables (VAR_HANDLE,
// READ_VARIABLE, ASSIGN_VARIABLE) against TFLM itself: the models of
// tests/control_flow run in microarena and in the oracle with the same
// inputs; outputs must be equal byte for byte, microarena's arena no larger
// than TFLM's, and greedy-tflm's head equal to TFLM's own (the lifetimes are
// TFLM's, scope for scope).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "microarena/analysis/lifetimes.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/interpreter.h"
#include "tests/control_flow/control_flow_models.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using control_flow::ControlFlowModel;
using testing::Bytes;

// The oracle's "key=value" figure from its default (search) run.
size_t OracleFigure(const ControlFlowModel& m, const std::string& key) {
  const std::map<std::string, size_t> summary = testing::OracleSummary("control_flow_" + m.name, m.model, m.inputs);
  const auto it = summary.find(key);
  EXPECT_NE(it, summary.end()) << m.name << ": no " << key << " from the oracle";
  return it == summary.end() ? 0 : it->second;
}

class ControlFlowTest : public ::testing::TestWithParam<ControlFlowModel> {};

TEST_P(ControlFlowTest, OutputsMatchTflmByteForByte) {
  MICROARENA_REQUIRE_ORACLE();
  const ControlFlowModel& m = GetParam();
  const testing::Outcome tflm = testing::RunOracleOn("control_flow_" + m.name, m.model, m.inputs, 1 << 20);
  ASSERT_TRUE(tflm.ok) << tflm.error;
  const testing::Outcome ours = testing::RunOursOn(m.model, m.inputs);
  ASSERT_TRUE(ours.ok) << ours.error;
  ASSERT_EQ(ours.outputs.size(), tflm.outputs.size());
  for (size_t o = 0; o < ours.outputs.size(); ++o) EXPECT_EQ(ours.outputs[o], tflm.outputs[o]) << "output " << o;
}

TEST_P(ControlFlowTest, ArenaNoLargerThanTflmAndGreedyTflmHeadEqual) {
  MICROARENA_REQUIRE_ORACLE();
  const ControlFlowModel& m = GetParam();
  Result<ModelView> view = LoadModel(Span<const uint8_t>(m.model.data(), m.model.size()));
  ASSERT_TRUE(view.ok()) << view.status().message();
  Result<ArenaFigures> ours = MeasureArena(*view, AllOpsResolver(), InterpreterOptions{});
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  const size_t tflm_arena = OracleFigure(m, "min_arena_bytes");
  EXPECT_LE(ours->used_bytes, tflm_arena);
  InterpreterOptions tflm_like;
  tflm_like.planner = PlannerChoice::kGreedyTflm;
  Result<ArenaFigures> greedy_tflm = MeasureArena(*view, AllOpsResolver(), tflm_like);
  ASSERT_TRUE(greedy_tflm.ok()) << greedy_tflm.status().message();
  EXPECT_EQ(greedy_tflm->head_bytes, OracleFigure(m, "head_bytes"));
}

// run --dump-tensors writes every tensor of every subgraph after Invoke as
// TFLM's dump does (preserve_all_tensors): the same files, byte for byte,
// and the same index (tensors.txt).
TEST_P(ControlFlowTest, DumpOfEverySubgraphsTensorsMatchesTflms) {
  MICROARENA_REQUIRE_ORACLE();
  const ControlFlowModel& m = GetParam();
  const std::string dir = testing::TempDir("control_flow_dump_" + m.name);
  testing::WriteFile(dir + "/model.tflite", m.model);
  std::vector<std::string> ours_args = {"run",         dir + "/model.tflite", "--dump-tensors",
                                        dir + "/ours", "--output-dir",        dir};
  std::vector<std::string> tflm_args = {dir + "/model.tflite", "--no-search", "--dump-tensors", dir + "/tflm"};
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const std::string path = dir + "/input_" + std::to_string(i) + ".bin";
    testing::WriteFile(path, m.inputs[i]);
    for (auto* args : {&ours_args, &tflm_args}) args->insert(args->end(), {"--input", path});
  }
  const testing::CommandResult ours = testing::RunCli(ours_args);
  ASSERT_EQ(ours.exit_code, 0) << ours.stderr_text;
  const testing::CommandResult tflm = testing::RunOracle(tflm_args);
  ASSERT_EQ(tflm.exit_code, 0) << tflm.stderr_text;
  // A subgraph that never ran (the branch not taken, a body at 0 turns) holds
  // whatever its bytes held before: nothing to compare there.
  const std::string not_run = m.name == "if_then"   ? "tensor_s2_"
                              : m.name == "if_else" ? "tensor_s1_"
                              : m.name == "while_0" ? "tensor_s2_"
                                                    : "-";
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/tflm")) {
    const std::string name = entry.path().filename().string();
    ++files;
    if (name.rfind(not_run, 0) == 0) continue;
    EXPECT_EQ(testing::ReadFileBytes(dir + "/ours/" + name), testing::ReadFileBytes(entry.path().string())) << name;
  }
  size_t our_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/ours")) our_files += entry.is_regular_file();
  EXPECT_EQ(our_files, files);
  EXPECT_GT(files, 8u);  // tensors of all three subgraphs, and the index
}

INSTANTIATE_TEST_SUITE_P(Models, ControlFlowTest, ::testing::ValuesIn(control_flow::OracleControlFlowModels()),
                         [](const ::testing::TestParamInfo<ControlFlowModel>& info) { return info.param.name; });

// Runs `m` `invokes` times in one interpreter (state kept between calls)
// and returns output 0 after each call.
std::vector<Bytes> InvokeRepeatedly(const ControlFlowModel& m, int invokes) {
  std::vector<Bytes> outputs;
  Result<ModelView> view = LoadModel(Span<const uint8_t>(m.model.data(), m.model.size()));
  EXPECT_TRUE(view.ok()) << view.status().message();
  if (!view.ok()) return outputs;
  HostArena arena(1 << 16);
  Interpreter interpreter(*view, AllOpsResolver(), arena.data(), arena.size());
  Status allocated = interpreter.AllocateTensors();
  EXPECT_TRUE(allocated.ok()) << allocated.message();
  if (!allocated.ok()) return outputs;
  for (int k = 0; k < invokes; ++k) {
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      std::memcpy(interpreter.input(i)->data, m.inputs[i].data(), m.inputs[i].size());
    }
    Status invoked = interpreter.Invoke();
    EXPECT_TRUE(invoked.ok()) << invoked.message();
    if (!invoked.ok()) return outputs;
    outputs.emplace_back(interpreter.output(0)->data, interpreter.output(0)->data + interpreter.output_bytes(0));
  }
  return outputs;
}

// CALL_ONCE initialises the variable once; every Invoke adds the input to
// it. TFLM's golden comes from the same arithmetic without resource
// variables (the oracle has none): ADD chains of the init constant and x.
TEST(ControlFlowResourceTest, CallOnceInitialisesStateThatInvokesAccumulate) {
  MICROARENA_REQUIRE_ORACLE();
  const ControlFlowModel model = control_flow::CallOnceModel();
  const std::vector<Bytes> ours = InvokeRepeatedly(model, 3);
  ASSERT_EQ(ours.size(), 3u);
  for (int k = 1; k <= 3; ++k) {
    const ControlFlowModel equivalent = control_flow::CallOnceEquivalent(k);
    const testing::Outcome tflm =
        testing::RunOracleOn("control_flow_" + equivalent.name, equivalent.model, equivalent.inputs, 1 << 20);
    ASSERT_TRUE(tflm.ok) << tflm.error;
    EXPECT_EQ(ours[static_cast<size_t>(k - 1)], tflm.outputs[0]) << "after Invoke " << k;
  }
}

// The float state starts at 0 and gains x = {1, -2, 0.5, 3} per Invoke:
// after k calls it is k * x, exactly (small integers and halves).
TEST(ControlFlowResourceTest, StreamingStateSurvivesInvokesAndResets) {
  const ControlFlowModel model = control_flow::StreamingModel();
  Result<ModelView> view = LoadModel(Span<const uint8_t>(model.model.data(), model.model.size()));
  ASSERT_TRUE(view.ok()) << view.status().message();
  HostArena arena(1 << 16);
  Interpreter interpreter(*view, AllOpsResolver(), arena.data(), arena.size());
  ASSERT_TRUE(interpreter.AllocateTensors().ok());
  EXPECT_EQ(interpreter.resource_count(), 1u);
  const float x[4] = {1.0f, -2.0f, 0.5f, 3.0f};
  for (int round = 0; round < 2; ++round) {
    for (int k = 1; k <= 4; ++k) {
      std::memcpy(interpreter.input(0)->data, x, sizeof(x));
      const Status invoked = interpreter.Invoke();
      ASSERT_TRUE(invoked.ok()) << invoked.message();
      const float* out = interpreter.output(0)->As<float>();
      for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], static_cast<float>(k) * x[i]) << "round " << round << " k " << k;
    }
    // Back to zero, as after AllocateTensors.
    ASSERT_TRUE(interpreter.ResetVariableTensors().ok());
  }
}

}  // namespace
}  // namespace microarena

namespace microarena {
namespace {

// An IF model edited through the object API, loaded from an aligned copy.
Status LoadEdited(void (*edit)(tflite::ModelT*)) {
  const control_flow::ControlFlowModel m = control_flow::IfModel(true);
  std::unique_ptr<tflite::ModelT> model = tflite::UnPackModel(m.model.data());
  edit(model.get());
  ModelBuilder builder(std::move(*model));
  const std::vector<uint8_t> bytes = builder.Build();
  std::vector<uint32_t> words((bytes.size() + 3) / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  Result<ModelView> view = LoadModel(Span<const uint8_t>(reinterpret_cast<const uint8_t*>(words.data()), bytes.size()));
  if (!view.ok()) return view.status();
  Result<RunResult> run = RunModel(*view, AllOpsResolver(), RunOptions{});
  return run.ok() ? OkStatus() : run.status();
}

tflite::IfOptionsT* IfOptionsOf(tflite::ModelT* model) {
  return model->subgraphs[0]->operators[0]->builtin_options.AsIfOptions();
}

// Each load rule of control flow, both ways: the unedited model loads and
// runs (the tests above); each edit below is refused with the numbers.
TEST(ControlFlowLoadTest, BranchIndexOutsideTheModelIsRefused) {
  Status status = LoadEdited([](tflite::ModelT* m) { IfOptionsOf(m)->else_subgraph_index = 7; });
  EXPECT_EQ(status.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(std::string(status.message()).find("else_subgraph_index 7 outside [0, 3)"), std::string::npos)
      << status.message();
}

TEST(ControlFlowLoadTest, MissingOptionsAreRefused) {
  Status status = LoadEdited([](tflite::ModelT* m) { m->subgraphs[0]->operators[0]->builtin_options.Reset(); });
  EXPECT_EQ(status.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(std::string(status.message()).find("has no IF options"), std::string::npos) << status.message();
}

TEST(ControlFlowLoadTest, ASubgraphThatCallsItselfIsRefusedNotRecursedInto) {
  // The main subgraph as its own then-branch: TFLM would recurse until its stack ends.
  Status status = LoadEdited([](tflite::ModelT* m) { IfOptionsOf(m)->then_subgraph_index = 0; });
  EXPECT_EQ(status.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(status.message()).find("cycle"), std::string::npos) << status.message();
}

TEST(ControlFlowLoadTest, BranchWithOtherSizesIsRefusedAtPrepare) {
  // The else branch's input shrinks to 4 bytes: a copy of the 8-byte input would overrun it.
  Status status = LoadEdited([](tflite::ModelT* m) { m->subgraphs[2]->tensors[0]->shape = {1, 4}; });
  EXPECT_EQ(status.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(std::string(status.message()).find("does not match input 0 of subgraph 2"), std::string::npos)
      << status.message();
}

// A WHILE that would turn 5 times stops at the caller's limit of 3 turns
// with an error, and runs to its end with a limit of 5.
TEST(ControlFlowLoadTest, LoopTurnLimitStopsInvoke) {
  const control_flow::ControlFlowModel m = control_flow::WhileModel(5);
  Result<ModelView> view = LoadModel(Span<const uint8_t>(m.model.data(), m.model.size()));
  ASSERT_TRUE(view.ok());
  for (size_t limit : {size_t{3}, size_t{5}}) {
    HostArena arena(1 << 16);
    InterpreterOptions options;
    options.max_loop_iterations = limit;
    Interpreter interpreter(*view, AllOpsResolver(), arena.data(), arena.size(), options);
    ASSERT_TRUE(interpreter.AllocateTensors().ok());
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      std::memcpy(interpreter.input(i)->data, m.inputs[i].data(), m.inputs[i].size());
    }
    Status invoked = interpreter.Invoke();
    EXPECT_EQ(invoked.ok(), limit == 5) << invoked.message();
    if (limit == 3) EXPECT_NE(std::string(invoked.message()).find("more than 3 turns"), std::string::npos);
  }
}

// plan on a WHILE model: every subgraph's steps and tensors are named, in
// the text and the JSON. Steps (TFLM's scopes minus one): 0 WHILE, 1 entry
// of cond (subgraph 1), 2 its LESS, 3 entry of body (subgraph 2), 4 and 5
// its two ADDs, 6 the main ADD.
TEST(ControlFlowReportTest, PlanNamesEverySubgraphsStepsAndTensors) {
  const control_flow::ControlFlowModel m = control_flow::WhileModel(5);
  const std::string dir = testing::TempDir("control_flow_plan");
  testing::WriteFile(dir + "/while.tflite", m.model);
  const testing::CommandResult text = testing::RunCli({"plan", dir + "/while.tflite", "--timeline"});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  for (const char* expected : {"s1:t3  flag", "s2:t5  bx2", "s1 LESS", "s2 entry", "s2:1  ADD"}) {
    EXPECT_NE(text.stdout_text.find(expected), std::string::npos) << expected << "\n" << text.stdout_text;
  }
  const testing::CommandResult json_text = testing::RunCli({"plan", dir + "/while.tflite", "--json"});
  ASSERT_EQ(json_text.exit_code, 0) << json_text.stderr_text;
  const nlohmann::json doc = nlohmann::json::parse(json_text.stdout_text);
  const auto& steps = doc["steps"];
  ASSERT_EQ(steps.size(), 7u);
  const int expected_subgraph[7] = {0, 1, 1, 2, 2, 2, 0};
  const int expected_op[7] = {0, -1, 0, -1, 0, 1, 1};
  for (size_t s = 0; s < 7; ++s) {
    EXPECT_EQ(steps[s]["subgraph"], expected_subgraph[s]) << s;
    EXPECT_EQ(steps[s]["op_index"], expected_op[s]) << s;
  }
  size_t per_subgraph[3] = {};
  for (const auto& buffer : doc["buffers"]) per_subgraph[buffer["subgraph"].get<size_t>()] += 1;
  // main: i, x, n, y, z; cond: ci, cx, flag; body: bi, bx, bi2, bx2 (constants stay in flash).
  EXPECT_EQ(per_subgraph[0], 5u);
  EXPECT_EQ(per_subgraph[1], 3u);
  EXPECT_EQ(per_subgraph[2], 4u);
}

TEST(ControlFlowLoadTest, BranchInputThatIsAConstantIsRefused) {
  // The then-branch's input made constant: IF would copy its input over the model's bytes.
  Status status = LoadEdited([](tflite::ModelT* m) {
    m->buffers.push_back(std::make_unique<tflite::BufferT>());
    m->buffers.back()->data.assign(8, 1);
    m->subgraphs[1]->tensors[0]->buffer = static_cast<uint32_t>(m->buffers.size() - 1);
  });
  EXPECT_EQ(status.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(std::string(status.message()).find("pairs with a constant tensor 0 of subgraph 1"), std::string::npos)
      << status.message();
}

TEST(ControlFlowLoadTest, ConditionThatIsNotOneBoolIsRefused) {
  Status status = LoadEdited([](tflite::ModelT* m) { m->subgraphs[0]->tensors[0]->type = tflite::TensorType::INT8; });
  EXPECT_EQ(status.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(std::string(status.message()).find("the condition must be one BOOL"), std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace microarena
