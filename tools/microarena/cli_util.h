// Small helpers shared by the subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

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

// Checks for option values that CLI11 would take as given. It reads "-1"
// into an unsigned option as its two's complement (SIZE_MAX for a size_t:
// a sentinel in places), and "nan" passes its ranges (every comparison with
// NaN is false). Both are usage errors (exit 2).
//   NotNegative(): an unsigned integer, written without a minus sign.
//   Seconds(max): a finite number of seconds from 0 to max.
CLI::Validator NotNegative();
CLI::Validator Seconds(double max);

// An output file named on the command line: the option and the path.
struct OutputPath {
  const char* option;
  std::string path;
};

// Checks the output files a command will write before it does its work (and
// after its other usage checks), so that a mistake in one does not leave the
// others written, an input replaced or a long search wasted. Usage errors
// (exit 2): an option of `app` given an empty path, an output that is one of
// the inputs, two outputs that are the same file (regular files and paths
// not made yet: /dev/null twice is fine). I/O errors (exit 1; the file
// system decides): an output that is a folder, or whose folder does not
// exist. Options not given are skipped. Prints the error; returns kExitOk
// when all is well.
int CheckOutputPaths(const CLI::App& app, const std::vector<OutputPath>& outputs,
                     const std::vector<std::string>& inputs);

}  // namespace microarena::cli
