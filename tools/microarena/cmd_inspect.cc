// `microarena inspect MODEL [--json]`: what is inside a model.
#include <cstdio>
#include <string>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "microarena/report/inspect_report.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {

Command RegisterInspectCommand(CLI::App& app) {
  struct Options {
    std::string model_path;
    bool json = false;
    size_t name_width = 48;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "inspect",
      "Show what is inside a .tflite model: a summary (file size, subgraphs, op counts by type,\n"
      "tensor counts by kind), a tensor table (index, name, type, shape, bytes, kind), an op\n"
      "table (inputs -> outputs, MAC estimate for CONV_2D / DEPTHWISE_CONV_2D /\n"
      "TRANSPOSE_CONV / FULLY_CONNECTED; other ops count none) and the read-only bytes (flash: weights, biases, quantization\n"
      "parameters) each layer adds, and which ops the runtime lacks (no kernel) or refuses\n"
      "(a tensor type its kernel does not accept; see 'microarena ops'). The model is\n"
      "verified first; a malformed file is reported as 'error: FILE: ...' with a non-zero exit.");
  sub->add_option("MODEL", options->model_path, "the .tflite file")->required();
  sub->add_flag("--json", options->json, "print one JSON document instead of text");
  sub->add_option("--name-width", options->name_width, "cut tensor names to this many characters in text")
      ->default_val(48)
      ->check(CLI::Range(8, 4096));
  return {sub, [options]() -> int {
            Result<ModelFile> file = ModelFile::Open(options->model_path);
            if (!file.ok()) return PrintError(file.status());
            report::ModelSummary summary =
                report::Summarize(file->view(), file->path(), file->size_bytes());
            const report::OpSupport support = report::CheckOpSupport(file->view(), AllOpsResolver());
            if (options->json) {
              std::printf("%s\n", report::InspectJson(summary, support).dump(2).c_str());
            } else {
              report::InspectTextOptions text_options;
              text_options.name_width = options->name_width;
              std::fputs(report::InspectText(summary, support, text_options).c_str(), stdout);
            }
            return kExitOk;
          }};
}

}  // namespace microarena::cli
