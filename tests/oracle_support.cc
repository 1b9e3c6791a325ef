#include "tests/oracle_support.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "tests/test_support.h"

namespace microarena::testing {

void WriteFile(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

Outcome RunOracleOn(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs,
                    size_t arena_bytes) {
  // The process id keeps two test runs (two presets, or a sweep beside ctest) apart.
  const std::string dir = testing::TempDir("oracle/" + std::to_string(::getpid()) + "/" + name);
  WriteFile(dir + "/model.tflite", model);
  std::string command = ShellQuote(OraclePath()) + " " + ShellQuote(dir + "/model.tflite");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string path = dir + "/input_" + std::to_string(i) + ".bin";
    WriteFile(path, inputs[i]);
    command += " --input " + ShellQuote(path);
  }
  command += " --out-dir " + ShellQuote(dir) + " --arena " + std::to_string(arena_bytes) + " --no-search";
  const testing::CommandResult result = testing::RunCommand(command);
  Outcome outcome;
  if (result.exit_code != 0) {
    outcome.error = "exit " + std::to_string(result.exit_code) + ": " + result.stderr_text;
    return outcome;
  }
  outcome.ok = true;
  for (size_t i = 0;; ++i) {
    const std::string path = dir + "/output_" + std::to_string(i) + ".bin";
    if (::access(path.c_str(), R_OK) != 0) break;
    outcome.outputs.push_back(testing::ReadFileBytes(path));
  }
  return outcome;
}

// microarena: the same inputs, or seed-1 generated ones when none are given.
Outcome RunOursOn(const Bytes& model, const std::vector<Bytes>& inputs) {
  Outcome outcome;
  Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
  if (!view.ok()) {
    outcome.error = view.status().message();
    return outcome;
  }
  RunOptions options;
  options.inputs = inputs;
  Result<RunResult> run = RunModel(*view, AllOpsResolver(), options);
  if (!run.ok()) {
    outcome.error = run.status().message();
    return outcome;
  }
  outcome.ok = true;
  outcome.outputs = run->outputs;
  return outcome;
}

void ExpectSameAsOracle(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs,
                        size_t oracle_arena_bytes) {
  SCOPED_TRACE(name);
  const Outcome theirs = RunOracleOn(name, model, inputs, oracle_arena_bytes);
  ASSERT_TRUE(theirs.ok) << "TFLM did not run the model: " << theirs.error;
  const Outcome ours = RunOursOn(model, inputs);
  ASSERT_TRUE(ours.ok) << "microarena did not run the model: " << ours.error;
  ASSERT_EQ(ours.outputs.size(), theirs.outputs.size());
  for (size_t i = 0; i < ours.outputs.size(); ++i) {
    ASSERT_EQ(ours.outputs[i].size(), theirs.outputs[i].size()) << "output " << i;
    size_t differing = 0;
    for (size_t b = 0; b < ours.outputs[i].size(); ++b) differing += ours.outputs[i][b] != theirs.outputs[i][b];
    EXPECT_EQ(differing, 0u) << "output " << i << ": " << differing << " of " << ours.outputs[i].size()
                             << " bytes differ";
  }
}

}  // namespace microarena::testing
