// `microarena plan MODEL --header FILE` end to end: the generated header is
// compiled into a small program, as a firmware would, with the model bytes
// as a constexpr array. The program checks the constants against the
// runtime's own figures (measured here, not read from the header), and the
// header's static_asserts must stop the build when the model (another model,
// or the same one with one byte changed) or the options differ.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_view.h"
#include "microarena/plan/optimal.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::CommandResult;
using testing::RunCli;
using testing::TempDir;

void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// `constexpr unsigned char g_model[] = {...};` as a firmware would embed it.
std::string ModelArray(const std::vector<uint8_t>& bytes) {
  std::string out = "alignas(16) constexpr unsigned char g_model[] = {";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 24 == 0) out += "\n";
    out += std::to_string(bytes[i]) + ",";
  }
  return out + "\n};\n";
}

struct Compiled {
  int exit_code = -1;
  std::string output;
};

// Compiles `source` in `dir` with `compiler` and `flags`; output goes to a log.
Compiled Compile(const std::string& compiler, const std::string& dir, const std::string& source,
                 const std::string& flags) {
  const std::string log = dir + "/compile.log";
  const std::string command = compiler + " -std=c++17 -Wall -Wextra -Werror -Wconversion -Wsign-conversion " +
                              "-Wold-style-cast -Wshadow -I" + dir + " " + flags + " " + dir + "/" + source +
                              " > " + log + " 2>&1";
  Compiled result;
  result.exit_code = std::system(command.c_str());
  result.output = ReadText(log);
  return result;
}

// The firmware-like program: the header, the model, the checks, and main()
// comparing the constants with the figures the test measured.
constexpr const char* kProgram = R"(
#include <cstdio>
#include "arena.h"
#include "model.inc"
#include "microarena/runtime/interpreter.h"

MICROARENA_CHECK_MODEL(g_model);
constexpr microarena::InterpreterOptions kOptions{microarena::PlannerChoice::kGreedy, OPTION_ALIGNMENT, false, false};
MICROARENA_CHECK_INTERPRETER_OPTIONS(kOptions);
MICROARENA_CHECK_OPTIONS("greedy", OPTION_ALIGNMENT);
MICROARENA_CHECK_OPTIONS("auto", OPTION_ALIGNMENT);  // the demo model has no offline plan: auto is greedy
static_assert(!microarena_arena::OptionsMatch("linear", 16), "another planner must not match");
static_assert(!microarena_arena::OptionsMatch("greedy", 8), "another alignment must not match");

alignas(microarena_arena::kTensorArenaAlignment) static unsigned char tensor_arena[microarena_arena::kTensorArenaSize];

int main() {
  int failures = 0;
  if (microarena_arena::kTensorArenaSize != EXPECTED_ARENA) ++failures;
  if (microarena_arena::kTensorArenaPersistentSize != EXPECTED_PERSISTENT) ++failures;
  if (microarena_arena::kTensorArenaHeadSize != EXPECTED_HEAD) ++failures;
  if (microarena_arena::kTensorArenaTempPeakSize != EXPECTED_TEMP) ++failures;
  if (microarena_arena::kTensorArenaAlignment != 16) ++failures;
  if (!microarena_arena::ModelMatches(&g_model[0], sizeof(g_model))) ++failures;        // at run time too
  if (microarena_arena::ModelMatches(&g_model[0], sizeof(g_model) - 1)) ++failures;
  std::printf("%s %zu %d\n", microarena_arena::kModelSha256, sizeof(tensor_arena), failures);
  return failures;
}
)";

class ArenaHeaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs the tests of this fixture in parallel.
    dir_ = TempDir(std::string("arena_header/") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    model_bytes_ = BuildDemoModel();
    model_path_ = dir_ + "/demo.tflite";
    WriteBytes(model_path_, model_bytes_);
    CommandResult result = RunCli({"plan", model_path_, "--planner", "greedy", "--header", dir_ + "/arena.h"});
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
    WriteText(dir_ + "/program.cc", kProgram);

    Result<ModelView> model = LoadModel(Span<const uint8_t>(model_bytes_.data(), model_bytes_.size()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    InterpreterOptions options;
    options.planner = PlannerChoice::kGreedy;
    Result<ArenaFigures> figures = MeasureArena(*model, AllOpsResolver(), options);
    ASSERT_TRUE(figures.ok()) << figures.status().message();
    figures_ = *figures;
  }

  std::string Flags(size_t alignment) const {
    return "-I" MICROARENA_SOURCE_DIR "/src -I" MICROARENA_BINARY_DIR "/generated -DOPTION_ALIGNMENT=" +
           std::to_string(alignment) + " -DEXPECTED_ARENA=" + std::to_string(figures_.used_bytes) +
           " -DEXPECTED_PERSISTENT=" + std::to_string(figures_.persistent_bytes) +
           " -DEXPECTED_HEAD=" + std::to_string(figures_.head_bytes) +
           " -DEXPECTED_TEMP=" + std::to_string(figures_.temp_peak_bytes);
  }

  std::string dir_;
  std::vector<uint8_t> model_bytes_;
  std::string model_path_;
  ArenaFigures figures_;
};

TEST_F(ArenaHeaderTest, CompilesAndHoldsTheRuntimeFigures) {
  WriteText(dir_ + "/model.inc", ModelArray(model_bytes_));
  Compiled compiled = Compile(MICROARENA_CXX_COMPILER, dir_, "program.cc", Flags(16) + " -o " + dir_ + "/program");
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  CommandResult run = testing::RunCommand(dir_ + "/program");
  EXPECT_EQ(run.exit_code, 0) << run.stdout_text;
  // The recorded digest is the one sha256sum computes for the file.
  CommandResult sum = testing::RunCommand("sha256sum " + model_path_);
  ASSERT_EQ(sum.exit_code, 0);
  EXPECT_EQ(run.stdout_text.substr(0, 64), sum.stdout_text.substr(0, 64));
  EXPECT_NE(run.stdout_text.find(" " + std::to_string(figures_.used_bytes) + " 0"), std::string::npos)
      << run.stdout_text;
}

TEST_F(ArenaHeaderTest, StaticAssertFiresWhenOneByteOfTheModelChanges) {
  std::vector<uint8_t> changed = model_bytes_;
  changed[changed.size() / 2] ^= 0x01;  // same size: only the digest can tell
  WriteText(dir_ + "/model.inc", ModelArray(changed));
  Compiled compiled = Compile(MICROARENA_CXX_COMPILER, dir_, "program.cc", Flags(16) + " -fsyntax-only");
  EXPECT_NE(compiled.exit_code, 0);
  EXPECT_NE(compiled.output.find("the model's SHA-256 differs"), std::string::npos) << compiled.output;
}

TEST_F(ArenaHeaderTest, StaticAssertFiresForAnotherModel) {
  // A second model: the demo model with one more (unused) metadata-free byte
  // string would still be "the demo model"; a different network is the real
  // case, so take a shared model when present, else the demo model cut short.
  std::vector<uint8_t> other = testing::SharedDir().empty()
                                   ? std::vector<uint8_t>(model_bytes_.begin(), model_bytes_.end() - 16)
                                   : testing::ReadFileBytes(testing::SharedDir() + "/models/hello_world_int8.tflite");
  ASSERT_FALSE(other.empty());
  WriteText(dir_ + "/model.inc", ModelArray(other));
  Compiled compiled = Compile(MICROARENA_CXX_COMPILER, dir_, "program.cc", Flags(16) + " -fsyntax-only");
  EXPECT_NE(compiled.exit_code, 0);
  EXPECT_NE(compiled.output.find("the model's size differs"), std::string::npos) << compiled.output;
}

TEST_F(ArenaHeaderTest, StaticAssertFiresWhenTheOptionsChange) {
  WriteText(dir_ + "/model.inc", ModelArray(model_bytes_));
  Compiled compiled = Compile(MICROARENA_CXX_COMPILER, dir_, "program.cc", Flags(8) + " -fsyntax-only");
  EXPECT_NE(compiled.exit_code, 0);
  EXPECT_NE(compiled.output.find("interpreter options"), std::string::npos) << compiled.output;
  EXPECT_NE(compiled.output.find("planner or alignment differ"), std::string::npos) << compiled.output;
}

TEST_F(ArenaHeaderTest, CompilesForCortexMWithoutTheStandardLibrary) {
  MICROARENA_REQUIRE(
      testing::HasCommand("arm-none-eabi-g++")
          ? ""
          : "the cross compiler arm-none-eabi-g++ (Debian: gcc-arm-none-eabi; scripts/deps.sh installs it)");
  WriteText(dir_ + "/model.inc", ModelArray(model_bytes_));
  // A header for the host stops an Arm build: its figures are for 64-bit pointers.
  const std::string firmware =
      "#include \"arena.h\"\n#include \"model.inc\"\nMICROARENA_CHECK_MODEL(g_model);\n"
      "MICROARENA_CHECK_OPTIONS(\"greedy\", 16);\n"
      "alignas(microarena_arena::kTensorArenaAlignment) unsigned char "
      "tensor_arena[microarena_arena::kTensorArenaSize];\n";
  WriteText(dir_ + "/firmware.cc", firmware);
  Compiled host_header = Compile("arm-none-eabi-g++", dir_, "firmware.cc", "-mcpu=cortex-m4 -mthumb -fsyntax-only");
  EXPECT_NE(host_header.exit_code, 0);
  EXPECT_NE(host_header.output.find("are for a target with other pointers"), std::string::npos) << host_header.output;

  CommandResult result = RunCli(
      {"plan", model_path_, "--planner", "greedy", "--target", "cortex-m", "--header", dir_ + "/arena.h"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_NE(ReadText(dir_ + "/arena.h").find("constexpr char kTensorArenaTarget[] = \"cortex-m\";"), std::string::npos);
  // The header alone (no microarena or C++ library headers): the model check,
  // the options and target check by name, and the arena.
  WriteText(dir_ + "/firmware.cc", firmware);
  Compiled compiled = Compile("arm-none-eabi-g++", dir_, "firmware.cc",
                              "-mcpu=cortex-m4 -mthumb -O2 -c -o " + dir_ + "/firmware.o");
  EXPECT_EQ(compiled.exit_code, 0) << compiled.output;
}

// `--precomputed-plan`: the header carries the head's layout; a program built
// with it sees exactly the plan PrecomputePlan makes here (the exact planner,
// no time limit: the same search, the same plan) and the figures of
// allocating with it.
constexpr const char* kPlanProgram = R"(
#include <cstdio>
#include "arena.h"
#include "model.inc"
#include "microarena/runtime/interpreter.h"

MICROARENA_CHECK_MODEL(g_model);
// Any planner choice matches: the device plans nothing.
constexpr microarena::InterpreterOptions kOptions{microarena::PlannerChoice::kLinear, 16, false, false};
MICROARENA_CHECK_INTERPRETER_OPTIONS(kOptions);
static_assert(microarena_arena::kTensorArenaHasPrecomputedPlan, "the header has a plan");
constexpr microarena::PrecomputedPlan kPlan = microarena_arena::PrecomputedPlanOf<microarena::PrecomputedPlan>();

int main() {
  std::printf("%zu %zu %zu %zu", microarena_arena::kTensorArenaSize, kPlan.head_bytes, kPlan.tensor_count,
              kPlan.scratch_count);
  for (size_t t = 0; t < kPlan.tensor_count; ++t) std::printf(" %u", static_cast<unsigned>(kPlan.tensor_offsets[t]));
  for (size_t s = 0; s < kPlan.scratch_count; ++s) std::printf(" s%u", static_cast<unsigned>(kPlan.scratch_offsets[s]));
  return 0;
}
)";

TEST_F(ArenaHeaderTest, PrecomputedPlanIsTheHostsPlan) {
  EXPECT_NE(ReadText(dir_ + "/arena.h").find("constexpr bool kTensorArenaHasPrecomputedPlan = false;"),
            std::string::npos);
  CommandResult result =
      RunCli({"plan", model_path_, "--time-limit", "0", "--precomputed-plan", "--header", dir_ + "/arena.h"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  Result<ModelView> model = LoadModel(Span<const uint8_t>(model_bytes_.data(), model_bytes_.size()));
  ASSERT_TRUE(model.ok());
  const OptimalPlanner exact(OptimalOptions{0.0});
  InterpreterOptions options;
  options.custom_planner = &exact;
  Result<PrecomputedPlanData> data = PrecomputePlan(*model, AllOpsResolver(), options);
  ASSERT_TRUE(data.ok()) << data.status().message();
  std::string expected = std::to_string(data->figures.used_bytes) + " " + std::to_string(data->head_bytes) + " " +
                         std::to_string(data->tensor_offsets.size()) + " " +
                         std::to_string(data->scratch_offsets.size());
  for (uint32_t offset : data->tensor_offsets) expected += " " + std::to_string(offset);
  for (uint32_t offset : data->scratch_offsets) expected += " s" + std::to_string(offset);

  WriteText(dir_ + "/model.inc", ModelArray(model_bytes_));
  WriteText(dir_ + "/plan_program.cc", kPlanProgram);
  Compiled compiled =
      Compile(MICROARENA_CXX_COMPILER, dir_, "plan_program.cc", Flags(16) + " -o " + dir_ + "/plan_program");
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  CommandResult run = testing::RunCommand(dir_ + "/plan_program");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.stdout_text, expected);
  // The demo model's plan leaves constants out of the head.
  EXPECT_NE(expected.find(" 4294967295"), std::string::npos);
}

// The header of a file `optimize` wrote says its kernels' data is read from
// flash, with the figures MeasureArena gives on the same file; the demo
// model's file without kernel data says nothing of it.
TEST(ArenaHeaderCommandTest, SaysWhichKernelDataIsReadFromFlash) {
  std::string dir = TempDir("arena_header_kernel_data");
  WriteBytes(dir + "/demo.tflite", BuildDemoModel());
  CommandResult optimized = RunCli({"optimize", dir + "/demo.tflite", "-o", dir + "/opt.tflite", "--time-limit", "0"});
  ASSERT_EQ(optimized.exit_code, 0) << optimized.stderr_text;
  for (const char* name : {"opt", "demo"}) {
    SCOPED_TRACE(name);
    const std::string path = dir + "/" + name + ".tflite";
    CommandResult header = RunCli({"plan", path, "--target", "cortex-m", "--header", dir + "/" + name + ".h"});
    ASSERT_EQ(header.exit_code, 0) << header.stderr_text;
    std::ifstream in(dir + "/" + name + ".h");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::vector<uint8_t> bytes = testing::ReadFileBytes(path);
    Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    Result<ArenaFigures> figures = MeasureArena(*model, AllOpsResolver());
    ASSERT_TRUE(figures.ok()) << figures.status().message();
    if (std::string(name) == "demo") {
      EXPECT_EQ(figures->kernel_data.state, KernelDataState::kAbsent);
      EXPECT_EQ(text.find("kernel data:"), std::string::npos);
      continue;
    }
    ASSERT_EQ(figures->kernel_data.state, KernelDataState::kUsed);
    ASSERT_GT(figures->kernel_data.ops_in_flash, 0u);
    EXPECT_NE(text.find("//   kernel data: " + std::to_string(figures->kernel_data.ops_in_flash) + " ops' data read "
                        "from the model"),
              std::string::npos)
        << text.substr(0, 1200);
  }
}

TEST(ArenaHeaderCommandTest, PrecomputedPlanNeedsAHeader) {
  std::string dir = TempDir("arena_header_precomputed");
  WriteBytes(dir + "/demo.tflite", BuildDemoModel());
  CommandResult result = RunCli({"plan", dir + "/demo.tflite", "--precomputed-plan"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("--precomputed-plan writes the plan into the header: give --header FILE"),
            std::string::npos)
      << result.stderr_text;
}

TEST(ArenaHeaderCommandTest, RejectsABadNamespace) {
  std::string dir = TempDir("arena_header_namespace");
  WriteBytes(dir + "/demo.tflite", BuildDemoModel());
  CommandResult result =
      RunCli({"plan", dir + "/demo.tflite", "--header", dir + "/a.h", "--header-namespace", "9lives"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("'9lives' is not a usable C++ identifier"), std::string::npos) << result.stderr_text;
}

}  // namespace
}  // namespace microarena
