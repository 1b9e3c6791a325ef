// microarena: plan, explain and shrink the tensor arena of TFLite models.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "microarena: plans, explains and shrinks the tensor arena of TensorFlow Lite models\n"
      "for microcontrollers. Run 'microarena COMMAND --help' for a command's options."};
  app.name("microarena");
  app.require_subcommand(1);
  app.set_version_flag("--version", "microarena 0.1.0");
  // CLI11's messages in the form of every other error: "error: ...", then its hint to --help.
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    return "error: " + CLI::FailureMessage::simple(failed, e);
  });
  app.footer(
      "Exit codes: 0 ok, 1 error (a file, the model or a check failed), 2 bad command line,\n"
      "3 does not fit (the arena or capacity asked for is too small), 4 undecided (solve: no plan\n"
      "found within the limit, none proven impossible).");

  namespace cli = microarena::cli;
  const std::vector<cli::Command> commands = {
      cli::RegisterInspectCommand(app),
      cli::RegisterPlanCommand(app),
      cli::RegisterRunCommand(app),
      cli::RegisterDemoModelCommand(app),
      cli::RegisterSolveCommand(app),
      cli::RegisterBudgetCommand(app),
      cli::RegisterEmbedCommand(app),
      cli::RegisterOptimizeCommand(app),
      cli::RegisterOpsCommand(app),
  };

  // CLI11 says only "A subcommand is required" for a first word that names no command.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const cli::Command& command : commands) {
      known = known || command.app->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + command.app->get_name();
    }
    if (!known) return cli::UsageError("unknown command '%s' (one of: %s)", argv[1], names.c_str());
  }

  try {
    app.parse(argc, argv);
    for (const cli::Command& command : commands) {
      if (command.app->parsed()) return command.run();
    }
  } catch (const CLI::ParseError& e) {
    // app.exit prints the help, the version or the error; CLI11's own codes
    // (105-114 for mistakes, 0 for --help and --version) become the
    // contract's (commands.h): a bad command line is 2, whatever CLI11 calls it.
    return app.exit(e) == 0 ? cli::kExitOk : cli::kExitUsage;
  } catch (const std::exception& e) {
    // Out of memory on the host, or a bug: the job failed.
    std::fprintf(stderr, "error: %s\n", e.what());
    return cli::kExitError;
  }
  // Not reached: require_subcommand(1) makes CLI11 refuse a line without one.
  return cli::kExitUsage;
}
