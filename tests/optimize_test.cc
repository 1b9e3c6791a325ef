// `microarena optimize` and the model rewriter under it: reordered operators
// and an OfflineMemoryAllocation plan written without losing anything of the
// original file; the written models load, read back the same plan and run
// bit-exact (TFLM's goldens for the shared models).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "microarena/analysis/lifetimes.h"
#include "microarena/analysis/offline_plan.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_file.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/plan/check.h"
#include "microarena/plan/reorder.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/broken_plans.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using testing::ReadFileBytes;
using testing::RunCli;
using testing::SharedDir;
using testing::TempDir;

std::vector<std::pair<std::string, std::vector<uint8_t>>> AllModels() {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> models;
  models.emplace_back("demo", BuildDemoModel());
  if (!SharedDir().empty()) {
    for (const std::string& name : testing::SharedModelNames()) {
      models.emplace_back(name, ReadFileBytes(SharedDir() + "/models/" + name + ".tflite"));
    }
  }
  return models;
}

std::vector<uint8_t> TensorData(const TensorView& t) { return {t.data().begin(), t.data().end()}; }

// Every model, a random operator permutation and two metadata entries: the
// operators move, nothing else changes, the original's metadata survives, the
// new entries read back byte for byte, and the original file is embedded
// verbatim at a 64-byte boundary.
TEST(ModelRewriterTest, PermutesOperatorsAndAddsMetadataKeepingEverythingElse) {
  std::mt19937 rng(7);
  for (const auto& [name, bytes] : AllModels()) {
    SCOPED_TRACE(name);
    Result<ModelView> before = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
    ASSERT_TRUE(before.ok());
    SubgraphView old_graph = before->subgraph(0);
    ModelEdits edits;
    edits.operator_order.resize(old_graph.operator_count());
    for (size_t i = 0; i < edits.operator_order.size(); ++i) edits.operator_order[i] = static_cast<int32_t>(i);
    std::shuffle(edits.operator_order.begin(), edits.operator_order.end(), rng);
    std::vector<int32_t> offsets(old_graph.tensor_count(), -1);
    for (size_t t = 0; t < offsets.size(); t += 2) offsets[t] = static_cast<int32_t>(16 * t);
    edits.metadata.push_back({kOfflinePlanMetadataName, EncodeOfflinePlan(offsets)});
    edits.metadata.push_back({"note", {'h', 'i'}});

    Result<std::vector<uint8_t>> written = RewriteModel(Span<const uint8_t>(bytes.data(), bytes.size()), edits);
    ASSERT_TRUE(written.ok()) << written.status().message();
    Result<ModelFile> after_file = ModelFile::FromBytes(*written, "rewritten");
    ASSERT_TRUE(after_file.ok()) << after_file.status().message();
    const ModelView& after = after_file->view();
    SubgraphView new_graph = after.subgraph(0);

    ASSERT_EQ(new_graph.operator_count(), old_graph.operator_count());
    for (size_t i = 0; i < new_graph.operator_count(); ++i) {
      OperatorView moved = new_graph.op(i);
      OperatorView was = old_graph.op(static_cast<size_t>(edits.operator_order[i]));
      EXPECT_EQ(moved.code(), was.code());
      EXPECT_EQ(moved.version(), was.version());
      EXPECT_EQ(std::vector<int32_t>(moved.inputs().begin(), moved.inputs().end()),
                std::vector<int32_t>(was.inputs().begin(), was.inputs().end()));
      EXPECT_EQ(std::vector<int32_t>(moved.outputs().begin(), moved.outputs().end()),
                std::vector<int32_t>(was.outputs().begin(), was.outputs().end()));
      EXPECT_EQ(moved.raw()->builtin_options_type(), was.raw()->builtin_options_type());
    }
    ASSERT_EQ(new_graph.tensor_count(), old_graph.tensor_count());
    for (size_t t = 0; t < new_graph.tensor_count(); ++t) {
      EXPECT_STREQ(new_graph.tensor(t).name(), old_graph.tensor(t).name());
      EXPECT_EQ(new_graph.tensor(t).byte_size(), old_graph.tensor(t).byte_size());
      EXPECT_EQ(TensorData(new_graph.tensor(t)), TensorData(old_graph.tensor(t))) << "tensor " << t;
    }
    // The original's own metadata entries (converter versions, ...) survive.
    const tflite::Model* old_raw = tflite::GetModel(bytes.data());
    if (old_raw->metadata() != nullptr) {
      for (const tflite::Metadata* entry : *old_raw->metadata()) {
        const std::string entry_name = entry->name() ? entry->name()->str() : "";
        if (entry_name == kOfflinePlanMetadataName) continue;
        EXPECT_TRUE(after.has_metadata(entry_name.c_str())) << entry_name;
        Span<const uint8_t> old_data = before->metadata(entry_name.c_str());
        Span<const uint8_t> new_data = after.metadata(entry_name.c_str());
        EXPECT_TRUE(std::equal(old_data.begin(), old_data.end(), new_data.begin(), new_data.end())) << entry_name;
      }
    }
    Result<Span<const int32_t>> plan = ReadOfflinePlan(after);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ(std::vector<int32_t>(plan->begin(), plan->end()), offsets);
    Span<const uint8_t> note = after.metadata("note");
    EXPECT_EQ(std::string(note.begin(), note.end()), "hi");

    // The original, verbatim, at a 64-byte boundary (operators vector aside).
    auto at = std::search(written->begin(), written->end(), bytes.begin() + 8, bytes.begin() + 64);
    ASSERT_NE(at, written->end());
    const auto start = static_cast<size_t>(at - written->begin()) - 8;
    EXPECT_EQ(start % 64, 0u);
    EXPECT_EQ(written->size(), start + bytes.size());
  }
}

