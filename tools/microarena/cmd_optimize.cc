// `microarena optimize MODEL -o OUT.tflite`: store the operators in the
// chosen order and the plan as TFLM's OfflineMemoryAllocation metadata, then
// prove the written file: read the plan back, run both files and compare.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "microarena/model/model_file.h"
#include "microarena/report/optimize_job.h"
#include "microarena/runtime/target_layout.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {

Command RegisterOptimizeCommand(CLI::App& app) {
  struct Options {
    std::string model_path;
    std::string output_path;
    std::string planner = "optimal";
    std::string order = "stored";
    size_t alignment_bytes = 16;
    double time_limit_seconds = 10.0;
    bool overlap = false;
    bool tile = false;
    std::string kernel_data = "flash";
    bool json = false;
    std::string target = "host";
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub =
      app.add_subcommand("optimize",
                         "Write a copy of MODEL whose operators are stored in the chosen execution order and which\n"
                         "carries microarena's plan as OfflineMemoryAllocation metadata (TFLM's format: version 0,\n"
                         "subgraph count, tensor count, one head offset per tensor, -1 = planned online), so that\n"
                         "TFLM and microarena's runtime use these offsets. Everything else in the file is kept byte\n"
                         "for byte. The written file is then checked: the plan is read back and compared, and both\n"
                         "files are run (seed 1) and must give identical outputs.\n"
                         "With --overlap the plan lets an op's output share bytes with an input its kernel has\n"
                         "finished reading (docs/overlap.md). That is safe only with microarena's kernels, so such a\n"
                         "plan is stored as microarena.OverlapMemoryAllocation instead, which stock TFLM ignores\n"
                         "(it then plans the model itself); microarena's runtime uses it with allow_overlap.\n"
                         "By default the file also carries the kernels' precomputed data (--kernel-data flash),\n"
                         "which the runtime reads from flash where it matches what Prepare computes.\n"
                         "Both plans are measured; when the one without overlap runs in a smaller arena, that one\n"
                         "is written (TFLM-safe) and the report says so.");
  sub->add_option("MODEL", options->model_path, "the .tflite file")->required();
  sub->add_option("-o,--output", options->output_path, "the .tflite file to write")->required();
  sub->add_option("--planner", options->planner, "optimal, greedy, greedy-tflm or linear")
      ->default_val("optimal")
      ->check(CLI::IsMember({"optimal", "greedy", "greedy-tflm", "linear"}));
  sub->add_option("--order", options->order,
                  "stored: keep the model's operator order; best: the order with the smallest peak "
                  "(plan/reorder)")
      ->default_val("stored")
      ->check(CLI::IsMember({"stored", "best"}));
  sub->add_option("--align", options->alignment_bytes, "buffer alignment in bytes")
      ->default_val(16)
      ->check(CLI::IsMember({4, 8, 16, 32, 64}));
  sub->add_option("--time-limit", options->time_limit_seconds,
                  "seconds for the optimal planner and for the order search (0 = no limit)")
      ->default_val(10.0)
      ->check(Seconds(86400.0));
  sub->add_flag("--overlap", options->overlap,
                "plan with kernel-approved overlap (for microarena's runtime only; not TFLM-safe), kept\n"
                "only when it makes the arena smaller");
  sub->add_flag("--tile", options->tile,
                "choose the segments that run band by band (docs/tiling.md) and store them with the plan of\n"
                "their windows (microarena.Tiling); the file then carries no offline plan (stock TFLM plans\n"
                "it whole). With --order best the tiling is chosen in the best order and in the stored one,\n"
                "and the order whose arena is smaller is written (the stored one on ties)");
  sub->add_option("--kernel-data", options->kernel_data,
                  "flash: store what the kernels precompute (multipliers, shifts, tables) in the file, so the\n"
                  "runtime reads it from flash instead of the arena (microarena.KernelData; checked byte for\n"
                  "byte at boot, ignored by TFLM); ram: store none")
      ->default_val("flash")
      ->check(CLI::IsMember({"flash", "ram"}));
  sub->add_flag("--json", options->json, "print one JSON document instead of text");
  sub->add_option("--target", options->target,
                  std::string("the device the arena figures (original and optimized) are counted for: ") +
                      TargetLayoutNames() + " (cortex-m: 32-bit Arm; exact for it)")
      ->default_val("host");
  return {
      sub, [options, sub]() -> int {
        const TargetLayout* target = FindTargetLayout(options->target.c_str());
        if (target == nullptr) {
          return UsageError("--target '%s' is unknown (use one of: %s)", options->target.c_str(), TargetLayoutNames());
        }
        // -o may name MODEL itself (optimised in place): only its folder is checked here.
        if (int code = CheckOutputPaths(*sub, {{"--output", options->output_path}}, {}); code != kExitOk) return code;
        Result<ModelFile> file = ModelFile::Open(options->model_path);
        if (!file.ok()) return PrintError(file.status());
        report::OptimizeOptions optimize;
        optimize.planner = options->planner;
        optimize.best_order = options->order == "best";
        optimize.alignment_bytes = options->alignment_bytes;
        optimize.time_limit_seconds = options->time_limit_seconds;
        optimize.overlap = options->overlap;
        optimize.tile = options->tile;
        optimize.kernel_data = options->kernel_data == "flash";
        optimize.target = target;
        Result<report::OptimizedModel> optimized = report::OptimizeModel(file->view(), optimize);
        if (!optimized.ok()) return PrintError(optimized.status());
        {
          std::ofstream out(options->output_path, std::ios::binary);
          out.write(reinterpret_cast<const char*>(optimized->bytes.data()),
                    static_cast<std::streamsize>(optimized->bytes.size()));
          if (!out) {
            return PrintError(Status::Error(ErrorCode::kIoError, "%s: cannot write (%s)", options->output_path.c_str(),
                                            std::strerror(errno)));
          }
        }
        // The proof is on the file as written: read back from disk.
        Result<ModelFile> reread = ModelFile::Open(options->output_path);
        if (!reread.ok()) return PrintError(reread.status());
        Result<report::OptimizeCheck> check =
            report::CheckOptimizedModel(file->view(), reread->view(), *optimized, optimize);
        if (!check.ok()) {
          Status status = check.status();
          return PrintError(status.Prefix(options->output_path.c_str()));
        }
        if (options->json) {
          std::printf(
              "%s\n",
              report::OptimizeJson(file->path(), options->output_path, optimize, *optimized, *check).dump(2).c_str());
        } else {
          std::fputs(report::OptimizeText(options->output_path, optimize, *optimized, *check).c_str(), stdout);
        }
        if (!check->outputs_identical) {
          std::fprintf(stderr, "error: %s gives different outputs than %s\n", options->output_path.c_str(),
                       options->model_path.c_str());
          return kExitError;
        }
        return kExitOk;
      }};
}

}  // namespace microarena::cli
