#include "tools/microarena/cli_util.h"

#include <cstdarg>
#include <cstdio>

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

}  // namespace microarena::cli
