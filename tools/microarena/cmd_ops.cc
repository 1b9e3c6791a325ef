// `microarena ops [--markdown | --json]`: the ops the runtime has and the
// tensor types each accepts, printed from the op table.
#include <cstdio>

#include "microarena/report/op_support.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {

Command RegisterOpsCommand(CLI::App& app) {
  struct Options {
    bool markdown = false;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub =
      app.add_subcommand("ops",
                         "List the builtin ops the runtime has a kernel for, with the tensor types each kernel's\n"
                         "Prepare accepts (of the operand named in the 'of' column; INT16 (16x8) means INT16\n"
                         "activations with INT8 weights) and the other type rules it enforces, then the TFLM\n"
                         "builtins it lacks. Check a model with 'microarena inspect MODEL'.");
  CLI::Option* markdown = sub->add_flag("--markdown", options->markdown, "print the Markdown table of README.md");
  sub->add_flag("--json", options->json, "print one JSON document instead of text")->excludes(markdown);
  return {sub, [options]() -> int {
            if (options->json) {
              std::printf("%s\n", report::OpsTableJson().dump(2).c_str());
            } else if (options->markdown) {
              std::fputs(report::OpsTableMarkdown().c_str(), stdout);
            } else {
              std::fputs(report::OpsTableText().c_str(), stdout);
            }
            return kExitOk;
          }};
}

}  // namespace microarena::cli
