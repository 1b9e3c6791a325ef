#include "tests/support/oracle_support.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"

namespace microarena::testing {

void WriteFile(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

Outcome RunOracleOn(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs, size_t arena_bytes) {
  // The process id keeps two test runs (two presets, or a sweep beside ctest) apart.
  const std::string dir = testing::TempDir("oracle/" + std::to_string(::getpid()) + "/" + name);
  WriteFile(dir + "/model.tflite", model);
  std::vector<std::string> args = {dir + "/model.tflite"};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string path = dir + "/input_" + std::to_string(i) + ".bin";
    WriteFile(path, inputs[i]);
    args.insert(args.end(), {"--input", path});
  }
  args.insert(args.end(), {"--out-dir", dir, "--arena", std::to_string(arena_bytes), "--no-search"});
  // Records the op coverage when the oracle ran the model.
  const testing::CommandResult result = testing::RunOracle(args);
  Outcome outcome;
  if (result.exit_code != 0) {
    outcome.error = "exit " + std::to_string(result.exit_code) + ": " + result.stderr_text;
    return outcome;
  }
  outcome.ok = true;
  // "greedy run: arena=N arena_used_bytes=U head=H tail=T"
  const size_t used = result.stdout_text.find("arena_used_bytes=");
  EXPECT_NE(used, std::string::npos) << "no arena figure from the oracle: " << result.stdout_text;
  if (used != std::string::npos) {
    outcome.arena_used_bytes = std::strtoull(result.stdout_text.c_str() + used + 17, nullptr, 10);
  }
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
  outcome.arena_used_bytes = run->used_bytes;
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
  ExpectArenaNoLargerThanTflms(name, model, inputs, ours.arena_used_bytes, theirs.arena_used_bytes);
}

namespace {

// The oracle's default (search) run on `model` with `inputs` (generated
// when empty): its "key=value" words, and the command's result.
std::map<std::string, size_t> RunOracleSearch(const std::string& name, const Bytes& model,
                                              const std::vector<Bytes>& inputs, testing::CommandResult* result) {
  const std::string dir = testing::TempDir("oracle_search/" + std::to_string(::getpid()) + "/" + name);
  WriteFile(dir + "/model.tflite", model);
  std::vector<std::string> args = {dir + "/model.tflite"};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string path = dir + "/input_" + std::to_string(i) + ".bin";
    WriteFile(path, inputs[i]);
    args.insert(args.end(), {"--input", path});
  }
  *result = testing::RunOracle(args);
  return ParseOracleSummary(result->stdout_text);
}

}  // namespace

std::map<std::string, size_t> ParseOracleSummary(const std::string& text) {
  std::map<std::string, size_t> values;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    const size_t eq = word.find('=');
    if (eq != std::string::npos) values[word.substr(0, eq)] = std::strtoull(word.c_str() + eq + 1, nullptr, 10);
  }
  return values;
}

std::map<std::string, size_t> OracleSummary(const std::string& name, const Bytes& model,
                                            const std::vector<Bytes>& inputs) {
  testing::CommandResult result;
  std::map<std::string, size_t> values = RunOracleSearch(name, model, inputs, &result);
  EXPECT_EQ(result.exit_code, 0) << name << ": " << result.stdout_text << result.stderr_text;
  return values;
}

size_t OracleMinimumArena(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs,
                          std::string* why) {
  testing::CommandResult result;
  const std::map<std::string, size_t> values = RunOracleSearch(name, model, inputs, &result);
  const auto it = values.find("min_arena_bytes");
  if (result.exit_code != 0 || it == values.end()) {
    *why = "exit " + std::to_string(result.exit_code) + ": " + result.stdout_text + result.stderr_text;
    return 0;
  }
  return it->second;
}

void ExpectArenaNoLargerThanTflms(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs,
                                  size_t ours, size_t tflm_used) {
  // Both on this 64-bit host; TFLM's greedy plan does not depend on the
  // size of the arena it was given.
  EXPECT_GT(ours, 0u) << name;
  EXPECT_GT(tflm_used, 0u) << name;
  if (ours <= tflm_used) return;
  std::string why;
  const size_t minimum = OracleMinimumArena(name, model, inputs, &why);
  ASSERT_GT(minimum, 0u) << name << ": no minimum arena from the oracle: " << why;
  EXPECT_LE(ours, minimum) << name << ": microarena's arena is larger than TFLM's minimum (TFLM used " << tflm_used
                           << " B)";
}

}  // namespace microarena::testing
