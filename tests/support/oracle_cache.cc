#include "tests/support/oracle_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

namespace microarena::testing {
namespace fs = std::filesystem;

namespace {

size_t hits = 0;

// 128 bits from two 64-bit multiplicative hashes over the same bytes: the
// key only has to tell apart the calls of one test run.
class KeyHash {
 public:
  void Add(const void* data, size_t size) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; ++i) {
      a_ = (a_ ^ bytes[i]) * 0x100000001b3ULL;                  // FNV-1a
      b_ = ((b_ ^ bytes[i]) * 0x9e3779b97f4a7c15ULL) ^ (b_ >> 29);
    }
  }
  // Length first, so that ("ab", "c") and ("a", "bc") differ.
  void AddText(const std::string& text) {
    const uint64_t size = text.size();
    Add(&size, sizeof(size));
    Add(text.data(), text.size());
  }
  std::string Hex() const {
    char text[33];
    std::snprintf(text, sizeof(text), "%016llx%016llx", static_cast<unsigned long long>(a_),
                  static_cast<unsigned long long>(b_));
    return text;
  }

 private:
  uint64_t a_ = 0xcbf29ce484222325ULL;
  uint64_t b_ = 0x84222325cbf29ce4ULL;
};

// False when the file could not be written whole (a full disk, say).
bool Spill(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  return !out.fail();
}

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

bool IsOutputFlag(const std::string& arg) { return arg == "--out-dir" || arg == "--dump-tensors"; }
// The argument after --out-dir or --dump-tensors: a folder the oracle writes.
bool IsOutputFolder(const std::vector<std::string>& args, size_t i) { return i > 0 && IsOutputFlag(args[i - 1]); }

// The arguments that are paths (files read, folders written), longest
// first: a folder's path is often the start of its files' paths.
std::vector<size_t> PathArguments(const std::vector<std::string>& args) {
  std::vector<size_t> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool output = IsOutputFolder(args, i);
    std::error_code error;
    if (output || fs::is_regular_file(args[i], error)) paths.push_back(i);
  }
  std::stable_sort(paths.begin(), paths.end(),
                   [&](size_t x, size_t y) { return args[x].size() > args[y].size(); });
  return paths;
}

std::string Placeholder(size_t index) { return "@@oracle-argument-" + std::to_string(index) + "@@"; }

// The call's paths as placeholders (to store) or back (to restore).
std::string WithPlaceholders(std::string text, const std::vector<std::string>& args, const std::vector<size_t>& paths) {
  for (size_t i : paths) ReplaceAll(text, args[i], Placeholder(i));
  return text;
}
std::string WithPaths(std::string text, const std::vector<std::string>& args, const std::vector<size_t>& paths) {
  for (size_t i : paths) ReplaceAll(text, Placeholder(i), args[i]);
  return text;
}

// Everything the oracle reads: its binary, the arguments, and the content of
// the files they name. The output folders' paths are left out (they are
// per process), as are the paths of the files read (their content counts).
std::string Key(const std::string& oracle, const std::vector<std::string>& args) {
  KeyHash hash;
  struct stat info {};
  if (::stat(oracle.c_str(), &info) != 0) return std::string();
  hash.AddText("tflm_oracle " + std::to_string(info.st_size) + " " + std::to_string(info.st_mtim.tv_sec) + "." +
               std::to_string(info.st_mtim.tv_nsec));
  for (size_t i = 0; i < args.size(); ++i) {
    std::error_code error;
    if (IsOutputFolder(args, i)) {
      hash.AddText("output folder");
    } else if (fs::is_regular_file(args[i], error)) {
      hash.AddText("file");
      hash.AddText(ReadFileText(args[i]));
    } else {
      hash.AddText("argument");
      hash.AddText(args[i]);
    }
  }
  return hash.Hex();
}

