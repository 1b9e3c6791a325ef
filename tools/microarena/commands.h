// The subcommands of the microarena CLI. Each lives in cmd_<name>.cc and adds
// itself to the app; main.cc calls every Register function below.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace microarena::cli {

// Exit codes shared by all subcommands.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;      // bad input, failed check, I/O error
constexpr int kExitUsage = 2;      // bad command line (CLI11 reports these)

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
