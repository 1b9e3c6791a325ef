// The subcommands of the microarena CLI. Each lives in cmd_<name>.cc and adds
// itself to the app; main.cc calls the Register function of the command
// named on the command line, or all of them (see main.cc).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "microarena/base/status.h"

namespace microarena::cli {

// The exit-code contract: every command ends with one of these, and scripts
// may rely on them (README.md, "Exit codes"; tests/cli_exit_codes_test.cc
// holds each to a real case).
//
//   code  meaning                         comes from
//   0     ok (also --help, --version)     the command did its job; for budget: the arena fits
//   1     error: the job failed           a file missing, unreadable or malformed, an op or
//                                         type not supported, a failed check, an I/O error,
//                                         a bug (library errors other than the ones below)
//   2     usage: a bad command line       CLI11 (unknown command or option, missing argument,
//                                         a value outside its set or range, options that
//                                         exclude each other) and the commands' own checks of
//                                         their options (UsageError in cli_util.h)
//   3     does not fit                    the arena or capacity asked for is too small:
//                                         budget's verdict, run --arena, solve --capacity
//                                         proven infeasible (ErrorCode kOutOfMemory, kInfeasible)
//   4     undecided                       solve --capacity found no plan that fits but none is
//                                         proven impossible: the time limit ran out, or a
//                                         heuristic planner missed (ErrorCode kTimeout)
//
// A usage error is always decided by the CLI from the command line alone,
// before any file is read: the library's kInvalidArgument mostly describes a
// model (an op's parameters), so it maps to 1, not 2.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitDoesNotFit = 3;
constexpr int kExitUndecided = 4;

// The exit code of a library error, as the table above gives it (kExitOk for
// kOk). The one mapping every command uses; PrintError applies it.
int ExitCodeFor(ErrorCode code);

// A registered subcommand: `run` is called when `app` was the one parsed, and
// returns the process exit code.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command RegisterInspectCommand(CLI::App& app);
Command RegisterPlanCommand(CLI::App& app);
Command RegisterRunCommand(CLI::App& app);
Command RegisterDemoModelCommand(CLI::App& app);
Command RegisterSolveCommand(CLI::App& app);
Command RegisterBudgetCommand(CLI::App& app);
Command RegisterEmbedCommand(CLI::App& app);
Command RegisterOptimizeCommand(CLI::App& app);
Command RegisterOpsCommand(CLI::App& app);

}  // namespace microarena::cli
