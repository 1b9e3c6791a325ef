// Small helpers shared by the subcommands.
#pragma once

#include <string>

#include "microarena/base/status.h"

namespace microarena::cli {

// Prints "error: <message>" on one line to stderr and returns the exit code
// of its ErrorCode (ExitCodeFor in commands.h). Messages from file-reading
// calls already start with the file name.
int PrintError(const Status& status);

// A command line the command refuses after CLI11 accepted it: an option value
// it cannot use, or options that exclude each other. Prints "error: <message>"
// and CLI11's hint to --help on stderr, returns kExitUsage.
int UsageError(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace microarena::cli