// How many times the original's bytes 8-64 (past its root offset) occur.
size_t EmbeddedCopies(const std::vector<uint8_t>& file, const std::vector<uint8_t>& original) {
  size_t copies = 0;
  for (auto at = file.begin();; ++at) {
    at = std::search(at, file.end(), original.begin() + 8, original.begin() + 64);
    if (at == file.end()) return copies;
    ++copies;
  }
}

// Subgraph 0's operators as their output lists, in order.
std::vector<std::vector<int32_t>> OperatorOutputs(const std::vector<uint8_t>& bytes) {
  Result<ModelView> view = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  EXPECT_TRUE(view.ok());
  std::vector<std::vector<int32_t>> outputs;
  if (!view.ok()) return outputs;
  for (size_t i = 0; i < view->subgraph(0).operator_count(); ++i) {
    const Span<const int32_t> o = view->subgraph(0).op(i).outputs();
    outputs.emplace_back(o.begin(), o.end());
  }
  return outputs;
}

// Rewriting a rewritten file rewrites the original it embeds: the file does
// not grow by the first rewrite's additions; the first rewrite's operator
// order, additions, replacements and drops carry over (a replaced entry of
// the original keeps its new bytes), a second order applies on top of the
// first, and a rewrite with no edits gives the same bytes.
TEST(ModelRewriterTest, RewritingARewrittenFileDoesNotNestIt) {
  std::mt19937 rng(11);
  for (const auto& [name, bytes] : AllModels()) {
    SCOPED_TRACE(name);
    Result<ModelView> before = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
    ASSERT_TRUE(before.ok());
    const size_t op_count = before->subgraph(0).operator_count();
    auto shuffled = [&] {
      std::vector<int32_t> order(op_count);
      for (size_t i = 0; i < op_count; ++i) order[i] = static_cast<int32_t>(i);
      std::shuffle(order.begin(), order.end(), rng);
      return order;
    };
    ModelEdits first_edits;
    first_edits.operator_order = shuffled();
    first_edits.metadata.push_back({"added", {'o', 'n', 'e'}});
    first_edits.metadata.push_back({"replaced", {'o', 'l', 'd'}});
    // The original's first entry replaced, its second dropped (when it has them).
    const std::string original_replaced = before->metadata_count() > 0 ? before->metadata_name(0) : "";
    const std::string original_dropped = before->metadata_count() > 1 ? before->metadata_name(1) : "";
    if (!original_replaced.empty()) first_edits.metadata.push_back({original_replaced, {'x', 'y', 'z'}});
    if (!original_dropped.empty()) first_edits.drop_metadata.push_back(original_dropped);
    Result<std::vector<uint8_t>> first = RewriteModel(Span<const uint8_t>(bytes.data(), bytes.size()), first_edits);
    ASSERT_TRUE(first.ok()) << first.status().message();

    ModelEdits second_edits;
    second_edits.metadata.push_back({"replaced", {'n', 'e', 'w'}});
    second_edits.operator_order = shuffled();
    Result<std::vector<uint8_t>> second = RewriteModel(Span<const uint8_t>(first->data(), first->size()), second_edits);
    ASSERT_TRUE(second.ok()) << second.status().message();
    EXPECT_EQ(EmbeddedCopies(*second, bytes), 1u);
    EXPECT_EQ(second->size(), first->size());  // "new" replaces "old", same length: no nesting

    // The second order applies to the first one's.
    const std::vector<std::vector<int32_t>> first_order = OperatorOutputs(*first);
    const std::vector<std::vector<int32_t>> second_order = OperatorOutputs(*second);
    ASSERT_EQ(second_order.size(), op_count);
    for (size_t i = 0; i < op_count; ++i) {
      EXPECT_EQ(second_order[i], first_order[static_cast<size_t>(second_edits.operator_order[i])]) << "op " << i;
    }
    Result<ModelView> second_view = LoadModel(Span<const uint8_t>(second->data(), second->size()));
    ASSERT_TRUE(second_view.ok());
    auto text = [&](const char* entry) {
      const Span<const uint8_t> data = second_view->metadata(entry);
      return std::string(data.begin(), data.end());
    };
    EXPECT_EQ(text("added"), "one");
    EXPECT_EQ(text("replaced"), "new");
    if (!original_replaced.empty()) EXPECT_EQ(text(original_replaced.c_str()), "xyz");
    if (!original_dropped.empty()) EXPECT_FALSE(second_view->has_metadata(original_dropped.c_str()));
    for (size_t i = 2; i < before->metadata_count(); ++i) {
      EXPECT_TRUE(second_view->has_metadata(before->metadata_name(i))) << before->metadata_name(i);
    }

    // No edits: the same file.
    Result<std::vector<uint8_t>> again = RewriteModel(Span<const uint8_t>(second->data(), second->size()), ModelEdits{});
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(*again, *second);
  }
}

