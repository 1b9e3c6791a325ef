#include "tests/support/test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "microarena/kernels/op_types.h"
#include "microarena/model/model_view.h"
#include "tests/support/oracle_cache.h"

namespace microarena::testing {
namespace fs = std::filesystem;

namespace {
// $MICROARENA_SHARED_DIR, else ../shared beside the source tree, whether or not it exists.
fs::path SharedDirCandidate() {
  if (const char* env = std::getenv("MICROARENA_SHARED_DIR"); env != nullptr && *env != '\0') return fs::path(env);
  return fs::path(MICROARENA_SOURCE_DIR) / ".." / "shared";
}
}  // namespace

std::string SharedDir() {
  const fs::path candidate = SharedDirCandidate();
  if (!fs::is_directory(candidate / "models")) return std::string();
  const char* env = std::getenv("MICROARENA_SHARED_DIR");
  return env != nullptr && *env != '\0' ? candidate.string() : fs::canonical(candidate).string();
}

std::string MissingShared(const std::vector<std::string>& parts) {
  const fs::path dir = SharedDirCandidate();
  std::string missing;
  for (const std::string& part : parts) {
    const fs::path path = dir / part;
    const bool tool = part.rfind("tools/", 0) == 0;
    if (fs::exists(path) && (!tool || ::access(path.c_str(), X_OK) == 0)) continue;
    missing += (missing.empty() ? "" : ", ") + path.lexically_normal().string() + (tool ? " (executable)" : "");
  }
  if (missing.empty()) return missing;
  return "shared data " + missing +
         " (set MICROARENA_SHARED_DIR or place the shared folder at ../shared beside the source tree)";
}

bool StrictMode() {
  const char* env = std::getenv("MICROARENA_STRICT");
  return env != nullptr && std::string(env) == "1";
}

void RecordSkip(const std::string& test_name, const std::string& missing) {
  const char* path = std::getenv("MICROARENA_SKIP_LOG");
  if (path == nullptr || *path == '\0') return;
  std::ofstream(path, std::ios::app) << test_name + ": " + missing + "\n";  // one short append per skip
}

bool HasCommand(const std::string& command) {
  return std::system(("command -v " + ShellQuote(command) + " >/dev/null 2>&1").c_str()) == 0;
}

std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> SharedModelNames() {
  std::vector<std::string> names;
  std::string shared = SharedDir();
  if (shared.empty()) return names;
  for (const auto& entry : fs::directory_iterator(fs::path(shared) / "models")) {
    if (entry.path().extension() == ".tflite") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') quoted += "'\\''"; else quoted += c;
  }
  return quoted + "'";
}

namespace {
// Runs `command` (a shell command line) with its output captured in files of
// a fresh temp folder named after `tag`.
CommandResult RunCaptured(const std::string& tag, const std::string& command) {
  // Named by process and call: commands of tests running at once never share it.
  static int counter = 0;
  const fs::path dir = fs::path(MICROARENA_BINARY_DIR) / "test_tmp" / "captured" /
                       (tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  fs::create_directories(dir);
  const std::string line =
      command + " >" + ShellQuote((dir / "stdout").string()) + " 2>" + ShellQuote((dir / "stderr").string()) +
      " </dev/null";
  int raw = std::system(line.c_str());
  CommandResult result;
  result.exit_code = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
  result.stdout_text = ReadFileText((dir / "stdout").string());
  result.stderr_text = ReadFileText((dir / "stderr").string());
  return result;
}
}  // namespace

CommandResult RunCli(const std::vector<std::string>& args) {
  std::string command = ShellQuote(MICROARENA_CLI_PATH);
  for (const std::string& arg : args) command += " " + ShellQuote(arg);
  return RunCaptured("cli_run", command);
}

CommandResult RunCommand(const std::string& shell_command) { return RunCaptured("shell_run", "( " + shell_command + " )"); }


std::string OraclePath() { return SharedDir() + "/tools/tflm_oracle"; }

CommandResult RunOracle(const std::vector<std::string>& args) {
  std::string command = ShellQuote(OraclePath());
  for (const std::string& arg : args) command += " " + ShellQuote(arg);
  CommandResult result = CachedOracleRun(OraclePath(), args, [&] { return RunCommand(command); });
  // Runs that give outputs or tensors to compare count for coverage.
  const bool compares = std::find(args.begin(), args.end(), "--out-dir") != args.end() ||
                        std::find(args.begin(), args.end(), "--dump-tensors") != args.end();
  const std::string model = args.empty() ? std::string() : args[0];
  if (result.exit_code == 0 && compares && model.size() > 7 && model.compare(model.size() - 7, 7, ".tflite") == 0) {
    RecordOracleCoverage(ReadFileBytes(model));
  }
  return result;
}

void RecordOracleCoverage(const std::vector<uint8_t>& model) {
  const char* path = std::getenv("MICROARENA_ORACLE_COVERAGE");
  if (path == nullptr || *path == '\0') return;
  Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
  if (!view.ok()) return;
  std::string lines;
  for (size_t s = 0; s < view->subgraph_count(); ++s) {
    const SubgraphView subgraph = view->subgraph(s);
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      const OperatorView op = subgraph.op(o);
      const OpTypes* entry = op.is_custom() ? FindCustomOpTypes(op.name()) : FindOpTypes(op.code());
      if (entry == nullptr) continue;
      int32_t tensor = -1;
      switch (entry->operand) {
        case TypedOperand::kInput0: tensor = op.inputs().size() > 0 ? op.inputs()[0] : -1; break;
        case TypedOperand::kInput1: tensor = op.inputs().size() > 1 ? op.inputs()[1] : -1; break;
        case TypedOperand::kInput2: tensor = op.inputs().size() > 2 ? op.inputs()[2] : -1; break;
        case TypedOperand::kOutput0: tensor = op.outputs().size() > 0 ? op.outputs()[0] : -1; break;
        case TypedOperand::kNone: break;
      }
      const std::string name = op.is_custom() ? std::string(op.name()) + " (custom)" : op.name();
      const char* type = tensor >= 0 ? TensorTypeName(subgraph.tensor(static_cast<size_t>(tensor)).type()) : "-";
      lines += name + " " + type + "\n";
    }
  }
  std::ofstream(path, std::ios::app) << lines;  // one short append per model
}
TensorRecordCount CountTensorRecords(const ModelView& model) {
  TensorRecordCount count;
  SubgraphView subgraph = model.subgraph(0);
  std::vector<bool> record(subgraph.tensor_count());
  for (size_t t = 0; t < record.size(); ++t) record[t] = subgraph.tensor(t).is_variable();
  auto keep = [&](Span<const int32_t> list, bool constants) {
    for (int32_t t : list) {
      if (t >= 0 && (constants || !subgraph.tensor(static_cast<size_t>(t)).is_constant())) {
        record[static_cast<size_t>(t)] = true;
      }
    }
  };
  keep(subgraph.inputs(), true);
  keep(subgraph.outputs(), true);
  for (size_t o = 0; o < subgraph.operator_count(); ++o) {
    keep(subgraph.op(o).inputs(), false);
    keep(subgraph.op(o).outputs(), true);
  }
  for (bool r : record) count.records += r;
  if (model.subgraph_count() != 1 || count.records == record.size()) {
    size_t all = 0;
    for (size_t sg = 0; sg < model.subgraph_count(); ++sg) all += model.subgraph(sg).tensor_count();
    return TensorRecordCount{all, 0, false, 0};
  }
  count.index = true;
  count.index_bytes = record.size() * (record.size() < 255 ? 1 : 2);
  count.index = true;
  for (size_t o = 0; o < subgraph.operator_count(); ++o) {
    size_t constants = 0;
    for (int32_t t : subgraph.op(o).inputs()) constants += t >= 0 && !record[static_cast<size_t>(t)];
    count.window = std::max(count.window, constants);
  }
  return count;
}

}  // namespace microarena::testing
