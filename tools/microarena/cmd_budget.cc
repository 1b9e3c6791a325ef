// `microarena budget MODEL --ram SIZE`: does the model's arena fit a RAM
// budget, by how much, and which measured changes (planner, alignment,
// offline plan, weights in flash) or combinations make it fit.
#include <cstdio>
#include <string>

#include "microarena/model/model_file.h"
#include "microarena/report/budget.h"
#include "microarena/report/byte_size.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {

Command RegisterBudgetCommand(CLI::App& app) {
  struct Options {
    std::string model_path;
    std::string ram;
    std::string planner = "auto";
    size_t alignment_bytes = 16;
    bool copy_weights = false;
    std::string order = "stored";
    bool overlap = false;
    double time_limit_seconds = 5.0;
    bool json = false;
    std::string target = "host";
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub =
      app.add_subcommand("budget",
                         "Say whether a model's tensor arena fits a RAM budget and by how much, then rank the\n"
                         "changes that shrink it (planner, alignment, an optimal offline plan, weights in flash,\n"
                         "the operators reordered, outputs overlapping inputs),\n"
                         "each measured by running AllocateTensors with it, say which combination fits, and give\n"
                         "model-level advice: the op whose activations set the peak, what one channel less there\n"
                         "saves (re-planned), the largest persistent use, duplicated quantization parameters.\n"
                         "Exit code 0 when the current setup fits, 3 when it does not (1: an error, 2: a bad\n"
                         "command line).");
  sub->add_option("MODEL", options->model_path, "the .tflite file")->required();
  sub->add_option("--ram", options->ram,
                  "RAM available for the tensor arena: bytes, or with K, M, G (powers of 1024; also\n"
                  "KB/KiB, MB/MiB, GB/GiB): 65536, 64K, 64KiB, 0.5M")
      ->required();
  sub->add_option("--planner", options->planner,
                  "the planner the firmware uses today: auto (the runtime's default), greedy,\n"
                  "greedy-tflm, linear, offline, or optimal (an offline plan written by microarena)")
      ->default_val("auto")
      ->check(CLI::IsMember({"auto", "greedy", "greedy-tflm", "linear", "offline", "optimal"}));
  sub->add_option("--align", options->alignment_bytes, "the alignment the firmware uses today")
      ->default_val(16)
      ->check(CLI::IsMember({4, 8, 16, 32, 64}));
  sub->add_option("--order", options->order,
                  "the operator order the firmware runs today: stored, or best (a model written by\n"
                  "microarena optimize --order best)")
      ->default_val("stored")
      ->check(CLI::IsMember({"stored", "best"}));
  sub->add_flag("--overlap", options->overlap, "the firmware lets outputs overlap inputs today (allow_overlap)");
  sub->add_flag("--copy-weights", options->copy_weights, "the firmware copies the weights into the arena today");
  sub->add_option("--time-limit", options->time_limit_seconds, "seconds for each run of the optimal planner")
      ->default_val(5.0)
      ->check(Seconds(3600.0));
  sub->add_flag("--json", options->json, "print one JSON document instead of text");
  sub->add_option("--target", options->target,
                  std::string("the device the arena figures are counted for: ") + TargetLayoutNames() +
                      " (cortex-m: 32-bit Arm; exact for it)")
      ->default_val("host");
  return {sub, [options]() -> int {
            Result<uint64_t> ram = report::ParseByteSize(options->ram);
            if (!ram.ok()) return UsageError("--ram: %s", ram.status().message());
            const TargetLayout* target = FindTargetLayout(options->target.c_str());
            if (target == nullptr) {
              return UsageError("--target '%s' is unknown (use one of: %s)", options->target.c_str(),
                                TargetLayoutNames());
            }
            if (options->overlap && options->planner != "auto" && options->planner != "greedy" &&
                options->planner != "optimal") {
              return UsageError("--overlap is planned by the greedy and optimal planners only, not --planner %s",
                                options->planner.c_str());
            }
            Result<ModelFile> file = ModelFile::Open(options->model_path);
            if (!file.ok()) return PrintError(file.status());
            report::BudgetOptions budget;
            if (target != &HostLayout()) budget.target = target;
            budget.ram_bytes = *ram;
            budget.current.planner = options->planner;
            budget.current.alignment_bytes = options->alignment_bytes;
            budget.current.copy_weights_to_arena = options->copy_weights;
            budget.current.order = options->order;
            budget.current.overlap = options->overlap;
            budget.time_limit_seconds = options->time_limit_seconds;
            Result<report::BudgetReport> result = report::AnalyzeBudget(file->view(), file->path(), budget);
            if (!result.ok()) {
              Status status = result.status();
              return PrintError(status.Prefix(options->model_path.c_str()));
            }
            if (options->json) {
              std::printf("%s\n", report::BudgetJson(*result).dump(2).c_str());
            } else {
              std::fputs(report::BudgetText(*result).c_str(), stdout);
            }
            return result->fits() ? kExitOk : kExitDoesNotFit;
          }};
}

}  // namespace microarena::cli
