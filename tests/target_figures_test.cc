// Arena figures for another target (InterpreterOptions::figures_for and
// `--target`): the host's own layout must count exactly what the arena holds,
// the Cortex-M layout must shrink only the pointer-holding records, and the
// CLI must say which target its figures are for. That the Cortex-M figures
// are the device's own minimum is shown on the device: the Cortex-M stage of
// scripts/test.sh runs every model under QEMU and compares.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/target_layout.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::CommandResult;
using testing::RunCli;

void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

ArenaFigures Measure(const std::vector<uint8_t>& bytes, const TargetLayout* target) {
  Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return {};
  InterpreterOptions options;
  options.figures_for = target;
  Result<ArenaFigures> figures = MeasureArena(*model, AllOpsResolver(), options);
  EXPECT_TRUE(figures.ok()) << figures.status().message();
  return figures.ok() ? *figures : ArenaFigures{};
}

void ExpectSameFigures(const ArenaFigures& a, const ArenaFigures& b, const std::string& name) {
  EXPECT_EQ(a.persistent_bytes, b.persistent_bytes) << name;
  for (size_t u = 0; u < kPersistentUseCount; ++u) {
    EXPECT_EQ(a.persistent_by_use[u], b.persistent_by_use[u]) << name << ": " << PersistentUseName(PersistentUse(u));
  }
  EXPECT_EQ(a.persistent_requested_bytes, b.persistent_requested_bytes) << name;
  EXPECT_EQ(a.head_bytes, b.head_bytes) << name;
  EXPECT_EQ(a.temp_peak_bytes, b.temp_peak_bytes) << name;
  EXPECT_EQ(a.used_bytes, b.used_bytes) << name;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> Models() {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> models = {{"demo", BuildDemoModel()}};
  const std::string shared = testing::SharedDir();
  if (!shared.empty()) {
    for (const char* name : {"kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8",
                             "keyword_scrambled_8bit", "trained_lstm_int8", "micro_speech_quantized",
                             "hello_world_float", "hello_world_int8", "simple_add_model"}) {
      models.emplace_back(name, testing::ReadFileBytes(shared + "/models/" + name + ".tflite"));
      EXPECT_FALSE(models.back().second.empty()) << name << " missing from " << shared << "/models";
    }
  }
  return models;
}

// Counting for this build's own layout is counting what was allocated: the
// second count must equal the arena's, figure by figure.
TEST(TargetFigures, HostLayoutCountsExactlyWhatTheArenaHolds) {
  for (const auto& [name, bytes] : Models()) {
    ExpectSameFigures(Measure(bytes, &HostLayout()), Measure(bytes, nullptr), name);
  }
}

// The layouts themselves: on this 64-bit host the records that hold
// pointers are twice the Cortex-M's (EvalTensor: two pointers and two bytes,
// 8 + 8 + 2 -> 24 here, 4 + 4 + 2 -> 12 there; a node is two pointers).
TEST(TargetFigures, CortexMRecordsAreHalfTheHostsPointerRecords) {
  ASSERT_EQ(sizeof(void*), 8u) << "this test describes a 64-bit host";
  EXPECT_EQ(HostLayout().eval_tensor_bytes, 24u);
  EXPECT_EQ(kCortexMLayout.eval_tensor_bytes, 12u);
  EXPECT_EQ(HostLayout().node_bytes, 16u);
  EXPECT_EQ(kCortexMLayout.node_bytes, 8u);
  EXPECT_EQ(FindTargetLayout("cortex-m"), &kCortexMLayout);
  EXPECT_EQ(FindTargetLayout("host"), &HostLayout());
  EXPECT_EQ(FindTargetLayout("cortex-m4"), nullptr);
  EXPECT_EQ(FindTargetLayout(nullptr), nullptr);
}

// One float ADD of three [1, 4] tensors, counted by hand. The tensor
// records take 3 x 24 = 72 -> 80 B at 16-byte granules here and 3 x 12 = 36
// -> 48 B on Cortex-M; the one node 16 B here and 8 -> 16 B there; the op
// data holds no pointer, so it is the same. The persistent areas differ by
// exactly 80 - 48 = 32 B; the head (three 16-byte tensors) not at all.
TEST(TargetFigures, CortexMPersistentAreaByHand) {
  ModelBuilder builder;
  std::vector<int32_t> tensors;
  for (const char* name : {"a", "b", "sum"}) {
    tensors.push_back(builder.AddTensor({name, TensorType::kFloat32, {1, 4}, 0, {}}));
  }
  OperatorSpec add;
  add.op = BuiltinOp::kAdd;
  add.inputs = {tensors[0], tensors[1]};
  add.outputs = {tensors[2]};
  builder.AddOperator(std::move(add));
  builder.SetInputs({tensors[0], tensors[1]});
  builder.SetOutputs({tensors[2]});
  const std::vector<uint8_t> bytes = builder.Build();

  const ArenaFigures host = Measure(bytes, nullptr);
  const ArenaFigures device = Measure(bytes, &kCortexMLayout);
  EXPECT_STREQ(device.target, "cortex-m");
  EXPECT_EQ(host.persistent_by_use[size_t(PersistentUse::kTensorMetadata)], 80u);
  EXPECT_EQ(device.persistent_by_use[size_t(PersistentUse::kTensorMetadata)], 48u);
  EXPECT_EQ(host.persistent_by_use[size_t(PersistentUse::kOpTable)], 16u);
  EXPECT_EQ(device.persistent_by_use[size_t(PersistentUse::kOpTable)], 16u);
  EXPECT_EQ(host.persistent_by_use[size_t(PersistentUse::kOpData)],
            device.persistent_by_use[size_t(PersistentUse::kOpData)]);
  EXPECT_EQ(host.persistent_bytes - device.persistent_bytes, 32u);
  EXPECT_EQ(host.head_bytes, 48u);
  EXPECT_EQ(device.head_bytes, 48u);
  // Planning's temp records hold size_t: smaller there, never larger.
  EXPECT_LT(device.temp_peak_bytes, host.temp_peak_bytes);
  EXPECT_EQ(device.used_bytes, device.persistent_bytes + std::max(device.head_bytes, device.temp_peak_bytes));
}

// Every shared model: the Cortex-M arena is never larger than the host's,
// the head is the same, and the persistent parts without pointers (op data
// aside, which kernels keep pointer-free) are unchanged.
TEST(TargetFigures, CortexMFiguresShrinkOnlyPointerRecords) {
  for (const auto& [name, bytes] : Models()) {
    const ArenaFigures host = Measure(bytes, nullptr);
    const ArenaFigures device = Measure(bytes, &kCortexMLayout);
    EXPECT_EQ(device.head_bytes, host.head_bytes) << name;
    EXPECT_LE(device.used_bytes, host.used_bytes) << name;
    EXPECT_LT(device.persistent_by_use[size_t(PersistentUse::kTensorMetadata)],
              host.persistent_by_use[size_t(PersistentUse::kTensorMetadata)])
        << name;
    for (PersistentUse use : {PersistentUse::kOpData, PersistentUse::kVariableState, PersistentUse::kScratchHandles}) {
      EXPECT_EQ(device.persistent_by_use[size_t(use)], host.persistent_by_use[size_t(use)])
          << name << ": " << PersistentUseName(use);
    }
  }
}

TEST(TargetFigures, PlanSaysWhichTargetItsFiguresAreFor) {
  const std::string dir = testing::TempDir("target_figures");
  const std::string model = dir + "/demo.tflite";
  WriteBytes(model, BuildDemoModel());
  CommandResult device = RunCli({"plan", model, "--target", "cortex-m"});
  ASSERT_EQ(device.exit_code, 0) << device.stderr_text;
  EXPECT_NE(device.stdout_text.find("target       cortex-m (Arm Cortex-M"), std::string::npos) << device.stdout_text;
  CommandResult json = RunCli({"plan", model, "--target", "cortex-m", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.stderr_text;
  EXPECT_NE(json.stdout_text.find("\"target\": \"cortex-m\""), std::string::npos);
  CommandResult host = RunCli({"plan", model, "--json"});
  ASSERT_EQ(host.exit_code, 0) << host.stderr_text;
  EXPECT_NE(host.stdout_text.find("\"target\": \"host\""), std::string::npos);

  CommandResult budget = RunCli({"budget", model, "--ram", "64K", "--target", "cortex-m", "--json"});
  EXPECT_EQ(budget.exit_code, 0) << budget.stderr_text;
}

TEST(TargetFigures, UnknownTargetsAndSharedArenasAreRefused) {
  const std::string dir = testing::TempDir("target_figures_bad");
  const std::string model = dir + "/demo.tflite";
  WriteBytes(model, BuildDemoModel());
  CommandResult unknown = RunCli({"plan", model, "--target", "riscv"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.stderr_text.find("--target 'riscv' is unknown (use one of: host, cortex-m)"), std::string::npos)
      << unknown.stderr_text;
  CommandResult budget = RunCli({"budget", model, "--ram", "64K", "--target", "avr"});
  EXPECT_EQ(budget.exit_code, 2);
  EXPECT_NE(budget.stderr_text.find("--target 'avr' is unknown"), std::string::npos) << budget.stderr_text;
  CommandResult shared = RunCli({"plan", model, model, "--target", "cortex-m"});
  EXPECT_EQ(shared.exit_code, 2);
  EXPECT_NE(shared.stderr_text.find("takes one model"), std::string::npos) << shared.stderr_text;
}

}  // namespace
}  // namespace microarena
