// Kernel data in flash (runtime/kernel_data.h): what the kernels' Prepare
// computes is stored in the model, and the runtime reads it from there where
// it is byte-identical to what Prepare computes, giving the RAM copy back.
// A blob that is stale, corrupted, malformed or misaligned is never trusted:
// outputs stay identical and the data stays in RAM.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_file.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/kernel_data.h"
#include "microarena/runtime/kernel_data_writer.h"
#include "tests/control_flow/control_flow_models.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

using Bytes = std::vector<uint8_t>;
using testing::ReadFileBytes;
using testing::SharedDir;

ModelView View(const Bytes& bytes) {
  Result<ModelView> view = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
  EXPECT_TRUE(view.ok()) << view.status().message();
  return *view;
}

ComputedKernelData Compute(const Bytes& model) {
  Result<ComputedKernelData> computed = ComputeKernelData(View(model), AllOpsResolver());
  EXPECT_TRUE(computed.ok()) << computed.status().message();
  return computed.ok() ? *computed : ComputedKernelData{};
}

Bytes WithBlob(const Bytes& model, Bytes blob) {
  ModelEdits edits;
  edits.metadata.push_back({kKernelDataMetadataName, std::move(blob)});
  Result<Bytes> rewritten = RewriteModel(Span<const uint8_t>(model.data(), model.size()), edits);
  EXPECT_TRUE(rewritten.ok()) << rewritten.status().message();
  return rewritten.ok() ? *rewritten : Bytes{};
}

Bytes WithKernelData(const Bytes& model) { return WithBlob(model, EncodeKernelData(Compute(model))); }

// The blob's place inside the model's bytes (to damage it in place).
size_t BlobOffset(const Bytes& model) {
  Span<const uint8_t> blob = View(model).metadata(kKernelDataMetadataName);
  EXPECT_FALSE(blob.empty());
  return static_cast<size_t>(blob.data() - model.data());
}

void Rehash(Bytes& model) {
  const size_t at = BlobOffset(model);
  const size_t size = View(model).metadata(kKernelDataMetadataName).size();
  const uint64_t hash = Fnv1a64(model.data() + at + kKernelDataHeaderBytes, size - kKernelDataHeaderBytes);
  std::memcpy(model.data() + at + 24, &hash, sizeof(hash));
}

ArenaFigures Measure(const Bytes& model, bool use_kernel_data = true) {
  InterpreterOptions options;
  options.use_kernel_data = use_kernel_data;
  Result<ArenaFigures> figures = MeasureArena(View(model), AllOpsResolver(), options);
  EXPECT_TRUE(figures.ok()) << figures.status().message();
  return figures.ok() ? *figures : ArenaFigures{};
}

std::vector<Bytes> Outputs(const Bytes& model, uint32_t seed = 1) {
  RunOptions options;
  options.seed = seed;
  Result<RunResult> run = RunModel(View(model), AllOpsResolver(), options);
  EXPECT_TRUE(run.ok()) << run.status().message();
  return run.ok() ? run->outputs : std::vector<Bytes>{};
}

size_t OpData(const ArenaFigures& f) { return f.persistent_by_use[static_cast<size_t>(PersistentUse::kOpData)]; }

// The demo model's ops all keep read-only data: with the blob, none of it is
// in RAM, the persistent area shrinks by exactly the op data it had, and the
// outputs do not change.
TEST(KernelDataTest, DemoModelKeepsNoOpDataInRam) {
  const Bytes plain = BuildDemoModel();
  const Bytes stored = WithKernelData(plain);
  const ArenaFigures before = Measure(plain);
  const ArenaFigures after = Measure(stored);
  ASSERT_GT(OpData(before), 0u);
  EXPECT_EQ(after.kernel_data.state, KernelDataState::kUsed);
  EXPECT_EQ(OpData(after), 0u);
  EXPECT_EQ(after.persistent_bytes, before.persistent_bytes - OpData(before));
  EXPECT_EQ(after.kernel_data.ram_bytes_saved, OpData(before));
  EXPECT_EQ(after.kernel_data.ops_recomputed, 0u);
  EXPECT_EQ(after.kernel_data.ops_in_flash, Compute(plain).records.size());
  EXPECT_EQ(after.used_bytes, before.used_bytes - OpData(before));
  EXPECT_EQ(Outputs(stored), Outputs(plain));
  // Switched off, the same file keeps everything in RAM.
  const ArenaFigures off = Measure(stored, /*use_kernel_data=*/false);
  EXPECT_EQ(off.kernel_data.state, KernelDataState::kAbsent);
  EXPECT_EQ(off.persistent_bytes, before.persistent_bytes);
}

