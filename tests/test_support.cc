#include "tests/test_support.h"

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace microarena::testing {
namespace fs = std::filesystem;

std::string SharedDir() {
  if (const char* env = std::getenv("MICROARENA_SHARED_DIR"); env != nullptr && *env != '\0') {
    return fs::is_directory(env) ? std::string(env) : std::string();
  }
  fs::path candidate = fs::path(MICROARENA_SOURCE_DIR) / ".." / "shared";
  return fs::is_directory(candidate / "models") ? fs::canonical(candidate).string() : std::string();
}

std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
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
std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
}  // namespace

CommandResult RunCli(const std::vector<std::string>& args) {
  static int counter = 0;
  std::string dir = TempDir("cli_run_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::string command = ShellQuote(MICROARENA_CLI_PATH);
  for (const std::string& arg : args) command += " " + ShellQuote(arg);
  command += " >" + ShellQuote(dir + "/stdout") + " 2>" + ShellQuote(dir + "/stderr") + " </dev/null";
  int raw = std::system(command.c_str());
  CommandResult result;
  result.exit_code = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
  result.stdout_text = Slurp(dir + "/stdout");
  result.stderr_text = Slurp(dir + "/stderr");
  return result;
}

CommandResult RunCommand(const std::string& shell_command) {
  static int counter = 0;
  std::string dir = TempDir("shell_run_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::string command = "( " + shell_command + " ) >" + ShellQuote(dir + "/stdout") + " 2>" +
                        ShellQuote(dir + "/stderr") + " </dev/null";
  int raw = std::system(command.c_str());
  CommandResult result;
  result.exit_code = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
  result.stdout_text = Slurp(dir + "/stdout");
  result.stderr_text = Slurp(dir + "/stderr");
  return result;
}

std::string TempDir(const std::string& name) {
  fs::path dir = fs::path(MICROARENA_BINARY_DIR) / "test_tmp" / name;
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  fs::create_directories(dir);
  return dir.string();
}

std::string OraclePath() { return SharedDir() + "/tools/tflm_oracle"; }

CommandResult RunOracle(const std::vector<std::string>& args) {
  std::string command = ShellQuote(OraclePath());
  for (const std::string& arg : args) command += " " + ShellQuote(arg);
  return RunCommand(command);
}

}  // namespace microarena::testing
