// TFLM parity through the real runtime: the interpreter with the greedy-tflm
// planner must put every tensor and every kernel scratch buffer at the offset
// TFLM's GreedyMemoryPlanner chose (golden/tflm_plans), for every shared model
// — including keyword_scrambled_8bit (SVDF) and trained_lstm_int8 (LSTM), whose
// kernels request scratch exactly as TFLM's reference kernels do.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::SharedDir;

TEST(TflmParityTest, InterpreterPlacesEveryBufferWhereTflmDoes) {
  MICROARENA_REQUIRE_SHARED();
  int models = 0;
  for (const std::string& name : testing::SharedModelNames()) {
    std::ifstream plan(SharedDir() + "/golden/tflm_plans/" + name + ".txt");
    if (!plan) continue;
    SCOPED_TRACE(name);
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    ASSERT_TRUE(file.ok());
    InterpreterOptions options;
    options.planner = PlannerChoice::kGreedyTflm;
    HostArena arena(1 << 20);
    Interpreter interpreter(file->view(), AllOpsResolver(), arena.data(), arena.size(), options);
    Status status = interpreter.AllocateTensors();
    ASSERT_TRUE(status.ok()) << status.message();
    size_t scratch_seen = 0, head = 0, lines = 0;
    for (std::string line; std::getline(plan, line);) {
      std::map<std::string, std::string> f;
      std::istringstream tokens(line);
      for (std::string token; tokens >> token;) {
        size_t eq = token.find('=');
        if (eq != std::string::npos) f[token.substr(0, eq)] = token.substr(eq + 1);
      }
      const size_t offset = std::stoul(f["offset"]);
      head = std::max(head, offset + std::stoul(f["size"]));
      if (f["kind"] == "tensor") {
        EXPECT_EQ(interpreter.tensor_offset_bytes(std::stoul(f["tensor"])), offset) << line;
      } else {
        EXPECT_EQ(interpreter.scratch_offset_bytes(scratch_seen++), offset) << line;
      }
      ++lines;
    }
    EXPECT_GT(lines, 0u);
    EXPECT_EQ(interpreter.scratch_buffer_count(), scratch_seen);
    EXPECT_EQ(interpreter.arena_scratch_size(), head);
    ++models;
  }
  EXPECT_GE(models, 9);
}

}  // namespace
}  // namespace microarena