// The minimum arena the runtime reports stays exact: the op data is taken
// from the tail before it is found in flash and given back, and that moment
// counts too.
TEST(KernelDataTest, MinimumArenaStaysExact) {
  const Bytes stored = WithKernelData(BuildDemoModel());
  const size_t used = Measure(stored).used_bytes;
  for (size_t arena : {used, used - 16}) {
    RunOptions options;
    options.arena_bytes = arena;
    Result<RunResult> run = RunModel(View(stored), AllOpsResolver(), options);
    EXPECT_EQ(run.ok(), arena == used) << arena << " B: " << (run.ok() ? "ran" : run.status().message());
  }
}

// Every shared model with TFLM's goldens: bit-exact on every seed with the
// data read from flash, and less op data in RAM than without.
TEST(KernelDataTest, SharedModelsStayBitExactWithTflmGoldens) {
  MICROARENA_REQUIRE_SHARED();
  const std::vector<std::string> models = testing::GoldenOutputModels();
  ASSERT_GE(models.size(), 9u);
  for (const std::string& name : models) {
    SCOPED_TRACE(name);
    const Bytes plain = ReadFileBytes(SharedDir() + "/models/" + name + ".tflite");
    const Bytes stored = WithKernelData(plain);
    const ArenaFigures before = Measure(plain);
    const ArenaFigures after = Measure(stored);
    EXPECT_EQ(after.kernel_data.state, KernelDataState::kUsed);
    EXPECT_EQ(after.kernel_data.ops_recomputed, 0u);
    EXPECT_LT(OpData(after), OpData(before));
    EXPECT_EQ(before.persistent_bytes - after.persistent_bytes, after.kernel_data.ram_bytes_saved);
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      const std::string dir = SharedDir() + "/golden/" + name + "/seed" + std::to_string(seed);
      const std::vector<Bytes> outputs = Outputs(stored, seed);
      for (size_t o = 0; o < outputs.size(); ++o) {
        EXPECT_EQ(outputs[o], ReadFileBytes(dir + "/output_" + std::to_string(o) + ".bin"))
            << "seed " << seed << " output " << o;
      }
    }
  }
}

// One flipped byte anywhere after the header: the payload hash no longer
// matches, so nothing is read from the blob.
TEST(KernelDataTest, CorruptedBlobIsNotUsed) {
  const Bytes plain = BuildDemoModel();
  const Bytes stored = WithKernelData(plain);
  const size_t at = BlobOffset(stored);
  const size_t size = View(stored).metadata(kKernelDataMetadataName).size();
  const std::vector<Bytes> expected = Outputs(plain);
  const size_t persistent = Measure(plain).persistent_bytes;
  for (size_t i = kKernelDataHeaderBytes; i < size; i += 37) {
    Bytes damaged = stored;
    damaged[at + i] ^= 0x10;
    const ArenaFigures figures = Measure(damaged);
    EXPECT_EQ(figures.kernel_data.state, KernelDataState::kCorrupted) << "byte " << i;
    EXPECT_EQ(figures.kernel_data.ops_in_flash, 0u);
    EXPECT_EQ(figures.persistent_bytes, persistent);
    EXPECT_EQ(Outputs(damaged), expected) << "byte " << i;
  }
}

// Data for one op that no longer matches what its Prepare computes (hash
// made consistent again, as a tool that rewrote it would): that op keeps its
// data in RAM, every other op still reads flash, outputs do not change.
TEST(KernelDataTest, StaleEntryKeepsThatOpInRam) {
  const Bytes plain = BuildDemoModel();
  const ComputedKernelData computed = Compute(plain);
  ASSERT_GE(computed.records.size(), 2u);
  ComputedKernelData edited = computed;
  edited.records[1].bytes[0] ^= 0x01;
  const Bytes stored = WithBlob(plain, EncodeKernelData(edited));
  const ArenaFigures figures = Measure(stored);
  EXPECT_EQ(figures.kernel_data.state, KernelDataState::kUsed);
  EXPECT_EQ(figures.kernel_data.ops_recomputed, 1u);
  EXPECT_EQ(figures.kernel_data.ops_in_flash, computed.records.size() - 1);
  EXPECT_GT(OpData(figures), 0u);
  EXPECT_EQ(Outputs(stored), Outputs(plain));
}