// Custom options kept outside the flatbuffer are addressed from the start of
// the file, which a rewrite moves: refused by name, as external buffers are.
TEST(ModelRewriterTest, RefusesCustomOptionsOutsideTheFlatbuffer) {
  std::unique_ptr<tflite::ModelT> model = tflite::UnPackModel(BuildDemoModel().data());
  model->subgraphs[0]->operators[1]->large_custom_options_offset = 16;
  model->subgraphs[0]->operators[1]->large_custom_options_size = 4;
  ModelBuilder builder(std::move(*model));
  const std::vector<uint8_t> bytes = builder.Build();
  ASSERT_TRUE(LoadModel(Span<const uint8_t>(bytes.data(), bytes.size())).ok());
  Result<std::vector<uint8_t>> written = RewriteModel(Span<const uint8_t>(bytes.data(), bytes.size()), ModelEdits{});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(written.status().message()).find("subgraph 0, op 1 keeps its custom options outside"),
            std::string::npos)
      << written.status().message();
}

TEST(ModelRewriterTest, RejectsWhatIsNotAPermutation) {
  std::vector<uint8_t> demo = BuildDemoModel();
  ModelEdits edits;
  edits.operator_order = {0, 0};
  Result<std::vector<uint8_t>> written = RewriteModel(Span<const uint8_t>(demo.data(), demo.size()), edits);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(std::string(written.status().message()).find("lists 2 operators"), std::string::npos)
      << written.status().message();
  std::vector<uint8_t> garbage(100, 0x5A);
  EXPECT_FALSE(RewriteModel(Span<const uint8_t>(garbage.data(), garbage.size()), ModelEdits{}).ok());
}

