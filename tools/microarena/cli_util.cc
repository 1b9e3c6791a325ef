#include "tools/microarena/cli_util.h"

#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "tools/microarena/commands.h"

namespace microarena::cli {

int ExitCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return kExitOk;
    case ErrorCode::kOutOfMemory:
    case ErrorCode::kInfeasible: return kExitDoesNotFit;
    case ErrorCode::kTimeout: return kExitUndecided;
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kMalformedModel:
    case ErrorCode::kUnsupported:
    case ErrorCode::kNotFound:
    case ErrorCode::kIoError:
    case ErrorCode::kInternal:
    case ErrorCode::kStoppedEarly: return kExitError;
  }
  return kExitError;
}

int PrintError(const Status& status) {
  std::fprintf(stderr, "error: %s\n", status.message());
  return ExitCodeFor(status.code());
}

int UsageError(const char* format, ...) {
  std::fputs("error: ", stderr);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputs("\nRun with --help for more information.\n", stderr);
  return kExitUsage;
}

CLI::Validator NotNegative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        size_t first = 0;
        while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first])) != 0) ++first;
        if (first < text.size() && text[first] == '-') return "must not be negative, got " + text;
        return "";
      },
      "", "NOT_NEGATIVE");
}

CLI::Validator Seconds(double max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(value) || value < 0.0 || value > max) {
          char message[128];
          std::snprintf(message, sizeof(message), "must be a number of seconds from 0 to %g, got ", max);
          return message + text;
        }
        return "";
      },
      "", "SECONDS");
}

namespace {

// The path as the file system resolves it (for comparing two names of one
// file); the path itself when it cannot be resolved.
std::filesystem::path Resolved(const std::string& path) {
  std::error_code error;
  std::filesystem::path resolved = std::filesystem::weakly_canonical(path, error);
  return error ? std::filesystem::path(path) : resolved;
}

// Whether writing `path` replaces a file's contents: a regular file or a
// path not made yet (not a device such as /dev/null).
bool IsReplaceable(const std::string& path) {
  std::error_code error;
  const std::filesystem::file_type type = std::filesystem::status(path, error).type();
  return type == std::filesystem::file_type::regular || type == std::filesystem::file_type::not_found;
}

}  // namespace

int CheckOutputPaths(const CLI::App& app, const std::vector<OutputPath>& outputs,
                     const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  for (const OutputPath& output : outputs) {
    if (output.path.empty() && app.count(output.option) > 0) return UsageError("%s is empty", output.option);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputPath& output = outputs[i];
    if (output.path.empty()) continue;
    const fs::path resolved = Resolved(output.path);
    const bool replaceable = IsReplaceable(output.path);
    for (const std::string& input : inputs) {
      if (!replaceable) break;
      if (!input.empty() && Resolved(input) == resolved) {
        return UsageError("%s %s is an input of the command: it would be replaced", output.option,
                          output.path.c_str());
      }
    }
    for (size_t j = 0; j < i && replaceable; ++j) {
      if (!outputs[j].path.empty() && Resolved(outputs[j].path) == resolved) {
        return UsageError("%s and %s name the same file (%s): one would replace the other", outputs[j].option,
                          output.option, output.path.c_str());
      }
    }
    std::error_code error;
    if (fs::is_directory(output.path, error)) {
      return PrintError(Status::Error(ErrorCode::kIoError, "%s: is a folder, not a file (%s)", output.path.c_str(),
                                      output.option));
    }
    const fs::path folder = fs::path(output.path).parent_path();
    if (!folder.empty() && !fs::is_directory(folder, error)) {
      return PrintError(Status::Error(ErrorCode::kIoError, "%s: the folder %s does not exist (%s)",
                                      output.path.c_str(), folder.c_str(), output.option));
    }
  }
  return kExitOk;
}

}  // namespace microarena::cli