// A blob made for another model (here: for the demo model, stored in a model
// whose ops differ) is refused as a whole by its fingerprint.
TEST(KernelDataTest, BlobForAnotherModelIsStale) {
  const Bytes demo = BuildDemoModel();
  ComputedKernelData computed = Compute(demo);
  computed.fingerprint ^= 1;  // as if computed from a model that differs in one tensor
  const Bytes stored = WithBlob(demo, EncodeKernelData(computed));
  const ArenaFigures figures = Measure(stored);
  EXPECT_EQ(figures.kernel_data.state, KernelDataState::kStale);
  EXPECT_EQ(figures.kernel_data.ops_in_flash, 0u);
  EXPECT_EQ(figures.persistent_bytes, Measure(demo).persistent_bytes);
  // The fingerprint sees a changed quantization scale.
  const uint64_t original = ModelFingerprint(View(demo));
  Bytes other = demo;
  bool changed = false;
  for (size_t i = 0; i + 4 <= other.size() && !changed; ++i) {
    // Any one scale of the model: find its float bytes and nudge them.
    const TensorView input = View(demo).subgraph(0).tensor(0);
    const float scale = input.quantization().scale(0);
    if (std::memcmp(other.data() + i, &scale, sizeof(scale)) == 0) {
      other[i] ^= 0x01;
      changed = true;
    }
  }
  ASSERT_TRUE(changed);
  EXPECT_NE(ModelFingerprint(View(other)), original);
}

// Truncations, wrong versions, entry tables out of range, misaligned starts:
// Parse refuses each without reading outside the span (the sanitizer build
// checks the reads), and never accepts one.
TEST(KernelDataTest, MalformedBlobsAreRefused) {
  const Bytes demo = BuildDemoModel();
  const ComputedKernelData computed = Compute(demo);
  const Bytes blob = EncodeKernelData(computed);
  const uint64_t fingerprint = computed.fingerprint;
  alignas(16) static uint8_t buffer[1 << 16];
  ASSERT_LE(blob.size() + 16, sizeof(buffer));
  auto parse = [&](const Bytes& bytes, size_t shift = 0) {
    if (!bytes.empty()) std::memcpy(buffer + shift, bytes.data(), bytes.size());
    return KernelDataView::Parse(Span<const uint8_t>(buffer + shift, bytes.size()), computed.op_count, fingerprint)
        .state();
  };
  EXPECT_EQ(parse(blob), KernelDataState::kUsed);
  EXPECT_EQ(parse(blob, 4), KernelDataState::kMisaligned);
  for (size_t length = 0; length < blob.size(); length += 1 + length / 8) {
    SCOPED_TRACE(length);
    const KernelDataState state = parse(Bytes(blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(length)));
    EXPECT_NE(state, KernelDataState::kUsed);
    if (length == 0) EXPECT_EQ(state, KernelDataState::kAbsent);
  }
  Bytes version = blob;
  version[4] = 2;
  EXPECT_EQ(parse(version), KernelDataState::kVersion);
  // Entry fields out of range, with the hash made consistent so that only the
  // table's checks can refuse them.
  const size_t fields[] = {0, 4, 8, 12};
  const uint32_t bad_values[] = {0xFFFFFFFFu, 3u, static_cast<uint32_t>(blob.size())};
  for (size_t field : fields) {
    for (uint32_t value : bad_values) {
      Bytes bad = blob;
      std::memcpy(bad.data() + kKernelDataHeaderBytes + field, &value, sizeof(value));
      const uint64_t hash = Fnv1a64(bad.data() + kKernelDataHeaderBytes, bad.size() - kKernelDataHeaderBytes);
      std::memcpy(bad.data() + 24, &hash, sizeof(hash));
      const KernelDataState state = parse(bad);
      if (state == KernelDataState::kUsed) {
        // Only a value that happens to be valid there may pass (e.g. a size
        // equal to the original): the entry must then still lie in the blob.
        KernelDataView view =
            KernelDataView::Parse(Span<const uint8_t>(buffer, bad.size()), computed.op_count, fingerprint);
        const KernelDataEntry e = view.entry(0);
        EXPECT_LE(size_t{e.offset} + e.bytes, bad.size()) << "field " << field << " value " << value;
      }
    }
  }
  // An entry count larger than the table the blob holds.
  Bytes many = blob;
  const uint32_t count = 0x10000;
  std::memcpy(many.data() + 12, &count, sizeof(count));
  EXPECT_EQ(parse(many), KernelDataState::kMalformed);
}