// Two branches from one input, stored in the worst order (float32, sizes
// rounded to 16): in [1,4] = 16 B; PAD makes a1, a2 [1,256] = 1,024 B each;
// STRIDED_SLICE takes b1, b2 [1,4] = 16 B back; ADD makes out = 16 B.
// Stored: PAD1, PAD2, SLICE1, SLICE2, ADD: at PAD2 in + a1 + a2 = 2,064 B.
// Best: PAD1, SLICE1, PAD2, SLICE2, ADD: never more than one a live:
// in + a1 + b1 = 1,056 B (PAD2: in + b1 + a2 = 1,056; SLICE2: b1 + a2 + b2 =
// 1,056), and no order can do better: the second PAD needs in + its a + the
// other branch's b (or its a) = 1,056 B at least.
std::vector<uint8_t> BranchyModel() {
  ModelBuilder builder;
  auto f32 = [&](const std::string& name, std::vector<int32_t> shape) {
    return builder.AddTensor({name, TensorType::kFloat32, std::move(shape), 0, {}});
  };
  int32_t in = f32("in", {1, 4});
  int32_t paddings = builder.AddConstantTensor({"paddings", TensorType::kInt32, {2, 2}, 0, {}},
                                               BytesOf(std::vector<int32_t>{0, 0, 0, 252}));
  int32_t begin = builder.AddConstantTensor({"begin", TensorType::kInt32, {2}, 0, {}},
                                            BytesOf(std::vector<int32_t>{0, 0}));
  int32_t end = builder.AddConstantTensor({"end", TensorType::kInt32, {2}, 0, {}}, BytesOf(std::vector<int32_t>{1, 4}));
  int32_t strides = builder.AddConstantTensor({"strides", TensorType::kInt32, {2}, 0, {}},
                                              BytesOf(std::vector<int32_t>{1, 1}));
  int32_t a1 = f32("a1", {1, 256});
  int32_t a2 = f32("a2", {1, 256});
  int32_t b1 = f32("b1", {1, 4});
  int32_t b2 = f32("b2", {1, 4});
  int32_t out = f32("out", {1, 4});
  auto pad = [&](int32_t to) {
    OperatorSpec spec;
    spec.op = BuiltinOp::kPad;
    spec.inputs = {in, paddings};
    spec.outputs = {to};
    spec.options = MakeBuiltinOptions(tflite::PadOptionsT{});
    builder.AddOperator(std::move(spec));
  };
  auto slice = [&](int32_t from, int32_t to) {
    OperatorSpec spec;
    spec.op = BuiltinOp::kStridedSlice;
    spec.inputs = {from, begin, end, strides};
    spec.outputs = {to};
    spec.options = MakeBuiltinOptions(tflite::StridedSliceOptionsT{});
    builder.AddOperator(std::move(spec));
  };
  pad(a1);
  pad(a2);
  slice(a1, b1);
  slice(a2, b2);
  OperatorSpec add;
  add.op = BuiltinOp::kAdd;
  add.inputs = {b1, b2};
  add.outputs = {out};
  add.options = MakeBuiltinOptions(tflite::AddOptionsT{});
  builder.AddOperator(std::move(add));
  builder.SetInputs({in});
  builder.SetOutputs({out});
  return builder.Build();
}