// A folder's files before the oracle ran: size and modification time.
using FolderState = std::map<fs::path, std::pair<uintmax_t, fs::file_time_type>>;
FolderState StateOf(const fs::path& folder) {
  FolderState state;
  std::error_code error;
  if (!fs::is_directory(folder, error)) return state;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file()) state[entry.path()] = {entry.file_size(), entry.last_write_time()};
  }
  return state;
}

// Copies the files under `from` to `to`, leaving out those `before` holds
// unchanged (what was there before the oracle ran: the inputs written into
// the same folder, say).
void CopyTree(const fs::path& from, const fs::path& to, const FolderState& before) {
  fs::create_directories(to);
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(from)) {
    if (!entry.is_regular_file()) continue;
    const auto old = before.find(entry.path());
    if (old != before.end() && old->second == std::make_pair(entry.file_size(), entry.last_write_time())) continue;
    const fs::path target = to / fs::relative(entry.path(), from);
    fs::create_directories(target.parent_path());
    fs::copy_file(entry.path(), target, fs::copy_options::overwrite_existing);
  }
}

}  // namespace

size_t OracleCacheHits() { return hits; }

CommandResult CachedOracleRun(const std::string& oracle, const std::vector<std::string>& args,
                              const std::function<CommandResult()>& run) {
  const char* env = std::getenv("MICROARENA_ORACLE_CACHE");
  if (env == nullptr || *env == '\0') return run();
  const std::string key = Key(oracle, args);
  if (key.empty()) return run();
  const fs::path root(env);
  const fs::path entry = root / key;
  const std::vector<size_t> paths = PathArguments(args);

  std::error_code error;
  if (fs::is_regular_file(entry / "exit", error)) {
    try {
      CommandResult result;
      result.exit_code = std::atoi(ReadFileText((entry / "exit").string()).c_str());
      result.stdout_text = WithPaths(ReadFileText((entry / "stdout").string()), args, paths);
      result.stderr_text = WithPaths(ReadFileText((entry / "stderr").string()), args, paths);
      for (size_t i : paths) {
        const fs::path saved = entry / ("output_" + std::to_string(i));
        if (fs::is_directory(saved, error)) CopyTree(saved, args[i], {});
      }
      ++hits;
      return result;
    } catch (const fs::filesystem_error&) {
      return run();  // a cache that cannot be read is no answer
    }
  }

  std::map<size_t, FolderState> before;
  bool keep = true;
  try {
    for (size_t i : paths) {
      if (IsOutputFolder(args, i)) before[i] = StateOf(args[i]);
    }
  } catch (const fs::filesystem_error&) {
    keep = false;
  }
  CommandResult result = run();
  // Not kept: a run killed by a signal (the shell reports 128 + the signal),
  // or one that did not finish; such a run says nothing about the model.
  if (!keep || result.exit_code < 0 || result.exit_code >= 128) return result;
  // Written whole under a temporary name, then renamed: a test running at
  // the same time sees the entry complete or not at all (the first of two
  // writers wins; the answers are the same). A cache that cannot be written
  // (a full disk) keeps nothing and changes no answer.
  static int counter = 0;
  const fs::path temporary =
      root / ("partial." + std::to_string(::getpid()) + "." + std::to_string(counter++));
  try {
    fs::remove_all(temporary);
    fs::create_directories(temporary);
    for (size_t i : paths) {
      if (IsOutputFolder(args, i) && fs::is_directory(args[i], error)) {
        CopyTree(args[i], temporary / ("output_" + std::to_string(i)), before[i]);
      }
    }
    if (Spill(temporary / "stdout", WithPlaceholders(result.stdout_text, args, paths)) &&
        Spill(temporary / "stderr", WithPlaceholders(result.stderr_text, args, paths)) &&
        Spill(temporary / "exit", std::to_string(result.exit_code))) {
      fs::rename(temporary, entry, error);
    }
  } catch (const fs::filesystem_error&) {
  }
  fs::remove_all(temporary, error);
  return result;
}

}  // namespace microarena::testing
