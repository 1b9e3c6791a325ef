// `microarena plan MODEL`: lifetimes, a planner, the checker, and the result.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "microarena/model/model_file.h"
#include "microarena/plan/optimal.h"
#include "microarena/plan/problem_csv.h"
#include "microarena/report/arena_header.h"
#include "microarena/report/format.h"
#include "microarena/report/html_report.h"
#include "microarena/report/model_plan.h"
#include "microarena/report/plan_job.h"
#include "microarena/report/plan_report.h"
#include "microarena/report/shared_plan_report.h"
#include "microarena/report/tflm_arena.h"
#include "microarena/report/timeline.h"
#include "microarena/runtime/host_runner.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {
namespace {

Status WriteHeaderFile(const std::string& path, const std::string& namespace_name, const std::string& command_line,
                       const ModelFile& file, const InterpreterOptions& runtime_options, const report::ModelPlan& plan,
                       const PrecomputedPlanData* precomputed, const std::vector<TiledSegment>& tiling) {
  report::ArenaHeaderInput input;
  input.model_label = file.path();
  Span<const uint8_t> bytes = file.view().bytes();
  input.model_size_bytes = bytes.size();
  input.model_sha256 = report::Sha256(bytes.data(), bytes.size());
  input.options = runtime_options;
  input.figures = plan.runtime;
  input.model_has_offline_plan = plan.has_offline_plan;
  input.namespace_name = namespace_name;
  input.command_line = command_line;
  input.precomputed = precomputed;
  input.tiling = tiling;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::Error(ErrorCode::kIoError, "%s: cannot open the header for writing", path.c_str());
  out << report::ArenaHeader(input);
  out.close();
  if (!out) return Status::Error(ErrorCode::kIoError, "%s: writing the header failed", path.c_str());
  return OkStatus();
}

// `plan MODEL --runtime tflm`: stock TFLM's arena, predicted.
int PrintTflmArena(const std::string& model_path, const std::string& target, bool json) {
  Result<ModelFile> file = ModelFile::Open(model_path);
  if (!file.ok()) return PrintError(file.status());
  const report::TflmLayout& layout = target == "cortex-m" ? report::TflmCortexMLayout() : report::TflmHostLayout();
  Result<report::TflmArenaPrediction> prediction = report::PredictTflmArena(file->view(), layout);
  if (!prediction.ok()) {
    Status status = prediction.status();
    return PrintError(status.Prefix(model_path.c_str()));
  }
  if (json) {
    std::printf("%s\n", report::TflmArenaJson(model_path, *prediction).dump(2).c_str());
  } else {
    std::fputs(report::TflmArenaText(model_path, *prediction).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace

Command RegisterPlanCommand(CLI::App& app) {
  struct Options {
    std::vector<std::string> model_paths;
    std::string model_path;  // the first of model_paths
    std::string order = "stored";
    std::string planner;
    size_t alignment_bytes = 16;
    double time_limit_seconds = 10.0;
    bool json = false;
    std::string format = "text";
    bool timeline = false;
    size_t columns = 100;
    std::string html_path;
    std::string csv_path;
    size_t name_width = 34;
    std::string header_path;
    std::string header_namespace = "microarena_arena";
    bool overlap = false;
    bool precomputed_plan = false;
    bool trust_offline_plan = false;
    bool tile = false;
    std::string runtime;  // empty: microarena's own plan; "tflm": stock TFLM's arena
    std::string target = "host";
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub =
      app.add_subcommand("plan",
                         "Plan the head (the reusable activation + scratch area) of a model's tensor arena and\n"
                         "show it: head size, lower bound (largest bytes live at one op step), the gap between\n"
                         "them, the planner used and whether the plan is proven optimal, the heads the other\n"
                         "planners would need, and one row per buffer (kind, owner, bytes, lifetime as op steps\n"
                         "[first, end), offset). Every plan is verified by an independent checker.\n"
                         "With several models: one shared arena for models run one after another (the head is\n"
                         "shared, the persistent areas are separate), measured in a real SharedArena.");
  sub->add_option("MODEL", options->model_paths, "the .tflite file (several: plan one shared arena)")->required();
  sub->add_option("--order", options->order,
                  "stored: the model's operator order; best: the execution order with the smallest\n"
                  "peak (exact search over the sets of executed ops, proven within its limits; write it\n"
                  "into a model with `optimize --order best`)")
      ->default_val("stored")
      ->check(CLI::IsMember({"stored", "best"}));
  sub->add_option("--planner", options->planner,
                  "optimal (exact, anytime; the default), greedy (our device heuristic), greedy-tflm\n"
                  "(TFLM's GreedyMemoryPlanner, byte for byte), linear (no reuse), offline (the\n"
                  "model's OfflineMemoryAllocation offsets; the default when the model has them)")
      ->check(CLI::IsMember({"optimal", "greedy", "greedy-tflm", "linear", "offline"}));
  sub->add_option("--align", options->alignment_bytes, "buffer alignment in bytes; sizes round up to it")
      ->default_val(16)
      ->check(CLI::IsMember({4, 8, 16, 32, 64}));
  sub->add_option("--time-limit", options->time_limit_seconds,
                  "seconds the optimal planner may search; it returns the best plan found and says\n"
                  "whether it is proven optimal (0 = no limit)")
      ->default_val(10.0)
      ->check(Seconds(86400.0));
  sub->add_flag("--json", options->json, "print one JSON document instead of text (same as --format json)");
  sub->add_option("--format", options->format, "text (the memory plan dump; the default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  sub->add_flag("--timeline", options->timeline,
                "also print the timeline: one row per op step, offsets across, every live buffer\n"
                "drawn with a legend character");
  sub->add_option("--html", options->html_path,
                  "also write the plan as one self-contained HTML page (SVG chart of the head, the\n"
                  "persistent area by use, the tables of the text dump)");
  sub->add_option("--columns", options->columns, "width of the timeline's rows in characters (80 to 1000)")
      ->default_val(100)
      ->check(CLI::Range(80, 1000));
  sub->add_flag("--overlap", options->overlap,
                "let an op's output share bytes with an input that dies there where the kernel\n"
                "approves it (elementwise in place, convolutions and pools with a row lag); the plan\n"
                "without overlap is kept when its arena is no larger (both are measured)");
  sub->add_flag("--tile", options->tile,
                "run runs of CONV_2D, DEPTHWISE_CONV_2D, pools, PAD, ADD and RELU band by band so that\n"
                "their inner feature maps are windows of rows, not whole (docs/tiling.md): searches the\n"
                "segments and rows per band that make the head smallest; line buffers, 0 extra MACs.\n"
                "A model that carries a tiling (optimize --tile) is planned with it without --tile.\n"
                "With --header: the header is for a firmware that runs the model tiled and carries\n"
                "the segments (without --tile a header describes the model run whole).\n"
                "With --order best: tiled in the best order and in the stored one, the smaller arena kept");
  sub->add_flag("--trust-offline-plan", options->trust_offline_plan,
                "measure the runtime figures with the model's offline plan trusted where it puts live\n"
                "tensors in shared bytes (as TFLM does; Arm Vela's output). The plan itself always\n"
                "shows the offline offsets as given");
  sub->add_option("--csv", options->csv_path,
                  "also write the planning problem in MiniMalloc's CSV form (id,lower,upper,size)");
  sub->add_option("--name-width", options->name_width, "cut owner names to this many characters in text")
      ->default_val(34)
      ->check(CLI::Range(8, 4096));
  sub->add_option("--header", options->header_path,
                  "write a C++17 header for the firmware: kTensorArenaSize and the other figures the\n"
                  "runtime measured with these options, the model's SHA-256, and static_assert checks\n"
                  "that fail the firmware build when the model or the options change");
  sub->add_flag("--precomputed-plan", options->precomputed_plan,
                "with --header: also write the head's layout (every tensor's and scratch buffer's\n"
                "offset), planned here with --planner (optimal: the exact planner, within\n"
                "--time-limit), so the device allocates with AllocateTensors(PrecomputedPlanOf<...>())\n"
                "and links no planner. The runtime figures are then those of that call: no lifetime\n"
                "analysis or planner memory in temp, no scratch table in the persistent area");
  sub->add_option("--target", options->target,
                  std::string("the device the runtime figures (persistent area, temp peak, arena, --header) are "
                              "for: ") +
                      TargetLayoutNames() +
                      ". cortex-m: 32-bit Arm, whose tensor and op records are smaller; the figures are exact "
                      "for it, not bounds. With --runtime tflm: the struct sizes of TFLM's build for it")
      ->default_val("host");
  sub->add_option("--header-namespace", options->header_namespace,
                  "namespace of the header's constants (one per model when a firmware holds several)")
      ->default_val("microarena_arena");
  sub->add_option("--runtime", options->runtime,
                  "tflm: instead of microarena's plan, predict the tensor arena stock TFLM needs for the\n"
                  "model (tflite-micro 90b983c2, reference kernels, GreedyMemoryPlanner, MicroInterpreter\n"
                  "with a MicroMutableOpResolver), to the byte: the minimum arena (kTensorArenaSize), the\n"
                  "head/tail split, the tail by use, and the temporary memory of Prepare and planning that\n"
                  "can make the minimum exceed arena_used_bytes(). Ops it cannot model exactly are named\n"
                  "in an error instead of a number. Takes one MODEL, --target, --json/--format")
      ->check(CLI::IsMember({"tflm"}));
  return {
      sub, [options, sub]() -> int {
        const TargetLayout* target = FindTargetLayout(options->target.c_str());
        if (target == nullptr) {
          return UsageError("--target '%s' is unknown (use one of: %s)", options->target.c_str(), TargetLayoutNames());
        }
        if (options->json && sub->count("--format") > 0 && options->format != "json") {
          return UsageError("--json asks for JSON and --format for %s: give one", options->format.c_str());
        }
        if (options->runtime == "tflm") {
          for (const char* name : {"--order", "--planner", "--align", "--time-limit", "--timeline", "--html", "--tile",
                                   "--columns", "--overlap", "--trust-offline-plan", "--csv", "--name-width",
                                   "--header", "--header-namespace", "--precomputed-plan"}) {
            if (sub->count(name) > 0) {
              return UsageError(
                  "%s does not apply with --runtime tflm (which takes one MODEL, --target and --json/--format)", name);
            }
          }
          if (options->model_paths.size() != 1) {
            return UsageError("--runtime tflm predicts the arena of one MODEL; %zu were given",
                              options->model_paths.size());
          }
          return PrintTflmArena(options->model_paths.front(), options->target,
                                options->json || options->format == "json");
        }
        if (!options->header_path.empty() && !report::IsValidHeaderNamespace(options->header_namespace)) {
          return UsageError(
              "--header-namespace '%s' is not a usable C++ identifier (letters, digits and '_', not starting "
              "with a digit, '__' or '_' + capital, not a keyword)",
              options->header_namespace.c_str());
        }
        if (options->format == "json") options->json = true;
        if (options->model_paths.size() > 1 && target != &HostLayout()) {
          return UsageError("--target %s takes one model (a shared arena is counted on the host)",
                            options->target.c_str());
        }
        options->model_path = options->model_paths.front();
        if (sub->count("--header-namespace") > 0 && options->header_path.empty()) {
          return UsageError("--header-namespace names the header's namespace: give --header FILE");
        }
        if (options->precomputed_plan && options->header_path.empty()) {
          return UsageError("--precomputed-plan writes the plan into the header: give --header FILE");
        }
        if (options->order == "best" && !options->header_path.empty()) {
          return UsageError(
              "--header describes the model file as it is; for the best order, write that model first "
              "(microarena optimize MODEL -o OUT.tflite --order best) and run plan OUT.tflite --header");
        }
        if (options->tile && options->model_paths.size() > 1) {
          return UsageError("--tile takes one model");
        }
        if (options->model_paths.size() > 1) {
          if (sub->count("--header") > 0 || sub->count("--html") > 0 || sub->count("--csv") > 0 ||
              options->timeline || options->order != "stored" || options->overlap) {
            return UsageError(
                "with several models plan prints the shared arena only; --header, --html, --csv, "
                "--timeline, --order and --overlap take one model");
          }
          Result<report::SharedPlanReport> shared = report::BuildSharedPlanReport(
              options->model_paths, report::RuntimeOptionsFor(options->planner, options->alignment_bytes));
          if (!shared.ok()) return PrintError(shared.status());
          if (options->json) {
            std::printf("%s\n", report::SharedPlanJson(*shared).dump(2).c_str());
          } else {
            std::fputs(report::SharedPlanText(*shared).c_str(), stdout);
          }
          return kExitOk;
        }
        if (int code = CheckOutputPaths(*sub,
                                        {{"--csv", options->csv_path},
                                         {"--header", options->header_path},
                                         {"--html", options->html_path}},
                                        options->model_paths);
            code != kExitOk) {
          return code;
        }
        Result<ModelFile> file = ModelFile::Open(options->model_path);
        if (!file.ok()) return PrintError(file.status());
        report::PlanJobOptions job_options;
        job_options.plan.planner = options->planner;
        job_options.plan.alignment_bytes = options->alignment_bytes;
        job_options.plan.time_limit_seconds = options->time_limit_seconds;
        job_options.plan.overlap = options->overlap;
        job_options.best_order = options->order == "best";
        job_options.trust_offline_plan = options->trust_offline_plan;
        job_options.precomputed_plan = options->precomputed_plan;
        job_options.target = target;
        job_options.tile = options->tile;
        // A header's firmware runs the model whole (no TiledExecution) unless
        // --tile asks for one that runs it tiled: the stored tiling, or one searched.
        job_options.use_stored_tiling = options->header_path.empty() || options->tile;
        const bool show_progress = ::isatty(STDERR_FILENO) != 0 && !options->json;
        if (show_progress) {
          job_options.plan.progress = [](const OptimalProgress& p) {
            std::fprintf(stderr, "\r[optimal] %6.1f s  best %s  bound %s  nodes %llu   ", p.elapsed_seconds,
                         report::Bytes(p.best_head_bytes).c_str(), report::Bytes(p.lower_bound_bytes).c_str(),
                         static_cast<unsigned long long>(p.nodes));
            std::fflush(stderr);
          };
        }
        Result<report::PlanJob> job = report::RunPlanJob(*file, job_options);
        if (show_progress) std::fprintf(stderr, "\r%80s\r", "");
        if (!job.ok()) return PrintError(job.status());
        const report::ModelPlan& plan = job->plan;
        const InterpreterOptions& runtime_options = job->runtime_options;
        const std::optional<PrecomputedPlanData>& precomputed = job->precomputed;
        // With --order best --tile the plan may be of the model stored in that order.
        const ModelFile& planned_file = report::PlannedFile(*file, *job);
        if (!options->header_path.empty() && !plan.has_runtime) {
          return PrintError(Status::Error(ErrorCode::kUnsupported,
                                          "%s: no header: the runtime cannot allocate this model (%s)",
                                          options->model_path.c_str(), plan.runtime_note.c_str()));
        }
        if (!options->csv_path.empty()) {
          ProblemCsv problem;
          problem.buffers = plan.buffers;
          problem.ids = report::ProblemCsvIds(plan.buffers);
          Status written = WriteProblemCsv(options->csv_path, problem, Span<const size_t>());
          if (!written.ok()) return PrintError(written);
        }
        if (!options->header_path.empty()) {
          std::string command_line = "microarena plan " + options->model_path;
          if (!options->planner.empty()) command_line += " --planner " + options->planner;
          command_line += " --align " + std::to_string(options->alignment_bytes);
          if (target != &HostLayout()) command_line += " --target " + options->target;
          if (options->header_namespace != "microarena_arena") {
            command_line += " --header-namespace " + options->header_namespace;
          }
          if (options->overlap) command_line += " --overlap";
          if (options->tile) command_line += " --tile";
          if (precomputed) command_line += " --precomputed-plan";
          command_line += " --header " + options->header_path;
          Status written = WriteHeaderFile(options->header_path, options->header_namespace, command_line, *file,
                                           runtime_options, plan, precomputed ? &*precomputed : nullptr,
                                           options->tile ? plan.tiling : std::vector<TiledSegment>());
          if (!written.ok()) return PrintError(written);
        }
        if (!options->html_path.empty()) {
          std::ofstream html(options->html_path, std::ios::binary | std::ios::trunc);
          html << report::PlanHtml(planned_file.view(), file->path(), plan);
          html.close();
          if (!html) {
            return PrintError(Status::Error(ErrorCode::kIoError, "%s: cannot write the HTML report (%s)",
                                            options->html_path.c_str(), std::strerror(errno)));
          }
        }
        if (options->json) {
          const nlohmann::json doc = report::PlanJobJson(*file, *job);
          std::printf("%s\n", doc.dump(2).c_str());
        } else {
          if (job->reorder) std::fputs(report::OrderText(*job).c_str(), stdout);
          report::PlanTextOptions text_options;
          text_options.name_width = options->name_width;
          std::fputs(report::PlanText(planned_file.view(), file->path(), plan, text_options).c_str(), stdout);
          if (job->tiling) {
            std::fputs(report::TilingText(planned_file.view(), *job->tiling, plan).c_str(), stdout);
          }
          if (options->overlap && !job->overlap_used) {
            std::printf("\noverlap not used: the arena without it is no larger (with it: %s)\n",
                        report::Bytes(job->overlap_arena_bytes).c_str());
          }
          if (options->timeline) {
            report::TimelineOptions timeline_options;
            timeline_options.columns = options->columns;
            timeline_options.name_width = options->name_width;
            std::printf("\n%s", report::PlanTimeline(planned_file.view(), plan, timeline_options).c_str());
          }
        }
        return kExitOk;
      }};
}

}  // namespace microarena::cli