TEST(OptimizeCommandTest, BestOrderOnABranchyModelSavesWhatTheHandCountSays) {
  const std::string dir = TempDir("optimize_branchy");
  const std::string model_path = dir + "/branchy.tflite";
  {
    std::vector<uint8_t> bytes = BranchyModel();
    FILE* f = std::fopen(model_path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
  }
  const std::string out_path = dir + "/branchy.opt.tflite";
  // --time-limit 0: no clock, so "proven optimal" does not depend on how busy the machine is.
  auto result = RunCli({"optimize", model_path, "-o", out_path, "--order", "best", "--json", "--time-limit", "0"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  auto doc = nlohmann::json::parse(result.stdout_text);
  EXPECT_EQ(doc["stored_order_peak_bytes"], 2064);
  EXPECT_EQ(doc["order_peak_bytes"], 1056);
  EXPECT_EQ(doc["planned_head_bytes"], 1056);
  EXPECT_EQ(doc["order_proven_optimal"], true);
  EXPECT_EQ(doc["outputs_identical"], true);
  EXPECT_EQ(doc["operator_order"], nlohmann::json({0, 2, 1, 3, 4}));

  // The written file: operators in the new order, the runtime's offline plan
  // gives the 1,056 B head, and the outputs equal the original's for several
  // seeds (the ops are the same, only their order changed).
  Result<ModelFile> original = ModelFile::Open(model_path);
  Result<ModelFile> optimized = ModelFile::Open(out_path);
  ASSERT_TRUE(original.ok() && optimized.ok());
  EXPECT_EQ(optimized->view().subgraph(0).op(1).code(), BuiltinOp::kStridedSlice);
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    RunOptions run;
    run.seed = seed;
    RunOptions offline = run;
    offline.interpreter.planner = PlannerChoice::kOffline;
    Result<RunResult> a = RunModel(original->view(), AllOpsResolver(), run);
    Result<RunResult> b = RunModel(optimized->view(), AllOpsResolver(), offline);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->outputs, b->outputs);
    EXPECT_EQ(a->head_bytes, 2064u);
    EXPECT_EQ(b->head_bytes, 1056u);
  }
}

// For shared models: the file written by optimize runs with the offline
// planner bit-exact with TFLM's goldens, and its plan is exactly the optimal
// plan of the original (read back and compared; checked as a valid plan).
TEST(OptimizeCommandTest, OptimizedSharedModelsRunBitExactWithTheirOfflinePlan) {
  MICROARENA_REQUIRE_SHARED();
  const std::string dir = TempDir("optimize_shared");
  for (const char* name : {"kws_ref_model", "keyword_scrambled_8bit", "trained_lstm_int8"}) {
    SCOPED_TRACE(name);
    const std::string in = SharedDir() + "/models/" + name + ".tflite";
    const std::string out = dir + "/" + name + ".opt.tflite";
    auto result = RunCli({"optimize", in, "-o", out, "--order", "best"});
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
    EXPECT_NE(result.stdout_text.find("identical to the original"), std::string::npos) << result.stdout_text;

    Result<ModelFile> file = ModelFile::Open(out);
    ASSERT_TRUE(file.ok()) << file.status().message();
    Result<Span<const int32_t>> plan = ReadOfflinePlan(file->view());
    ASSERT_TRUE(plan.ok());
    ASSERT_FALSE(plan->empty());
    // The offsets form a valid plan for the file's own lifetimes.
    Result<std::vector<ScratchRequest>> scratch = CollectScratchRequests(file->view(), AllOpsResolver());
    ASSERT_TRUE(scratch.ok());
    std::vector<BufferRequest> requests(LifetimeCapacity(file->view().subgraph(0), 0));
    LifetimeOptions options;
    Result<size_t> count = AnalyzeLifetimes(file->view(), 0, {}, options,
                                            Span<BufferRequest>(requests.data(), requests.size()));
    ASSERT_TRUE(count.ok());
    std::vector<size_t> offsets;
    size_t head = 0;
    for (size_t i = 0; i < *count; ++i) {
      const int32_t offset = (*plan)[static_cast<size_t>(requests[i].owner_index)];
      ASSERT_GE(offset, 0) << "planned tensor " << requests[i].owner_index << " has no offline offset";
      offsets.push_back(static_cast<size_t>(offset));
      head = std::max(head, offsets.back() + requests[i].size_bytes);
    }
    PlanningProblem problem{Span<const BufferRequest>(requests.data(), *count), 16};
    Status check = CheckPlan(problem, Span<const size_t>(offsets.data(), offsets.size()), head);
    EXPECT_TRUE(check.ok()) << check.message();

    for (uint32_t seed = 1; seed <= 3; ++seed) {
      RunOptions run;
      run.seed = seed;
      run.interpreter.planner = PlannerChoice::kOffline;
      Result<RunResult> ran = RunModel(file->view(), AllOpsResolver(), run);
      ASSERT_TRUE(ran.ok()) << ran.status().message();
      EXPECT_EQ(ran->planner, PlannerChoice::kOffline);
      const std::string golden = SharedDir() + "/golden/" + name + "/seed" + std::to_string(seed);
      for (size_t o = 0; o < ran->outputs.size(); ++o) {
        EXPECT_EQ(ran->outputs[o], ReadFileBytes(golden + "/output_" + std::to_string(o) + ".bin")) << "output " << o;
      }
    }
  }
}

// --target cortex-m: the original's and the written model's arenas are the
// ones `plan --target cortex-m` reports for each file (the figures the
// Cortex-M stage proves on the device), and below the host's, whose records
// hold 64-bit pointers.
TEST(OptimizeCommandTest, TargetFiguresAreThePlanCommandsForEachFile) {
  const std::string dir = TempDir("optimize_target");
  const std::string model_path = dir + "/branchy.tflite";
  {
    std::vector<uint8_t> bytes = BranchyModel();
    std::ofstream out(model_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const std::string out_path = dir + "/branchy.opt.tflite";
  auto host = RunCli({"optimize", model_path, "-o", out_path, "--order", "best", "--json"});
  ASSERT_EQ(host.exit_code, 0) << host.stderr_text;
  auto device = RunCli({"optimize", model_path, "-o", out_path, "--order", "best", "--json", "--target", "cortex-m"});
  ASSERT_EQ(device.exit_code, 0) << device.stderr_text;
  auto host_doc = nlohmann::json::parse(host.stdout_text);
  auto device_doc = nlohmann::json::parse(device.stdout_text);
  EXPECT_EQ(host_doc["target"], "host");
  EXPECT_EQ(device_doc["target"], "cortex-m");
  auto plan_arena = [](const std::string& path) {
    auto plan = RunCli({"plan", path, "--target", "cortex-m", "--json"});
    EXPECT_EQ(plan.exit_code, 0) << plan.stderr_text;
    return nlohmann::json::parse(plan.stdout_text)["runtime"]["arena_bytes"].get<size_t>();
  };
  EXPECT_EQ(device_doc["original_arena_bytes"].get<size_t>(), plan_arena(model_path));
  EXPECT_EQ(device_doc["offline_arena_bytes"].get<size_t>(), plan_arena(out_path));
  EXPECT_LT(device_doc["original_arena_bytes"].get<size_t>(), host_doc["original_arena_bytes"].get<size_t>());
  EXPECT_LT(device_doc["offline_arena_bytes"].get<size_t>(), host_doc["offline_arena_bytes"].get<size_t>());

  auto text = RunCli({"optimize", model_path, "-o", out_path, "--target", "cortex-m"});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("on cortex-m"), std::string::npos) << text.stdout_text;
  auto unknown = RunCli({"optimize", model_path, "-o", out_path, "--target", "riscv"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.stderr_text;
  EXPECT_NE(unknown.stderr_text.find("riscv"), std::string::npos) << unknown.stderr_text;
}

TEST(OptimizeCommandTest, BadArgumentsAreRefused) {
  auto missing_output = RunCli({"optimize", "nonexistent.tflite"});
  EXPECT_EQ(missing_output.exit_code, 2);
  EXPECT_NE(missing_output.stderr_text.find("--output"), std::string::npos) << missing_output.stderr_text;
  auto bad_order = RunCli({"optimize", "x.tflite", "-o", "y.tflite", "--order", "random"});
  EXPECT_EQ(bad_order.exit_code, 2);
  EXPECT_NE(bad_order.stderr_text.find("--order"), std::string::npos) << bad_order.stderr_text;
  auto missing_model = RunCli({"optimize", TempDir("optimize_missing") + "/none.tflite", "-o", "/tmp/none.tflite"});
  EXPECT_EQ(missing_model.exit_code, 1);
  EXPECT_NE(missing_model.stderr_text.find("none.tflite"), std::string::npos) << missing_model.stderr_text;
}

}  // namespace
}  // namespace microarena

namespace microarena {
namespace {

// optimize --overlap on vww_96_int8: the plan goes under microarena's own
// metadata name (never OfflineMemoryAllocation, so stock TFLM plans the model
// itself); our runtime with allow_overlap uses it (and the whole plan the
// file also stores, so nothing is planned at boot): head at least 25% below
// the no-overlap lower bound, arena below 0.6 x TFLM's minimum, outputs
// bit-exact with TFLM's goldens. Without allow_overlap the plan is ignored.
TEST(OptimizeCommandTest, OverlapPlanIsForMicroarenaOnlyAndRunsBitExact) {
  MICROARENA_REQUIRE_SHARED();
  const std::string name = "vww_96_int8";
  const std::string out = TempDir("optimize_overlap") + "/vww.overlap.tflite";
  auto result = RunCli({"optimize", SharedDir() + "/models/" + name + ".tflite", "-o", out, "--overlap", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  auto doc = nlohmann::json::parse(result.stdout_text);
  EXPECT_EQ(doc["tflm_safe"], false);
  EXPECT_EQ(doc["metadata_name"], kOverlapPlanMetadataName);
  EXPECT_GT(doc["used_overlaps"].get<int>(), 0);
  EXPECT_EQ(doc["outputs_identical"], true);

  Result<ModelFile> file = ModelFile::Open(out);
  ASSERT_TRUE(file.ok());
  EXPECT_FALSE(file->view().has_metadata(kOfflinePlanMetadataName));
  EXPECT_TRUE(file->view().has_metadata(kOverlapPlanMetadataName));

  const size_t tflm_min = testing::TflmMinArena(name);
  ASSERT_GT(tflm_min, 0u);
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string golden = SharedDir() + "/golden/" + name + "/seed" + std::to_string(seed) + "/output_0.bin";
    RunOptions with;
    with.seed = seed;
    with.interpreter.allow_overlap = true;
    Result<RunResult> ran = RunModel(file->view(), AllOpsResolver(), with);
    ASSERT_TRUE(ran.ok()) << ran.status().message();
    // The automatic choice takes the whole plan the file stores (nothing
    // planned at boot); `offline` plans around the stored tensor offsets.
    EXPECT_EQ(ran->planner, PlannerChoice::kPrecomputed);
    EXPECT_TRUE(ran->stored_plan_used);
    EXPECT_EQ(ran->temp_peak_bytes, 0u);
    EXPECT_EQ(ran->outputs[0], ReadFileBytes(golden));
    RunOptions offline = with;
    offline.interpreter.planner = PlannerChoice::kOffline;
    Result<RunResult> planned = RunModel(file->view(), AllOpsResolver(), offline);
    ASSERT_TRUE(planned.ok()) << planned.status().message();
    EXPECT_EQ(planned->planner, PlannerChoice::kOffline);
    EXPECT_EQ(planned->head_bytes, ran->head_bytes);
    EXPECT_EQ(planned->outputs[0], ReadFileBytes(golden));
    EXPECT_LE(ran->head_bytes * 4, ran->lower_bound_bytes * 3) << ran->head_bytes << " vs " << ran->lower_bound_bytes;
    EXPECT_LT(ran->used_bytes * 10, tflm_min * 6) << ran->used_bytes << " vs TFLM " << tflm_min;

    RunOptions without;
    without.seed = seed;
    Result<RunResult> plain = RunModel(file->view(), AllOpsResolver(), without);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain->planner, PlannerChoice::kGreedy);
    EXPECT_EQ(plain->outputs[0], ReadFileBytes(golden));
  }
}

// A stored plan is verified before use: one that puts every planned tensor at
// offset 0 is refused, whether it claims to be an overlap plan or TFLM's.
TEST(OptimizeCommandTest, StoredPlansThatBreakTheRulesAreRefused) {
  for (const char* metadata_name : {kOverlapPlanMetadataName, kOfflinePlanMetadataName}) {
    SCOPED_TRACE(metadata_name);
    std::vector<uint8_t> bad = testing::DemoModelWithEveryTensorAtZero(metadata_name);
    ASSERT_FALSE(bad.empty());
    Result<ModelFile> file = ModelFile::FromBytes(bad, "bad-plan");
    ASSERT_TRUE(file.ok());
    RunOptions run;
    run.arena_bytes = 256 * 1024;
    run.interpreter.allow_overlap = true;
    run.interpreter.planner = PlannerChoice::kOffline;
    Result<RunResult> ran = RunModel(file->view(), AllOpsResolver(), run);
    ASSERT_FALSE(ran.ok());
    EXPECT_NE(std::string(ran.status().message()).find("invalid plan"), std::string::npos) << ran.status().message();
  }
}

}  // namespace
}  // namespace microarena

namespace microarena {
namespace {

std::string WriteBranchyModel(const std::string& dir) {
  const std::string path = dir + "/branchy.tflite";
  std::vector<uint8_t> bytes = BranchyModel();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  return path;
}

// plan --order best: the hand-counted peaks of the branchy model, the head in
// that order, and runtime figures for the model stored in that order.
TEST(PlanOrderTest, BestOrderIsReportedWithTheHeadItGives) {
  const std::string path = WriteBranchyModel(TempDir("plan_order_branchy"));
  // --time-limit 0 (no clock): the same verdict on a busy machine.
  auto result = RunCli({"plan", path, "--order", "best", "--json", "--time-limit", "0"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  auto doc = nlohmann::json::parse(result.stdout_text);
  EXPECT_EQ(doc["order"]["stored_peak_bytes"], 2064);
  EXPECT_EQ(doc["order"]["peak_bytes"], 1056);
  EXPECT_EQ(doc["order"]["saved_bytes"], 1008);
  EXPECT_EQ(doc["order"]["proven_optimal"], true);
  EXPECT_EQ(doc["head_bytes"], 1056);
  EXPECT_EQ(doc["runtime"]["head_bytes"], 1056);  // greedy on the reordered model

  auto stored = RunCli({"plan", path, "--json"});
  ASSERT_EQ(stored.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(stored.stdout_text)["head_bytes"], 2064);

  auto text = RunCli({"plan", path, "--order", "best", "--time-limit", "0"});
  EXPECT_NE(text.stdout_text.find("1,008 B saved; proven optimal over all valid orders"), std::string::npos)
      << text.stdout_text;
  auto header = RunCli({"plan", path, "--order", "best", "--header", TempDir("plan_order_header") + "/a.h"});
  EXPECT_EQ(header.exit_code, 2);
  EXPECT_NE(header.stderr_text.find("optimize"), std::string::npos) << header.stderr_text;
}

// The residual network: the best order is reported with its proof status and
// never has a larger head than the stored order.
TEST(PlanOrderTest, ResnetBestOrderIsProvenAndNeverWorse) {
  MICROARENA_REQUIRE_SHARED();
  const std::string path = SharedDir() + "/models/pretrainedResnet_quant.tflite";
  // --time-limit 0 (no clock): the same verdict on a busy machine.
  auto best = RunCli({"plan", path, "--order", "best", "--json", "--planner", "greedy", "--time-limit", "0"});
  auto stored = RunCli({"plan", path, "--json", "--planner", "greedy"});
  ASSERT_EQ(best.exit_code, 0) << best.stderr_text;
  ASSERT_EQ(stored.exit_code, 0) << stored.stderr_text;
  auto best_doc = nlohmann::json::parse(best.stdout_text);
  auto stored_doc = nlohmann::json::parse(stored.stdout_text);
  EXPECT_EQ(best_doc["order"]["proven_optimal"], true);
  EXPECT_EQ(best_doc["order"]["method"], "exact");
  EXPECT_LE(best_doc["head_bytes"].get<size_t>(), stored_doc["head_bytes"].get<size_t>());
  EXPECT_EQ(best_doc["order"]["stored_peak_bytes"], stored_doc["lower_bound_bytes"]);
  EXPECT_EQ(best_doc["order"]["operator_order"].size(), 16u);
}

// plan A B: one shared arena, as measured by allocating both models in a
// SharedArena; equal to the sum of the persistent areas plus the larger head
// (temp stays below the head for these two).
TEST(PlanSharedTest, TwoModelsShareOneHead) {
  MICROARENA_REQUIRE_SHARED();
  const std::string kws = SharedDir() + "/models/kws_ref_model.tflite";
  const std::string vww = SharedDir() + "/models/vww_96_int8.tflite";
  auto result = RunCli({"plan", kws, vww, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  auto doc = nlohmann::json::parse(result.stdout_text);
  ASSERT_EQ(doc["models"].size(), 2u);
  Result<ModelFile> a = ModelFile::Open(kws);
  Result<ModelFile> b = ModelFile::Open(vww);
  Result<ArenaFigures> fa = MeasureArena(a->view(), AllOpsResolver());
  Result<ArenaFigures> fb = MeasureArena(b->view(), AllOpsResolver());
  ASSERT_TRUE(fa.ok() && fb.ok());
  EXPECT_EQ(doc["models"][0]["persistent_bytes"], fa->persistent_bytes);
  EXPECT_EQ(doc["models"][1]["persistent_bytes"], fb->persistent_bytes);
  EXPECT_EQ(doc["shared_arena_bytes"].get<size_t>(),
            fa->persistent_bytes + fb->persistent_bytes + std::max(fa->head_bytes, fb->head_bytes));
  EXPECT_EQ(doc["separate_arenas_bytes"].get<size_t>(), fa->used_bytes + fb->used_bytes);

  auto text = RunCli({"plan", kws, vww});
  EXPECT_NE(text.stdout_text.find("sharing saves"), std::string::npos) << text.stdout_text;
  auto refused = RunCli({"plan", kws, vww, "--timeline"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.stderr_text.find("take one model"), std::string::npos) << refused.stderr_text;
}

}  // namespace
}  // namespace microarena
