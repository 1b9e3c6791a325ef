// `microarena run MODEL`: run a model in exactly its minimum arena.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "microarena/model/model_file.h"
#include "microarena/report/run_job.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {
namespace {

PlannerChoice ParsePlanner(const std::string& name) {
  if (name == "linear") return PlannerChoice::kLinear;
  if (name == "greedy-tflm") return PlannerChoice::kGreedyTflm;
  if (name == "greedy") return PlannerChoice::kGreedy;
  if (name == "offline") return PlannerChoice::kOffline;
  return PlannerChoice::kAuto;
}

}  // namespace

Command RegisterRunCommand(CLI::App& app) {
  struct Options {
    std::string model_path;
    std::vector<std::string> input_paths;
    std::string output_dir = ".";
    size_t arena_bytes = 0;
    uint32_t seed = 1;
    int repeat = 1;
    std::string planner = "auto";
    size_t alignment_bytes = 16;
    bool copy_weights = false;
    bool json = false;
    bool overlap = false;
    bool tile = false;
    bool trust_offline_plan = false;
    std::string dump_dir;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "run",
      "Run a model in one arena with microarena's kernels (bit-exact with TFLM's reference kernels).\n"
      "Without --arena the arena is exactly the minimum the model needs. Inputs come from --input\n"
      "files (raw bytes, one per model input, in order) or from the golden input generator with\n"
      "--seed. Writes output_<i>.bin into --output-dir and prints the arena figures (persistent,\n"
      "head, temp peak, total), the outputs (top-5 classes for classifiers) and the Invoke time.");
  sub->add_option("MODEL", options->model_path, "the .tflite file")->required();
  sub->add_option("--input", options->input_paths, "raw input file for input i (repeat for several inputs)");
  sub->add_option("--output-dir", options->output_dir,
                  "where output_<i>.bin are written (made with its parents if missing)")
      ->default_val(".");
  sub->add_option("--arena", options->arena_bytes,
                  "arena size in bytes, at most 1 GiB (0 or not given: the exact minimum; too small: exit 3)")
      ->check(NotNegative())
      ->check(CLI::Range(size_t{0}, HostArena::kMaxBytes));
  sub->add_option("--seed", options->seed, "seed of the input generator for inputs not given")
      ->default_val(1)
      ->check(NotNegative());
  sub->add_option("--repeat", options->repeat, "Invoke this many times and report the mean time")
      ->default_val(1)
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--planner", options->planner,
                  "auto (offline plan if the model has one, else greedy), greedy, greedy-tflm, linear, offline")
      ->default_val("auto")
      ->check(CLI::IsMember({"auto", "greedy", "greedy-tflm", "linear", "offline"}));
  sub->add_option("--align", options->alignment_bytes, "buffer alignment in bytes")
      ->default_val(16)
      ->check(CLI::IsMember({4, 8, 16, 32, 64}));
  sub->add_flag("--copy-weights", options->copy_weights, "copy constant weights into the arena's persistent area");
  sub->add_flag("--json", options->json, "print one JSON document instead of text");
  CLI::Option* dump =
      sub->add_option("--dump-tensors", options->dump_dir,
                      "write every non-constant tensor after Invoke to DIR as tensor_s<subgraph>_t<index>.bin, with\n"
                      "DIR/tensors.txt (index, name, type, shape, scale, zero point): the format of TFLM's\n"
                      "tensor dumps, to find the first layer where two runs part. Runs with every tensor\n"
                      "preserved (linear plan), as such dumps are made");
  CLI::Option* overlap =
      sub->add_flag("--overlap", options->overlap,
                    "plan with the overlaps the kernels approve (an op's output sharing bytes with an\n"
                    "input that dies there), with the exact planner unless --planner names one;\n"
                    "used only when it makes the arena smaller (both are measured); outputs stay bit-exact");
  dump->excludes(overlap);
  CLI::Option* tile = sub->add_flag("--tile", options->tile,
                                    "run runs of spatial ops band by band, as `plan --tile` chooses (their inner\n"
                                    "feature maps kept as windows of rows); outputs stay bit-exact");
  dump->excludes(tile);
  sub->add_flag("--trust-offline-plan", options->trust_offline_plan,
                "accept the model's offline plan (OfflineMemoryAllocation) where it puts live tensors\n"
                "in shared bytes, as TFLM does: Arm Vela's output does so on purpose. Only for models\n"
                "from a trusted compiler; without it such a plan is refused as corrupted");
  return {sub, [options, dump]() -> int {
            if (options->output_dir.empty()) return UsageError("--output-dir is empty (use . for this folder)");
            if (dump->count() > 0 && options->dump_dir.empty()) return UsageError("--dump-tensors is empty");
            Result<ModelFile> file = ModelFile::Open(options->model_path);
            if (!file.ok()) return PrintError(file.status());
            RunOptions run;
            run.interpreter.planner = ParsePlanner(options->planner);
            run.interpreter.alignment_bytes = options->alignment_bytes;
            run.interpreter.copy_weights_to_arena = options->copy_weights;
            run.interpreter.allow_overlap = options->overlap;
            run.interpreter.trust_offline_plan = options->trust_offline_plan;
            if (!options->dump_dir.empty()) {
              run.interpreter.preserve_all_tensors = true;
              run.capture_tensors = true;
            }
            run.arena_bytes = options->arena_bytes;
            run.seed = options->seed;
            run.repeat = options->repeat;
            for (const std::string& path : options->input_paths) {
              Result<std::vector<uint8_t>> bytes = ReadFileBytes(path);
              if (!bytes.ok()) return PrintError(bytes.status());
              run.inputs.push_back(*bytes);
            }
            report::RunJobOptions job_options;
            job_options.run = run;
            // With --overlap and no planner named, the exact planner (under a
            // node limit) plans the head.
            job_options.exact_overlap_plan = options->overlap && options->planner == "auto";
            job_options.tile = options->tile;
            size_t exact_minimum_bytes = 0;
            Result<report::RunJob> job = report::RunModelJob(file->view(), job_options, &exact_minimum_bytes);
            if (!job.ok()) {
              Status status = job.status();
              status.Prefix(options->model_path.c_str());
              if (exact_minimum_bytes == 0) return PrintError(status);
              std::fprintf(stderr, "error: %s (--arena %zu B; the exact minimum arena for this model is %zu B)\n",
                           status.message(), options->arena_bytes, exact_minimum_bytes);
              return ExitCodeFor(status.code());
            }
            // Both folders are made (with their parents) before anything is written.
            Status made = MakeDirectories(options->output_dir);
            if (!made.ok()) return PrintError(made.Prefix("--output-dir"));
            if (!options->dump_dir.empty()) {
              made = MakeDirectories(options->dump_dir);
              if (!made.ok()) return PrintError(made.Prefix("--dump-tensors"));
            }
            report::RunReportInput report_input;
            report_input.model_path = file->path();
            report_input.dump_dir = options->dump_dir;
            report_input.repeat = options->repeat;
            report_input.overlap = options->overlap;
            const RunResult& result = job->result;
            for (size_t o = 0; o < result.outputs.size(); ++o) {
              std::string path = options->output_dir + "/output_" + std::to_string(o) + ".bin";
              std::ofstream out(path, std::ios::binary);
              out.write(reinterpret_cast<const char*>(result.outputs[o].data()),
                        static_cast<std::streamsize>(result.outputs[o].size()));
              if (!out) {
                return PrintError(
                    Status::Error(ErrorCode::kIoError, "%s: cannot write (%s)", path.c_str(), std::strerror(errno)));
              }
              report_input.output_paths.push_back(path);
            }
            if (!options->dump_dir.empty()) {
              Status dumped = report::WriteTensorDump(file->view(), result.tensors, options->dump_dir);
              if (!dumped.ok()) return PrintError(dumped.Prefix("--dump-tensors"));
            }
            if (options->json) {
              std::printf("%s\n", report::RunJson(file->view(), *job, report_input).dump(2).c_str());
            } else {
              std::fputs(report::RunText(file->view(), *job, report_input).c_str(), stdout);
            }
            return kExitOk;
          }};
}

}  // namespace microarena::cli
