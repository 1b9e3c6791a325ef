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
  // Every command, by the name it registers under. A line whose first word
  // names one registers only that one: building every command's options is
  // most of the start-up left once the CLI is linked statically (1.4 M
  // instructions, more than `solve` spends on many small problems). A line
  // that starts with an option (--help, --version) or is empty registers
  // them all, for the full help. Each registered command is checked against
  // its name here, so `microarena --help` (tested) catches a wrong entry.
  struct Entry {
    const char* name;
    cli::Command (*add)(CLI::App&);
  };
  static constexpr Entry kEntries[] = {
      {"inspect", cli::RegisterInspectCommand},   {"plan", cli::RegisterPlanCommand},
      {"run", cli::RegisterRunCommand},           {"demo-model", cli::RegisterDemoModelCommand},
      {"solve", cli::RegisterSolveCommand},       {"budget", cli::RegisterBudgetCommand},
      {"embed", cli::RegisterEmbedCommand},       {"optimize", cli::RegisterOptimizeCommand},
      {"ops", cli::RegisterOpsCommand},
  };
  const bool has_word = argc > 1 && argv[1][0] != '-';
  const std::string first = has_word ? argv[1] : "";
  const Entry* named = nullptr;
  std::string names;
  for (const Entry& entry : kEntries) {
    if (first == entry.name) named = &entry;
    names += (names.empty() ? "" : ", ") + std::string(entry.name);
  }
  // CLI11 says only "A subcommand is required" for a first word that names no
  // command, and for an option other than its own two before any command.
  if (has_word && named == nullptr) {
    return cli::UsageError("unknown command '%s' (one of: %s)", first.c_str(), names.c_str());
  }
  if (argc > 1 && !has_word) {
    const std::string option = argv[1];
    if (option != "-h" && option != "--help" && option != "--version") {
      return cli::UsageError("unknown option '%s' before the command (microarena takes --help, --version or "
                             "one of: %s)",
                             option.c_str(), names.c_str());
    }
  }
  std::vector<cli::Command> commands;
  for (const Entry& entry : kEntries) {
    if (named != nullptr && named != &entry) continue;
    commands.push_back(entry.add(app));
    if (commands.back().app->get_name() != entry.name) {
      std::fprintf(stderr, "error: internal: command '%s' registers as '%s'\n", entry.name,
                   commands.back().app->get_name().c_str());
      return cli::kExitError;
    }
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
