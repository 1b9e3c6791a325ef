// microarena: plan, explain and shrink the tensor arena of TFLite models.
#include <cstdio>
#include <exception>
#include <vector>

#include "tools/microarena/commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "microarena: plans, explains and shrinks the tensor arena of TensorFlow Lite models\n"
      "for microcontrollers. Run 'microarena COMMAND --help' for a command's options."};
  app.name("microarena");
  app.require_subcommand(1);
  app.set_version_flag("--version", "microarena 0.1.0");

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

  try {
    app.parse(argc, argv);
    for (const cli::Command& command : commands) {
      if (command.app->parsed()) return command.run();
    }
  } catch (const CLI::ParseError& e) {
    // app.exit prints the help, the version or the error; CLI11's own codes
    // (105-114) become our one usage code, so scripts can tell a bad command
    // line (2) from a failed job (1).
    return app.exit(e) == 0 ? cli::kExitOk : cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return cli::kExitError;
  }
  return cli::kExitUsage;
}