// CALL_ONCE writes its op data when it runs (whether init has run), and
// VAR_HANDLE's output tensor points at its op data (the resource id): their
// data is never offered for flash, and the model still runs as before.
TEST(KernelDataTest, OpDataThatMustStayInRamStaysInRam) {
  const control_flow::ControlFlowModel m = control_flow::CallOnceModel();
  const ModelView view = View(m.model);
  size_t call_once = SIZE_MAX;
  std::vector<uint32_t> in_ram;  // global op numbers (subgraph after subgraph)
  for (size_t sg = 0, n = 0; sg < view.subgraph_count(); ++sg) {
    for (size_t o = 0; o < view.subgraph(sg).operator_count(); ++o, ++n) {
      const BuiltinOp code = view.subgraph(sg).op(o).code();
      if (code == BuiltinOp::kCallOnce) call_once = n;
      if (code == BuiltinOp::kCallOnce || code == BuiltinOp::kVarHandle) in_ram.push_back(static_cast<uint32_t>(n));
    }
  }
  ASSERT_NE(call_once, SIZE_MAX);
  ASSERT_GE(in_ram.size(), 2u);
  const ComputedKernelData computed = Compute(m.model);
  for (const KernelDataRecord& record : computed.records) {
    EXPECT_EQ(std::count(in_ram.begin(), in_ram.end(), record.op), 0) << "op " << record.op;
  }
  // Even a blob that claims an entry for it is not used for it.
  ComputedKernelData forged = computed;
  KernelDataRecord fake;
  fake.op = static_cast<uint32_t>(call_once);
  fake.alignment = 4;
  fake.bytes.assign(4, 0);
  forged.records.insert(forged.records.begin(), fake);
  std::sort(forged.records.begin(), forged.records.end(),
            [](const KernelDataRecord& a, const KernelDataRecord& b) { return a.op < b.op; });
  const Bytes stored = WithBlob(m.model, EncodeKernelData(forged));
  const ArenaFigures figures = Measure(stored);
  EXPECT_EQ(figures.kernel_data.ops_in_flash, computed.records.size());
  RunOptions options;
  options.inputs = m.inputs;
  options.repeat = 1;
  Result<RunResult> with = RunModel(View(stored), AllOpsResolver(), options);
  Result<RunResult> without = RunModel(View(m.model), AllOpsResolver(), options);
  ASSERT_TRUE(with.ok()) << with.status().message();
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_EQ(with->outputs, without->outputs);
}

// `optimize` stores the data by default and proves it on the file it wrote;
// stock TFLM runs that file to the same outputs (it ignores the entry).
TEST(KernelDataTest, OptimizeStoresItAndTflmStillRunsTheFile) {
  const std::string dir = testing::TempDir("kernel_data_optimize");
  const std::string model = dir + "/demo.tflite";
  testing::WriteFile(model, BuildDemoModel());
  const std::string out = dir + "/demo_opt.tflite";
  testing::CommandResult result = testing::RunCli({"optimize", model, "-o", out, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json doc = nlohmann::json::parse(result.stdout_text);
  EXPECT_EQ(doc["kernel_data"]["ops"], Compute(BuildDemoModel()).records.size());
  EXPECT_EQ(doc["kernel_data"]["ops_in_flash"], doc["kernel_data"]["ops"]);
  EXPECT_LT(doc["offline_persistent_bytes"].get<size_t>(), doc["original_persistent_bytes"].get<size_t>());
  const Bytes written = ReadFileBytes(out);
  EXPECT_FALSE(View(written).metadata(kKernelDataMetadataName).empty());
  // --kernel-data ram writes none.
  const std::string ram = dir + "/demo_ram.tflite";
  result = testing::RunCli({"optimize", model, "-o", ram, "--kernel-data", "ram"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(View(ReadFileBytes(ram)).metadata(kKernelDataMetadataName).empty());
  result = testing::RunCli({"optimize", model, "-o", ram, "--kernel-data", "rom"});
  EXPECT_NE(result.exit_code, 0);

  MICROARENA_REQUIRE_ORACLE();
  RunOptions options;
  Result<RunResult> ours = RunModel(View(written), AllOpsResolver(), options);
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  testing::ExpectSameAsOracle("kernel_data_demo", written, ours->inputs);
}

}  // namespace
}  // namespace microarena
