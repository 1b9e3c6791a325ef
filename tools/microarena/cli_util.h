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

// Creates the folder `dir` and its missing parents (nothing when it exists).
// A kIoError naming `dir` and the reason when it cannot be made or is a file.
Status MakeDirectories(const std::string& dir);

}  // namespace microarena::cli
